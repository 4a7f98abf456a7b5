"""The general reader's Unix tools (wrapper/derive/frameworks/generic/systools.py) on output copied from real threads."""
from __future__ import annotations

from wrapper.derive import frameworks


def figures(lines: list) -> list:
    (rep,) = frameworks.parse_lines(lines)
    return [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]


def test_free_rows_by_their_header_and_binary_suffixes():
    # free -h on a Jetson (ggml-org/llama.cpp issue #27725, 2026-08)
    got = figures(["               total        used        free      shared  buff/cache   available",
                   "Mem:           7.4Gi       2.7Gi       2.2Gi        10Mi       2.5Gi       4.5Gi",
                   "Swap:           11Gi       372Mi        11Gi"])
    assert got == [("Mem total", 7.4, "GiB"), ("Mem used", 2.7, "GiB"), ("Mem free", 2.2, "GiB"),
                   ("Mem shared", 10, "MiB"), ("Mem buff/cache", 2.5, "GiB"), ("Mem available", 4.5, "GiB"),
                   ("Swap total", 11, "GiB"), ("Swap used", 372, "MiB"), ("Swap free", 11, "GiB")]
    # free -w splits buff/cache: the header says which column is which; a plain number's unit is the flags' (unsaid)
    got = figures(["              total        used        free      shared     buffers       cache   available",
                   "Mem:          15Gi       3.1Gi       8.0Gi       1.0Mi       100Mi       4.2Gi        12Gi",
                   "Mem:       16232336     3262828     8388608"])
    assert ("Mem buffers", 100, "MiB") in got and ("Mem cache", 4.2, "GiB") in got
    assert ("Mem total", 16232336, None) in got  # KiB by default, MiB with -m: a value, no unit


def test_tops_summary_and_process_row():
    # top on a Dynamo vLLM worker (ai-dynamo/dynamo issue #515, 2025-04)
    got = figures([
        "top - 17:13:10 up 211 days, 18:13,  0 user,  load average: 2056.81, 1932.66, 1972.64",
        "Tasks:   9 total,   1 running,   8 sleeping,   0 stopped,   0 zombie",
        "%Cpu(s):  1.4 us, 98.5 sy,  0.0 ni,  0.0 id,  0.0 wa,  0.0 hi,  0.1 si,  0.0 st ",
        "MiB Mem : 2063985.+total, 975160.8 free, 511162.2 used, 604513.6 buff/cache     ",
        "    211 bentoml   20   0  125.6g   5.6g   4.4g S 100.7   0.3  29:36.49 python3"])
    assert {("load average 1 min", 2056.81, None), ("tasks running", 1, None), ("CPU system", 98.5, "%"), ("CPU idle", 0, "%"),
            ("Mem free", 975160.8, "MiB"), ("python3 RES", 5.6, "GiB"), ("python3 CPU", 100.7, "%"),
            ("python3 CPU time", 1776.49, "s")} <= set(got)
    assert all(value != 2063985 for _, value, _ in got)  # "2063985.+": cut by top, no value
    # its summary lines glued by a paste that lost their newlines (ollama issue #6901, 2024-09; held-out round 142)
    got = figures(["top - 11:29:21 up 21 days, 19:09,  2 users,  load average: 28.07, 16.55, 7.01Tasks: 528 total,   3 "
                   "running%Cpu(s): 88.3 us,  1.8 idMiB Mem :  63857.0 total,   2803.0 free"])
    assert got == [("load average 1 min", 28.07, None), ("load average 5 min", 16.55, None),
                   ("load average 15 min", 7.01, None), ("tasks total", 528, None), ("tasks running", 3, None),
                   ("CPU user", 88.3, "%"), ("CPU idle", 1.8, "%"), ("Mem total", 63857.0, "MiB"), ("Mem free", 2803.0, "MiB")]


def test_df_rows_by_mount_point():
    # df -h on an H20 host (ServerlessLLM issue #193, 2025-01)
    got = figures(["Filesystem      Size  Used Avail Use% Mounted on",
                   "tmpfs           504G  4.2M  504G   1% /run",
                   "/dev/nvme0n1p3   59G   44G   12G  79% /"])
    assert got == [("/run size", 504, "GiB"), ("/run used", 4.2, "MiB"), ("/run avail", 504, "GiB"), ("/run use", 1, "%"),
                   ("/ size", 59, "GiB"), ("/ used", 44, "GiB"), ("/ avail", 12, "GiB"), ("/ use", 79, "%")]


def test_dd_summary_and_a_ten_digit_count_that_is_no_epoch_prefix():
    # dd reading a raw NVMe device (huggingface/safetensors issue #496, 2024-07)
    got = figures(["1+0 records in", "1+0 records out",
                   "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 4.74373 s, 226 MB/s"])
    assert ("copied", 1073741824, "B") in got and ("copy time", 4.74373, "s") in got
    assert ("copy rate", 226, "MB/s") in got and ("records in partial", 0, None) in got
    rest, when = frameworks.strip_prefix("1795999052.885986 prompt eval time = 12 ms")
    assert when is not None and rest.startswith("prompt")  # moreutils ts '%.s': an epoch time of 2026 still is one


def test_curls_progress_meter():
    # curl against a Spice.ai runtime (spiceai/spiceai issue #7146, 2025-09): curl's "k" is 1024 bytes
    got = figures(["  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current",
                   "                                 Dload  Upload   Total   Spent    Left  Speed",
                   "100  8623  100  8623    0     0  8996k      0 --:--:-- --:--:-- --:--:-- 8420k"])
    assert {("curl received", 8623, "B"), ("curl received share", 100, "%"), ("curl average download speed", 8996, "KiB/s"),
            ("curl current speed", 8420, "KiB/s")} <= set(got)
    got = figures(["100 1234M  100 1234M    0     0  112M      0  0:00:11  0:00:11 --:--:--  115M"])
    assert ("curl time spent", 11, "s") in got and ("curl total", 1234, "MiB") in got


def test_rocm_smis_current_clock_level_only():
    # rocm-smi --showclocks on an RX 6750 GRE (legacy-rocm-build issue #3157, 2024-05): the starred level is current
    got = figures(["GPU[0] : Supported dcefclk frequencies on GPU0", "GPU[0] : 0: 417Mhz", "GPU[0] : 1: 480Mhz *",
                   "GPU[0] : 2: 1200Mhz", "GPU[0] :", "GPU[0] : Supported PCIe frequencies on GPU0",
                   "GPU[0] : 0: 16.0GT/s x16 *"])
    assert got == [("GPU 0 dcefclk current", 480, "MHz"), ("GPU 0 PCIe current", 16, "GT/s")]


def test_go_test_bench_rows():
    # go test -bench over a Go binding's llama.cpp inference (hybridgroup/yzma, 2025): iterations, then each
    # "number unit" pair, the benchmark's own tokens/s among them; the usual tab-separated row too
    assert figures(["BenchmarkInference-32                 99         110913774 ns/op               270.5 tokens/s"]) \
        == [("BenchmarkInference-32 iterations", 99, None), ("BenchmarkInference-32", 110913774, "ns/op"),
            ("BenchmarkInference-32", 270.5, "tokens/s")]
    got = figures(["BenchmarkFoo-8   \t 1000000\t      1234 ns/op\t     128 B/op\t       2 allocs/op"])
    assert got[2:] == [("BenchmarkFoo-8 bytes/op", 128, "B"), ("BenchmarkFoo-8 allocs/op", 2, None)]


def test_a_note_pointing_back_at_a_figure():
    # ollama-benchmark's README (cloudmercato, 2024): "prompt_eval_rate_mean: 198.05…  <-- Valuable"
    assert [v for _, v, _ in figures(["  prompt_eval_rate_mean: 198.05534409021422  <-- Valuable"])] \
        == [198.05534409021422]


def test_intel_mlc_node_matrices_and_loaded_latency_rows():
    # Intel Memory Latency Checker v3.11b on a Threadripper (a Level1Techs forum post, 2025-02; held-out round 132),
    # its columns' spaces collapsed by the paste
    got = figures(["Measuring idle latencies for random access (in ns)...", "Numa node", "Numa node 0", "0 95.3",
                   "Measuring Memory Bandwidths between nodes within system", "Bandwidths are in MB/sec",
                   "Using all the threads from each core if Hyper-threading is enabled", "Using Read-only traffic type",
                   "Numa node", "Numa node 0", "0 221419.9",
                   "Measuring Loaded Latencies for the system", "Inject Latency Bandwidth", "Delay (ns) MB/sec",
                   "==========================", "00000 412.79 222680.1", "00002 417.48 222670.9",
                   "00008 429.14 222643.9", "", "00015 999.9 1.5"])
    assert got == [("idle latencies for random access node 0 -> node 0", 95.3, "ns"),
                   ("Memory Bandwidths between nodes within system node 0 -> node 0", 221419.9, "MB/s"),
                   ("latency at inject delay 00000", 412.79, "ns"),
                   ("bandwidth at inject delay 00000", 222680.1, "MB/s"),
                   ("latency at inject delay 00002", 417.48, "ns"),
                   ("bandwidth at inject delay 00002", 222670.9, "MB/s"),
                   ("latency at inject delay 00008", 429.14, "ns"),
                   ("bandwidth at inject delay 00008", 222643.9, "MB/s")]  # a row after a gap is no row of it
    (rep,) = frameworks.parse_lines(["Inject Latency Bandwidth", "Delay (ns) MB/sec", "=====", "00000 412.79 222680.1"])
    assert rep["load_ms"] is None and rep["ttft_ms"] is None  # a memory latency is no phase of a run
    # its own tab-separated layout, a matrix of four nodes (prima.cpp issue #21, 2025-05; held-out round 138)
    got = figures(["Measuring idle latencies for sequential access (in ns)...", "\t\tNuma node",
                   "Numa node\t     0\t     1\t", "       0\t  90.3\t 236.2\t", "       1\t 141.8\t  93.4\t"])
    assert got == [(f"idle latencies for sequential access node {a} -> node {b}", v, "ns")
                   for a, b, v in ((0, 0, 90.3), (0, 1, 236.2), (1, 0, 141.8), (1, 1, 93.4))]


def test_llama_cpps_device_list_total_and_free():
    # llama-cli --list-devices with two RPC endpoints (ggml-org/llama.cpp PR #16276, 2025-10; held-out round 138)
    got = figures(["Available devices:", "  RPC[192.168.88.34:50052]: RPC[192.168.88.34:50052] (32109 MiB, 31588 MiB free)",
                   "  CUDA0: NVIDIA GeForce 940MX (2002 MiB, 1974 MiB free)"])
    assert got == [("RPC[192.168.88.34:50052] memory total", 32109, "MiB"),
                   ("RPC[192.168.88.34:50052] memory free", 31588, "MiB"),
                   ("CUDA0 memory total", 2002, "MiB"), ("CUDA0 memory free", 1974, "MiB")]


def test_pytests_summary():
    # Liger-Kernel's test run (linkedin/Liger-Kernel issue, 2024-08; held-out round 140)
    got = figures(["==================== 12 passed in 31.61s ====================",
                   "=== 3 failed, 1 skipped, 2 warnings in 1.20s (0:00:01) ==="])
    assert got == [("tests passed", 12, None), ("tests time", 31.61, "s"), ("tests failed", 3, None),
                   ("tests skipped", 1, None), ("tests warnings", 2, None), ("tests time", 1.2, "s")]


def test_iperf3_intervals():
    # an iperf3 server's baseline before a weight download (held-out round 141): bytes in binary multiples, bits decimal
    got = figures(["[ ID] Interval           Transfer     Bitrate", "[  5]   0.00-1.00   sec  1.32 GBytes  11.3 Gbits/sec",
                   "[  5]   0.00-30.00  sec  39.4 GBytes  11.3 Gbits/sec                  receiver"])
    assert got == [("transfer (0.00-1.00 s)", 1.32, "GiB"), ("bitrate (0.00-1.00 s)", 11.3, "Gbit/s"),
                   ("transfer (receiver 0.00-30.00 s)", 39.4, "GiB"), ("bitrate (receiver 0.00-30.00 s)", 11.3, "Gbit/s")]


def test_dcgm_exporter_fields_by_their_documented_units():
    # dcgm-exporter scraped on an H100 node serving ollama (NVIDIA/dcgm-exporter issue; held-out round 141): the pod's
    # name in a label value is no evidence of ollama
    (rep,) = frameworks.parse_lines([
        'DCGM_FI_DEV_MEMORY_TEMP{gpu="1",device="nvidia1",container="ollama",pod="ollama-76f687f4cd-xcvvp"} 42',
        'DCGM_FI_DEV_POWER_USAGE{gpu="1",device="nvidia1"} 312.5'])
    assert rep["framework"] == "unknown"
    assert [(f["value"], f["unit"]) for f in rep["figures"]] == [(42, "\u00b0C"), (312.5, "W")]


def test_mlperf_loadgens_early_stopping_bullets():
    # MLPerf loadgen's summary (mlcommons/inference issue, 2024-02; held-out round 142): "stopping" holds no top_p
    got = figures(["90th percentile latency (ns) : 19641101", "Early Stopping Result:",
                   " * Processed at least 64 queries (56356).", " * Would discard 5469 highest latency queries.",
                   " * Early stopping 90th percentile estimate: 19666047"])
    assert got == [("90th percentile latency", 19641101, "ns"), ("processed queries", 56356, "queries"),
                   ("early stopping 90th percentile estimate", 19666047, "ns")]


def test_nccls_init_timings():
    # NCCL 2.2x on a DGX B200 (NVIDIA/nccl issue, 2025; held-out round 143): a communicator's start-up, in seconds
    got = figures(["d5618706-01:1106802:1106870 [3] NCCL INFO Init timings - ncclCommInitRankConfig: rank 3 nranks 8 "
                   "total 55.01 (kernels 52.45, alloc 0.41, bootstrap 0.57)"])
    assert got == [("NCCL init rank 3 total", 55.01, "s"), ("NCCL init rank 3 kernels", 52.45, "s"),
                   ("NCCL init rank 3 alloc", 0.41, "s"), ("NCCL init rank 3 bootstrap", 0.57, "s")]


def test_httpstats_bar_of_phase_times():
    # httpstat against a cold Fly.io app (dwyl/image-classifier issue, 2024-01; held-out round 145)
    got = figures(["  DNS Lookup   TCP Connection   TLS Handshake   Server Processing   Content Transfer",
                   "[     6ms    |      25ms      |     40ms      |      21360ms      |        2ms       ]"])
    assert got == [("DNS Lookup", 6, "ms"), ("TCP Connection", 25, "ms"), ("TLS Handshake", 40, "ms"),
                   ("Server Processing", 21360, "ms"), ("Content Transfer", 2, "ms")]


def test_a_builds_cmake_progress_and_gits_clone_counts():
    # ROCm/vllm issue (2025-04; held-out round 155): git's clone before a docker build; llama.cpp's cmake build
    got = figures(["Cloning into 'vllm'...", "remote: Enumerating objects: 81513, done.",
                   "remote: Counting objects: 100% (73/73), done.",
                   "remote: Total 81513 (delta 48), reused 41 (delta 41), pack-reused 81440 (from 2)",
                   "Receiving objects: 100% (81513/81513), 103.72 MiB | 19.13 MiB/s, done."])
    assert got == [("enumerating objects", 81513, None), ("counting objects progress", 100, "%"),
                   ("counting objects done", 73, None), ("counting objects total", 73, None),
                   ("objects total", 81513, None), ("objects deltas", 48, None), ("objects reused", 41, None),
                   ("objects reused deltas", 41, None), ("objects pack-reused", 81440, None),
                   ("objects packs reused from", 2, None), ("receiving objects progress", 100, "%"),
                   ("receiving objects done", 81513, None), ("receiving objects total", 81513, None),
                   ("receiving objects received", 103.72, "MiB"), ("receiving objects rate", 19.13, "MiB/s")]
    (rep,) = frameworks.parse_lines(["Cloning into 'vllm'..."])  # a directory's name is no vLLM line
    assert rep["framework"] == "unknown"
    assert figures(["[ 14%] Building CUDA object ggml/src/ggml-cuda/fattn-mma-instance-ncols1_1-ncols2_8.cu.o",
                    "[100%] Built target llama-server"]) == [("build progress", 14, "%"), ("build progress", 100, "%")]


def test_perf_stat_counters_what_perf_derives_and_the_share_counted():
    # crabml issue (2024-03; held-out round 156): perf stat over llama's main on a hybrid CPU
    got = figures(["         96,107.79 msec task-clock                       #   15.209 CPUs utilized",
                   "             1,963      context-switches                 #   20.425 /sec",
                   "   140,636,195,017      cpu_atom/instructions/           #    0.80  insn per cycle              (60.60%)",
                   "        54,878,243      cpu_atom/branch-misses/          #    0.36% of all branches             (60.84%)"])
    assert got == [("task-clock", 96107.79, "ms"), ("task-clock CPUs utilized", 15.209, None),
                   ("context-switches", 1963, None), ("context-switches rate", 20.425, "/s"),
                   ("cpu_atom/instructions/", 140636195017, None), ("cpu_atom/instructions/ insn per cycle", 0.8, None),
                   ("cpu_atom/instructions/ counted share", 60.6, "%"), ("cpu_atom/branch-misses/", 54878243, None),
                   ("cpu_atom/branch-misses/ of all branches", 0.36, "%"), ("cpu_atom/branch-misses/ counted share", 60.84, "%")]


def test_nccl_rows_after_sruns_rank_label_their_wrong_counts_and_a_go_benchmark_named_threaded():
    # rccl-tests under srun --label on MI250X (held-out round 156): " 0: " before the row
    got = figures([" 0:        65536           512     float    none      -1    107.5    0.61    0.59      0    105.6    0.62    0.60      0"])
    assert ("65536 B out-of-place busbw", 0.59, "GB/s") in got and ("65536 B in-place wrong", 0, None) in got
    # nccl-tests with a wrong count that ends the row in another digit than 0
    got = figures(["      524288        131072     float     sum      -1    663.1    0.79    0.79  237858    569.4    0.92    0.92  238038"])
    assert ("524288 B out-of-place wrong", 237858, None) in got and ("524288 B in-place time", 569.4, "us") in got
    # onnxruntime-go's benchmark (held-out round 156): "Threaded" in a benchmark's name counts no threads
    assert figures(["BenchmarkOpMultiThreaded-6             1        4540012800 ns/op"]) == [
        ("BenchmarkOpMultiThreaded-6 iterations", 1, None), ("BenchmarkOpMultiThreaded-6", 4540012800, "ns/op")]


def test_iperf3_tcp_columns_cachegrinds_summary_and_criterions_outliers():
    # iperf3 over a 10GbE adapter (held-out round 157): TCP's retransmits and congestion window after the bitrate
    got = figures(["[  5]   0.00-1.00   sec   719 MBytes  6.03 Gbits/sec    0   1.75 MBytes       "])
    assert got == [("transfer (0.00-1.00 s)", 719, "MiB"), ("bitrate (0.00-1.00 s)", 6.03, "Gbit/s"),
                   ("retransmits (0.00-1.00 s)", 0, None), ("congestion window (0.00-1.00 s)", 1.75, "MiB")]
    # valgrind --tool=cachegrind (held-out round 157): reads and writes in brackets
    assert figures(["==2919== D   refs:       66,429  (54,246 rd   + 12,183 wr)", "==2919== D1  miss rate:     20.1% ( 19.9%     +   21.3%  )"])[:3] == [
        ("D refs", 66429, None), ("D refs rd", 54246, None), ("D refs wr", 12183, None)]
    # Rust criterion's outliers
    assert figures(["Found 5 outliers among 100 measurements (5.00%)", "  5 (5.00%) low mild"]) == [
        ("outliers", 5, None), ("measurements", 100, None), ("outliers share", 5, "%"),
        ("low mild outliers", 5, None), ("low mild outliers share", 5, "%")]


def test_sacct_sizes_and_cpu_time_by_their_columns_and_likwids_joules():
    # sacct (held-out round 157): "6040K" under MaxRSS is KiB, "00:00.004" under TotalCPU a duration
    got = figures(["JobID           JobName  AllocCPUS     MaxRSS  MaxVMSize   TotalCPU      State ",
                   "------------ ---------- ---------- ---------- ---------- ---------- ---------- ",
                   "19.0              sleep          2      6040K          0  00:00.004  COMPLETED "])
    assert ("sleep COMPLETED MaxRSS", 6040, "KiB") in got and ("sleep COMPLETED TotalCPU", 0.004, "s") in got
    # likwid-powermeter (held-out round 157): energy in Joules, power in Watt, spelled out
    assert figures(["Energy consumed: 3364.62 Joules", "Power consumed: 33.5996 Watt"]) == [
        ("Energy consumed", 3364.62, "J"), ("Power consumed", 33.5996, "W")]
