"""The general figure reader (wrapper/derive/frameworks/generic/) on lines copied from real logs."""
from __future__ import annotations

from wrapper.derive import frameworks
from wrapper.derive.frameworks import generic

# kvcache-ai/ktransformers issue #1261 (description, 2025-05-06)
KT = ("/anaconda3/envs/ktransformers/lib/python3.11/site-packages/ktransformers/server/backend/interfaces/"
      "balance_serve.py[97]: Performance(T/s): prefill 0.07086852611655337, decode 0.2152053227149353. "
      "Time(s): tokenize 0.5365676879882812, prefill 126.99572706222534, decode 362.44456696510315")
# EricLBuehler/mistral.rs issue #1774 (description, 2025-12-16)
MISTRALRS = ("2025-12-16T17:23:05.430919Z  INFO mistralrs_core::engine::logger: Throughput (T/s) 18.00, "
             "Prefix cache hitrate 50.00%, 1 running, 0 waiting")


def read(*lines: str) -> list:
    reader = generic.FigureReader()
    for line in lines:
        reader.feed(frameworks.strip_text(line))
    return reader.runs(family_claimed=False)


def test_group_of_name_value_pairs_with_the_unit_in_brackets():
    (run,) = read(KT)
    assert {f.label: (f.value, f.unit, f.kind) for f, _ in run.figures} == {
        "Performance prefill": (0.07086852611655337, "tokens/s", "rate"),
        "Performance decode": (0.2152053227149353, "tokens/s", "rate"),
        "Time tokenize": (0.5365676879882812, "s", "duration"),
        "Time prefill": (126.99572706222534, "s", "duration"),
        "Time decode": (362.44456696510315, "s", "duration")}
    assert run.core["prompt_eval_ms"][0] == 126995.72706222534
    assert run.core["eval_ms"][0] == 362444.56696510315
    assert run.core["prompt_tps"][0] == 0.07086852611655337


def test_label_with_bracketed_unit_then_number_and_percent():
    (run,) = read(MISTRALRS)
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert got == [("Throughput", 18.0, "tokens/s"), ("Prefix cache hitrate", 50.0, "%")]
    assert run.core == {}  # a throughput naming neither prefill nor decode is no core figure


def test_pairs_took_tables_and_json():
    lines = ["Loaded the model in 3.2 s", "prompt eval: 2760.401ms", "decode speed = 12.5 tokens/s",
             "| ISL | OSL | TTFT (ms) | Tput User (TPS) |", "|-----|-----|---|---|", "| 128 | 128 | 148.6 | 41.92 |",
             '{"prompt_n": 12, "prompt_ms": 33.5, "predicted_per_second": 40.1, "n_threads": 8}']
    runs = read(*lines)
    figures = {f.label: (f.value, f.unit, f.kind) for r in runs for f, _ in r.figures}
    assert figures["Loaded the model"] == (3.2, "s", "duration")
    assert figures["prompt eval"] == (2760.401, "ms", "duration")
    assert figures["decode speed"] == (12.5, "tokens/s", "rate")
    assert figures["TTFT"] == (148.6, "ms", "duration")
    assert figures["Tput User"] == (41.92, "tokens/s", "rate")
    assert figures["prompt ms"] == (33.5, "ms", "duration")
    assert "n threads" not in figures
    assert figures["ISL"] == (128, None, "value")  # a labelled number of no stated kind: kind "value", no unit
    assert runs[0].core["load_ms"][0] == 3200.0 and runs[0].core["ttft_ms"][0] == 148.6
    assert runs[1].core["prompt_eval_ms"][0] == 33.5  # prompt eval seen again: a second run


def test_noise_is_no_figure():
    noise = ["print_info: EOS token        = 50256 '<|endoftext|>'",
             "llama_context: worst-case: n_tokens = 2048, n_seqs = 1, n_outputs = 0",
             "system_info: n_threads = 8 (n_threads_batch = 8) / 16 | AVX = 1 |",
             "main: seed = 1717067386", "INFO 05-12 07:51:39 [loggers.py:271] started at 2025-05-12 07:51:39",
             "version: 4662 (7ee953a64)", "listening on 0.0.0.0:8080"]
    assert all(not r.figures and not r.core for r in read(*noise))


def test_a_bare_magnitude_is_thousands_of_what_is_counted_or_a_size_of_memory_else_a_name():
    # systemd's status (held-out round 16), a README's "~11K tokens", top's "rss=176M"
    (run,) = read("     Memory: 1.7G (peak: 2G)", "Test document: U.S. Constitution (`constit.txt`, ~11K tokens)",
                  "agent rss=176M", "AMD Ryzen 7 PRO 4750G with Radeon Graphics", "context=native-1M",
                  "| 128K | 12.5 |")
    got = [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures]
    assert got == [("Memory", 1.7, "GiB", "size"), ("tokens", 11000, None, "count"),
                   ("agent rss", 176.0, "MiB", "size"), ("128K", 12.5, None, "value")]  # not the CPU's name, a
    # setting; a table's "128K" is its row's name
    # a sweep script's settings (held-out round 31): a concurrency, an exit status, a memory fraction
    assert not read("conc=8 exit=0", "mem_fraction=0.85 chunked_prefill=16384")[0].figures


def test_a_progress_bars_rate_progress_and_count_are_figures_of_its_description_kept_apart():
    # vLLM's CUDA graph capture (tqdm), SGLang's own bar, mini-sglang's bench (held-out round 10)
    (run,) = read("Capturing CUDA graphs: 100%|██████████| 67/67 [00:14<00:00,  4.71it/s]",
                  "Loading weights:  25% Completed | 1/4 [00:00<00:01,  2.32it/s]",
                  "Decode token  100%|██████| 357310/357310 [ 2318.57it/s    02:34/00:00   ]")
    # a finished bar's elapsed time is a duration of its description; a bar still going: its time so far; either,
    # tqdm's estimate of the time left (a finished one's "<00:00"); every bar its percentage done and its count done
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("Capturing CUDA graphs progress", 100, "%", "percent"),
        ("Capturing CUDA graphs done", 67, "iterations", "count"),
        ("Capturing CUDA graphs elapsed", 14, "s", "duration"), ("Capturing CUDA graphs remaining", 0, "s", "duration"),
        ("Capturing CUDA graphs", 4.71, "it/s", "rate"),
        ("Loading weights progress", 25, "%", "percent"), ("Loading weights done", 1, "iterations", "count"),
        ("Loading weights out of", 4, "iterations", "count"),
        ("Loading weights elapsed so far", 0, "s", "duration"), ("Loading weights remaining", 1, "s", "duration"),
        ("Loading weights", 2.32, "it/s", "rate"), ("Decode token progress", 100, "%", "percent"),
        ("Decode token done", 357310, "iterations", "count"), ("Decode token", 2318.57, "it/s", "rate")]
    assert run.core == {}  # a bar's rate, times and count say how its items went, no core figure (not a load time)
    # huggingface_hub's download bar counts bytes in thousands (tqdm's unit_scale): its size so far
    (run,) = read(".gitattributes: 100%|█████| 1.52k/1.52k [00:00<?, ?B/s]",
                  "modeling_phi3.py: 100%|████| 73.8k/73.8k [00:00<00:00, 5.90MB/s]")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures if f.kind == "size"] == [
        ("gitattributes size", 1.52, "kB"), ("modeling phi3.py size", 73.8, "kB")]
    # a bar of iterations in thousands (tqdm's unit_scale) counts them, no bytes
    (run,) = read("Steps: 50%|█| 12.5k/25.0k [00:10<00:10, 1.25kit/s]")
    assert ("Steps done", 12500, "iterations") in [(f.label, f.value, f.unit) for f, _ in run.figures]
    # a bar redrawn again and again keeps each redraw's figures, up to BAR_VALUES per label ...
    redraws = [f"Loading weights:  {p}%|##| {p}/100 [00:{p:02d}<00:09, {10 + p}.5it/s]" for p in range(1, 99)]
    (run,) = read(*redraws)
    rates = [f.value for f, _ in run.figures if f.unit == "it/s"]
    assert rates == [10 + p + 0.5 for p in range(1, generic.BAR_VALUES + 1)]
    assert [f.value for f, _ in run.figures if f.label.endswith("done")] == list(range(1, generic.BAR_VALUES + 1))
    # ... and MAX_BAR_FIGURES per log, apart from the others: a bar redrawn all run crowds out no later figure
    many = [f"Reading part{b}: {p}%|##| {p}/100 [00:{p:02d}<00:09, {p}.5it/s]" for b in range(10) for p in range(1, 64)]
    (run,) = read(*many, "Prompt eval time: 12.5 ms")
    bars = [f for f, _ in run.figures if f.label.startswith("Reading")]
    assert len(bars) == generic.MAX_BAR_FIGURES and run.figures[-1][0].label == "Prompt eval time"


def test_values_before_the_unit_that_closes_the_line():
    # NVIDIA/TensorRT-LLM, Triton backend logs (held-out rounds 5, 9 and 10): "(MiB)" ends a line of bare values
    line = ("[TensorRT-LLM][INFO] [MemUsageChange] TensorRT-managed allocation in IExecutionContext creation: "
            "CPU +0, GPU +0, now: CPU 0, GPU 10184 (MiB)")
    # TensorRT's own line has its own shape now (the step names all four); without its tag, the general one
    (run,) = read(line.replace("[MemUsageChange] ", ""))
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert got[-2:] == [("now CPU", 0, "MiB"), ("now GPU", 10184, "MiB")] and len(got) == 4
    assert got[0][0] == "allocation in IExecutionContext creation CPU"  # its last words, up to MAX_LABEL_CHARS
    (run,) = read(line)
    assert [(f.label, f.value) for f, _ in run.figures][-1] == (
        "TensorRT-managed allocation in IExecutionContext creation GPU in use", 10184)


def test_a_ratio_printed_with_x_and_full_width_colons():
    (run,) = read("INFO:     Minimum concurrency: 3.31x", "Speedup: 1.12x", "on 2x A100",
                  "* 显存占用：14881MiB / 24564MiB")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures][:3] == [
        ("Minimum concurrency", 3.31, "x", "ratio"), ("Speedup", 1.12, "x", "ratio"), ("显存占用", 14881, "MiB", "size")]


def test_a_ruled_box_tables_text_rows_keep_its_header_and_a_share_in_brackets_is_a_percentage():
    # a client stress test's rich table under vLLM 0.8.5 (held-out round 6): "API Base" and "Model" rows hold
    # text, which had made each of them the table's header, and "100 (100.0%)" is a count and its share
    (run,) = read("\u250f\u2501\u2501\u2533\u2501\u2501\u2513", "\u2503 Metric \u2503 Value \u2503",
                  "\u2521\u2501\u2501\u2547\u2501\u2501\u2529", "\u2502 API Base \u2502 http://localhost:8000/v1 \u2502",
                  "\u2502 Successful Requests \u2502 100 (100.0%) \u2502",
                  "\u2502 Min Response Time \u2502 0.86 seconds \u2502")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Successful Requests", 100, None), ("Successful Requests", 100.0, "%"), ("Min Response Time", 0.86, "s")]


def test_a_lone_value_with_its_unit_and_a_bracket_that_qualifies_the_label():
    # LM Studio's stats pasted one a line (held-out round 6), OpenVINO's and TensorRT Edge-LLM's prose
    (run,) = read("66.23 tok/sec", "Ratio (TTFT/Total): ~0.54%", "[INFO] E2E Time (actual performance): 14.9224 ms",
                  "Prompt : 726.74 sec", "            704.52 token / sec")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("tok/sec", 66.23, "tokens/s"), ("Ratio (TTFT/Total)", 0.54, "%"),
        ("E2E Time (actual performance)", 14.9224, "ms"), ("Prompt", 726.74, "s"), ("Prompt rate", 704.52, "tokens/s")]


LATTICE = ["Engine       Ctx  TTFT(ms)  Decode(ms)  Total(ms)  Prefill t/s  Decode t/s",
           "lattice     1009    10207        1513      11720           99          66",
           "ollama      1450      480        1194       1674         3022          84"]


def test_a_fixed_width_tables_rows_of_bare_numbers_are_read():
    # a comparison script's table (held-out round 11): its rows hold no unit; the gate lets them through as numbers
    # two spaces apart, and the reader, once in the table, asks for every line anyway
    assert [generic.GATE.search(line) is not None for line in LATTICE] == [True, True, True]
    reps = frameworks.parse_lines(LATTICE)  # a run per row: each row fills ttft_ms again
    got = {(f["label"], f["value"], f["unit"]) for rep in reps for f in rep["figures"]}
    assert {("lattice TTFT", 10207.0, "ms"), ("ollama Decode t/s", 84.0, "tokens/s")} <= got and len(got) == 10
    assert [rep["ttft_ms"] for rep in reps] == [10207.0, 480.0]
    # a row naming a runtime is no evidence of that runtime's log
    assert {rep["framework"] for rep in reps} == {"unknown"}


def test_dotted_keys_token_counts_rps_and_unitless_ttft_columns():
    # ollama's memory fields, llama-server's slot lines, a locust summary, llm-d's table (held-out round 11)
    (run,) = read('msg="updating cuda memory data" before.total="16.0 GiB" now.used="1.3 GiB"',
                  "slot      release: id  0 | task 713 | stop processing: n_tokens = 4103, truncated = 0",
                  "  one replica: 13.7 RPS, median 62ms", "Capture cuda graph begin. This can take up to several "
                  "minutes. avail mem=39.48 GB", "llama_context: worst-case: n_tokens = 2048, n_seqs = 1")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("before.total", 16.0, "GiB"), ("now.used", 1.3, "GiB"), ("n tokens", 4103, None),
        ("one replica", 13.7, "req/s"), ("one replica median", 62.0, "ms"), ("avail mem", 39.48, "GB")]
    (run,) = read("| Rate | k8s TTFT mean | llm-d TTFT p90 |", "| ---: | ---: | ---: |", "|    3 | 0.629 | 0.243 |")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("Rate", 3, None, "value"), ("k8s TTFT mean", 0.629, None, "duration"),
        ("llm-d TTFT p90", 0.243, None, "duration")]


def test_markdown_bold_around_a_familys_figures_is_no_part_of_the_log():
    # a vLLM pod log pasted with bold markers (held-out round 11): the family reads the line as printed by vLLM
    line = "INFO 06-30 01:02:03 [backends.py:135] Dynamo bytecode transform time: **7.51 s**"
    assert frameworks.strip_text(line).endswith("transform time: 7.51 s")
    assert frameworks.strip_text("*** Measurement Settings ***") == "*** Measurement Settings ***"


def test_torchserve_metrics_a_qualified_column_over_cells_with_units_and_ggml_ctx_size():
    # TorchServe under KServe, AutoAWQ's benchmark table, 2023 llama.cpp (held-out round 14)
    (run,) = read("TS_METRICS - MemoryUsed.Megabytes:4818.03515625|#Level:Host|#hostname:ts-0,timestamp:1705083979",
                  "| Batch Size | Decode tokens/s | Memory (VRAM) |", "|---:|---:|:---|", "| 1 | 88.2 | 5.48 GB (23.16%) |",
                  "llama_model_load_internal: ggml ctx size =    0.07 MB", "llama_model_load_internal: n_ctx      = 512")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("MemoryUsed", 4818.03515625, "MB"), ("Decode tokens/s", 88.2, "tokens/s"), ("Memory (VRAM)", 5.48, "GB"),
        ("Memory (VRAM)", 23.16, "%"), ("ggml ctx size", 0.07, "MB")]


def test_a_claiming_familys_earlier_lines_keep_the_values_its_records_do_not_hold():
    # MNN's llm_bench with speedup columns (held-out round 8): the family claims the log on "modelSize" and
    # reads none of these rows, which had taken every figure of the table with it
    lines = ["| model | modelSize | backend | threads | precision | test | t/s | speedup (t/s) | speedup% |",
             "| --- | ---: | --- | ---: | --- | --- | ---: |---|---|",
             "| InternVL2-5_1B-MNN-INT8 | 474.81 MiB | CPU | 4 | Low | pp512 | 344.09 ± 0.53 | +43.05 | 14.31% |"]
    (rep,) = frameworks.parse_lines(lines)
    assert rep["framework"] == "mnn-llm"
    got = {(f["label"], f["value"], f["unit"]) for f in rep["figures"]}
    assert {("InternVL2-5 1B-MNN-INT8 modelSize", 474.81, "MiB"), ("InternVL2-5 1B-MNN-INT8 CPU Low pp512", 344.09, "tokens/s")} <= got
    # a model's size in billions of parameters is no size in bytes
    (run,) = read("| llama 7B Q4_0 | 3.83 GiB | 7.24 B | Metal | 99 | pp 128 | 144.47 ± 0.22 |")
    assert 7.0 not in [f.value for f, _ in run.figures]


def test_duplicates_collapse_and_figures_are_bounded():
    distinct = generic.MAX_FIGURES + 100
    lines = [f"request latency: {i % distinct} ms" for i in range(3 * distinct)] + ["request latency: 5 ms"] * 10
    lines += [f"rows seen: {i % distinct}" for i in range(3 * distinct)]  # kind "value": bounded apart
    reader = generic.FigureReader()
    for line in lines:
        reader.feed(line)
    kept = [f for r in reader.runs(False) for f, _ in r.figures]
    timed = [f for f in kept if f.kind == "duration"]
    assert len(timed) == generic.MAX_FIGURES and len({f.value for f in timed}) == generic.MAX_FIGURES
    assert reader.figures_dropped > 0
    assert len([f for f in kept if f.kind == "value"]) == generic.MAX_VALUES
    assert reader.full


def test_a_family_always_wins_and_the_reader_only_adds_figures():
    # llama.cpp's own timing line and the new CLI's rate line (tests/fixtures/llama-cpp-0.3.36/cli-simple-io.stdout),
    # both the family's; a line no family reads goes to the general reader
    lines = ["llama_perf_context_print:        eval time =     458.31 ms /    10 runs   (   45.83 ms per token)",
             "[ Prompt: 14257.9 t/s | Generation: 21.8 t/s ]", "custom stage took 3.5 s"]
    (rep,) = frameworks.parse_lines(lines)
    assert rep["framework"] == "llama.cpp" and rep["eval_ms"] == 458.31
    assert (rep["prompt_tps"], rep["eval_tps"]) == (14257.9, 21.8) and rep["sources"] is None
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [("custom stage", 3.5, "s")]


def test_the_values_a_family_leaves_on_a_line_it_measures_from_are_figures():
    # bayzeen's langchain report (held-out round 9): llama.cpp takes the KV cache's total, the reader its halves
    kv = ("llama_new_context_with_model: KV self size  = 5120.00 MiB, K (f16): 2560.00 MiB, V (f16): 2560.00 MiB")
    (rep,) = frameworks.parse_lines([kv, "llama_perf_context_print:        eval time =     458.31 ms /    10 runs"])
    assert rep["framework"] == "llama.cpp" and rep["extra"]["kv_self_mib"] == 5120.0
    got = [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]
    assert got == [("K (f16)", 2560.0, "MiB"), ("V (f16)", 2560.0, "MiB")]  # not "KV self size": the family's
    assert all(f["line"] == kv for f in rep["figures"])


def test_a_family_line_it_took_nothing_from_is_read_but_a_list_of_token_candidates_is_noise():
    # llama-server's in-flight timing (held-out round 9: the ollama journal of two tasks): the family passes it
    # over for the request's final timings, a person reads it
    line = ("Aug 28 16:17:16 spark-08 ollama[2924030]: slot print_timing: id  0 | task 4121 | n_gen =    215, "
            "tg =  18.96 t/s, tg_3s =  19.26 t/s")
    first = ("Aug 28 16:17:13 spark-08 ollama[2924030]: slot init_sampler: id  0 | task 1549 | init sampler, took "
             "0.00 ms, tokens: text = 10, total = 10")
    (rep,) = frameworks.parse_lines([first, line, line.replace("18.96", "19.02")])
    assert rep["framework"] == "ollama"  # which routes llama-server's lines and takes nothing from this one
    assert [(f["label"], f["value"]) for f in rep["figures"]][1:] == [
        ("text", 10), ("total", 10), ("n gen", 215), ("tg", 18.96), ("tg 3s", 19.26), ("tg", 19.02)]
    # koboldcpp's token probabilities: the next token's candidates, no figure of the run
    lines = ["Welcome to KoboldCpp - Version 1.83.1",
             "Generating (20 / 512 tokens) [(, 31.46%) (.\\n 30.40%) ( at 11.21%) (. 9.39%)]",
             "CtxLimit:30/4096, Amt:20/512, Init:0.00s, Process:0.01s (1.0ms/T = 1000.00T/s), "
             "Generate:0.40s (20.0ms/T = 50.00T/s), Total:0.41s (48.78T/s)"]
    (rep,) = frameworks.parse_lines(lines)
    assert rep["framework"] == "koboldcpp" and rep["eval_ms"] == 400.0
    assert not [f for f in rep["figures"] if f["unit"] == "%"]


def test_a_family_line_whose_values_repeat_earlier_ones_keeps_its_shape_read():
    # Jacob0226/SGLang-benchmarks' sweep log (held-out round 31): each concurrency's server prints six "Memory pool
    # end" lines; SGLang keeps the first value, the reader the others. Two sweeps of the same six values (kept
    # once) must not make the reader stop reading the shape: the third sweep's new values are figures.
    kv = "    KV Cache is allocated. dtype: torch.bfloat16, #tokens: 11508608, KV size: 12.39 GB"
    sweep = [kv] + [f"    Memory pool end. avail mem={v} GB" for v in ("40.58", "40.61", "40.70", "52.97", "53.00")]
    third = [kv] + [f"    Memory pool end. avail mem={v} GB" for v in ("40.45", "40.48", "52.71")]
    (rep,) = frameworks.parse_lines(sweep + sweep + sweep + third)
    assert rep["framework"] == "sglang" and rep["extra"]["avail_mem_after_kv_pool_gb"] == 40.58
    got = [f["value"] for f in rep["figures"] if f["label"] == "avail mem"]
    assert got == [40.61, 40.7, 52.97, 53.0, 40.45, 40.48, 52.71]


def test_a_progress_lines_values_the_family_replaced_are_figures_those_it_still_holds_are_not():
    # llama-server's prompt progress (held-out round 13): the family keeps the last line's values in
    # extra.prompt_progress, so only the earlier lines' values are the reader's
    first = "srv  log_server_r: request: GET /health 127.0.0.1 200"
    line = ("slot print_timing: id  0 | task 0 | prompt processing, n_tokens =  17653, progress = 0.69, "
            "t = 327.87 s / 53.84 tokens per second")
    later = line.replace("17653", "17800").replace("327.87", "331.09").replace("53.84", "53.76")
    (rep,) = frameworks.parse_lines([first, line, later])
    assert rep["extra"]["prompt_progress"] == {"n_tokens": 17800, "progress": 0.69, "t_ms": 331090.0, "tps": 53.76}
    assert [(f["label"], f["value"]) for f in rep["figures"]] == [("n tokens", 17653), ("t", 327.87), ("t rate", 53.84)]


def test_what_a_family_takes_is_matched_across_its_unit_change_and_rounding():
    from wrapper.derive.frameworks.taken import Taken

    took = Taken([670.0, 9.843128465462923, 5120.0, 0.0])  # ms, a computed rate, MiB, a zero
    assert took(0.67, "0.67")  # printed in s, kept in ms
    assert took(9.84, "9.84")  # printed rounded to two digits
    assert took(5.0, "5.00")  # 5 GiB as 5120 MiB
    assert not took(9.85, "9.85") and not took(2560.0, "2560.00")
    assert took(5368.70912, "5368.70912")  # 5120 MiB printed as MB: a binary change computed from the digits
    # held-out round 101-b: a bar's "00:35" is no 37 requests by way of MB -> MiB, nor "3.92it/s" 3737 tokens/s
    counts = Taken([37.0, 3737.0])
    assert not counts(35.0, "35") and not counts(3.92, "3.92")
    # held-out round 107-b: a bar's "[00:33<" is no 3273 prompts by way of a percentage, and its "0%" no 980 done
    # (a zero is zero in any unit: it matches only a zero, not every number a large factor brings near it)
    bar = Taken([980.0, 3273.0, 0.75])
    assert not bar(33.0, "33") and not bar(0.0, "0") and not bar(0.0, "0.00")
    assert bar(75.0, "75")  # 75 % as the fraction 0.75
    assert Taken([0.0])(0.0, "0")


def test_unknown_log_gets_the_general_figures_as_its_core_keys():
    # (KT's line is read by the ktransformers family now: a family always wins, so its keys are not "generic")
    (rep,) = frameworks.parse_lines(["⏱️ Prompt tokens: 24328 in 23.32s (1043.05 tokens/s)",
                                     "⏱️ Decoded tokens: 2608 in 49.34s (52.86 tokens/s)"])
    assert rep["framework"] == "unknown"
    assert rep["eval_ms"] == 49340.0 and rep["sources"]["eval_ms"] == "generic"
    (kt,) = frameworks.parse_lines([KT])
    assert kt["framework"] == "ktransformers" and kt["eval_ms"] == 362444.56696510315
    assert (kt["sources"] or {}).get("eval_ms") != "generic"


def _framework(name: str) -> str:
    from .conftest import fixture

    with open(fixture("logs", name), encoding="utf-8") as fh:
        return frameworks.parse_lines(fh.read())[-1]["framework"]


def test_a_family_claims_a_log_only_on_its_own_lines_else_the_log_names_itself():
    # Each was labelled with a neighbour's name before: transformers (the word in KTransformers' paths), TGI (the
    # span fields TEI shares), vLLM (the word in candle-vllm's crate name).
    kt = "ktransformers__2025-05-balance-serve-performance-prefill-decode-time-tokenize.log"
    assert _framework(kt) == "ktransformers"
    assert _framework("text-embeddings-inference__2025-08-openai-embed-success-total-tokenization-queue-inference"
                      ".log") == "text-embeddings-inference"
    assert _framework("candle-vllm__2025-09-compose-new-request-length-chunk-prefilled.log") == "candle-vllm"
    assert _framework("mistral.rs__2025-12-engine-logger-throughput-prefix-cache-hitrate.log") == "mistral.rs"
    assert _framework("unknown__2025-08-candle-vllm-pr-performance-metrics-prompt-decoded-tokens-in-s.log") == "unknown"


def test_a_neighbours_generic_lines_are_no_evidence():
    assert frameworks.parse_lines(["Total time: 12.5 s", "Avg latency: 1.2 s"])[0]["framework"] == "unknown"
    line = ('2025-01-04T20:44:11.047170Z  INFO rerank{total_time="177.15121ms" queue_time="79.024583ms"}: '
            'text_embeddings_router::http::server: router/src/http/server.rs:459: Success')
    (rep,) = frameworks.parse_lines([line])
    assert rep["framework"] == "text-embeddings-inference" and rep["total_ms"] == 177.15121


def test_key_value_lines_go_durations_and_units_named_by_the_key():
    # dogkeeper886/ollama37 issue #464 (comment, 2026-07-27): slog key=value progress lines, Go durations
    prefill = 'msg="prefill progress" seq=0 tokens=7680 remaining=512  progress=0.94 elapsed=1m10.219s tps=109.37'
    (run,) = read(prefill)
    assert sorted((f.label, f.value, f.unit or "") for f, _ in run.figures) == [
        ("elapsed", 70219.0, "ms"), ("progress", 0.94, ""), ("remaining", 512, ""), ("tokens", 7680, ""),
        ("tps", 109.37, "tokens/s")]  # a fraction done is a ratio since held-out round 98 (it was left out before)
    # vllm-project/vllm-ascend issue #10876 (description): the unit is in the key's name
    ascend = ("06-19 15:32:57 DEBUG execute_model: attn_state=ChunkedPrefill num_reqs=1 total_scheduled_tokens=8192 "
              "forward_ms=456.98 logits_ms=0.48 attn_backend=ABCMeta num_computed_tokens=[6062] "
              "num_scheduled_tokens=[8192]")
    (run,) = read(ascend)
    got = {f.label: (f.value, f.unit) for f, _ in run.figures}
    assert got["total scheduled tokens"] == (8192, None)
    assert got["forward ms"] == (456.98, "ms") and got["logits ms"] == (0.48, "ms")
    assert got["num reqs"] == (1, None) and "ChunkedPrefill num reqs" not in got  # a labelled number: kind "value"


def test_every_self_name_pattern_is_behind_one_of_its_words():
    import re

    from wrapper.derive.frameworks.routes import SELF_NAME_WORDS, SELF_NAMES

    samples = {"ktransformers": "ktransformers", "text-embeddings-inference": "text_embeddings_router",
               "mistral.rs": "mistralrs_core::", "candle-vllm": "candle-vllm", "vllm.rs": "vllm.rs",
               "vllm-mlx": "vllm-mlx", "lmdeploy": "lmdeploy", "exllamav2": "exllamav2", "aphrodite-engine": "aphrodite",
               "mlc-llm": "mlc_llm", "onnxruntime-genai": "onnxruntime-genai", "openvino-genai": "OpenVINO GenAI",
               "lightllm": "lightllm", "xinference": "xinference", "localai": "LocalAI", "llamafile": "llamafile"}
    for pattern, name in SELF_NAMES:
        hit = re.search(pattern, f"INFO {samples[name]} started")
        assert hit is not None, name
        assert any(word in hit.group().lower() for word in SELF_NAME_WORDS), name


def test_a_label_colon_number_line_is_a_count_or_ratio_by_its_label_else_nothing():
    # google/JetStream benchmark_serving (see the corpus log), sgl-project/sglang's bench_serving tail
    (run,) = read("Successful requests: 1780", "Concurrency:                             48.06",
                  "Total generated tokens (retokenized):    24859", "Clients: 1", "Seed: 42", "max_tokens: 512",
                  "Mean acceptance length: 2.63")
    got = {f.label: (f.value, f.unit, f.kind) for f, _ in run.figures}
    assert got == {"Successful requests": (1780, None, "count"), "Concurrency": (48.06, None, "ratio"),
                   "Total generated tokens (retokenized)": (24859, None, "count"),
                   "Mean acceptance length": (2.63, None, "ratio")}


def test_limits_are_noise_for_counts_but_statistics_for_durations():
    (run,) = read("Max ITL (ms):                            31297.97", "max_num_seqs: 256", "Min latency: 1.5 ms",
                  "memory limit: 80 GiB")
    assert {f.label: f.value for f, _ in run.figures} == {"Max ITL": 31297.97, "Min latency": 1.5}


def test_counts_inside_a_clause_and_context_as_a_measured_length():
    # theroyallab/tabbyAPI (exllamav3) completion line, as in the corpus log
    line = ("1934 tokens generated in 504.75 seconds (Queue: 0.0 s, Process: 0 cached tokens and 118010 new tokens "
            "at 433.73 T/s, Generate: 8.31 T/s, Context: 118010 tokens)")
    (run,) = read(line, "context length: 4096", "n_ctx_size = 8192 tokens")
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    for figure in (("cached tokens", 0, "tokens"), ("new tokens", 118010, "tokens"), ("new tokens", 433.73, "tokens/s"),
                   ("Context", 118010, "tokens")):
        assert figure in got
    assert not [g for g in got if g[0] in ("context length", "n ctx size")]


def test_csv_rows_under_a_header_of_names():
    # antirez/ds4 ds4-bench (the corpus log): a CSV header, then rows of numbers
    runs = read("ctx_tokens,prefill_tokens,prefill_tps,gen_tokens,gen_tps,kvcache_bytes",
                "2048,2048,370.57,128,31.25,52184460", "4096,2048,324.39,128,30.50,80373132",
                "Tokens: 1,234,567")  # not a row: two commas inside one number of a labelled line
    assert [r.core.get("prompt_tps", (None,))[0] for r in runs] == [370.57, 324.39]
    first = {f.label: (f.value, f.unit, f.kind) for f, _ in runs[0].figures}
    assert first == {"prefill tokens": (2048, None, "count"), "prefill tps": (370.57, "tokens/s", "rate"),
                     "gen tokens": (128, None, "count"), "gen tps": (31.25, "tokens/s", "rate"),
                     "kvcache bytes": (52184460, "B", "size")}  # ctx_tokens: a setting (noise)
    assert ("Tokens", 1234567) in [(f.label, f.value) for r in runs for f, _ in r.figures]
    # a row whose width differs from the header's is not read as one
    assert not any(f.label == "prefill tokens" and f.value == 1 for r in read("a,b,c", "1,2") for f, _ in r.figures)


def test_a_shells_time_line_labels_stand_after_their_values():
    zsh = "python3 examples/llama.py --prompt x  12.77s user 8.83s system 131% cpu 16.393 total"
    gnu = "12.77user 8.83system 1:02.50elapsed 131%CPU (0avgtext+0avgdata 123456maxresident)k"
    for line, wall_s in ((zsh, 16.393), (gnu, 62.5)):
        (run,) = read(line)
        got = {f.label: (f.value, f.unit) for f, _ in run.figures}
        assert got == {"user time": (12.77, "s"), "system time": (8.83, "s"), "cpu": (131, "%"),
                       "total time": (wall_s, "s")}, line
        assert run.core["total_ms"][0] == wall_s * 1000
    (run,) = read("real\t0m16.393s", "user\t0m12.770s", "sys\t0m8.830s")  # bash's time
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("real", 16393.0, "ms"), ("user", 12770.0, "ms"), ("sys", 8830.0, "ms")]


def test_a_label_in_another_script():
    (run,) = read("首字延迟: 123.4 ms", "解码速度: 45.6 tokens/s")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("首字延迟", 123.4, "ms"),
                                                                    ("解码速度", 45.6, "tokens/s")]


def test_statistics_under_a_heading_or_after_the_lines_head():
    # ray-project/llmperf's results print (a name with its unit, then indented "pN = value" lines), vLLM's
    # benchmark_guided_serving ("Time to First Token (ms):" then "  Mean: 56.46"), k6's summary line
    runs = read("ttft_s", "    p25 = 0.17304442200020276", "    mean = 0.5690958523997324",
                "Time to First Token (ms):", "  Mean: 56.46", "  P99: 212.27",
                "     http_req_duration..............: avg=1.2s min=0.9s med=1.1s max=3.9s p(90)=2.1s p(95)=3.9s",
                "10% percentile latency: 0.45005662548355757 seconds", "wall_TPS  mean= 177.29   std=  1.96")
    got = {f.label: (f.value, f.unit) for r in runs for f, _ in r.figures}
    assert got["ttft s p25"] == (0.17304442200020276, "s") and got["ttft s mean"] == (0.5690958523997324, "s")
    assert got["Time to First Token Mean"] == (56.46, "ms") and got["Time to First Token P99"] == (212.27, "ms")
    assert got["http req duration avg"] == (1.2, "s") and got["http req duration p95"] == (3.9, "s")
    assert got["10% percentile latency"] == (0.45005662548355757, "s")
    assert got["wall TPS mean"] == (177.29, "tokens/s") and got["wall TPS std"] == (1.96, "tokens/s")
    # a heading holds until a line that is none of its statistics
    (run,) = read("ttft_s", "Clients: 1", "    p25 = 0.17")
    assert [f.label for f, _ in run.figures] == []


def test_json_printed_over_several_lines_is_labelled_by_its_objects():
    # ai-dynamo/aiperf's profile export (held-out round 4), cut to two metrics
    lines = ["{", '  "request_throughput": {', '    "unit": "requests/sec",', '    "avg": 0.14968841618235815',
             "  },", '  "time_to_first_token": {', '    "unit": "ms",', '    "avg": 44.166079325,', '    "p99": 48.16844818',
             "  }", "}"]
    got = {f.label: (f.value, f.unit) for r in read(*lines) for f, _ in r.figures}
    assert got == {"request throughput avg": (0.14968841618235815, "req/s"),
                   "time to first token avg": (44.166079325, "ms"), "time to first token p99": (48.16844818, "ms")}


def test_prometheus_samples_and_a_family_shown_another_familys_key():
    # Triton's /metrics (held-out round 4): "_duration" is one of ollama's keys, the log is claimed by another
    # family; the sample's figure stays (only the claiming family's own lines are its to read)
    text = ('nv_inference_compute_input_duration_us{model="ensemble",version="1"} 2283788\n'
            'request_success_total{model_name="qwen2.5"} 4\n'
            'nv_inference_request_duration_us_bucket{le="100"} 3\n')
    (run,) = read(*text.splitlines())
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("inference compute input duration us ensemble", 2283788, "us", "duration"),
        ("request success qwen2.5", 4, None, "count"),
        ("nv inference request duration us le=100", 3, None, "count")]  # a bucket: the observations at or under 100 us
    claimed = frameworks.parse_lines(["[TensorRT-LLM] loaded\n", text.splitlines()[0] + "\n"])
    assert [f["value"] for f in claimed[0]["figures"]] == [2283788]


def test_a_value_on_the_indented_line_below_continues_the_figure_above_and_spreads():
    # smpanaro/coreml-llm-cli's summary (held-out round 4)
    (run,) = read("Prompt        : 726.74 sec", "                704.52 token / sec",
                  "Generate      : 85.41 +/- 2.67 ms / token", "                11.72 +/- 0.29 token / sec")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Prompt", 726.74, "s"), ("Prompt rate", 704.52, "tokens/s"), ("Generate", 85.41, "ms/token"),
        ("Generate \u00b1", 2.67, "ms/token"), ("Generate rate", 11.72, "tokens/s"), ("Generate rate \u00b1", 0.29, "tokens/s")]
    # an unindented line starts afresh: not the figure above continued, a value alone, named by its unit
    (run,) = read("Prompt        : 726.74 sec", "704.52 token / sec")
    assert [f.label for f, _ in run.figures] == ["Prompt", "token / sec"]


def test_units_named_by_the_label_watts_and_e_notation():
    (run,) = read("FPS     (hw_only)                 = 1328.83", "Power in streaming mode (average) = 3.19395 W",
                  "         embeddings/sec: 0.74", "Tokens per second: 33.90", "        p50 (us):       1.88269e+06",
                  "Average time per token: 0.0295 seconds", "EOS token = 50256")
    assert {f.label: (f.value, f.unit, f.kind) for f, _ in run.figures} == {
        "FPS (hw only)": (1328.83, "fps", "rate"), "Power in streaming mode (average)": (3.19395, "W", "power"),
        "embeddings/sec": (0.74, "embeddings/s", "rate"), "Tokens per second": (33.9, "tokens/s", "rate"),
        "p50": (1882690.0, "us", "duration"), "Average time per token": (0.0295, "s", "duration")}


def test_fixed_width_table_koboldcpp_csv_and_durations_with_colons():
    # jundot/omlx's benchmark table (held-out round 5), koboldcpp's benchmark CSV (round 5), a kudos line
    runs = read("Test                TTFT(ms)    TPOT(ms)        pp TPS        tg TPS      E2E(s)    Peak Mem",
                "pp1024/tg128          5123.4       58.96   199.9 tok/s    22.6 tok/s       5.300    16.68 GB",
                "Timestamp,Backend,Layers,Model,MaxCtx,GenAmount,ProcessingTime,ProcessingSpeed,TotalTime,Output,Flags",
                "2024-06-19 21:46:13.064748+00:00,koboldcpp_cublas.dll,81,Llama-3-70B,8192,100,79.72,101.50,95.67",
                "[Total:76267 kudos, Time:006h:08m:39s, Jobs:1703]")
    got = {f.label: (f.value, f.unit, f.kind) for r in runs for f, _ in r.figures}
    assert got["pp1024/tg128 TTFT"] == (5123.4, "ms", "duration") and got["pp1024/tg128 E2E"] == (5.3, "s", "duration")
    assert got["pp1024/tg128 pp TPS"] == (199.9, "tokens/s", "rate") and got["pp1024/tg128 Peak Mem"] == (16.68, "GB", "size")
    # no unit printed: a duration and a speed with unit null, never a core time
    assert got["ProcessingTime"] == (79.72, None, "duration") and got["ProcessingSpeed"] == (101.5, None, "rate")
    assert all(r.core.get("total_ms") is None for r in runs)
    assert got["Time"] == (22119000.0, "ms", "duration")  # 6 h 8 min 39 s, not "6 h"


def test_camel_case_keys_size_words_approximate_values_and_sizes_labelled_size():
    # mlx-swift-lm's benchmark JSON, ORT GenAI's working set, OpenVINO GenAI's prose copy (held-out round 6)
    (run,) = read('  "ttftMs" : 312.2318983078003,', '  "memoryUsedGB" : 59.14210510253906,',
                  "Peak working set size (megabytes): 3051", "Loaded 6323781632 bytes", "Output: ~130 tokens",
                  "LLM Prefill Tokens/Second: 8277.1", "KV cache size: 512.00 MiB", "batch size: 8",
                  "increase the size from 0 bytes to 67462144 bytes")
    got = {f.label: (f.value, f.unit) for f, _ in run.figures}
    assert got["ttftMs"] == (312.2318983078003, "ms") and got["memoryUsedGB"] == (59.14210510253906, "GB")
    assert got["Peak working set size"] == (3051, "MB") and got["Loaded"] == (6323781632, "B")
    assert got["Output"] == (130, "tokens") and got["LLM Prefill Tokens/Second"] == (8277.1, "tokens/s")
    assert got["KV cache size"] == (512.0, "MiB")
    assert "batch size" not in got and "to" not in got and "from" not in got


def test_round_seven_shapes_bare_prometheus_samples_dict_repr_measured_maxima_and_unitless_token_times():
    # ik_llama.cpp's /metrics, SGLang's offline throughput dict, optimum-benchmark's memory table, fw-ai's
    # llm_bench summary (held-out round 7)
    runs = read("llamacpp:prompt_seconds_total 2903.63", "llamacpp:tokens_predicted_total 3469",
                "{'total_input_tokens': 233369, 'total_latency': 28.642698895186186}",
                "| metric | value | unit |", "| max_allocated    |    5856.23 | MB |",
                "Time To First Token: 5.705300167132269", "Qps: 2.0004955480459414", "Processed queries: 33",
                "max_num_seqs: 256", "word 123")
    got = {f.label: (f.value, f.unit, f.kind) for r in runs for f, _ in r.figures}
    assert got["llamacpp:prompt seconds"] == (2903.63, "s", "duration")
    assert got["llamacpp:tokens predicted"] == (3469, None, "count")
    assert got["total input tokens"][:2] == (233369, None) and got["total latency"] == (28.642698895186186, None, "duration")
    assert got["max allocated"] == (5856.23, "MB", "size")
    assert got["Time To First Token"] == (5.705300167132269, None, "duration")
    assert got["Qps"] == (2.0004955480459414, None, "rate") and got["Processed queries"] == (33, None, "count")
    assert "max num seqs" not in got and "word" not in got


def test_vllm_offline_bar_gives_its_last_estimated_rates():
    from wrapper.derive.frameworks import parse_lines

    (r,) = parse_lines(["INFO 07-01 10:00:00 [llm.py:1] vLLM is running\n",
                        "Processed prompts:  14%|███▉      | 20791/152671 [15:38<1:23:11, 26.42it/s, est. speed input: "
                        "24555.79 toks/s, output: 22.14 toks/s]\n"])
    assert r["framework"] == "vllm"
    assert {k: r["extra"][k] for k in ("offline_prompts_done", "offline_prompts", "offline_input_tps",
                                       "offline_output_tps")} == {
        "offline_prompts_done": 20791, "offline_prompts": 152671, "offline_input_tps": 24555.79,
        "offline_output_tps": 22.14}


def test_a_rate_in_brackets_after_words_and_a_progress_count():
    # mlx-openai-server's debug log (held-out round 8): the count is progress, so many tokens of so many (no core
    # key), the rate is labelled by the words before its bracket
    (run,) = read("✦ ⚡ Processed   2048/8831 tokens (264.70 tok/s)", "Prompt: 100 tokens (12.3 tok/s)")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Processed tokens", 2048, "tokens"), ("Processed tokens out of", 8831, "tokens"),
        ("tokens rate", 264.7, "tokens/s"), ("Prompt", 100, "tokens"), ("Prompt rate", 12.3, "tokens/s")]


def test_a_column_named_by_its_unit_and_what_it_measures():
    # llama.cpp's compare-llama-bench.py table (held-out round 9)
    runs = read("| GPU        | Model                 |     Microbatch size | Test           |     t/s master |     t/s a3cec6ab6 |",
                "| :--------- | :-------------------- | ------------------: | :------------- | -------------: | ----------------: |",
                "| RTX 3090   | gemma4 26B.A4B Q4_0   |                   1 | pp256          |         189.63 |            190.09 |")
    got = {f.label: (f.value, f.unit) for r in runs for f, _ in r.figures}
    assert got["26B.A4B Q4 0 pp256 t/s master"] == (189.63, "tokens/s")  # a label keeps its last 6 words
    assert got["26B.A4B Q4 0 pp256 t/s a3cec6ab6"] == (190.09, "tokens/s")


def test_a_logfmt_time_is_no_unitless_duration():
    # ollama's journal lines (held-out round 9): "time=2024-11-19T11:57:03…" is a timestamp, not 2024 of something
    runs = read('time=2024-11-19T11:57:03.647-06:00 level=INFO source=server.go:105 msg="system memory"',
                "TotalTime=95.67")
    assert [(f.label, f.value, f.unit, f.kind) for r in runs for f, _ in r.figures] == [
        ("TotalTime", 95.67, None, "duration")]


def test_a_histograms_count_is_no_duration():
    # Prometheus histograms: "_sum" is in the metric's unit, "_count" counts observations
    runs = read('vllm:e2e_request_latency_seconds_count{model_name="m"} 5',
                'vllm:e2e_request_latency_seconds_sum{model_name="m"} 12.5')
    assert [(f.value, f.unit, f.kind) for r in runs for f, _ in r.figures] == [(5, None, "count"), (12.5, "s", "duration")]


def test_a_labelled_number_of_no_printed_kind_is_a_value_in_strong_shapes_only():
    # ivanfioravanti/llm_context_benchmarks output (held-out round 15), an MTP bench script's rows (round 6)
    (run,) = read("  Peak Batch pp: 208.4", "  code_python        pred= 192 draft=   0 acc=   0 rate=n/a tok/s=11.6",
                  "Loaded 3 files in total", "Seq 3 done", "system_info: n_threads = 8 | AVX = 1 | NEON = 0 |",
                  "INFO 07-03 23:23:42 [metrics.py:536] started", "mirostat = 0, typical_p = 1.000", "p25 = 0.17")
    got = {f.label: (f.value, f.unit, f.kind) for f, _ in run.figures}
    assert got == {"Peak Batch pp": (208.4, None, "value"), "code python pred": (192, None, "value"),
                   "draft": (0, None, "value"), "acc": (0, None, "value"), "tok/s": (11.6, "tokens/s", "rate")}


def test_tab_separated_tables_quoted_blocks_and_a_header_without_its_corner():
    # kvcache-ai/ktransformers issue #117 (a quoted spreadsheet, held-out round 15), trtllm-bench's statistics
    rows = read(">  \tDefault\t--cpu_infer 22", "> Prefill\t12.31613439\t23.87405887",
                "> Tokens decode\t511\t336")
    got = {f.label: (f.value, f.kind) for r in rows for f, _ in r.figures}
    assert got["Prefill Default"] == (12.31613439, "value") and got["Prefill --cpu infer 22"] == (23.87405887, "value")
    assert got["Tokens decode Default"] == (511, "count") and got["Tokens decode --cpu infer 22"] == (336, "count")
    (run,) = read("        Input              Output           Seq. Length", "-" * 40,
                  "MIN:   167.0000           119.0000           300.0000",
                  "P50:   299.0000           128.0000           427.0000")
    got = {f.label: f.value for f, _ in run.figures}
    assert got == {"MIN Input": 167.0, "MIN Output": 119.0, "MIN Seq. Length": 300.0,
                   "P50 Input": 299.0, "P50 Output": 128.0, "P50 Seq. Length": 427.0}


def test_a_tables_header_is_the_line_above_its_first_row_though_nothing_led_the_reader_to_it():
    # trtllm-bench's dataset statistics (held-out round 8): a header of names, a rule, rows of bare numbers
    lines = ["-- Percentiles statistics ----", "", "        Input              Output           Seq. Length",
             "-----------------------------------------------------------",
             "MIN:   167.0000           119.0000           300.0000",
             "MAX:  1059.0000           137.0000          1178.0000"]
    assert [generic.GATE.search(line) is not None for line in lines] == [False, False, False, False, True, True]
    (rep,) = frameworks.parse_lines(lines)
    got = {f["label"]: f["value"] for f in rep["figures"]}
    assert got == {"MIN Input": 167.0, "MIN Output": 119.0, "MIN Seq. Length": 300.0,
                   "MAX Input": 1059.0, "MAX Output": 137.0, "MAX Seq. Length": 1178.0}
    # the same through the block reader, which skips the header line and is asked for it
    import io

    from wrapper.derive.frameworks.blocks import BlockFeeder

    parser = frameworks.StreamParser()
    feeder = BlockFeeder(parser)
    for _ in feeder.read(io.BytesIO(("\n".join(["x"] * 200_000 + lines) + "\n").encode())):
        pass
    feeder.close()
    (rep,) = parser.results()
    assert {f["label"]: f["value"] for f in rep["figures"]} == got


def test_numbers_in_brackets_a_list_after_its_label_or_a_bracket_of_names_then_values():
    # TensorRT-LLM's gptSessionBenchmark, vegeta's report (held-out round 17)
    (run,) = read("Latencies: [2561.47, 2561.20, 2560.63]",
                  "Latencies     [min, mean, 50, max]  232.884ms, 1.35s, 834.257ms, 2.899s")
    got = {f.label: (f.value, f.unit) for f, _ in run.figures}
    assert got == {"Latencies [1]": (2561.47, None), "Latencies [2]": (2561.2, None), "Latencies [3]": (2560.63, None),
                   "Latencies min": (232.884, "ms"), "Latencies mean": (1.35, "s"), "Latencies 50": (834.257, "ms"),
                   "Latencies max": (2.899, "s")}
    # a settings list is no figure, and a long one is read in linear time (this line once backtracked for minutes)
    (run,) = read("[TP0] Capture cuda graph num tokens [" + ", ".join(str(4 * i) for i in range(1, 400)) + "]")
    assert run.figures == []


def test_a_bracket_of_one_name_status_codes_and_values_after_their_names_bracket():
    # vegeta report of bud-runtime's services/budprompt/perf/concurrency.md (held-out round 18)
    lines = ["Requests      [total, rate, throughput]         250, 50.18, 22.01",
             "Bytes In      [total, mean]                     311284, 1245.14",
             "Success       [ratio]                           94.40%",
             "Status Codes  [code:count]                      0:14  200:236"]
    reps = frameworks.parse_lines(lines)
    got = {f["label"]: (f["value"], f["unit"], f["kind"]) for r in reps for f in r["figures"]}
    assert got == {"Requests total": (250, None, "count"), "Requests rate": (50.18, None, "rate"),
                   "Requests throughput": (22.01, None, "rate"), "Bytes In total": (311284, None, "value"),
                   "Bytes In mean": (1245.14, None, "value"), "Success ratio": (94.4, "%", "percent"),
                   "Status Codes 0": (14, "requests", "count"), "Status Codes 200": (236, "requests", "count")}
    # the block reader's gate passes the line of bare values after the bracket too
    assert generic.GATE.search(lines[1]) is not None


def test_gins_access_line_is_a_latency_of_its_method_and_path():
    # ollama/ollama issue #12846 (journald, French locale month "oct."; held-out round 18)
    lines = ['oct. 30 00:11:38 jarvis-server ollama[556420]: [GIN] 2025/10/30 - 00:11:38 | 200 |   84.801208ms |'
             '       127.0.0.1 | POST     "/api/show"',
             '[GIN] 2024/09/20 - 01:14:44 | 200 |      23.585µs |   192.168.1.5 | HEAD     "/"']
    (rep,) = frameworks.parse_lines(lines)
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("GIN POST /api/show latency", 84.801208, "ms"), ("GIN HEAD / latency", 23.585, "us")]


def test_a_markdown_table_pasted_without_its_outer_pipes():
    # ml-explore/mlx-lm PR #839 (held-out round 18): the rule under the header has no outer pipes, nor the rows;
    # "Context | " is no compose service prefix of the rows ("4096 | …" never was)
    lines = ["Context | prompt tok/s pre | prompt tok/s post | memory GB pre",
             "----- | ---- | ----| -----",
             "4096 | 199.149 | 213.337 | 401.668"]
    reps = frameworks.parse_lines(lines)
    got = [(f["label"], f["value"], f["unit"]) for r in reps for f in r["figures"]]
    assert got == [("prompt tok/s pre", 199.149, "tokens/s"), ("prompt tok/s post", 213.337, "tokens/s"),
                   ("memory GB pre", 401.668, "GB")]


def test_a_cells_how_many_of_how_many_and_a_rate_per_user_after_its_time():
    # huggingface/inference-benchmarker in ROCm's MI300X partitioning blog (held-out round 18)
    (run,) = read("│ Benchmark  │ QPS        │ Successful Requests │",
                  "│ warmup     │ 0.49 req/s │ 16/16               │")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("warmup Successful Requests", 16), ("warmup Successful Requests out of", 16), ("warmup QPS", 0.49)]
    # tenstorrent/tt-metal issue #25107: "63.27ms @ 15.81 tok/s/user", the same figure's rate
    (run,) = read("Average speed: 63.27ms @ 15.81 tok/s/user [similar to 128th token]")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Average speed", 63.27, "ms"), ("Average speed rate", 15.81, "tokens/s")]


def test_a_part_of_the_works_time_is_a_figure_its_index_or_count_is_not():
    # Const-me/Whisper's profiler (held-out round 17): "DecodeStep" and "EncodeLayer" times, no core decode time
    (run,) = read("DecodeStep      104.636 seconds, 4973 calls, 21.0409 milliseconds average",
                  "layer 12 = 40", "offloading 8 layers")
    got = {f.label: (f.value, f.unit) for f, _ in run.figures}
    assert got["DecodeStep"] == (104.636, "s") and "layer" not in " ".join(got).lower()
    assert "eval_ms" not in run.core


def test_pairs_after_a_rate_of_unknown_unit_and_a_total_tokens_key():
    # opentelemetry-demo PR #3788's load generator, ai-on-gke's latency profile generator (held-out round 18)
    (run,) = read("  t=   74s  rate= 24.3/min  sent=  25  done=  23", '"total_output_token": 276,')
    assert {f.label: f.value for f, _ in run.figures} == {"t": 74, "rate": 24.3, "sent": 25, "done": 23,
                                                          "total output token": 276}


def test_a_column_named_by_a_settings_value_holds_measurements():
    # chroma-core/chroma issue #5353 (held-out round 17): "Batch 8" is the setting each cell was measured at
    lines = ["Provider                 Batch 1     Batch 8     Batch 16    ",
             "-------------------------------------------------------------",
             "CoreMLExecutionProvider  12.81       11.50       12.07       "]
    (rep,) = frameworks.parse_lines(lines)
    assert [(f["label"], f["value"]) for f in rep["figures"]] == [
        ("CoreMLExecutionProvider Batch 1", 12.81), ("CoreMLExecutionProvider Batch 8", 11.5),
        ("CoreMLExecutionProvider Batch 16", 12.07)]


def test_json_over_several_lines_arrays_of_numbers_percent_keys_and_quoted_numbers():
    # a committed llm_rs2 profile JSON and a vLLM benchmark JSON fragment (held-out round 19)
    lines = ['{', '  "baseline": {', '    "avg_memory_used_mb": 4560.95,', '    "avg_gpu_load_percent": 0.0', '  },',
             '  "timeseries": [', '    {', '      "cpu_freqs_khz": [', '        2400000,', '        1017600', '      ]',
             '    }', '  ],', '  "tokens_per_second": "161.70"', '}']
    (rep,) = frameworks.parse_lines(lines)
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("baseline avg memory used mb", 4560.95, "MB"), ("baseline avg gpu load", 0.0, "%"),
        ("cpu freqs khz [1]", 2400000, None), ("cpu freqs khz [2]", 1017600, None),
        ("tokens per second", 161.7, "tokens/s")]


def test_csv_rows_named_under_a_metric_column_with_quoted_thousands():
    # NVIDIA/cloudai's doc/ai_dynamo.md: genai-perf's profile CSV (held-out round 19)
    (rep,) = frameworks.parse_lines(['Metric,avg,min,max,p99',
                                     'Time To First Token (ms),"1,146.31",249.48,"3,485.23","3,457.97"',
                                     'Output Sequence Length (tokens),174.45,164.00,187.00,186.22'])
    got = {f["label"]: (f["value"], f["unit"]) for f in rep["figures"]}
    assert got["Time To First Token avg"] == (1146.31, "ms") and got["Time To First Token max"] == (3485.23, "ms")
    assert got["Output Sequence Length min"] == (164, "tokens")  # a statistic of a count, not a limit


def test_pandas_describe_under_its_heading():
    # vllm-project/vllm's benchmark_guided.py output (held-out round 19)
    lines = ["First token latency(msecs):", "count     20.000000", "mean     204.032341", "25%      158.030014",
             "dtype: float64", "Next token latency(msecs):", "max       8.713751"]
    (rep,) = frameworks.parse_lines(lines)
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("First token latency count", 20, None), ("First token latency mean", 204.032341, "ms"),
        ("First token latency p25", 158.030014, "ms"), ("Next token latency max", 8.713751, "ms")]
    # wrk's latency distribution: a percentile with its unit glued on (held-out round 33)
    (rep,) = frameworks.parse_lines(["  Thread Stats   Avg      Stdev     Max   +/- Stdev",
                                     "    Req/Sec    75.85      8.86   101.00     76.56%", "  Latency Distribution",
                                     "     50%   12.66ms", "     99%   25.43ms"])
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]][-2:] == [
        ("Latency Distribution p50", 12.66, "ms"), ("Latency Distribution p99", 25.43, "ms")]


def test_a_label_that_opens_with_a_models_size_or_an_ordinal():
    # mlc-ai/llm-perf-bench review (held-out round 19): "- 7B: 191.0 token/sec"
    (run,) = read("- 7B: 191.0 token/sec", "2nd token latency: 20.5 ms")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("7B", 191.0, "tokens/s"), ("2nd token latency", 20.5, "ms")]


def test_nvidia_smis_gpu_row():
    # ollama/ollama issue #5166 (held-out round 19): the table nvidia-smi prints, pasted under a docker log
    (run,) = read("|  0%   38C    P8    16W / 350W |    114MiB / 24576MiB |      0%      Default |")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("GPU fan", 0, "%"), ("GPU temperature", 38, "\u00b0C"), ("GPU power", 16, "W"), ("GPU power cap", 350, "W"),
        ("GPU memory used", 114, "MiB"), ("GPU memory total", 24576, "MiB"), ("GPU util", 0, "%")]  # the cap: round 49


def test_table_cells_with_a_spread_before_the_unit_pandas_index_and_a_times_sign():
    # noamsto/nix-amd-ai #129 and GPULlama3.java PR #124 (held-out round 20): "1900.72 ± 33.74 t/s", "**1.27×**";
    # the row's brackets "(patched)" qualify its name
    (run,) = read("| Backend | pp512 | speedup |", "| --- | ---: | ---: |",
                  "| ROCm (patched) | 1900.72 ± 33.74 t/s | **1.27×** |")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("ROCm (patched) pp512", 1900.72, "tokens/s"), ("ROCm (patched) pp512 \u00b1", 33.74, "tokens/s"),
        ("ROCm (patched) speedup", 1.27, "x")]
    # sglang PR #4666: a pandas DataFrame printed with its row index
    reps = frameworks.parse_lines(["  forward_mode    throughput   latency  batch_size  num_tokens",
                                   "0       EXTEND  18538.560266  0.110472           2        2048"])
    got = {f["label"]: f["value"] for r in reps for f in r["figures"]}
    assert got["EXTEND throughput"] == 18538.560266 and got["EXTEND latency"] == 0.110472
    assert got["EXTEND num tokens"] == 2048 and "0" not in " ".join(got).split()


def test_a_json_object_printed_after_a_log_lines_text():
    # modelscope/evalscope issue #408 (held-out round 20): "… - evalscope - INFO - {" then its members
    (rep,) = frameworks.parse_lines(["2025-03-20 17:05:25,055 - evalscope - INFO - {",
                                     '  "Time taken for tests (s)": 375.537,', '  "Total requests": 480,', "}"])
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("Time taken for tests", 375.537, "s"), ("Total requests", 480, None)]


def test_a_rows_values_under_named_columns_are_not_its_setups_noise():
    # noamsto/nix-amd-ai #61 (held-out round 20): the row names a backend, which alone would be a device's name;
    # the column "build" is what makes its cell noise
    (run,) = read("| image | build | pp512 | pp8192 |", "|---|---|---:|---:|",
                  "| `vulkan-radv` | 10471 | 246.24 | 228.33 |")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("vulkan-radv pp512", 246.24), ("vulkan-radv pp8192", 228.33)]  # the code span's backticks are no text


def test_rates_per_minute_and_a_bar_of_no_known_total():
    # AI-Hypercomputer/inference-benchmark PR #4 and evalscope issue #408 (held-out round 20)
    (run,) = read("Requests/min: 62.30", "Output_tokens/min: 13539.97",
                  "Processing: 471it [06:15,  1.28it/s]")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("Requests/min", 62.3, "req/min", "rate"), ("Output tokens/min", 13539.97, "tokens/min", "rate"),
        ("Processing done", 471, "iterations", "count"), ("Processing", 1.28, "it/s", "rate"),
        ("Processing elapsed so far", 375, "s", "duration")]


def test_a_pipe_less_table_whose_first_cells_look_like_compose_prefixes():
    # ml-explore/mlx PR #828 (held-out round 21): "Dtype | Prompt | …" is one compose prefix at most, so the rows'
    # first cells ("fp16 | ") are the only ones lost, and their values stay under their columns
    reps = frameworks.parse_lines(["Dtype | Prompt | Generation | Memory (GB)", "--- | --- | --- | --- ",
                                   "fp16 | 494.712 | 26.333 | 13.659"])
    assert [(f["label"], f["value"], f["unit"]) for r in reps for f in r["figures"]] == [
        ("Prompt", 494.712, None), ("Generation", 26.333, None), ("Memory", 13.659, "GB")]


def test_temperatures_are_a_kind_of_their_own_never_the_sampling_setting():
    # llm_rs2's benchmark README (held-out round 19): "Temp (°C)" columns and "temp_c" keys; "temperature = 0.8"
    # (a sampling setting, no unit) stays noise
    (run,) = read("GPU temperature: 61 \u00b0C", "| Temp (\u00b0C) | Power (W) |", "|---|---|", "| 37.9 | 250 |",
                  '{"gpu_temp_c": 55}', "CPU Temp: 45.0 degC", "temperature = 0.8")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("GPU temperature", 61, "\u00b0C", "temperature"), ("Temp", 37.9, "\u00b0C", "temperature"),
        ("Power", 250, "W", "power"), ("gpu temp c", 55, "\u00b0C", "temperature"),
        ("CPU Temp", 45.0, "\u00b0C", "temperature")]


def test_two_column_csv_under_metric_value_and_a_unit_named_in_the_label():
    # genai-perf's profile_export CSV (held-out round 19); AI-Hypercomputer's benchmark (held-out round 20)
    (run,) = read("Metric,Value", "Output Token Throughput (per sec),261.25", "Request Count (count),40.00",
                  "Average milliseconds/request (includes waiting time on server): 18217.93")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("Output Token Throughput", 261.25, None, "rate"), ("Request Count", 40, None, "count"),
        ("Average milliseconds/request", 18217.93, "ms", "duration")]


def test_llama_cpp_device_memory_a_download_bar_bits_per_weight_and_a_rate_per_minute():
    # llama.cpp #24066, EuroEval #1120 (held-out round 21), a load generator's progress (held-out round 18)
    (run,) = read("0.00.045.584 I   - Vulkan0 : AMD Radeon RX 6600 (RADV NAVI23) (8192 MiB, 8169 MiB free)",
                  "config.json: 2.09kB [00:00, 15.8MB/s]", "print_info: file size   = 60.85 GiB (4.85 BPW)",
                  "  t=   74s  rate= 24.3/min  sent=  25")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures if f.kind != "value"] == [
        ("Vulkan0 memory total", 8192, "MiB"), ("Vulkan0 memory free", 8169, "MiB"), ("config.json size", 2.09, "kB"),
        ("config.json", 15.8, "MB/s"), ("config.json elapsed so far", 0, "s"), ("file size", 60.85, "GiB"), ("bits per weight", 4.85, "BPW"),
        ("t", 74, "s"), ("rate", 24.3, "/min")]


def test_members_of_a_task_or_batch_are_counts_and_projects_named_like_source_files_are_no_noise():
    # llama-server's slot lines (held-out rounds 11, 19, 21), mistral.rs #903 (held-out round 22)
    (run,) = read("slot update_slots: id  3 | task 0 | new prompt, n_ctx_slot = 32768, n_keep = -1, task.n_tokens = 7172",
                  "| Platform | TG (256) T/s |", "| -- | -- |", "| mistral.rs | 37.39 | ", "| llama.cpp | 38.94 | ",
                  "whisper_print_timings:   batchd time =  65441.72 ms / 36864 runs (     1.78 ms per run)")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures if f.label != "n keep"] == [
        ("task.n tokens", 7172, None), ("mistral.rs", 37.39, "tokens/s"), ("llama.cpp", 38.94, "tokens/s"),
        ("batchd time", 65441.72, "ms"), ("batchd time tokens", 36864, "runs"), ("per run", 1.78, "ms")]


def test_a_spread_beside_a_unitless_cell_and_a_box_around_text():
    # premAI's benchmarks README and GuideLLM's progress box (held-out round 22)
    (run,) = read("| Engine | float32 |", "|---|---|", "| burn | 13.12 \u00b1 0.85 |")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("burn", 13.12, None), ("burn \u00b1", 0.85, None)]
    (run,) = read("\u2502 [14:08:32]   100% concurrent   (0.12 req/sec avg)     \u2502")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("concurrent", 100, "%"), ("avg", 0.12, "req/s")]


# ikawrakow/ik_llama.cpp PR #1894 (comment by ubergarm, 2026-05-29): a typeset minus sign in each change
IK_DELTAS = ("| Metric | Summary (main) | Summary (PR #1894) | Coding (main) | Coding (PR #1894) |",
             "|---|---|---|---|---|",
             "| **Prefill (tok/s)** | 1,499 | 1,483 (\u22121.1%) | 1,505 | 1,500 (\u22120.3%) |",
             "| **Token acceptance** | 55.3% | 50.1% (\u22125.2pp) | 60.9% | 59.0% (\u22121.9pp) |")


def test_a_cells_signed_change_in_brackets_is_a_change_figure_in_percent_or_percentage_points():
    got = {f.label: (f.value, f.unit, f.kind) for run in read(*IK_DELTAS) for f, _ in run.figures}  # a run per prefill
    assert got["Prefill Summary (PR #1894)"] == (1483.0, "tokens/s", "rate")
    assert got["Prefill Summary (PR #1894) change"] == (-1.1, "%", "percent")
    assert got["Prefill Coding (PR #1894) change"] == (-0.3, "%", "percent")
    assert got["Token acceptance Summary (PR #1894)"] == (50.1, "%", "percent")
    assert got["Token acceptance Summary (PR #1894) change"] == (-5.2, "pp", "percent")
    assert got["Token acceptance Coding (PR #1894) change"] == (-1.9, "pp", "percent")


def test_a_change_from_one_value_to_another_in_a_line_and_in_a_cell():
    # llm_rs2's benchmark log (the corpus's unknown__llm_rs2-2026-01-…): "37.9 -> 37.6 (Max 38.1)" under "Temp (°C)"
    runs = read("| Date | Model | TTFT (ms) | Temp (\u00b0C) | Mem (MB) |", "| :--- | :--- | :--- | :--- | :--- |",
                "| 2026-01-29 09:04 | llama3.2-1b | **160.9** | 37.9 -> 37.6 (Max 38.1) | 3850 |",
                "profile  : 15 -> 60 RPM over 360s")  # the corpus's unknown__2026-08-otel-demo-llm-loadgen-…
    got = {f.label: (f.value, f.unit, f.kind) for run in runs for f, _ in run.figures}
    assert got["Temp"] == (37.6, "\u00b0C", "temperature")
    assert got["Temp from"] == (37.9, "\u00b0C", "temperature")
    assert got["Temp max"] == (38.1, "\u00b0C", "temperature")
    assert got["profile"] == (60.0, None, "value") and got["profile from"] == (15.0, None, "value")
    (run,) = read("Decode speed: 12.3 -> 15.6 tok/s")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Decode speed", 15.6, "tokens/s"), ("Decode speed from", 12.3, "tokens/s")]


# SYSTRAN/faster-whisper PR #856 (comment by Jiltseb, 2024-05-28): tab-separated tables quoted with "> "
WHISPER_TABLES = ("> System\tWER", "> Faster-Whisper\t3.097", "> Batched Faster-Whisper\t1.773",
                  "> System\tMaximum increase of RAM\tMaximum GPU memory usage\tMaximum GPU power usage",
                  "> Batched Faster-Whisper\t1768 MiB\t9024MiB / 32768MiB\t273W / 250W")


def test_a_two_column_tab_table_and_cells_of_a_size_used_out_of_a_total():
    reader = generic.FigureReader()  # the lines above as the stream parser gives them (a tab table's header)
    reader.line_before = lambda back: WHISPER_TABLES[index - back] if index - back >= 0 else None
    for index, line in enumerate(WHISPER_TABLES):
        reader.feed(frameworks.strip_text(line))
    (run,) = reader.runs(family_claimed=False)
    got = {f.label: (f.value, f.unit, f.kind) for f, _ in run.figures}
    assert got["Faster-Whisper WER"] == (3.097, None, "value")
    assert got["Batched Faster-Whisper WER"] == (1.773, None, "value")  # "Batched" names a system, no batch setting
    assert got["Batched Faster-Whisper Maximum GPU memory usage"] == (9024.0, "MiB", "size")  # a usage: measured
    # a label keeps its last six words (MAX_LABEL_WORDS)
    assert got["Faster-Whisper Maximum GPU memory usage total"] == (32768.0, "MiB", "size")
    assert got["Batched Faster-Whisper Maximum GPU power usage"] == (273.0, "W", "power")
    assert got["Faster-Whisper Maximum GPU power usage total"] == (250.0, "W", "power")
    (run,) = read("Model   Batch size   Time", "llama  8  3.2s")
    assert [(f.label, f.value) for f, _ in run.figures] == [("llama Time", 3.2)]  # a batch size stays a setting


def test_statistics_of_a_json_object_printed_over_lines_keep_min_and_max():
    # kubernetes-sigs/inference-perf PR #215 (description, ~2025-09): the lifecycle report's latency objects
    (run,) = read("{", '  "successes": {', '    "latency": {', '      "request_latency": {',
                  '        "mean": 15.593178573027828,', '        "min": 0.18490204284898937,',
                  '        "max": 71.12386345583946', "      },", '      "schedule_delay": {',
                  '        "min": -0.0010661035776138306,', "      }")
    got = {f.label: (f.value, f.kind) for f, _ in run.figures}
    assert got["request latency min"] == (0.18490204284898937, "duration")
    assert got["request latency max"] == (71.12386345583946, "duration")
    assert got["schedule delay min"] == (-0.0010661035776138306, "value")


def test_vllms_misspelt_gib_is_a_size():
    # vllm-project/vllm issue #12155 (vLLM 0.6.4's memory profiling line)
    (run,) = read("Memory profiling results: total_gpu_memory=23.64GiB memory_usage_post_profile=7.89Gib "
                  "kv_cache_size=12.67GiB")
    got = {f.label: (f.value, f.unit) for f, _ in run.figures}
    assert got["memory usage post profile"] == (7.89, "GiB")


def test_a_labelled_row_of_values_between_bars_and_a_rate_per_replica():
    # NVIDIA/TensorRT-LLM (the corpus's tensorrt-llm__2025-12-trtllm-bench-report-…): trtllm-bench's overview pasted
    # as a two-column comparison, no header
    got = [(f.label, f.value, f.unit) for run in read("Request Throughput (req/sec): |  0.9765 | 0.9812",
                                                      "Total   Latency (ms):   | 262159.4 | 260907.7")
           for f, _ in run.figures]
    assert got == [("Request Throughput", 0.9765, "req/s"), ("Request Throughput", 0.9812, "req/s"),
                   ("Total Latency", 262159.4, "ms"), ("Total Latency", 260907.7, "ms")]
    # Ray Serve LLM's benchmark lines (the corpus's unknown__ray-serve-llm-2025-05-…)
    (run,) = read("MODEL='Qwen2.5-0.5B-Instruct' IGNORE_EOS=True  N_REPLICAS=8 N_REQUESTS=2000 57.28s  elapsed =  "
                  "4.36 reqs/s/replica")
    assert [(f.value, f.unit, f.kind) for f, _ in run.figures if f.unit == "req/s"] == [(4.36, "req/s", "rate")]


def test_a_row_whose_cells_contradict_their_columns_fills_no_core_key():
    # nelstevens/llm-benchmark's output.md (the corpus's unknown__ollama-2025-04-llm-benchmark-repo-…): ollama's
    # verbose stats tabulated with every cell shifted under the wrong column; "18 token(s)" is a count
    runs = read("| total duration | load duration | prompt eval count | prompt eval duration | prompt eval rate |",
                "|---|---|---|---|---|",
                "| 7.945641583s | 18 token(s) | 61.145167ms | 294.38 tokens/s | 1003 token(s) |")
    assert len(runs) == 1 and runs[0].core == {}
    got = {f.label: (f.value, f.unit, f.kind) for f, _ in runs[0].figures}
    assert got["count under load duration"] == (18, "tokens", "count")
    assert got["duration under prompt eval count"] == (61.145167, "ms", "duration")
    assert got["duration under total duration"] == (7.945641583, "s", "duration")  # right, but in a shifted row
    # the same cells under the right columns are core figures
    (run,) = read("| total duration | prompt eval count | prompt eval rate |", "|---|---|---|",
                  "| 7.945641583s | 18 token(s) | 294.38 tokens/s |")
    assert run.core["total_ms"][0] == 7945.641583 and run.core["prompt_tps"][0] == 294.38


def test_a_source_files_line_is_noise_a_project_named_like_a_source_file_is_not():
    got = [(f.label, f.value) for run in read("I 00:00:00.100 executorch:stats.h:100] \tPrompt Tokens: 22",
                                              "| mistral.rs | 37.39 |", "whisper.cpp: 92.920 s total")
           for f, _ in run.figures]
    assert ("stats.h", 100.0) not in got and ("mistral.rs", 37.39) in got


def test_round_24_cells_a_range_text_cells_with_figures_and_the_units_a_cell_prints():
    # advantech's Jetson Orin NX notes: "~15-17 tokens/sec", the high end the value and "… low" the other
    got = {f.label: (f.value, f.unit) for run in read(
        "| Model Family | Parameters | Quantization | Size | Performance  |", "|---|---|---|---|---|",
        "| DeepSeek R1 | 1.5 B | Q4_K_M | 1.1 GB | ~15-17 tokens/sec |") for f, _ in run.figures}
    assert got["DeepSeek R1 Performance"] == (17.0, "tokens/s") and got["DeepSeek R1 Performance low"] == (15.0, "tokens/s")
    # mlc-ai/mlc-llm (2024-03): a row of text cells under a ruled header, each prose with figures
    got = [(f.label, f.value, f.unit) for run in read("|legacy|SLM|", "|:-:|:-:|",
                                                      "|decode 425 tokens, 10.1 t/s|decode 254 tokens, 9.0 t/s|")
           for f, _ in run.figures]
    assert ("legacy decode", 425, "tokens") in got and ("SLM decode", 254, "tokens") in got
    assert {(v, u) for _, v, u in got} >= {(10.1, "tokens/s"), (9.0, "tokens/s")}
    # TGI's text-generation-benchmark: the cell's "ms" wins over the row's "(token)", which says what the row is
    got = {f.label: (f.value, f.unit, f.kind) for run in read(
        "| Step           | Batch Size | Average    | Lowest     | Highest    |", "|---|---|---|---|---|",
        "| Decode (token) |            | 14.22 ms   | 13.83 ms   | 14.50 ms   |",
        "| Prefill | 4          | 3.32 tokens/secs   | 3.30 tokens/secs   | 3.34 tokens/secs   |") for f, _ in run.figures}
    assert got["Decode (token) Lowest"] == (13.83, "ms", "duration")
    assert got["Prefill Lowest"] == (3.3, "tokens/s", "rate")
    # a unit-only column's cells are measurements whatever setup the row's text names (ORT GenAI's Flutter plugin)
    got = [(f.label, f.value, f.unit) for run in read(
        "| Test | Provider | Config | Tokens | Time (s) | tok/s | Notes |", "|---|---|---|---|---|---|---|",
        "| A | Default | Factory (128K ctx) | 1971 | 802.3 | 2.46 | Baseline |") for f, _ in run.figures]
    assert ("A Default Factory (128K ctx)", 2.46, "tokens/s") in got


def test_round_24_lines_a_headerless_fixed_width_row_and_rates_per_minute_and_of_samples():
    # vllm-project/vllm (2026-09): a regression table without header, each value with its unit
    got = [(f.label, f.value, f.unit) for run in read("v0.21.0 (pre-regression control)   515s  233 req/min",
                                                      "v0.28.0 stock                      987s  121 req/min")
           for f, _ in run.figures]
    assert ("v0.28.0 stock", 987.0, "s") in got and ("v0.28.0 stock", 121.0, "req/min") in got
    assert ("v0.21.0 (pre-regression control)", 233.0, "req/min") in got
    (run,) = read("| **Throughput** | 1.02 samples/second |")  # an MLPerf local test's summary
    assert [(f.value, f.unit, f.kind) for f, _ in run.figures] == [(1.02, "samples/s", "rate")]


def test_round_25_vegetas_go_durations_ollama_ps_cells_and_chinese_units():
    # bud-runtime's vegeta report (2025-12): a list of Go durations ("2m55s") is read like any other
    (run,) = read("Duration      [total, attack, wait]             2m55s, 59s, 1m56s",
                  "Latencies     [min, mean, 50, 90, 95, 99, max]  92.562ms, 5.014s, 315.774ms, 4.562s, 7.139s, 2m0s, 2m0s")
    got = {f.label: (f.value, f.unit) for f, _ in run.figures}
    assert got["Duration total"] == (175000.0, "ms") and got["Duration attack"] == (59.0, "s")
    assert got["Latencies max"] == (120000.0, "ms") and got["Latencies min"] == (92.562, "ms")
    # `ollama ps` under its header: "100% CPU", "25%/75% CPU/GPU"; `ollama ls`: one value a row under four names
    got = {f.label: (f.value, f.unit) for run in read(
        "NAME        ID              SIZE     PROCESSOR          UNTIL",
        "qwen3:4b    359d7dd4bcda    41 GB    25%/75% CPU/GPU    4 minutes from now",
        "NAME                  ID              SIZE      MODIFIED",
        "qwen3:4b              359d7dd4bcda    2.5 GB    7 minutes ago") for f, _ in run.figures}
    assert {(v, u) for v, u in got.values()} >= {(41.0, "GB"), (25.0, "%"), (75.0, "%"), (2.5, "GB")}
    assert not any(u == "min" for _, u in got.values())  # "4 minutes from now" is no duration
    # vllm-project/vllm-ascend (2025-11): "~157 tokens/秒" (per second), "4倍" (times)
    got = {f.label: (f.value, f.unit, f.kind) for run in read(
        "| 并发数 | H20 GPU 性能 | 910B4 NPU 性能 |", "| :--- | :--- | :--- |",
        "| **单并发** | **~157 tokens/秒** | **~40 tokens/秒** |", "H20 约是 NPU 的 4倍") for f, _ in run.figures}
    assert got["单并发 H20 GPU 性能"] == (157.0, "tokens/s", "rate")
    assert (4.0, "x", "ratio") in got.values()


def test_round_26_a_cell_of_a_sweep_and_a_bar_of_an_engine_named_in_a_comparison_table():
    # InternLM/lmdeploy (2024-11): lmdeploy against MindIE, each cell a sweep of batch sizes "1238 / 1693 / 1837"
    got = [(f.label, f.value) for run in read("| Engine | Prefill performance, token/s |", "|---|---|",
                                              "| lmdeploy | 1238 / 1693 / 1837 |") for f, _ in run.figures]
    assert got == [("lmdeploy [1]", 1238.0), ("lmdeploy [2]", 1693.0), ("lmdeploy [3]", 1837.0)]
    # a table's row naming an engine among others is a comparison, no evidence of that engine's log
    parser = frameworks.new_parser()
    for line in ("| Implementation | Precision | Time | VRAM Usage |", "| --- | --- | --- | --- |",
                 "| transformers (SDPA)[^1] | fp16 | 1m52s | 4960MB |", "| OpenVINO CPU | fp16 | 2m01s | 3900MB |"):
        parser.feed_line(line)
    assert parser.results()[-1]["framework"] == "unknown"


def test_round_26_cells_of_go_durations_with_a_mark_or_a_named_figure_in_brackets():
    got = {f.label: (f.value, f.unit) for run in read(
        "| Implementation | Precision | Time | VRAM Usage |", "| --- | --- | --- | --- |",  # faster-whisper's README
        "| openai/whisper | fp16 | 2m23s | 4708MB |",
        "| Metric | Narrative | Code |", "|---|---|---|",  # a club-3090 report (vLLM, 2026-08)
        "| Wall TPS | **249.4** (CV 0.1%) | **247.8** (CV 0.3%) |",
        "| Path | Tg t/s |", "|---|---|", "| Vulkan iGPU | **20.0 ⭐** |") for f, _ in run.figures}
    assert got["openai/whisper Time"] == (143000.0, "ms")
    assert got["Wall TPS Narrative"] == (249.4, None) and got["Wall TPS Narrative CV"] == (0.1, "%")
    assert got["Vulkan iGPU"] == (20.0, "tokens/s")
    # bash's `time`: a Go-style duration after a tab is no table's header
    got = [(f.label, f.value) for run in read("real\t0m2.799s", "user\t0m2.098s") for f, _ in run.figures]
    assert ("user", 2098.0) in got


def _through_blocks(lines: list) -> list:
    """The records' figures as the block reader (re2's prefilter, lines fetched back for headers) reads ``lines``."""
    import io

    from wrapper.derive.frameworks.blocks import BlockFeeder

    parser = frameworks.StreamParser()
    feeder = BlockFeeder(parser)
    for _ in feeder.read(io.BytesIO(("\n".join(["x"] * 1000 + lines) + "\n").encode())):
        pass
    feeder.close()
    return [(f["label"], f["value"], f["unit"]) for rep in parser.results() for f in rep["figures"]]


def test_round_27_a_one_column_csv_and_a_pandas_frame_of_one_column():
    # UPCBarcelonaTech-style results: a CSV of one column, per-request tokens/s (held-out round 27-b, meluxina)
    column = ["tps", "1.73", "2.44", "1.02", "2.44"]
    (rep,) = frameworks.parse_lines(column)
    got = [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]
    assert got == [("tps [1]", 1.73, "tokens/s"), ("tps [2]", 2.44, "tokens/s"), ("tps [3]", 1.02, "tokens/s"),
                   ("tps [4]", 2.44, "tokens/s")]
    assert _through_blocks(column) == got
    # a number alone under a line that names no kind (a counter, a year) is no figure; nor is one under prose
    (rep,) = frameworks.parse_lines(["Counting", "12", "13", "see the table below", "2024"])
    assert rep["figures"] == []
    # a column's cells are a table's, bound as any figures are (not at LIST_ITEMS, a list's on one line)
    (rep,) = frameworks.parse_lines(["latency_ms"] + [str(i) for i in range(1, 200)])
    assert len(rep["figures"]) == 199 and rep["figures"][-1]["label"] == "latency ms [199]"
    (rep,) = frameworks.parse_lines(["latency_ms"] + [str(i) for i in range(1, 2000)])
    assert len(rep["figures"]) == generic.MAX_FIGURES and rep["figures"][0]["unit"] == "ms"
    # tech-grandpa/llmperf results: pandas prints a frame of one column with its index's name on a line alone
    frame = ["Average TTFT by GPU and Data Type:", "data_type       FP8", "gpu_info           ",
             "RTX A5000  0.056271", "RTX 3090   0.062853"]
    (rep,) = frameworks.parse_lines(frame)
    got = [(f["label"], f["value"]) for f in rep["figures"]]
    assert got == [("RTX A5000 FP8", 0.056271), ("RTX 3090 FP8", 0.062853)]
    assert [(label, value) for label, value, _ in _through_blocks(frame)] == got


def test_round_27_energy_fractions_ratios_and_table_markup():
    (run,) = read("M1  Total energy:              183155.23 J (0.050876 kWh)",
                  "D1  Energy per token:          0.3500 J/token",
                  "Successful requests: 98/100",
                  "    Compression:       5.0x  (14.5 MB vs 72.6 MB)")
    got = {(f.label, f.value, f.unit, f.kind) for f, _ in run.figures}
    assert {("M1 Total energy", 183155.23, "J", "energy"), ("M1 Total energy", 0.050876, "kWh", "energy"),
            ("D1 Energy per token", 0.35, "J/token", "energy"), ("Successful requests", 98, None, "count"),
            ("Successful requests out of", 100, None, "count"), ("Compression", 5.0, "x", "ratio")} <= got
    # "0x7f3a" stays an address, "2025/05/31" a date
    (run,) = read("Handle: 0x7f3a at 2025/05/31")
    assert run.figures == []
    # R300-AI/ITRI-AI-Hub: an HTML tag in a header, a markdown link as a row's name; a column named "Tokens/Sec"
    (run,) = read("|  Model     | Size        |  Max Speed<sub>tokens/s     |  Memory Usage     |",
                  "|------------|-------------|-----------------|--------------------|",
                  "| [SmolLM2](https://ollama.com/library/smollm2:135m)    |270 MB       |5.74             |               |",
                  "Scores:", "| Compute Type | Compute Name | Tokens/Sec | Per Run Time |", "| :-- | :-- | :--: | :--: |",
                  "| GPU          | Nvidia T4    | 25.86      | 19.76        |",
                  "Decode:", "| True context | Content | tok/s |", "|---|---|---|", "| ~70.9k | prose | 77.2 / 76.9 |")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("SmolLM2 Max Speed tokens/s", 5.74, "tokens/s"), ("GPU Tokens/Sec", 25.86, "tokens/s"),
            ("~70.9k prose [1]", 77.2, "tokens/s"), ("~70.9k prose [2]", 76.9, "tokens/s")} <= got


def test_round_28_a_table_of_bars_without_outer_ones_under_a_rule_of_dashes():
    # llama-throughput-lab's analyze-data.py (held-out round 28-a): its first column's name looks like a compose
    # service ("instances | "), which the prefix reader takes; the header is read back whole
    lines = ["instances | parallel | concurrency | throughput_tps | total_tokens | elapsed_s | errors",
             "------------------------------------------------------------------------------------",
             "      2.0 |     64.0 |       128.0 |          359.4 |      16384.0 |     45.59 |    0.0",
             "      2.0 |     32.0 |       128.0 |           91.0 |       8448.0 |     92.82 |   62.0"]
    (rep,) = frameworks.parse_lines(lines)
    got = {(f["label"], f["value"], f["unit"]) for f in rep["figures"]}
    assert {("throughput tps", 359.4, "tokens/s"), ("elapsed s", 45.59, "s"), ("total tokens", 8448, None),
            ("errors", 62, None), ("instances", 2, "instances"), ("throughput tps", 91.0, "tokens/s")} <= got
    assert set(_through_blocks(lines)) == got
    # a line of bars that is no table's row keeps being read as text
    (rep,) = frameworks.parse_lines(["INFO | api | request took 12.5 ms | ok"])
    assert [(f["value"], f["unit"]) for f in rep["figures"]] == [(12.5, "ms")]


def test_round_28_quoted_logs_a_cell_noted_after_its_figure_and_a_counted_bar():
    # a llama-server JSON line quoted in an issue ("> {…}"): the family reads it as it reads it unquoted
    line = ('> {"function":"print_timings","id_slot":0,"id_task":0,"level":"INFO","line":322,"msg":"generation eval '
            'time =   23176.51 ms /   281 runs   (   82.48 ms per token,    12.12 tokens per second)","n_decoded":281,'
            '"n_tokens_second":12.124345910954315,"t_token":82.47867615658363,"t_token_generation":23176.508}')
    (rep,) = frameworks.parse_lines([line])
    assert rep["framework"] == "llama-server" and rep["eval_ms"] == 23176.508
    # a chat's prompt is no quote: "> hello" keeps its marker
    from wrapper.derive.frameworks import prefixes
    assert prefixes.strip_text("> hello 12 ms") == "> hello 12 ms"
    assert prefixes.strip_text("> > | Metric | avg |") == "| Metric | avg |"
    (run,) = read("| target | draft | before | after | speedup |", "|---|---|---|---|---|",
                  "| 7B -q4 | 0.5B | 1.2 tok/s | 1.6 tok/s | 1.33x (51% acceptance) |",
                  "Processing: 50it [00:32,  1.56it/s]")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("7B -q4 speedup", 1.33, "x"), ("7B -q4 speedup acceptance", 51.0, "%"), ("Processing", 1.56, "it/s"),
            ("Processing elapsed so far", 32, "s")} <= got
    assert not any(u == "B" for _, _, u in got)  # "0.5B": a draft model's parameters, no half byte


def test_round_29_npu_smi_rows_costs_and_a_cell_remarked_after_its_figures():
    # vllm-project/vllm-ascend issue #362 (held-out round 29-a): npu-smi's two rows an NPU
    (run,) = read("| 0     910B2               | OK            | 96.5        36                0    / 0             |",
                  "| 0                         | 0000:C1:00.0  | 0           0    / 0          29954/ 65536         |",
                  "| 1     910B2               | OK            | 98.7        37                0    / 0             |",
                  "| 0                         | 0000:01:00.0  | 0           0    / 0          29951/ 65536         |")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("NPU 0 power", 96.5, "W"), ("NPU 0 temperature", 36, "\u00b0C"), ("NPU 0 HBM used", 29954, "MB"),
            ("NPU 0 HBM total", 65536, "MB"), ("NPU 1 power", 98.7, "W"), ("NPU 1 HBM used", 29951, "MB")} <= got
    runs = read("| Rank | Provider | Tokens/sec | Run cost |", "|---:|---|---:|---:|", "| 1 | openai | **170.1** | $0.0124 |",
                "Decode:", "| Config | Decode tok/s (n=3) | Avg wall time |", "|---|---|---|",
                "| DWQ | 86.07 / 88.49 / 88.11 (avg **87.56**) | 129.5s (warm runs 2+3) |",
                "Sweep:", "| step | peak GB | prefill tok/s |", "|---|---|---|", "| 2048 (default) | 39.78 | 431.5 |")
    got = {(f.label, f.value, f.unit, f.kind) for run in runs for f, _ in run.figures}
    assert {("openai Run cost", 0.0124, "USD", "cost"), ("DWQ Decode tok/s (n=3) [3]", 88.11, "tokens/s", "rate"),
            ("DWQ Decode tok/s (n=3) avg", 87.56, "tokens/s", "rate"), ("DWQ Avg wall time", 129.5, "s", "duration"),
            ("2048 (default) prefill tok/s", 431.5, "tokens/s", "rate")} <= got


def test_durations_said_in_parts_and_rates_of_any_thing_per_second():
    # qwen-mlx-bench's "7m 51s", whisper-web's "1 min 19 seconds" (held-out rounds 27 and 24): one figure each,
    # never the minutes alone; a list of seconds is never summed
    (run,) = read("Q8 research wall time: 7m 51s", "Total time: 1 min 19 seconds", "took 2 hours, 3 minutes",
                  "times: 1.2s 1.3s", "throughput: 12.5 images/s", "Throughput: 0.0 queries/s")
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert ("Q8 research wall time", 471000.0, "ms") in got
    assert ("Total time", 79000.0, "ms") in got
    assert ("took", 7380000.0, "ms") in got
    assert ("times", 1.2, "s") in got and ("times", 1.3, "s") in got
    assert ("throughput", 12.5, "images/s") in got and ("Throughput", 0.0, "req/s") in got
    assert not any(v in (7, 1, 60000.0) for _, v, _ in got)


def test_round_30_costs_in_any_currency_shares_of_counted_cells_and_a_bracket_after_a_quote():
    # cloud-serving-benchmark's FINDINGS.md, forge's cost model, jetson-llm's history, Kakeya's README (round 30-b)
    (run,) = read("| Format | Output tok/s | active samples | Cost/query | prefill |", "|---|---:|---:|---:|---|",
                  "| FP16 | 469.43 | 49/696 (7.04%) | \u20b90.6943 | ~1 token evaluated |",
                  "| Q8_0 | 466.49 | 70/701 (9.99%) | \u20ac1.5 | 18 tokens evaluated |")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("FP16 active samples", 49, None), ("FP16 active samples out of", 696, None),
            ("FP16 active samples share", 7.04, "%"), ("FP16 Cost/query", 0.6943, "INR"), ("Q8 0 Cost/query", 1.5, "EUR"),
            ("FP16 prefill", 1, "tokens"), ("Q8 0 prefill", 18, "tokens")} <= got
    (run,) = read('baseline (full KV)        : "OK.<|im_end|>"   (3 tokens, peak KV = 3,584 KB)')
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("baseline (full KV) tokens", 3, "tokens"), ("peak KV", 3584, "KB")} <= got
    # in a fixed-width row the words after a figure are the next cell's ("0 kB br": a token distributed-llama
    # printed); "7 minutes ago" is a clock, no figure of the row
    (run,) = read("NAME        ID              SIZE      MODIFIED", "qwen3:4b    359d7dd4bcda    2.5 GB    7 minutes ago",
                  "\U0001f536 G  717 ms I  715 ms T    1 ms S      0 kB R      0 kB br")
    got = [(f.label, f.value) for f, _ in run.figures]
    assert ("qwen3:4b 359d7dd4bcda 7 minutes ago SIZE", 2.5) in got and ("G", 717) in got and ("T", 1) in got
    assert not any(label.endswith("MODIFIED") for label, _ in got)


def test_round_31_nvidia_smi_csv_timestamped_npu_smi_header_columns_and_remarks():
    # akamas' vLLM smoke test (round 31-b): nvidia-smi --query-gpu --format=csv, units in square brackets and cells
    (run,) = read("index, memory.used [MiB], memory.total [MiB]", "0, 18604 MiB, 23034 MiB",
                  "name, utilization.gpu [%], power.draw [W]", "NVIDIA H200, 87 %, 512.3 W")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("memory.used", 18604, "MiB"), ("memory.total", 23034, "MiB"), ("NVIDIA H200 utilization.gpu", 87, "%"),
            ("NVIDIA H200 power.draw", 512.3, "W")} <= got
    # ollama list's long names fill their column to one space: the row is cut where the header's names start
    (run,) = read("NAME                    ID              SIZE    MODIFIED     ",
                  "llama3:8b-instruct-fp16 c666fe422df7    16 GB   30 hours ago",
                  "qwen2:72b               14066dfa503f    41 GB   2 days ago  ")
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert got == [("llama3:8b-instruct-fp16 c666fe422df7 30 hours ago SIZE", 16, "GB"),
                   ("qwen2:72b 14066dfa503f 2 days ago SIZE", 41, "GB")]
    # a cell's approximate or worded remark; "≈" between a key and its value; a target is no core figure
    runs = read("| Runtime | Latency | VRAM Peak |", "|---|---|---|", "| AirLLM | 706.7 s (~11.8 min) | 8 MB (CPU only) |",
                "latency \u2248 12 ms, target_prompt_tokens\u2248112")
    got = {(f.label, f.value, f.unit) for run in runs for f, _ in run.figures}
    assert {("AirLLM Latency", 706.7, "s"), ("AirLLM VRAM Peak", 8, "MB"), ("latency", 12, "ms"),
            ("target prompt tokens", 112, None)} <= got
    assert all(run.core.get("prompt_tokens") is None for run in runs)


def test_an_iso_time_before_a_tables_bar_leaves_the_bar():
    # npu-smi under a timestamping wrapper (round 31-a); Docker Desktop's "time | message" keeps its bar stripped
    from wrapper.derive.frameworks import prefixes
    row = "| 2     910B3               | OK            | 89.2        36                0    / 0             |"
    assert prefixes.strip_text("2026-07-15T09:15:41+00:00 " + row) == row
    assert prefixes.strip_text("2025-05-30 09:55:22.281 | time=x level=INFO msg=hi") == "time=x level=INFO msg=hi"


def test_a_column_or_a_files_path_naming_a_framework_is_no_evidence():
    # FlagGems' MoE kernel table compares against vLLM (held-out round 32): "| vLLM (ms) |" is a column's name;
    # a line profiler's report names the file it profiled, "…/integrations/transformers.py"
    (rep,) = frameworks.parse_lines(["| Model | Tokens | vLLM (ms) | Baseline Gems (ms) | Opt/vLLM |",
                                     "|---|---:|---:|---:|---:|", "| Mixtral E8 | 1 | 0.144106 | 0.216508 | 0.748x |"])
    assert rep["framework"] == "unknown" and 0.144106 in [f["value"] for f in rep["figures"]]
    (rep,) = frameworks.parse_lines(["/lib/python3.10/site-packages/lmformatenforcer/integrations/transformers.py",
                                     "Function: _build_regular_tokens_list at line 58"])
    assert rep["framework"] == "unknown"


def test_org_mode_and_ascii_box_rules_and_a_double_spaced_profile_table(tmp_path):
    # llama.cpp's quantized-KV PR (held-out round 32): an org-mode table, "|----+----|" under its header
    run = read("| Quantization | PPL | KLD |", "|--------------+-----+-----|", "| f16/f16 | 6.232196 ± 0.037873 | "
               "0.000189 ± 0.000001 |")[0]
    assert [(f.label, f.value) for f, _ in run.figures] == [("f16/f16 PPL", 6.232196), ("f16/f16 PPL \u00b1", 0.037873),
                                                           ("f16/f16 KLD", 0.000189), ("f16/f16 KLD \u00b1", 1e-06)]
    # line_profiler's report pasted double-spaced: blank lines, a rule and rows with empty cells between its header
    # and its first full row (the header is found through the block reader, as analyze reads a file)
    log = tmp_path / "profile.log"
    log.write_text("Line #      Hits         Time  Per Hit   % Time  Line Contents\n\n" + "=" * 62 + "\n\n"
                   "    58                                           @profile\n\n"
                   "    60         1  912794903.0    9e+08      9.5      token_0 = tokenizer.encode(\"0\")[-1]\n\n"
                   "    61         1       8025.0   8025.0      0.0      regular_tokens = []\n")
    from .conftest import run_phasewrap
    import json
    proc = run_phasewrap(["analyze", "--format", "json", str(log)])
    figures = json.loads(proc.stdout)[0]["reported"]["figures"]
    assert [(f["label"], f["value"]) for f in figures][:4] == [
        ('token 0 = tokenizer.encode("0")[-1] Hits', 1), ('token 0 = tokenizer.encode("0")[-1] Time', 912794903.0),
        ('token 0 = tokenizer.encode("0")[-1] Per Hit', 900000000), ('token 0 = tokenizer.encode("0")[-1] % Time', 9.5)]
    assert ("regular tokens = [] Time", 8025.0) in [(f["label"], f["value"]) for f in figures]


def test_round_32s_other_shapes():
    run = read("| Proposals | Selected checkpoint | Accepted/proposed | Tok/s |", "|---:|---|---:|---:|",
               "| 4 | curve step 4000 | 102/1,971 | 11.476 |",
               "208.58 real / 354.21 user / 538.40 sys", "29059743744 maximum resident set size",
               "llm_load_print_meta: repeating layers = 16.411 GiB (4.517 BPW, 31.206 B parameters)",
               "Foo: prompt eval time = 284.746ms / 80 tokens (3.559325 ms per token, 280.95 tokens per second)")[0]
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("curve step 4000 Accepted/proposed", 102, None), ("curve step 4000 Accepted/proposed out of", 1971, None), ("total time", 208.58, "s"), ("user time", 354.21, "s"),
            ("system time", 538.4, "s"), ("peak resident set size", 29059743744, "B"),
            ("repeating layers", 16.411, "GiB"), ("per token", 3.559325, "ms"),
            ("prompt eval time tokens rate", 280.95, "tokens/s")} <= got
    # a size reduction is a result; a batch size is a setting
    (rep,) = frameworks.parse_lines(["| Variant | Total Size | Size Reduction |", "|---|---|---|",
                                     "| int8 | 474.74 MB | 49.7% |"])
    assert ("int8 Size Reduction", 49.7) in [(f["label"], f["value"]) for f in rep["figures"]]


def test_a_headerless_row_of_a_name_then_values_some_with_units_and_marks():
    # benchloop's suite table (held-out round 32): a name, a score and a count (no unit: left), a time, a mark
    run = read("  coding           100.0 12/12  53040ms \u2705", "  agent             96.9   7/8      0ms \u2705",
               "gpt2_model_load: model size  =   239.08 MB")[0]
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("coding", 53040.0, "ms"), ("agent", 0.0, "ms"), ("model size", 239.08, "MB")]  # "=" is no mark


def test_round_33_a_grid_table_a_wide_csv_and_a_key_value_table_without_names():
    # Huzifa1/vllm-profiling: tabulate's grid, a rule between every two rows, columns named by a run's file
    run = read("+------+------+------+", "| Metric | out_cuda-graph-sizes_1.txt | out_cuda-graph-sizes_8.txt |",
               "+======+======+======+", "| load_weights | 14.41 | 14.2 |", "+------+------+------+",
               "| tokenizer_init | 0.13 | 0.13 |")[0]
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("load weights out cuda-graph-sizes 1.txt", 14.41), ("load weights out cuda-graph-sizes 8.txt", 14.2),
        ("tokenizer init out cuda-graph-sizes 1.txt", 0.13), ("tokenizer init out cuda-graph-sizes 8.txt", 0.13)]
    # MarloweAI/FastAFD: a CSV whose rows hold names, flags and a path beside their numbers; "_tok_s" is a rate
    run = read("System,split,concurrency,total_token_throughput,median_interactivity_output_tok_s,frontier,source",
               "vLLM published,TP1,4,59162.126544,217.623860,false,results/vllm-20260815T034334Z.csv")[0]
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("total token throughput", 59162.126544, None),
            ("median interactivity output tok s", 217.62386, "tokens/s")} <= got
    # a DGX Spark README's "| | |" table: the rows name their cells' figures (no header name to take a unit from)
    (rep,) = frameworks.parse_lines(["| | |", "|---|---|", "| Paged to swap | 47.7 GiB (the PLE table); 55 GiB of swap in use |",
                                     "| Context | 524288 (YaRN factor 2 over the native 262144) |"])
    got = [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]
    assert ("Paged to swap", 47.7, "GiB") in got and ("Context", 524288.0, None) in got


def test_round_34_fio_statistics_and_percentiles_and_an_arrow_between_two_kinds(tmp_path):
    # ServerlessLLM's disk read benchmark (held-out round 34): fio's report
    lines = ["  read: IOPS=3758, BW=3759MiB/s (3941MB/s)(52.0GiB/14166msec)",
             "    slat (usec): min=29, max=765, avg=107.25, stdev=25.59",
             "    clat percentiles (usec):",
             "     |  1.00th=[13042],  5.00th=[14353], 10.00th=[14746], 20.00th=[15139],",
             "     | 99.00th=[19006], 99.50th=[19268], 99.90th=[22414], 99.95th=[26608],",
             "   bw (  MiB/s): min= 3714, max= 3788, per=100.00%, avg=3759.45, stdev= 3.85, samples=112"]
    (rep,) = frameworks.parse_lines(lines)
    got = {(f["label"], f["value"], f["unit"]) for f in rep["figures"]}
    assert {("slat min", 29, "us"), ("slat stdev", 25.59, "us"), ("clat percentiles p1", 13042, "us"),
            ("clat percentiles p99.95", 26608, "us"), ("bw avg", 3759.45, "MiB/s")} <= got
    assert not [f for f in rep["figures"] if f["label"] == "bw samples"]  # a count of samples, not a bandwidth
    # "1046 tokens  ->  10.17 t/s": a count, then the rate it gives; no change from one value to another
    run = read("eval time   = 102876 ms / 1046 tokens  ->  10.17 t/s   (expected 44 t/s)")[0]
    assert not [f for f, _ in run.figures if f.label.endswith(" from")]
    assert 10.17 in [f.value for f, _ in run.figures]


def test_a_range_of_two_values_and_one_unit_gives_both_ends_and_fills_no_core_key():
    # a DGX Spark README (held-out round 33): "TTFT | 280–390 ms warm"; infinity's "between 0.74-54.98 embeddings/sec"
    (rep,) = frameworks.parse_lines(["TTFT: 280\u2013390 ms warm on short prompts", "Decode: ~15-17 tokens/sec"])
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("TTFT", 390.0, "ms"), ("TTFT low", 280.0, "ms"), ("Decode", 17.0, "tokens/s"), ("Decode low", 15.0, "tokens/s")]
    assert rep["ttft_ms"] is None and rep["eval_tps"] is None  # a span is no one measurement
    # a date, a fall, a subtraction's operands without a unit are no range
    assert not read("released 2024-05 took", "x: 3-2 s", "layers 10-20")[0].figures


def test_round_35_tilde_values_locale_groups_footnotes_and_a_value_column():
    # an MLX needle test's log (held-out round 35): "PREFILL ~66 tok/s | decode ~9.06 tok/s"
    run = read("[needle] PREFILL ~66 tok/s | decode ~9.064424608890006 tok/s")[0]
    assert [(f.label, f.value) for f, _ in run.figures] == [("PREFILL", 66.0), ("decode", 9.064424608890006)]
    # acvram's README in French: thousands grouped with spaces, decimal commas, footnote marks after cells
    run = read("| | acvram | vLLM 0.29 |", "|---|---|---|", "| d\u00e9codage 12 s\u00e9quences | 1 995,1 t/s \u00b2 | 2 027,0 t/s \u00b2 |",
               "| prefill pp2048 | 22 707 | 21 054 |")[0]
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("d\u00e9codage 12 s\u00e9quences acvram", 1995.1, "tokens/s"), ("d\u00e9codage 12 s\u00e9quences vLLM 0.29", 2027.0, "tokens/s"),
        ("prefill pp2048 acvram", 22707.0, None), ("prefill pp2048 vLLM 0.29", 21054.0, None)]
    # an asterisk after a number is its footnote (Ornith's table, held-out round 37); "**ollama**" is bold
    run = read("| Backend | Direct | Via LiteLLM |", "|---|---:|---:|", "| **ollama** (Q4_K_M) | 44.08* | 70.15 |")[0]
    assert [(f.label, f.value) for f, _ in run.figures] == [("ollama (Q4 K M) Direct", 44.08),
                                                           ("ollama (Q4 K M) Via LiteLLM", 70.15)]
    # "| Metric | Value |": the row names a figure in words
    (rep,) = frameworks.parse_lines(["| Metric | Value |", "|---|---|", "| Peak RAM | ~15 GB (system exhausted) |"])
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [("Peak RAM", 15.0, "GB")]


def test_a_prometheus_sample_fills_no_core_key_and_its_scrape_target_names_nothing():
    # JetStream's /metrics (held-out round 16): a histogram's _sum of a time per token is in seconds, the pod's id
    # is where it was scraped, not what; a server's counters are its life's, no one run's prompt or output tokens
    (rep,) = frameworks.parse_lines([
        'jetstream_time_per_output_token_sum{id="maxengine-server-58dc8c7895-2h8ks"} 3.2044022676919535',
        'jetstream_time_per_output_token_count{id="maxengine-server-58dc8c7895-2h8ks"} 100.0',
        'vllm:prompt_tokens_total{model_name="llama"} 22'])
    got = [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]
    assert ("jetstream time per output token sum", 3.2044022676919535, "s") in got
    assert ("jetstream time per output token count", 100, None) in got
    assert rep["eval_tokens"] is None and rep["prompt_tokens"] is None


def test_round_36_a_quoted_csv_header_and_a_cells_ratio_in_brackets(tmp_path):
    # newrllama4's parallel-limits CSV (held-out round 36): every name quoted, the header too
    lines = ['"config_name","n_seq_max","n_ctx","request_count","success","result_count","processing_time"',
             '"small",8,512,1,TRUE,1,3.48196196556091']
    (rep,) = frameworks.parse_lines(lines)
    assert ("processing time", 3.48196196556091) in [(f["label"], f["value"]) for f in rep["figures"]]
    assert _through_blocks(lines) == [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]
    # candle's LFM2 encoder table: "~87 ms (1.25×)" is a time and its ratio to the solo one; "embeds/s" a rate
    run = read("| dtype | solo | concurrent | throughput |", "|---|---|---|---|",
               "| f32 | ~70 ms | ~87 ms (1.25\u00d7) | 23 embeds/s |")[0]
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("f32 solo", 70.0, "ms"), ("f32 concurrent", 87.0, "ms"), ("f32 concurrent ratio", 1.25, "x"),
        ("f32 throughput", 23.0, "embeds/s")]


def test_round_38_code_spans_in_cells_and_a_build_that_took_a_time():
    # an OCI GenAI README table (held-out round 38): every cell in backticks
    run = read("| Region | Family | Success | Avg Latency |", "| --- | --- | --- | --- |",
               "| `ap-osaka-1` | `gemini` | `6/9` | `3.121s` |")[0]
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert ("ap-osaka-1 Avg Latency", 3.121, "s") in got and ("ap-osaka-1 Success", 6.0, None) in got
    # a RAG pipeline's stage log: an index build's time is a figure, a program's build number is not
    got = [(f.label, f.value) for f, _ in read("[index_build] Index build complete in 13.0 ms", "build: 4662 (7ee953a64)")[0].figures]
    assert got == [("Index build complete", 13.0)]
    # a column naming two things over a cell of two numbers (a Bedrock vs OpenAI table): each its own figure
    run = read("| Effort | OK / Failed | Accuracy |", "| --- | ---: | ---: |", "| Medium | 1319 / 2 | 97.57% |")[0]
    got = [(f.label, f.value) for f, _ in run.figures]
    assert ("Medium OK", 1319.0) in got and ("Medium Failed", 2.0) in got


def test_cells_read_by_their_column_an_interval_and_a_builds_time():
    # NVIDIA/TensorRT-Model-Connect's build table, an Android LLM server's timing table, an AWQ model card's
    # paired evaluation (held-out round 40): "3.5G" under "Size" is ls -h's GiB, "1:21.40" under "Total Time" minutes
    # and seconds, "[-0.44, +1.11]" an interval; a build's time is a figure, never the run's total
    (run,) = read("| Config | Size | Total build | Total Time | Start Time |", "|---|---:|---:|:---:|---|",
                  "| SD | 3.5G | 213.4s | **1:21.40** | 20:46:40 |")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("SD Size", 3.5, "GiB", "size"), ("SD Total build", 213.4, "s", "duration"),
        ("SD Total Time", 81.4, "s", "duration")]  # a clock under "Start Time" is no duration
    assert run.core == {"total_ms": (81400.0, False)}  # the run's total time, not the build's
    (run,) = read("| suite | FP8 | delta | 95% CI | recovery |", "| --- | ---: | ---: | --- | ---: |",
                  "| BFCL v4 | 87.42 | +0.32 | [-0.44, +1.11] | 100.37% |")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("BFCL v4 FP8", 87.42), ("BFCL v4 delta", 0.32), ("BFCL v4 95% CI high", 1.11), ("BFCL v4 95% CI low", -0.44),
        ("BFCL v4 recovery", 100.37)]  # "95% CI" names a column: the row above the rule is the header
    # "build" beside no duration is a build's number; "128K" under a column naming no size is a setting
    assert not read("build: 4589 (1d36b367)", "| Model | Context |", "|---|---|", "| llama | 128K |")[0].figures


def test_a_count_after_a_figure_is_of_what_its_unit_says_and_lower_case_sizes():
    # Const-me/Whisper's profiler, torch's cudagraph notice (held-out round 41), LMCache's store line (round 41)
    (run,) = read("Decode  105.072 seconds, 151 calls, 695.842 milliseconds average",
                  "skipping cudagraphs due to mutated inputs (36 instances)",
                  "LMCache INFO: Stored 2048 out of total 2048 tokens. size: 0.2188 gb, cost 14.7797 ms")
    got = {f.label: (f.value, f.unit, f.kind) for f, _ in run.figures}
    assert got["Decode calls"] == (151, "calls", "count") and got["inputs instances"] == (36, "instances", "count")
    assert got["size"] == (0.2188, "GB", "size")
    assert "eval_tokens" not in run.core and "prompt_tokens" not in run.core  # calls and instances are no tokens
    # a timing line's runs are its tokens, as llama.cpp's and whisper.cpp's print them
    (run,) = read("llama_print_timings:        eval time =   32301.62 ms /   297 runs   (  108.76 ms per token)")
    assert ("eval time tokens", 297) in [(f.label, f.value) for f, _ in run.figures]


def test_round_43_a_csv_whose_rows_mix_names_and_numbers_and_quoted_cells_over_lines():
    # a kernel-generation run's CSV with CRLF endings, an eval harness's CSV whose answers span lines (held-out
    # round 43): once a CSV's header is read its rows are read whatever the gate says, a quoted cell that goes on
    # over lines is one cell, and the row's figures are of the line that closes it
    lines = ["trajectory_id,turn,correctness,speedup,arch_tag\r", 'exp_000,3,Correct,0.31625565011696544,"H, B"\r',
             'exp_000,4,Correct,0.4920987152875529,"H, B"\r']
    figures = [f for r in frameworks.parse_lines(lines) for f in r["figures"]]
    assert [(f["label"], f["value"]) for f in figures if f["label"] == "speedup"] == [
        ("speedup", 0.31625565011696544), ("speedup", 0.4920987152875529)]
    assert set(_through_blocks(lines)) == {(f["label"], f["value"], f["unit"]) for f in figures}
    lines = ["result_id,status,model,output,input_tokens,output_tokens,latency_ms", '1,completed,M2,"', "",
             'n * factorial(n - 1)",91,78,598.65', '2,completed,M2,"reverse",89,91,747.41']
    reps = frameworks.parse_lines(lines)
    got = [(f["label"], f["value"], f["line"]) for r in reps for f in r["figures"]]
    assert ("latency ms", 598.65, 'n * factorial(n - 1)",91,78,598.65') in got
    assert ("input tokens", 89, '2,completed,M2,"reverse",89,91,747.41') in got


def test_round_42_cells_a_mean_with_its_spread_named_remarks_and_dotted_names():
    # an iOS benchmark's "312.9±149.4" under "Total Tokens", a Core ML model table's sizes (held-out round 42)
    runs = read("| Model | TTFT (ms) | Total Tokens | Size |", "|---|---:|---:|---|",
                "| Llama | 1046.2±678 | 312.9±149.4 | 5.4 GB (4.4 GB text-only) |",
                "| Gemma | 1046.3±678 | 300±12 | 8.16 GB multimodal / 5.5 GB text-only |")  # a row a run (its TTFT)
    got = [(f.label, f.value, f.unit) for run in runs for f, _ in run.figures]
    assert ("Llama Total Tokens mean", 312.9, None) in got and ("Llama Total Tokens mean \u00b1", 149.4, None) in got
    assert ("Gemma Total Tokens", 300, None) in got  # whole things: no mean needed
    assert ("Llama Size", 5.4, "GB") in got and ("Llama Size text-only", 4.4, "GB") in got
    assert ("Gemma Size multimodal", 8.16, "GB") in got and ("Gemma Size text-only", 5.5, "GB") in got
    # a kernel benchmark's dotted names; gguf's writer's "total_size = 8.0G"
    (run,) = read("  torch.matmul 1.003 ms  (0.52x vs custom)", "gguf_writer: n_tensors = 398, total_size = 8.0G")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures if f.unit != "x"] == [
        ("torch.matmul", 1.003, "ms"), ("total size", 8.0, "GiB")]


def test_round_44_a_unitless_pair_before_another_and_a_bracketed_name_before_statistics():
    # a Cohere pilot's log, ncnn_llm's benchllm (held-out round 44): the next pair's label is no unit of the value
    # before it; "minicpm4 (prefill)  min = …": the bracket names what the statistics are of
    (run,) = read("INFO short__mt64__c1__i0 status=success ttft=0.2174 latency=0.5485",
                  "            minicpm4 (prefill)  min =  122.64  max =  136.39  avg =  125.55",
                  "        p50 (us):       1.88269e+06")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("ttft", 0.2174), ("latency", 0.5485), ("minicpm4 (prefill) min", 122.64), ("minicpm4 (prefill) max", 136.39),
        ("minicpm4 (prefill) avg", 125.55), ("p50", 1882690.0)]
    # a unit glued after the value still is one: "0.36 ms/16tokens" is a unit this reader does not know
    assert not read("1st token latency: 0.36 ms/16tokens")[0].figures


def test_round_45_rates_per_step_percent_of_columns_and_html_entities_in_a_header():
    # LightLLM's speculative-decoding CSV, aider's SWE-bench table (held-out round 45): "tokens per step" is a rate,
    # no step's index; "Percent&nbsp;of<br>proposed<br>solutions" names a measured share
    (run,) = read("dataset,count,avg_accepted_draft_tokens_per_step", "drop,100,1.2342814611081445")
    assert ("avg accepted draft tokens per step", 1.2342814611081445) in [(f.label, f.value) for f, _ in run.figures]
    (run,) = read("| Agent |Percent&nbsp;of<br>proposed<br>solutions| Number&nbsp;of<br/>solutions |", "|---|--:|--:|",
                  "| Aider | 73.5% | 419 |")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Aider Percent of proposed solutions", 73.5, "%"), ("Aider Number of solutions", 419, None)]
    assert not read("step 3 tokens 512", "percent: 90")[0].figures  # an index, a setting


def test_a_log_parses_the_same_every_time_in_one_process():
    # a family's search was cached under id(parser): once a dropped family's id was reused, the figures a family
    # took were judged against another family's keys, and a TensorRT-LLM report kept or dropped a figure by chance
    from .conftest import fixture

    with open(fixture("logs", "tensorrt-llm__2024-xx-suite-readme-tensorrt-llm-bench-inflight-report-json-dict-line-"
                      "metadata-statistics-zero-latencies.log"), encoding="utf-8") as fh:
        text = fh.read()
    first = frameworks.parse_lines(text)
    assert all(frameworks.parse_lines(text) == first for _ in range(12))


def test_round_46_47_a_mark_before_a_cell_a_list_after_its_label_and_a_pandas_frame_with_a_named_index():
    # a CUDA kernel ladder's results, StreamingLLM's timing list, ArcticInference's pandas frame, a draft-model
    # benchmark's JSON (held-out rounds 46 and 47)
    (run,) = read("| # | Kernel | GPU result |", "|---|---|---|", "| 1 | `vector_add` | ✅ 419.3 GB/s (83.2% peak) |")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures if f.unit] == [
        ("vector add GPU result", 419.3, "GB/s"), ("vector add GPU result peak", 83.2, "%")]
    (run,) = read("All times:  [32.33035635948181, 25.40013289451599, 9.909614086151123]")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("All times [1]", 32.33035635948181), ("All times [2]", 25.40013289451599), ("All times [3]", 9.909614086151123)]
    (run,) = read("         avg_accept_toks  avg_spec_toks  accept_rate  req_speedup",
                  "task_id                                                   ",
                  "0               0.693819       3.260625     0.212787     1.839101")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("avg accept toks", 0.693819), ("avg spec toks", 3.260625), ("accept rate", 0.212787), ("req speedup", 1.839101)]
    (run,) = read("{", '  "max_memory_allocated": [', "    6592.34130859375,", "    7586.70654296875", "  ]", "}")
    assert [f.value for f, _ in run.figures] == [6592.34130859375, 7586.70654296875]  # measured: no limit


def test_pairs_before_a_word_value_are_read_and_a_configuration_repr_is_not():
    # a RAG pipeline's summary ends in a path, so its pairs never end the line; a speech toolkit prints its whole
    # configuration object (held-out round 47's final-code misses)
    (run,) = read("[INFO] [summary] Run complete: total_queries=5, failures=0, p50_ms=6692.5, p95_ms=7286.8, "
                  "output=output_debug\\metrics.jsonl")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("total queries", 5, None), ("failures", 0, None), ("p50 ms", 6692.5, "ms"), ("p95 ms", 7286.8, "ms")]
    (run,) = read("OfflineRecognizerConfig(feat_config=FeatureExtractorConfig(sampling_rate=16000, feature_dim=80, "
                  "low_freq=20, dither=0, normalize_samples=True), model_config=x)", "Elapsed seconds: 1.2 s")
    assert [(f.label, f.value) for f, _ in run.figures] == [("Elapsed seconds", 1.2)]


def test_round_48_49_compute_rates_word_rates_bar_counts_of_shards_and_measured_n_counts():
    # vLLM's router GEMM pandas frame in TFLOPs, GuideLLM's "458.3 gen/s", a vLLM shard bar's progress and count,
    # ik_llama.cpp's slot release pairs, llama-server's slot save dict (held-out rounds 48 and 49)
    (run,) = read("    batch_size  PyTorch (TFLOPs)  vLLM (TFLOPs)", "0          1.0          0.031421       0.089570",
                  "matmul: 1755 GFLOP/s", "NPU: 45 TOPS", "model FLOPs: 1.2e12")
    assert [(f.value, f.unit, f.kind) for f, _ in run.figures] == [
        (0.031421, "TFLOPs", "rate"), (0.08957, "TFLOPs", "rate"), (1755, "GFLOP/s", "rate"), (45, "TOPS", "rate"),
        (1.2e12, None, "value")]  # a bare "FLOPs" counts operations
    (run,) = read("Tok:  458.3 gen/s, 22484.5 tot/s, 106.1ms TTFT")
    assert [(f.value, f.unit) for f, _ in run.figures] == [(458.3, "gen/s"), (22484.5, "tot/s"), (106.1, "ms")]
    (run,) = read("Loading fastsafetensors checkpoint shards:  18% Completed | 3/17 [00:02<00:10,  1.37it/s]")
    assert [(f.label, f.value) for f, _ in run.figures][:2] == [
        ("Loading fastsafetensors checkpoint shards progress", 18), ("Loading fastsafetensors checkpoint shards done", 3)]
    (run,) = read('INFO [ update_slots] slot released | tid="1372" timestamp=1748127305 id_slot=0 id_task=516 '
                  "n_ctx=32768 n_past=648 n_system_tokens=0 n_cache_tokens=0 truncated=false",
                  "{'id_slot': 0,", " 'n_saved': 243,", " 'n_written': 0,")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("n past", 648), ("n system tokens", 0), ("n cache tokens", 0), ("n saved", 243), ("n written", 0)]


def test_a_csv_row_of_dashes_keeps_its_table_open_and_glued_bar_redraws_are_each_read():
    # NVIDIA NIM per-model CSV with a model not measured ("…,-,-"); a tqdm bar pasted without its carriage returns
    # (held-out round 48-b)
    (run,) = read("name,ttft,tps", "openai/gpt-oss-120b,1602,148.6", "google/diffusiongemma-26b-a4b-it,-,-",
                  "minimaxai/minimax-m2.7,14759,40.6")
    assert [f.value for f, _ in run.figures] == [1602, 148.6, 14759, 40.6]
    (run,) = read("Loading checkpoint shards:  33%|███▎      | 1/3 [00:01<00:02,  1.14s/it]Loading checkpoint shards:"
                  "  67%|██████▋   | 2/3 [00:02<00:01,  1.09s/it]")
    assert [(f.label, f.value) for f, _ in run.figures if f.unit == "s/it"] == [
        ("Loading checkpoint shards", 1.14), ("Loading checkpoint shards", 1.09)]


def test_round_51_a_trainers_metric_dict_a_full_stop_after_a_trailing_label_and_a_clock_duration():
    # TRL's GRPO metrics dict, vLLM's sleep mode line (held-out round 51-a); Inspect's "total time: 0:05:43" (48-a)
    (run,) = read("{'num_tokens': 5587.0, 'completions/mean_length': 52.75, 'completions/max_length': 85.0}")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("num tokens", 5587), ("completions/mean length", 52.75), ("completions/max length", 85)]
    (run,) = read("Sleep mode freed 51.57 GiB memory, 49.25 GiB memory is still in use.")
    assert [(f.label, f.value) for f, _ in run.figures] == [("Sleep mode freed", 51.57), ("memory is still in use", 49.25)]
    (run,) = read("│ total time:                 0:05:43                  │", "start time: 12:03:44")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("total time", 343, "s")]  # a start is a moment


def test_round_50_51_b_long_csv_quoted_values_with_units_camel_unit_keys_per_item_times_and_a_second_ruled_table():
    # Nsight Compute's long CSV, nvidia-smi's JSON, a harness's camelCase keys, tqdm's "s/prompt", a shell script's
    # two ruled tables under headings (held-out rounds 50-b and 51-b)
    (run,) = read("kernel_id,section,metric_name,value",
                  "kernel_0001_67bdb7e29d1bb4e0ca0aec954ef18af3,SpeedOfLight,DRAM Throughput,19.66")
    assert [(f.label, f.value) for f, _ in run.figures] == [("kernel 0001 SpeedOfLight DRAM Throughput", 19.66)]
    (run,) = read("{", '    "memory.used [MiB]": "15277 MiB",', '    "power.draw [W]": "11.69 W",',
                  '    "maximumDockerRssMiB": 352.18359375,', '    "average_committed_per_verify": 2.76', "}")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("memory.used", 15277, "MiB"), ("power.draw", 11.69, "W"), ("maximumDockerRssMiB", 352.18359375, "MiB"),
        ("average committed per verify", 2.76, None)]  # "committed" names no git commit
    (run,) = read("benchmark: 100%|██████████| 20/20 [04:43<00:00, 14.18s/prompt, match=0]",
                  "Done triviaqa: 200 samples in 1654.0s (8.27s/sample)")
    assert [(f.value, f.unit) for f, _ in run.figures if f.unit and f.unit.startswith("s/")] == [
        (14.18, "s/prompt"), (8.27, "s/sample")]


def test_a_second_ruled_table_under_a_heading_takes_its_own_header():
    text = ("prompt_tokens | max_tokens | latency_ms\n------------------\n   20 |  32 | 800\n\n=== Benchmark 2 ===\n"
            "concurrency | total_requests | total_time_ms | avg_latency_ms\n------------------\n   1 |  4 | 3656 | 914\n")
    figures = [(f["label"], f["value"]) for rep in frameworks.parse_lines(text) for f in rep["figures"]]
    assert ("avg latency ms", 914) in figures and ("latency ms", 800) in figures


def test_a_pair_in_markdown_bold_that_ends_its_line():
    # a FlagEmbedding reranker's timing print, pasted in bold (held-out round 53-a)
    (rep,) = frameworks.parse_lines("**total rank time = 1.2703969478607178**\n")
    assert [(f["label"], f["value"]) for f in rep["figures"]] == [("total rank time", 1.2703969478607178)]


def test_round_52_b_criterion_wrk2_spectrum_an_abbreviated_label_and_time_per_token_in_microseconds():
    # BitNet-rs's criterion output, wrk2 against Azure, xgrammar's benchmark (held-out round 52-b)
    reps = frameworks.parse_lines("sampling_strategy_sample\n                        time:   [946.59 µs 947.60 µs 948.65 µs]\n"
                                  "  Thread calibration: mean lat.: 3225.443ms, rate sampling interval: 9486ms\n"
                                  "Mask generation time (us/token): 35.7277\n")
    assert [(f["label"], f["value"], f["unit"]) for r in reps for f in r["figures"]] == [
        ("sampling strategy sample time", 947.6, "us"), ("sampling strategy sample time low", 946.59, "us"),
        ("sampling strategy sample time high", 948.65, "us"), ("mean lat", 3225.443, "ms"),
        ("rate sampling interval", 9486, "ms"), ("Mask generation time", 35.7277, "us/token")]
    reps = frameworks.parse_lines("       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"
                                  "      43.487     0.000000            1         1.00\n")
    assert [(f["label"], f["value"]) for r in reps for f in r["figures"]][:3] == [
        ("Value", 43.487), ("Percentile", 0), ("TotalCount", 1)]


def test_round_55_a_a_dash_after_a_units_brackets_and_a_time_of_something_printed_as_a_clock():
    # setfit's benchmark before an ONNX export, TensorRT-LLM's engine build (held-out round 55-a)
    reps = frameworks.parse_lines("Model size (MB) - 86.68\nAverage latency (ms) - 6.23 +\\- 0.51\n"
                                  "[TRT-LLM] [I] Build phase peak memory: 4851.33 MB, children: 24.88 MB\n"
                                  "[TRT-LLM] [I] Total time of building all engines: 00:00:06\n"
                                  "llama_model_load_from_file_impl: using device Vulkan0 (AMD Radeon RX 6600M) - 8176 MiB free\n")
    assert [(f["label"], f["value"], f["unit"]) for r in reps for f in r["figures"]] == [
        ("Model size", 86.68, "MB"), ("Average latency", 6.23, "ms"), ("Build phase peak memory", 4851.33, "MB"),
        ("children", 24.88, "MB"), ("Total time of building all engines", 6, "s"), ("free", 8176, "MiB")]


def test_a_lead_label_with_a_fraction_names_the_bracketed_time_after_an_unlabelled_number():
    # llm.c's train_gpt2cu: "step 1/74: train loss 4.367631 (80.639749 ms)" (a held-out round 32 miss)
    (run,) = read("step 1/74: train loss 4.367631 (80.639749 ms)")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("step 1/74", 80.639749, "ms")]


def test_round_56_a_comfy_table_rows_and_markdown_rows_after_a_prefix_and_ms_per_capital_t():
    # mistral.rs's x86 sweep: its bench's comfy-table rows and llama-bench's rows, each after a label the script
    # put in front (held-out round 56-a)
    (run,) = read("mrs q4k │ Prefill (128 tokens)        ┆ 161.6 ± 0.2 ┆ 792.00 ms (prefill)   │",
                  "mrs q4k │ Decode (128 tokens @ d128)  ┆ 33.6 ± 0.0  ┆ 29.73 ms/T            │",
                  "lcp q4k | qwen3 4B Q4_K - Medium         |   2.32 GiB |     4.02 B | CPU        |      16 |"
                  "           pp128 |        381.49 ± 3.46 |")
    found = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert any("Prefill (128 tokens)" in label and (value, unit) == (792, "ms") for label, value, unit in found)
    assert any("Decode (128 tokens @ d128)" in label and (value, unit) == (29.73, "ms/token") for label, value, unit in found)
    assert any(value == 381.49 for _, value, _ in found) and any(value == 2.32 for _, value, _ in found)


def test_a_header_of_bare_names_straight_above_its_rows_with_no_rule():
    # NeMo-Skills' summarized results (held-out round 57-b); llama-server's slot lines stay lines
    reps = frameworks.parse_lines("evaluation_mode   | num_entries | avg_tokens | gen_seconds | correct\n"
                                  "pass@50           | 39          | 40387      | 7410        | 2.56%\n")
    found = [(f["label"], f["value"]) for r in reps for f in r["figures"]]
    assert ("pass@50 gen seconds", 7410) in found and ("pass@50 correct", 2.56) in found
    reps = frameworks.parse_lines("slot update_slots: id  0 | task 0 | new prompt, n_keep = 0, n_prompt_tokens = 895\n"
                                  "slot update_slots: id  0 | task 0 | prompt processing progress, n_tokens = 256\n")
    assert [(f["label"], f["value"]) for r in reps for f in r["figures"]] == [("n prompt tokens", 895), ("n tokens", 256)]


def test_a_box_tables_min_column_is_the_least_in_the_rows_unit_and_a_wrapped_name_keeps_the_header():
    # AIPerf's rich table: "min" under a row "(ms)" was read as minutes; a row name wrapped onto the next line
    # ("(tokens/sec/user)") was taken for a new header (held-out round 58-a)
    reps = frameworks.parse_lines(
        "┃                               Metric ┃       avg ┃    min ┃    max ┃   std ┃\n"
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━┩\n"
        "│             Time to First Token (ms) │     18.26 │  11.22 │ 106.32 │ 12.07 │\n"
        "│     Output Token Throughput Per User │     89.23 │  75.93 │ 113.60 │  3.70 │\n"
        "│                    (tokens/sec/user) │           │        │        │       │\n"
        "│      Output Sequence Length (tokens) │     42.83 │  24.00 │  65.00 │  7.21 │\n")
    found = [(f["label"], f["value"], f["unit"]) for r in reps for f in r["figures"]]
    assert ("Time to First Token min", 11.22, "ms") in found
    assert ("Output Sequence Length avg", 42.83, "tokens") in found and ("Output Sequence Length std", 7.21, "tokens") in found
    assert not any(unit == "min" for _, _, unit in found)


def test_a_header_without_a_corner_over_rows_that_open_with_their_names():
    # torch.utils.benchmark's Compare table in accelerate's benchmarks (held-out round 59-a)
    reps = frameworks.parse_lines(
        "                            |  Inference time (1x128)  |  Inference time (4x128)  |  Compile time (1x128)  |"
        "  Compile time (4x128)\n"
        "1 threads: ---------------------------------------------------------------------------------\n"
        "      Full compilation      |            6.3           |           10.0           |        10696.4         |"
        "        10248.0       \n")
    assert [(f["label"], f["value"]) for r in reps for f in r["figures"]] == [
        ("Full compilation Inference time (1x128)", 6.3), ("Full compilation Inference time (4x128)", 10),
        ("Full compilation Compile time (1x128)", 10696.4), ("Full compilation Compile time (4x128)", 10248)]


def test_end_to_end_time_is_a_duration_and_time_per_operation_is_a_rate():
    # ServerlessLLM's results JSON, Mooncake's allocator benchmark (held-out round 60-b); "end time" stays a moment
    reps = frameworks.parse_lines('{\n    "loading_time": 1.06,\n    "end_to_end_time": 1.898,\n    "end_time": 1717000000\n}\n'
                                  "avg alloc time: 145.575738 ns/op\n")
    assert [(f["label"], f["value"], f["unit"]) for r in reps for f in r["figures"]] == [
        ("loading time", 1.06, None), ("end to end time", 1.898, None), ("avg alloc time", 145.575738, "ns/op")]


def test_statistics_named_in_brackets_apart_by_slashes_and_a_markdown_headers_unit_in_square_brackets():
    # llm-on-ray's benchmark_serving summary, elo_hellm's tabulate table (held-out round 61)
    reps = frameworks.parse_lines("Prompt Length (Min/Med/Max): 4 / 95 / 1024\n"
                                  "| LLM   |   File Size [GiB] | Elo score     |\n|---|---|---|\n"
                                  "| phi_4-15b-f16   |   27.31 | 1742.19±18.92 |\n")
    found = [(f["label"], f["value"], f["unit"]) for r in reps for f in r["figures"]]
    assert found[:4] == [("Prompt Length Min", 4, None), ("Prompt Length Med", 95, None), ("Prompt Length Max", 1024, None),
                         ("File Size", 27.31, "GiB")]


def test_a_bar_whose_description_opens_with_its_stage_and_a_bar_the_terminal_cut():
    # vllm-project/llm-compressor (2025-12, held-out round 63): "(2/33): Calibrating" redrawn; vllm issue (2025-04,
    # round 63): a bar cut at the terminal's edge, its closing bracket lost
    (run,) = read("(2/33): Calibrating:  15%|\u2588\u258c        | 39/256 [00:01<00:05, 43.25it/s]",
                  "Processed prompts: 100%|\u2588| 10/10 [00:33<00:00,  3.35s/it, est. speed input: 40.85 toks/s, "
                  "output: 305.54 toks/")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("(2/33): Calibrating progress", 15.0, "%"), ("(2/33): Calibrating done", 39, "iterations"),
            ("(2/33): Calibrating", 43.25, "it/s"), ("Processed prompts", 3.35, "s/it"),
            ("Processed prompts done", 10, "iterations"), ("speed input", 40.85, "tokens/s")} <= got


def test_numbers_a_dict_or_json_quotes_as_strings_and_ids_and_a_models_shape_are_not_figures():
    # ModelCloud/GPTQModel (2025-01, round 63): a Python dict with its numbers quoted; llama-server's JSON logs quote
    # the thread id ("tid"); llama-cpp-python prints the GGUF metadata as a dict of strings
    (run,) = read("INFO - {'layer': 13, 'module': 'self_attn.k_proj', 'loss': 'x', 'fwd_time': '0.896'}",
                  '{"tid":"14964","timestamp":1717067386,"tokens_per_second":"161.70","latency":"12 ms"}',
                  "Model metadata: {'llama.embedding_length': '5120', 'llama.block_count': '40'}")
    got = {(f.label, f.value, f.unit, f.kind) for f, _ in run.figures}
    assert got == {("fwd time", 0.896, None, "duration"), ("tokens per second", 161.7, "tokens/s", "rate"),
                   ("latency", 12.0, "ms", "duration")}


def test_gpustat_lines_an_npu_smi_chip_with_its_physical_id_and_opentelemetry_attributes():
    # EleutherAI/lm-evaluation-harness issue (2024-12, held-out round 64): gpustat; vllm-project/vllm-ascend issue
    # (2026, round 64): npu-smi 25.2 prints the chip's physical id and "-" for an unread power; traceloop/openllmetry
    # issue (2024-07, round 65): the OpenTelemetry collector's debug exporter
    (run,) = read("[0] NVIDIA H100 80GB HBM3 | 50\u00b0C,  18 % | 36147 / 81559 MB | e1154485(36138M)",
                  "| 0     Ascend910           | OK            | -           49                0    / 0             |",
                  "| 1     1                   | 0000:9F:00.0  | 0           0    / 0          46953/ 65536         |",
                  "otel-collector      |      -> gen_ai.usage.prompt_tokens: Int(24)",
                  "otel-collector      |      -> http.duration_ms: Double(12.5)")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("GPU temperature", 50.0, "\u00b0C"), ("GPU util", 18.0, "%"), ("GPU memory used", 36147.0, "MB"),
            ("GPU memory total", 81559.0, "MB"), ("GPU process e1154485 memory", 36138.0, "MiB"),
            ("NPU 0 temperature", 49.0, "\u00b0C"), ("NPU 0 HBM used", 46953.0, "MB"),
            ("gen ai.usage.prompt tokens", 24, None), ("http.duration ms", 12.5, "ms")} <= got


def test_htop_cpu_meters_narrow_and_with_their_bars():
    # kvcache-ai/ktransformers issue (2025-12, held-out round 66): a 144-CPU htop screen, each value cut to fit
    (run,) = read("    0[100]  9[100]  72[2.0] 77[11.] 99[0.0]108[0.0]", "  1  [||||||||   45.3%]   2  [|   3.1%]")
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert got == [("CPU 0 usage", 100.0, "%"), ("CPU 9 usage", 100.0, "%"), ("CPU 72 usage", 2.0, "%"),
                   ("CPU 77 usage", 11.0, "%"), ("CPU 99 usage", 0.0, "%"), ("CPU 108 usage", 0.0, "%"),
                   ("CPU 1 usage", 45.3, "%"), ("CPU 2 usage", 3.1, "%")]


def test_a_csv_row_without_a_header_whose_cells_print_their_units():
    # noonghunna/club-3090 issue (2026, held-out round 66): nvidia-smi --query-gpu=… --format=csv,noheader
    (run,) = read("0, 100 %, 21846 MiB, 24576 MiB, 337.28 W, 67", "1,2,3")
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert got == [("row 0 column 2", 100.0, "%"), ("row 0 column 3", 21846.0, "MiB"),
                   ("row 0 column 4", 24576.0, "MiB"), ("row 0 column 5", 337.28, "W")]


def test_statistics_named_in_a_heading_and_their_values_apart_by_slashes_on_the_line_under_it():
    # kvcache-ai/Mooncake (2025-08, held-out round 60): the offset allocator's benchmark
    lines = ["util ratio (min / p99 / p90 / p50 / max / avg):",
             "0.569255 / 0.712076 / 0.781224 / 0.855046 / 0.976057 / 0.848873"]
    (rep,) = frameworks.parse_lines(lines)
    got = {(f["label"], f["value"]) for f in rep["figures"]}
    assert got == {("util ratio min", 0.569255), ("util ratio p99", 0.712076), ("util ratio p90", 0.781224),
                   ("util ratio p50", 0.855046), ("util ratio max", 0.976057), ("util ratio avg", 0.848873)}


def test_sglang_2024_fields_ended_by_full_stops_and_an_access_line_with_its_size_and_time():
    # sgl-project/sglang issue (2024-04, held-out round 68): "#cached_token: 757." are counts, a full stop after
    # each; mostlygeek/llama-swap's access line (2026-05, round 68): the response's bytes and the request's time
    (run,) = read("new fill batch. #seq: 1. #cached_token: 757. #new_token: 1. #remaining_req: 4. #running_req: 2. "
                  "tree_cache_hit_rate: 80.83%.",
                  '[INFO] Request 192.168.2.203 "GET /v1/models HTTP/1.1" 200 2389 "Python/3.11 aiohttp/3.13.5" 180.049\u00b5s',
                  "version 1.2.3. at 10.0.0.1.")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert got == {("cached token", 757, None), ("new token", 1, None), ("remaining req", 4, None),
                   ("running req", 2, None), ("tree cache hit rate", 80.83, "%"),
                   ("GET /v1/models response size", 2389.0, "B"), ("GET /v1/models latency", 180.049, "us")}


def test_a_bar_that_lost_its_closing_pipe_and_k6s_iterations():
    # vllm-project/vllm-ascend pull request (2025-03, held-out round 64): OpenCompass's bar "100%|██ 19/19 [";
    # substratusai/kubeai (2025-01, round 67): k6's summary
    (run,) = read("100%|\u2588\u2588 19/19 [00:00<00:00, 355766.86it/s]",
                  "     iterations.....................: 1000    10.389657/s")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("progress bar", 355766.86, "it/s"), ("progress bar done", 19, "iterations"),
            ("iterations", 1000, None)} <= got


def test_metal_memory_in_use_out_of_its_working_set_after_a_buffers_size():
    # 01-ai/Yi README (2024-01, held-out round 70): llama.cpp's Metal allocation line
    (run,) = read("ggml_backend_metal_buffer_type_alloc_buffer: allocated buffer, size =   128.00 MiB, "
                  "( 2629.44 / 10922.67)")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert got == {("size", 128.0, "MiB"), ("memory in use", 2629.44, "MiB"), ("memory in use out of", 10922.67, "MiB")}


def test_hyperfines_range_of_two_statistics_apart_by_an_ellipsis():
    # ggml-org/whisper.cpp issue (2024-10, held-out round 77): hyperfine timing whisper.cpp
    (run,) = read("  Range (min \u2026 max):    8.337 s \u2026  8.478 s    5 runs")
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert ("Range min", 8.337, "s") in got and ("Range max", 8.478, "s") in got


def test_max_memory_a_benchmark_reached_is_its_peak_not_a_limit():
    # casper-hansen/AutoAWQ issue (2025-02, held-out round 78): the benchmark script's peak; a limit stays out
    (run,) = read(" ** Max Memory (device: 0): 5.40 GB (5.80%)", "max memory limit: 24 GB")
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert ("Max Memory (device: 0)", 5.4, "GB") in got and not any(v == 24 for _, v, _ in got)


def test_a_load_testers_histogram_rows_and_a_servers_idle_slots():
    # BerriAI/litellm issue (2025-10, held-out round 81): oha's response-time histogram; ollama pull request
    # (2024-04, round 81): llama.cpp's server JSON log counts its idle and processing slots
    (run,) = read("  0.105 min [14385] |\u25a0\u25a0\u25a0\u25a0", "  0.211 min [50]    |",
                  '{"msg":"slot data","n_idle_slots":8,"n_processing_slots":0,"task_id":5}', "slot 3: 12")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert got == {("requests in bucket 0.105 min", 14385, "requests"), ("requests in bucket 0.211 min", 50, "requests"),
                   ("n idle slots", 8.0, None), ("n processing slots", 0.0, None)}


def test_a_decimal_comma_is_not_taken_for_a_near_whole_number_a_family_holds():
    # ggml-org/llama.cpp pull request #6829 (2024-04, held-out round 85): a locale's decimal commas; "34,00 MiB"
    # is 34 to a hundredth, not 34 give or take a half, which 33 layers times 1000/1024 had matched
    from wrapper.derive.frameworks import parse_lines

    lines = ["llm_load_tensors: offloaded 33/33 layers to GPU",
             "llm_load_tensors:        RPC buffer size =  7072,53 MiB",
             "llama_kv_cache_init:        RPC KV buffer size =    34,00 MiB",
             "llama_kv_cache_init:        RPC KV buffer size =    30,00 MiB"]
    (rep,) = parse_lines(lines)
    assert [f["value"] for f in rep["figures"] if f["label"] == "RPC KV buffer size"] == [34.0, 30.0]


def test_tensorrts_memory_change_line_keeps_both_changes_and_both_totals_under_its_step():
    # NVIDIA/TensorRT-LLM issue #1509 (2024-04, held-out round 84): the CPU change after the step's colon was lost
    (run,) = read("[04/27/2024-12:22:17] [TRT] [I] [MemUsageChange] Init CUDA: CPU +14, GPU +0, now: CPU 166, GPU 4739 (MiB)")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Init CUDA CPU change", 14, "MiB"), ("Init CUDA GPU change", 0, "MiB"),
        ("Init CUDA CPU in use", 166, "MiB"), ("Init CUDA GPU in use", 4739, "MiB")]


def test_a_device_matrix_under_its_title_is_one_figure_per_pair_and_closes_at_the_next_line():
    # ikawrakow/ik_llama.cpp pull request #1022 (2025, held-out round 85): CUDA's p2pBandwidthLatencyTest, rows of
    # numbers one space apart under a header of device numbers; a row not of the header's width closes it
    lines = ["Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)",
             "   D\\D     0      1      2",
             "     0 1600.87 111.12 111.09",
             "     1 111.09 1637.76 111.34",
             "     2 111.09 111.39",
             "     3 1.5 2.5 3.5"]
    reader = generic.FigureReader()
    reader.line_before = lambda back: lines[i - back] if i - back >= 0 else None
    for i, line in enumerate(lines):
        reader.feed(line)
    (run,) = reader.runs(family_claimed=False)
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert got[:2] == [("Bidirectional P2P=Enabled Bandwidth Matrix 0 to 0", 1600.87, "GB/s"),
                       ("Bidirectional P2P=Enabled Bandwidth Matrix 0 to 1", 111.12, "GB/s")]
    assert len(got) == 6 and got[-1] == ("Bidirectional P2P=Enabled Bandwidth Matrix 1 to 2", 111.34, "GB/s")
    untitled = generic.FigureReader()
    untitled.line_before = lambda back: "some text"
    untitled.feed(lines[1])
    assert not untitled.open  # no title above: no matrix (its rows would be numbers without a name)


def test_ggmls_failed_allocation_is_a_size_in_bytes_without_its_unit():
    # LM Studio bug tracker #2133 (2026-07, held-out round 84; rounds 9 and 11 missed the same shape): ggml prints
    # the size it failed to allocate as a bare byte count; a size with its unit stays as it was read
    from wrapper.derive.frameworks import parse_lines

    lines = ["ggml_vulkan: Device memory allocation of size 1059303232 failed.",
             "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory",
             "alloc_tensor_range: failed to allocate Vulkan0 buffer of size 1059303232"]
    (rep,) = parse_lines(lines)
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("Device memory allocation size", 1059303232, "B"), ("failed to allocate Vulkan0 buffer size", 1059303232, "B")]
    (run,) = read("ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 34359738400 bytes")
    assert [(f.value, f.unit) for f, _ in run.figures] == [(34359738400, "B")]


def test_a_duration_alone_in_brackets_after_the_words_it_times():
    # mark-ramsey-ri/vllm-dgx-spark issue #7 (2026-01, held-out round 86): a set-up script's spinner and status line
    runs = read("  \u2838 Loading model... [0m 02s elapsed]  ",
                "[2026-01-26 16:57:25]   \u23f3 Still loading... (1m 14s) - this is normal for large models",
                "[bench] Per-run budget: 12000 generated tokens x 2.5 overhead, clamped to [900s, 3600s]",
                "| **Duration** | 984 seconds (16 min 24 sec) |")
    got = [(f.label, f.value, f.unit) for r in runs for f, _ in r.figures]
    assert got[:2] == [("Loading model elapsed", 2000, "ms"), ("Still loading", 74000, "ms")]
    # a list of durations in brackets is no one duration; a duration said again after its number is no new one
    assert not [g for g in got if g[0] in ("clamped to", "seconds")]


def test_du_sizes_of_model_files_are_binary_multiples_named_by_the_file():
    # InternLM/lmdeploy issue #1758 (2024-06, held-out round 86): `du -sh` over a model's shards
    (run,) = read("2.3G    /data/models/MiniCPM-Llama3-V-2_5/model-00001-of-00007.safetensors")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("model-00001-of-00007.safetensors size", 2.3, "GiB")]


def test_a_fixed_width_row_whose_cell_ran_into_the_next_is_cut_where_the_header_names_start():
    # ollama/ollama issue #4531 (2024-05, held-out round 86): `ollama ps`'s PROCESSOR cell fills its column, so
    # one space parts it from UNTIL; the header above says where each cell starts
    from wrapper.derive.frameworks import parse_lines

    (rep,) = parse_lines(["NAME            ID              SIZE    PROCESSOR       UNTIL",
                          "llama3:70b      be39eb53a197    41 GB   42%/58% CPU/GPU 4 minutes from now"])
    got = {(f["value"], f["unit"]) for f in rep["figures"]}
    assert got == {(41, "GB"), (42, "%"), (58, "%")}  # no "4 min": the time left is no figure of the run


def test_a_rate_after_a_total_time_joins_the_label_before_it():
    # pytorch-labs/gpt-fast pull request #152 (2024-04, held-out round 89): "total" between the two figures no
    # longer hides the rate from the time it follows
    (run,) = read("Time for inference 1: 8.27 sec total, 24.17 tokens/sec")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Time for inference 1", 8.27, "s"), ("Time for inference 1 rate", 24.17, "tokens/s")]


def test_numpy_scalars_in_a_printed_dict_and_pytests_slowest_durations():
    # sgl-project/sglang issue #14699 (2025-12, held-out round 91): NumPy 2 prints its scalars as np.float64(…);
    # nod-ai/amd-shark-ai issue #622 (2024-11): pytest's --durations rows, each a test's call time
    from wrapper.derive.frameworks import parse_lines

    (rep,) = parse_lines(["{'accuracy': np.float64(0.558756633813495), 'latency': 22.624223445018288}"])
    assert [(f["label"], f["value"]) for f in rep["figures"]] == [("accuracy", 0.558756633813495),
                                                                   ("latency", 22.624223445018288)]
    (rep,) = parse_lines(["203.98s call     tests/models/t5/t5_test.py::T5EncoderIreeTest::"
                          "testV1_1CompareXxlIreeF32AgainstTorchEagerF32"])
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("testV1_1CompareXxlIreeF32AgainstTorchEagerF32 call", 203.98, "s")]


def test_a_progress_bar_without_its_bar_still_has_its_count_and_times():
    # HabanaAI/vllm-fork (2025-02, held-out round 96): tqdm writing to no terminal prints no bar between the
    # percentage and the count; the "[elapsed<remaining" bracket says it is one
    (run,) = read("Loading safetensors checkpoint shards: 100% 163/163 [01:12<00:00,  2.25it/s]")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Loading safetensors checkpoint shards progress", 100, "%"),
        ("Loading safetensors checkpoint shards done", 163, "iterations"),
        ("Loading safetensors checkpoint shards elapsed", 72, "s"),
        ("Loading safetensors checkpoint shards remaining", 0, "s"),
        ("Loading safetensors checkpoint shards", 2.25, "it/s")]


def test_a_change_in_words_from_one_value_to_another():
    # NVIDIA/TensorRT-LLM (2025-10, held-out round 96): the workspace it grew to, and the size it came from
    (run,) = read("[TensorRT-LLM][WARNING] Attention workspace size is not enough, increase the size from 0 bytes to "
                  "33624960 bytes")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("increase the size", 33624960, "B"), ("increase the size from", 0, "B")]
    assert not read("scaled from 2 to 5 workers")[0].figures  # no unit on either side: no change of a figure


def test_progress_is_a_fraction_done_and_a_fractions_count_is_no_progress():
    # ollama issue #16771 (2026-06, held-out round 98; rounds 91 and 94 too): llama.cpp's prompt progress lines,
    # "progress = 0.43", a fraction of the prompt done; "Prompt processing progress: 2048/15806" counts tokens
    (run,) = read("slot print_timing: id  0 | task 0 | prompt processing, n_tokens =  51200, progress = 0.43, t =  67.02 s")
    assert ("progress", 0.43, None, "ratio") in [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures]
    (run,) = read("2026-04-19 08:46:41,012 - INFO - Prompt processing progress: 2048/15806")
    assert not [f for f, _ in run.figures if f.label.endswith("progress")]


def test_how_many_of_how_many_in_words():
    # koboldcpp (GLM-4.5-Air on Vulkan, 2025, held-out round 93): llama.cpp's count of the tensors it moved, of all
    (run,) = read("load_tensors: relocated tensors: 135 of 780")
    assert [(f.label, f.value) for f, _ in run.figures] == [("relocated tensors", 135), ("relocated tensors out of", 780)]
    assert not read("Loading shard 1 of 4 from disk")[0].figures  # no label before it: an index, no count


def test_a_bar_of_block_elements_its_progress_and_size():
    # ollama/ollama issue #10920 (2025-05, held-out round 96): `ollama run` pulling a model's layers
    (run,) = read("pulling 799587243b19: 100% \u2595\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588"
                  "\u2588\u2588\u2588\u2588\u2588\u2588\u258f 132 GB                         ")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("pulling 799587243b19 progress", 100, "%"), ("pulling 799587243b19 size", 132, "GB")]
    # a public README's pasted `ollama pull llama3`, a bar still going (the code index named no repository for it):
    # the size done of the total, the rate and the time left; a redraw glued after it is left unread
    (run,) = read("pulling 00e1317cbf74...  27% \u2595" + "\u2588" * 40 + " " * 142 + "\u258f 1.2 GB/4.7 GB   56 MB/s    "
                  "1m0s" + " " * 150 + "\u258f  71 KB/ 39 GB")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("pulling 00e1317cbf74 progress", 27, "%"), ("pulling 00e1317cbf74 size", 1.2, "GB"),
        ("pulling 00e1317cbf74 size out of", 4.7, "GB"), ("pulling 00e1317cbf74", 56, "MB/s"),
        ("pulling 00e1317cbf74 remaining", 60000, "ms")]


def test_a_record_of_named_numbers_without_colons():
    # held-out round 100-a: mlx_lm's LoRA trainer on an M3 Max (ml-explore/mlx-examples, 2024-12)
    (run,) = read("Iter 10: Train loss 1.958, Learning Rate 1.000e-05, It/sec 0.081, Tokens/sec 159.269, "
                  "Trained Tokens 19678, Peak mem 20.819 GB",
                  "Iter 20: Val loss 1.521, Val took 32.879s")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Train loss", 1.958, None), ("It/sec", 0.081, "it/s"), ("Tokens/sec", 159.269, "tokens/s"),
        ("Trained Tokens", 19678, None), ("Peak mem", 20.819, "GB"), ("Val loss", 1.521, None),
        ("Val", 32.879, "s")]  # the learning rate is a setting
    # words with a number in them are no record: one item without a unit of any kind
    assert not any(r.figures for r in read("Epoch 3, step 12"))


def test_a_score_names_what_it_scores_and_a_cost_per_token_its_unit():
    # held-out round 101-a: Medusa heads' accuracy (a "head" is no count of attention heads here)
    (run,) = read("> Head 0 Accuracy=0.6837761270606081")
    assert [(f.label, f.value) for f, _ in run.figures] == [("Head 0 Accuracy", 0.6837761270606081)]
    # MLPerf loadgen's setting of how many responses it logs is no score
    assert not any(r.figures for r in read("accuracy_log_probability : 0"))
    # held-out round 101-a: Arctic's suffix-decoding simulator, a pandas frame whose columns end in their unit
    (run,) = read("         avg_accept_toks  accept_rate  spec_ms_per_tok  update_ms_per_tok",
                  "task_id                                                              ",
                  "0               0.693819     0.212787         0.029032            0.00456")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures if f.unit] == [
        ("spec ms per tok", 0.029032, "ms"), ("update ms per tok", 0.00456, "ms")]


def test_teraflops_glued_to_the_number():
    # held-out round 100-b: oneMKL's GEMM benchmark on an Arc A770 (ollama/ollama PR #2458, 2024-02)
    (run,) = read("Average performance: 58.7353TF")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("Average performance", 58.7353, "TF", "rate")]


def test_a_yaml_value_takes_its_unit_from_the_key_or_the_comment():
    # held-out round 102-b: llama.cpp's `main --logdir` YAML dump (ggerganov/llama.cpp issue #8323, 2024-07)
    (run,) = read("mst_p_eval: 1070.98  # ms / token during prompt processing",
                  "n_eval: 72  # number of tokens generated (excluding the first one)",
                  "t_load_us: 432872591  # total microseconds spent loading the model",
                  "t_p_eval_us: 197060713  # total microseconds spent prompt processing",
                  "ts_eval: 50.58  # tokens / second during generation")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("mst p eval", 1070.98, "ms/token"), ("n eval", 72, "tokens"), ("t load us", 432872591, "us"),
        ("t p eval us", 197060713, "us"), ("ts eval", 50.58, "tokens/s")]
    assert {k: v for k, (v, _) in run.core.items()} == {
        "load_ms": 432872.591, "prompt_eval_ms": 197060.713, "eval_tps": 50.58}  # "p eval" is the prompt's


def test_a_note_under_a_fixed_width_row_keeps_the_table_open():
    # held-out round 102-b: ExecuTorch's ETDump summary on RISC-V (pytorch/executorch issue #18991): the kernel
    # under an op, indented to its last column, and a column named "%"
    (run,) = read("    %      sum_ms   count      avg_ms  op",
                  " 37.2      14.165      31       0.457  Fully Connected GEMM",
                  "                                       xnn_qd8_f32_qc8w_gemm_minmax_ukernel_4x4v__rvv  (n/a)",
                  "  6.4       2.422       2       1.211  Softmax (NC, F32)")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("Fully Connected GEMM %", 37.2, "%"), ("Softmax (NC, F32) %", 6.4, "%"),
            ("Softmax (NC, F32) sum ms", 2.422, "ms")} <= got


def test_a_quoted_logfmt_key():
    # held-out round 102-b: ollama's OpenVINO draft (ollama/ollama PR #15205, 2026-04), Go slog quoting a key
    (run,) = read('time=2026-04-02T15:13:49.267+09:00 level=DEBUG source=server.go:978 msg="available gpu" '
                  'id=OPENVINO0 "available layer vram"="21.1 GiB" backoff=0.00')
    assert ("available layer vram", 21.1, "GiB") in {(f.label, f.value, f.unit) for f, _ in run.figures}


def test_blocks_are_counted_and_n_accept_is_measured():
    # held-out round 101-b: vllm.rs's scheduler (guoqingbao/vllm.rs, 2025-10); round 101-a: llama-speculative's
    # summary on an M4 Pro (2024-11), where n_draft is a setting and n_accept what the run accepted
    (run,) = read("2025-10-17T06:14:38.317267Z  INFO vllm_rs::core::scheduler: Kvcache Usage: free 7957 blocks "
                  "(or 509248 tokens), used 2.87%", "n_draft   = 16", "n_accept  = 313")
    got = {(f.label, f.value, f.unit) for f, _ in run.figures}
    assert {("free", 7957, "blocks"), ("used", 2.87, "%"), ("n accept", 313, None)} <= got
    assert not any(label == "n draft" for label, _, _ in got)


def test_a_bare_list_a_tagged_count_and_a_notebooks_links():
    # held-out round 103-b: a wrapper script's repeats of `vllm bench throughput` (vllm-project/vllm, 2025-05)
    (run,) = read("Throughput values: 62.75, 63.09, 62.81")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("Throughput values [1]", 62.75), ("Throughput values [2]", 63.09), ("Throughput values [3]", 62.81)]
    # ... but a list after other text is a tool's setting (lmdeploy's TurboMind: "[Gemm2] Tuning sequence: 8, 16, …")
    assert not any(r.figures for r in read("[TM][INFO] [Gemm2] Tuning sequence: 8, 16, 32, 48"))
    # held-out round 103-b: a bench script's per-task lines, each tagged in brackets (DGX Spark, 2026-09)
    (run,) = read("  [Q&A] 185 tokens in 4.17s = 44.3 tok/s (prompt: 17)")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures][:3] == [
        ("[Q&A] tokens", 185, None), ("[Q&A] tokens time", 4.17, "s"), ("[Q&A] tokens rate", 44.3, "tokens/s")]
    # held-out round 103-a: vLLM's shard bar pasted from a notebook, which made links of "/5" and "/s"
    (run,) = read("Loading safetensors checkpoint shards:  20% Completed | 1[/5](http://98.84.183.65:8888/5) "
                  "[00:00<00:00,  7.40it[/s](http://98.84.183.65:8888/s)]")
    assert ("Loading safetensors checkpoint shards", 7.4, "it/s") in {(f.label, f.value, f.unit) for f, _ in run.figures}


def test_dotted_leaders_after_the_colon_and_a_rate_per_sec():
    # held-out round 104-b: Artillery's report against vLLM with outlines (vllm-project/vllm issue #9032, 2024-10)
    (run,) = read("http.codes.200: ................................................................ 240",
                  "http.downloaded_bytes: ......................................................... 91928",
                  "http.request_rate: ............................................................. 3/sec",
                  "http.requests: ................................................................. 240")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("http.codes.200", 240, None), ("http.downloaded bytes", 91928, "B"), ("http.request rate", 3, "/s"),
        ("http.requests", 240, None)]


def test_smi_lines_without_their_header():
    # held-out round 105-b: nvidia-smi's memory cell grepped out per GPU (ikawrakow/ik_llama.cpp #1821, 2026-05)
    (run,) = read("23490MiB /  24576MiB")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("used", 23490, "MiB"), ("used out of", 24576, "MiB")]
    # held-out round 105-b: rocm-smi's concise rows on MI300X partitions, pasted without the header (ROCm #4750)
    (run,) = read("15      17    0x74a1,   48427  42.0\u00b0C      131.0W    NPS1, CPX, 7        145Mhz  900Mhz  0%   auto  "
                  "750.0W  0%     3%    ")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("GPU 15 temperature", 42.0, "\u00b0C", "temperature"), ("GPU 15 power", 131.0, "W", "power"),
        ("GPU 15 SCLK", 145, "MHz", "frequency"), ("GPU 15 MCLK", 900, "MHz", "frequency"),
        ("GPU 15 fan", 0, "%", "percent"), ("GPU 15 VRAM use", 0, "%", "percent"), ("GPU 15 use", 3, "%", "percent")]


def test_shapes_of_round_106_and_older_misses():
    # bc's seconds with no digit before the point (held-out round 103-b: a vLLM DGX Spark script)
    (run,) = read("  [Math] 14 tokens in .63s = 22.2 tok/s (prompt: 19)")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures][:3] == [
        ("[Math] tokens", 14, None), ("[Math] tokens time", 0.63, "s"), ("[Math] tokens rate", 22.2, "tokens/s")]
    (run,) = read("version 1.5", "ellipsis ... .5")  # no unit after it: no figure
    assert run.figures == []
    # Artillery's statistics under a heading that names a time but no unit (held-out round 104-b)
    (run,) = read("http.response_time:",
                  "  min: ......................................................................... 105",
                  "  mean: ........................................................................ 6655.3")
    assert [(f.label, f.value, f.kind) for f, _ in run.figures] == [
        ("http.response time min", 105, "duration"), ("http.response time mean", 6655.3, "duration")]
    # a kernel's name before its time in brackets (held-out round 102-b: ExecuTorch's ETDump on RISC-V)
    (run,) = read("xnn_x32_transposec_ukernel__4x4_rvv  (0.140 ms)")
    assert [(f.value, f.unit) for f, _ in run.figures] == [(0.14, "ms")]
    # print("time taken ", t) (held-out round 106-a: transformers issue #28130); a count needs its colon
    (run,) = read("time taken  2.5174171924591064", "layers  32")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("time taken", 2.5174171924591064, None, "duration")]


def test_quality_measures_beside_speed():
    # held-out round 108-b: llama-imatrix's running perplexity (llama.cpp issue #7099) and llama-perplexity's KL
    # divergence statistics (issue #12557), with their "±" spreads
    (run,) = read("[1]3.3282,[2]5.5064,[3]5.7696,", "Final estimate: PPL = 5.1661 +/- 0.10175",
                  "Mean PPL(Q)                   :  10.910139 \u00b1   0.080259",
                  "Cor(ln(PPL(Q)), ln(PPL(base))):  99.20%", "Maximum \u0394p: 92.244%", "Same top p: 89.938 \u00b1 0.078 %",
                  "sample 50, Perplexity 5.0264153480529785")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("[1] perplexity", 3.3282, None), ("[2] perplexity", 5.5064, None), ("[3] perplexity", 5.7696, None),
        ("PPL", 5.1661, None), ("PPL \u00b1", 0.10175, None),
        ("Mean PPL (Q)", 10.910139, None), ("Mean PPL (Q) \u00b1", 0.080259, None),
        ("Cor(ln(PPL(Q)), ln(PPL(base)))", 99.2, "%"), ("Maximum \u0394p", 92.244, "%"),
        ("Same top p", 89.938, "%"), ("Same top p \u00b1", 0.078, "%"), ("Perplexity", 5.0264153480529785, None)]
    # the per-chunk table: a value and its spread are one cell, however far apart
    (run,) = read("chunk        PPL          ln(PPL(Q)/PPL(base))          KL-Divergence           Same top",
                  "   1        3.9734      -0.00651 \u00b1    0.01162       0.01145 \u00b1    0.00153    0.96078 \u00b1 0.01218")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("PPL", 3.9734), ("ln(PPL(Q)/PPL(base))", -0.00651), ("ln(PPL(Q)/PPL(base)) \u00b1", 0.01162),
        ("KL-Divergence", 0.01145), ("KL-Divergence \u00b1", 0.00153), ("Same top", 0.96078), ("Same top \u00b1", 0.01218)]
    # held-out round 108-a: exllamav3's convert (a time in square brackets) and GPTQModel's records ('time': '2.447')
    (run,) = read(" -- Quantized: model.layers.10.mlp.down_proj                    bpw:  4.00  proxy_err: 0.001755  [1.77 s]",
                  "INFO - {'layer': 11, 'module': 'mlp.up_proj', 'loss': '623.22346', 'time': '2.552'}",
                  " -- Estimated remaining time: 1 minute", "level=DEBUG available=\"[8.0 GiB]\"")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("bpw", 4.0, None), ("proxy err", 0.001755, None), ("Quantized", 1.77, "s"), ("loss", 623.22346, None),
        ("time", 2.552, None), ("Estimated remaining time", 1.0, "min")]


def test_columns_one_space_apart_and_python_timedeltas():
    # iostat -x as it prints (names one space apart where they are wide) and vmstat (held-out round 109-b: the
    # same columns collapsed to one space in an ollama issue, #6807)
    (rep,) = frameworks.parse_lines(["avg-cpu:  %user   %nice %system %iowait  %steal   %idle",
                                     "           0.52    0.00    0.28    0.01    0.00   99.19",
                                     "Device            r/s     rkB/s   rrqm/s  %rrqm r_await",
                                     "nvme0n1         12.34   1580.20     0.01   0.08    0.21"])
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("%user", 0.52, "%"), ("%nice", 0.0, "%"), ("%system", 0.28, "%"), ("%iowait", 0.01, "%"), ("%steal", 0.0, "%"),
        ("%idle", 99.19, "%"), ("nvme0n1 r/s", 12.34, "/s"), ("nvme0n1 rkB/s", 1580.2, "kB/s"),
        ("nvme0n1 rrqm/s", 0.01, "/s"), ("nvme0n1 %rrqm", 0.08, "%"), ("nvme0n1 r await", 0.21, None)]
    (rep,) = frameworks.parse_lines([" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st",
                                     " 1  0      0 1234567  12345 234567    0    0   150    20  300  400  5  2 92  1  0",
                                     " 2  0      0 1234000  12345 234600    0    0   900    10  320  410 15  3 80  2  0"])
    got = {(f["label"], f["value"]) for f in rep["figures"]}
    assert {("free", 1234567), ("bi", 150), ("bi", 900), ("us", 15)} <= got
    # safetensors' speed benchmark prints Python timedeltas and "76.6 X" (held-out round 109-b)
    (rep,) = frameworks.parse_lines(["Loaded safetensors 0:00:00.004015", "on CPU, safetensors is faster than pytorch "
                                     "by: 76.6 X", "I0327 13:12:22.342293 1 model.cc:12] loaded",
                                     "Run on (9 X 1704 MHz CPU s)"])  # (a glog stamp, nine CPUs: no figures)
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("Loaded safetensors", 0.004015, "s"), ("safetensors is faster than pytorch by", 76.6, "x")]


def test_profiler_tables():
    # held-out round 109-a: Nsight Compute's section (names set flush right over a rule, a unit column) on a vLLM
    # kernel (vllm-project/vllm issue, 2024-03): its C++ namespace "vllm::" is no vLLM log
    (rep,) = frameworks.parse_lines([
        "  void vllm::paged_attention_v2_kernel<unsigned short, (int)128>(float *, int) (32, 1, 32)x(128, 1, 1), Context 1",
        "    Section: GPU Speed Of Light Throughput", "    ----------------------- ------------- ------------",
        "    Metric Name               Metric Unit Metric Value", "    ----------------------- ------------- ------------",
        "    DRAM Frequency          cycle/nsecond        10.24", "    Elapsed Cycles                  cycle       608178",
        "    Memory Throughput                   %        94.59", "    Duration                      usecond       272.16"])
    assert rep["framework"] == "unknown"
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("DRAM Frequency", 10.24, "GHz"), ("Elapsed Cycles", 608178, "cycles"), ("Memory Throughput", 94.59, "%"),
        ("Duration", 272.16, "us")]
    # torch.profiler's memory columns ("545.80 Mb", "0 b") and Marlin's bench ("s=0.00014", its key the unit)
    (run,) = read("batch=0001: s=0.00014, TFLOP/s=004.626, GB/s=1158.601, speedup=3.12")
    assert ("s", 0.00014, "s") in {(f.label, f.value, f.unit) for f, _ in run.figures}
    (rep,) = frameworks.parse_lines([
        "                     Name    Self CPU %      Self CPU       CPU Mem  Self CPU Mem    # of Calls  ",
        "              aten::empty         0.08%       5.052ms     545.80 Mb     545.80 Mb          1234  ",
        "              aten::addmm         0.13%       8.523ms           0 b           0 b           310  "])
    assert {(f["label"], f["value"], f["unit"]) for f in rep["figures"]} >= {
        ("aten::empty CPU Mem", 545.8, "MB"), ("aten::addmm Self CPU Mem", 0, "B"), ("aten::addmm Self CPU", 8.523, "ms")}


def test_a_connector_is_no_label():
    # "(or 509248 tokens)": the KV cache's size said again in tokens; "and 24 blocks per sequence" (TensorRT-LLM)
    (run,) = read("KV cache: 1.2 GiB (or 509248 tokens)", "Max blocks: 100 and 24 blocks per sequence")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("KV cache", 1.2, "GiB"), ("KV cache tokens", 509248, "tokens"), ("per sequence", 24, "blocks")]


def test_an_abbreviation_in_brackets_inside_a_label():
    # held-out round 112-b: LoRAX's mllama PR (#622, 2024-09) prints "Time to first token (TTFT) (s): …"
    (run,) = read("Time to first token (TTFT) (s): 2.927410840988159")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("Time to first token (TTFT)", 2.927410840988159, "s")]


def test_collective_communication_printouts():
    # held-out round 113-b: nccl-tests' rows (read with or without their "#" header), nvbandwidth's matrix (no
    # corner), a p2p matrix whose title holds brackets, Mooncake's glog record, DeepEP's "(NVL)"
    (rep,) = frameworks.parse_lines([
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
        "  1073741824     268435456     float     sum      -1   9306.7  115.37  115.37      0   9291.5  115.56  115.56      0",
        "      262144         65536     float    none       0    43.00    6.10    6.10      0    42.86    6.12    6.12    N/A"])
    got = [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]
    assert got[:3] == [("1073741824 B out-of-place time", 9306.7, "us"), ("1073741824 B out-of-place algbw", 115.37, "GB/s"),
                       ("1073741824 B out-of-place busbw", 115.37, "GB/s")]
    assert ("262144 B in-place busbw", 6.12, "GB/s") in got and len(got) == 15  # and three #wrong counts (N/A: none)
    assert ("1073741824 B in-place wrong", 0, None) in got and ("262144 B in-place wrong", 0, None) not in got
    (rep,) = frameworks.parse_lines(["memcpy local GPU(column) bandwidth (GB/s)", "           0         1",
                                     " 0   1116.30   1116.31"])
    assert [(f["label"], f["value"]) for f in rep["figures"]] == [
        ("memcpy local GPU(column) bandwidth 0 to 0", 1116.3), ("memcpy local GPU(column) bandwidth 0 to 1", 1116.31)]
    (rep,) = frameworks.parse_lines(["I1128 09:42:12.221588 229060 transfer_engine_bench.cpp:296] Test completed: "
                                     "duration 10.01, batch count 4895, throughput 0.26",
                                     "[tuning] Best combine: SMs 24, NVL chunk 4, RDMA chunk 32: 4.71 GB/s (RDMA), 9.50 GB/s (NVL)"])
    got = {(f["label"], f["value"], f["unit"]) for f in rep["figures"]}
    assert {("duration", 10.01, None), ("throughput", 0.26, None), ("Best combine NVL", 9.5, "GB/s")} <= got


def test_rusts_indicatif_download_bar():
    # held-out round 114-a: mistral.rs downloading through hf-hub (EricLBuehler/mistral.rs issue #816, 2024-10)
    (rep,) = frameworks.parse_lines(["tokenizer.json [00:00:00] [" + "\u2588" * 20 + "] 1.76 MiB/1.76 MiB 2.44 MiB/s (0s)"])
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("tokenizer.json elapsed so far", 0, "s"), ("tokenizer.json size", 1.76, "MiB"),
        ("tokenizer.json size out of", 1.76, "MiB"), ("tokenizer.json", 2.44, "MiB/s"), ("tokenizer.json remaining", 0, "ms")]


def test_training_step_records():
    # held-out round 115-a: Megatron-LM's iteration line (NVIDIA/Megatron-LM issue #756, 2024-04), ms-swift's step dict
    # (modelscope/ms-swift issue #4191), LLaMA-Factory's train metrics (hiyouga/LlamaFactory issue #4278, 2024-06)
    (rep,) = frameworks.parse_lines([
        " [2024-04-06 03:02:12] iteration       71/     100 | consumed samples:         9088 | elapsed time per "
        "iteration (ms): 5361.6 | throughput per GPU (TFLOP/s/GPU): 243.6 | learning rate: 1.420000E-05 | lm loss: "
        "1.818812E+00 | grad norm: 1.300 | number of skipped iterations:   0 |"])
    got = {(f["label"], f["value"], f["unit"]) for f in rep["figures"]}
    assert {("consumed samples", 9088, None), ("elapsed time per iteration", 5361.6, "ms"), ("lm loss", 1.818812, None),
            ("grad norm", 1.3, None)} <= got  # cells naming their own values: a record, no markdown row
    assert "learning rate" not in {label for label, _, _ in got}
    (rep,) = frameworks.parse_lines([
        "{'loss': 0.97233075, 'grad_norm': 69.50111389, 'learning_rate': 6e-08, 'memory(GiB)': 40.38, "
        "'train_speed(iter/s)': 0.006549, 'logps/chosen': -225.0, 'epoch': 0.01, 'global_step/max_steps': '1/176', "
        "'elapsed_time': '1m 46s', 'remaining_time': '5h 9m 55s'}"])
    got = {(f["label"], f["value"], f["unit"]) for f in rep["figures"]}
    assert {("memory", 40.38, "GiB"), ("train speed", 0.006549, "iter/s"), ("logps/chosen", -225.0, None),
            ("elapsed time", 106000.0, "ms"), ("remaining time", 18595000.0, "ms")} <= got
    (run,) = read("***** train metrics *****", "  total_flos               =  3778867GF",
                  "  train_runtime            = 0:02:59.80", "  train_samples_per_second =     16.367",
                  "  train_steps_per_second   =      0.501")
    assert [(f.label, f.value, f.unit, f.kind) for f, _ in run.figures] == [
        ("total flos", 3778867, "GFLOP", "count"), ("train runtime", 179.8, "s", "duration"),
        ("train samples per second", 16.367, "samples/s", "rate"), ("train steps per second", 0.501, "steps/s", "rate")]
    (run,) = read('{"maxBatchSizeRuntime": 256, "eval_runtime": 12.5}')  # a runtime's setting is no duration
    assert [(f.label, f.unit) for f, _ in run.figures] == [("eval runtime", "s")]


def test_a_sentence_then_its_figure_a_bar_without_a_total_and_a_count_of_so_many():
    # torchtitan (pytorch/torchtitan PR #1287), trtllm-serve's build bar (NVIDIA/TensorRT-LLM issue #2586), Run:ai's
    # model streamer (run-ai/runai-model-streamer issue #43), CrispASR's devices (held-out rounds 115-117)
    (run,) = read("[GC] Peforming periodical GC collection. 0.06 seconds.")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("Peforming periodical GC collection", 0.06, "s")]
    (run,) = read("884it [04:44,  3.75it/s]")
    assert ("progress bar done", 884, "iterations") in [(f.label, f.value, f.unit) for f, _ in run.figures]
    (run,) = read("[DEBUG  ] [57319 58675] [streamer/impl/batch/batch.cc:166 @ read        ] Finished reading 431/446 "
                  "chunks from file /data/app/models/sd3.5_large_fp8_scaled.safetensors successfully")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [
        ("Finished reading chunks", 431, "chunks"), ("Finished reading chunks out of", 446, "chunks")]
    (run,) = read("    [1] cpu    name=CPU desc=AMD Ryzen 5 2600 Six-Core Processor             mem=8365/16337 MiB id=?")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("mem", 8365, "MiB"), ("mem out of", 16337, "MiB")]


def test_a_name_and_its_number_a_tab_apart_unless_under_a_tab_separated_header():
    # LiteRT-LM's client stats (google-ai-edge/LiteRT-LM issue #2568) against a TSV table (faster-whisper PR, 2024-05)
    (rep,) = frameworks.parse_lines(["**Speed\t2.5 tok/s**", "Tokens\t2,196", "First token\t1.87s", "Cache hits\t7"])
    assert [(f["label"], f["value"]) for f in rep["figures"]] == [
        ("Speed", 2.5), ("Tokens", 2196), ("First token", 1.87), ("Cache hits", 7)]
    (rep,) = frameworks.parse_lines(["System\tWER", "Faster-Whisper\t3.097", "Batched Faster-Whisper\t1.773"])
    assert [(f["label"], f["value"]) for f in rep["figures"]] == [("Faster-Whisper WER", 3.097),
                                                                 ("Batched Faster-Whisper WER", 1.773)]


def test_a_library_path_in_a_warning_claims_no_log():
    # Forge's start-up (lllyasviel/stable-diffusion-webui-forge issue #2652): a FutureWarning raised in transformers
    (rep,) = frameworks.parse_lines([
        "Total VRAM 8191 MB, total RAM 16335 MB",
        r"D:\AI\Forge\system\python\lib\site-packages\transformers\utils\hub.py:128: FutureWarning: Using "
        "`TRANSFORMERS_CACHE` is deprecated and will be removed in v5 of Transformers. Use `HF_HOME` instead."])
    assert rep["framework"] == "unknown"


def test_an_operations_count_and_time_a_size_of_a_total_in_decimals_and_frames_a_second():
    # GGML_VULKAN_PERF (ggml-org/llama.cpp PR #13761, 2025-05), vLLM's gpu_worker (vllm issue #50576), sleap-nn's
    # summary (talmolab/sleap-nn PR #628)
    (rep,) = frameworks.parse_lines(["Vulkan Timings:", "ADD: 64 x 263.644 ms",
                                     "MUL_MAT m=11008 n=512 k=4096: 62 x 14361.3 ms"])
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("ADD count", 64, "calls"), ("ADD time", 263.644, "ms"), ("MUL MAT m=11008 n=512 k=4096 count", 62, "calls"),
        ("MUL MAT m=11008 n=512 k=4096 time", 14361.3, "ms")]
    (run,) = read("(Worker_TP0 pid=1222) INFO 08-07 23:22:57 [gpu_worker.py:789] Free memory on device (46.93/47.4 GiB) "
                  "on startup.", "initial available_bytes 219721119039 / 204.63 GB")
    got = [(f.label, f.value, f.unit) for f, _ in run.figures]
    assert ("Free memory on device", 46.93, "GiB") in got and ("Free memory on device out of", 47.4, "GiB") in got
    assert ("initial available bytes out of", 204.63, "GB") not in got  # one size in two units, no part of a whole
    (rep,) = frameworks.parse_lines(["Inference complete | frames=6 | elapsed=0.4s | throughput=15.2 fps | tracking=False",
                                     "Run on (9 X 1704 MHz CPU s)"])  # (a machine's rated clock: no figure)
    got = [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]
    assert ("throughput", 15.2, "fps") in got and all(value != 1704 for _, value, _ in got)


def test_a_benchmark_loops_time_per_iteration():
    # a flash-attn KV-cache microbenchmark (Dao-AILab/flash-attention issue #1743, 2025-07)
    (rep,) = frameworks.parse_lines(["Running 100 iterations...", "Run: 0.668 ms/iter", "Average: 0.667 ms/iter"])
    got = [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]
    assert got[-2:] == [("Run", 0.668, "ms/iter"), ("Average", 0.667, "ms/iter")]


def test_a_phase_in_brackets_takes_the_rate_before_it_and_mlcs_statistics_stand_alone():
    # NoLlama's benchmark.py (aweussom/NoLlama issue #40, 2026-09); mlx-serve's turn summary (ddalcu/mlx-serve
    # issue #64) prints MLC LLM's statistics pair in brackets after its own figures: no MLC evidence
    (run,) = read("    run 1/5... 322 tok, 8.0s, ttft=0.13s, 40.2 tok/s (40.9 decode)")
    assert ("decode", 40.9, "tokens/s") in [(f.label, f.value, f.unit) for f, _ in run.figures]
    (rep,) = frameworks.parse_lines(["  <- 23315+678 tokens (40881ms) [prefill: 813.2 tok/s, decode: 55.5 tok/s] [end_turn]"])
    assert rep["framework"] == "unknown"
    (rep,) = frameworks.parse_lines(["Statistics: prefill: 78.3 tok/s, decode: 46.8 tok/s"])
    assert rep["framework"] == "mlc-llm" and rep["eval_tps"] == 46.8


def test_an_ollama_message_that_ends_in_its_figure():
    # ollama serve's start-up (ollama/ollama issues #12048, #4572, #10140): the blob counts in slog's quoted msg
    (rep,) = frameworks.parse_lines([
        'time=2025-08-23T11:29:09.964Z level=INFO source=images.go:477 msg="total blobs: 36"',
        'time=2025-08-23T11:29:09.964Z level=INFO source=images.go:484 msg="total unused blobs removed: 0"'])
    assert [(f["label"], f["value"]) for f in rep["figures"]] == [("total blobs", 36), ("total unused blobs removed", 0)]


def test_a_hostile_python_dict_line_is_no_crash():
    # a printed dict is evaluated as a literal only (ast.literal_eval): nesting past the parser's depth, a number
    # past int's digits limit, a call, a name, all come back as no figure (or as the plain pairs' reading)
    for line in ["{'a': " + "(" * 5000 + "1" + ")" * 5000 + "}", "{'a': " + "9" * 5000 + "}",
                 "{'a': __import__('os').getcwd(), 'b': 1}", "{'a': x, 'latency_ms': 12}", "{'a': [1] * 999999999}"]:
        (rep,) = frameworks.parse_lines([line])
        assert all(f["value"] != 999999999 for f in rep["figures"])


def test_lines_other_programs_print_too_are_no_evidence_of_vllm():
    # SGLang's piecewise CUDA graphs compile through the same torch.compile backend (sgl-project/sglang on MUSA,
    # 2026-05); an Aphrodite tokenize benchmark (dphnAI PR #1359) and the 2023 benchmark script's copies print
    # "Throughput: … requests/s" alone: read, but the log is no vLLM's (vLLM's three-part line still is)
    (rep,) = frameworks.parse_lines(["[2026-05-27 03:33:57] Compiling a graph for dynamic shape takes 1.80 s",
                                     "Throughput: 420.87 requests/sec", "Total time: 2.3760s"])
    assert rep["framework"] == "unknown"
    (rep,) = frameworks.parse_lines(["Throughput: 89.27 requests/s, 22853.37 total tokens/s, 11426.69 output tokens/s"])
    assert rep["framework"] == "vllm" and rep["extra"]["throughput_req_s"] == 89.27


def test_a_column_of_two_statistics_is_read_as_two_columns():
    # llama-spec-bench's repeat summary (ikawrakow/ik_llama.cpp issue #2369): "tok/s mean/std" over "37.42/1.48"
    runs = read("| task     | stage | runs |  tok/s mean/std |   rate mean/std |  a.len mean/std |",
                "|----------|-------|------|-----------------|-----------------|-----------------|",
                "| code     | mtp   |    5 |      37.42/1.48 |    92.15%/1.84% |       3.76/0.06 |")
    got = {(f.label, f.value, f.unit) for run in runs for f, _ in run.figures}
    assert {("code mtp tok/s mean", 37.42, "tokens/s"), ("code mtp tok/s std", 1.48, "tokens/s"),
            ("code rate mean", 92.15, "%"), ("code rate std", 1.84, "%"), ("code a.len std", 0.06, None)} <= got


def test_a_list_printed_without_spaces_and_a_number_with_thousands_grouped():
    # ReDrafter's generate.py (NVIDIA/TensorRT-LLM issue #2155): accepted tokens per step, a trailing comma
    (run,) = read("Accepted tokens: 1,5,5,1,3,")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("Accepted tokens [1]", 1), ("Accepted tokens [2]", 5), ("Accepted tokens [3]", 5),
        ("Accepted tokens [4]", 1), ("Accepted tokens [5]", 3)]
    (run,) = read("Tokens processed: 1,234,567")
    assert [(f.label, f.value) for f, _ in run.figures] == [("Tokens processed", 1234567)]


def test_kubernetes_sizes_and_a_plural_in_brackets():
    # club-3090's report.sh (issue #999): free -h's "20Gi"; lscpu's "16 core(s)" counts cores, not seconds
    (run,) = read("- **RAM:** 30Gi total, 20Gi available")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("RAM", 30.0, "GiB"), ("available", 20.0, "GiB")]
    assert not any(f.unit == "s" for run in read("- **CPU topology:** 1 socket(s) × 16 core(s) = 16 physical")
                   for f, _ in run.figures)
    (run,) = read("Average Time to First Token(s): 0.11")
    assert [(f.value, f.unit) for f, _ in run.figures] == [(0.11, "s")]


def test_a_claimed_log_reads_a_line_shape_only_so_many_times():
    # a server's lines repeat by the million: once a family claims the log, the general reader reads each shape
    # (the line without its digits) SHAPE_READS times; a progress bar's redraws still count to its last; a log no
    # family claims is read whole (its figures are its records)
    timing = ["prompt eval time =      71.00 ms /     1 tokens (   71.00 ms per token,    14.08 tokens per second)",
              "       eval time =    8011.70 ms /   261 tokens (   30.70 ms per token,    32.58 tokens per second)"]
    queue = [f"queue wait: {k} ms" for k in range(1, 201)]
    bar = [f"Loading: {k}%|##| {k}/200 [00:0{k % 10}<00:00, 3.{k}it/s]" for k in range(1, 201)]
    reports = frameworks.parse_lines(["slot print_timing: id  0 | task 1 | "] + timing
                                     + ["srv  update_slots: all slots are idle"] + queue + bar)
    waits = [f["value"] for r in reports for f in r["figures"] if f["label"] == "queue wait"]
    assert reports[0]["framework"] == "llama-server" and waits == list(range(1, frameworks.SHAPE_READS + 1))
    assert 200 in [f["value"] for r in reports for f in r["figures"] if "Loading" in f["label"]]
    (rep,) = frameworks.parse_lines(queue)
    assert rep["framework"] == "unknown" and len([f for f in rep["figures"] if f["label"] == "queue wait"]) == 200


def test_thousands_of_tokens_with_a_lower_case_k():
    # lmstats' summary of LM Studio's server logs (its README, 2024): "Prompt: 345.6k" under "Total Tokens: 1.2M";
    # a lower-case k is a thousand of a counted thing only, never a size ("10k push/pop" in a heap's row)
    reports = frameworks.parse_lines(["  Total Tokens:      1.2M", "    Prompt:          345.6k",
                                      "    Completion:      874.3k"])
    assert [(f["label"], f["value"]) for f in reports[0]["figures"]] == [
        ("Total Tokens", 1200000), ("Prompt", 345600), ("Completion", 874300)]
    (run,) = read("| Priority-queue throughput (lazy-deletion heap) | 10k push/pop in < 50 ms | CPU |")
    assert not any(f.unit == "KiB" for f, _ in run.figures)


def test_rich_progress_bars_chinese_units_and_python_loggings_prefix():
    # GuideLLM's rich bar (vllm-project/guidellm PR #73); rich's default columns; a Chinese pressure test's summary
    # under Python logging's "%(asctime)s - %(levelname)s - %(message)s" (vllm-project/vllm-ascend issue #1427)
    reports = frameworks.parse_lines(["  Generating report... ━━━━━━━━━━━━━━━━━━ (1/1) [ 0:01:40 < 0:00:00 ]",
                                      "Downloading ━━━━━━━━━━━━━━━╺━━━━ 75% 0:00:03"])
    got = {(f["label"], f["value"], f["unit"]) for f in reports[0]["figures"]}
    assert {("Generating report done", 1, "iterations"), ("Generating report out of", 1, "iterations"),
            ("Generating report elapsed", 100, "s"), ("Downloading progress", 75, "%"),
            ("Downloading remaining", 3, "s")} <= got
    reports = frameworks.parse_lines(["2025-06-25 16:47:28,987 - INFO - 总耗时: 135.42 秒",
                                      "2025-06-25 16:47:28,987 - INFO - 平均吞吐量: 1.48 请求/秒",
                                      "2025-06-25 16:47:28,987 - INFO - 监控间隔: 5 秒"])
    assert [(f["label"], f["value"], f["unit"]) for f in reports[0]["figures"]] == [
        ("总耗时", 135.42, "s"), ("平均吞吐量", 1.48, "req/s")]  # an interval (间隔) is a setting


def test_a_vllm_metrics_line_its_family_cannot_read_is_the_general_readers():
    # vllm-ascend (issue #10401): a terminal's wrap broke "throughput" and indented the rest; vLLM's own regex reads
    # no such line, so its figures are the general reader's (the requests counts in "reqs" among them)
    (rep,) = frameworks.parse_lines([
        "(APIServer pid=109) INFO:     Application startup complete.",
        "(APIServer pid=109) INFO 06-10 08:07:33 [loggers.py:271] Engine 000: Avg prompt throughput: 12.7 tokens/s, "
        "Avg generation thr                        oughput: 0.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV "
        "cache usage: 0.7%, Prefix cache hit rate: 0.0%"])
    got = {(f["label"], f["value"], f["unit"]) for f in rep["figures"]}
    assert {("Avg prompt throughput", 12.7, "tokens/s"), ("Running", 1, "requests"), ("GPU KV cache usage", 0.7, "%")} <= got


def test_a_program_that_names_itself_wins_over_the_library_whose_bar_it_prints():
    # xinference's worker loads with transformers (held-out round 7): the weight bar shows the library it uses, its
    # logger name what it is; a bare script that prints the same bar is still transformers'
    bar = "Loading checkpoint shards: 100%|███████████████| 10/10 [00:06<00:00,  1.53it/s]"
    named = "2024-07-03 03:27:48,790 xinference.model.llm.pytorch.core 112 DEBUG    Model Memory: 17868767296"
    for lines in ([named, bar], [bar, named]):
        (rep,) = frameworks.parse_lines(lines)
        assert rep["framework"] == "xinference", lines
        assert rep["extra"]["weights_progress_elapsed_ms"] == 6000.0  # the library's reading is kept
    (rep,) = frameworks.parse_lines([bar, "Generated 128 tokens in 4.1 s"])
    assert rep["framework"] == "transformers"


def test_piped_cells_named_by_one_word_and_a_part_out_of_a_whole():
    # a Qwen3-ASR ONNX script's per-file line (microsoft/onnxruntime issue, 2026-03; held-out round 138): a word
    # that names a unit ("tps") or a count ("tokens") names its cell's bare number as a key does
    (run,) = read("mel 0.007s | enc 0.379s | prefill 0.346s | decode 1.984s | tokens 44 | tps 22.2")
    got = {f.label: (f.value, f.unit) for f, _ in run.figures}
    assert got["tokens"] == (44, None) and got["tps"] == (22.2, "tokens/s") and got["decode"] == (1.984, "s")
    # words that name neither are no keys ("epoch", "step": counters; "lr": a setting); a loss is a measure, as
    # "running loss 0.041029" (two words) in a trainer's record is (held-out round 155)
    (run,) = read("epoch 3 | loss 0.52 | step 10 | lr 0.001")
    assert [(f.label, f.value) for f, _ in run.figures] == [("loss", 0.52)]
    # LMCache's store line (held-out round 138): so many "out of" so many
    (run,) = read("LMCache INFO: Storing KV cache for 8411 out of 13531 tokens (skip_leading_tokens=5120)")
    got = {f.label: f.value for f, _ in run.figures}
    assert got["Storing KV cache for tokens"] == 8411 and got["Storing KV cache for tokens out of"] == 13531


def test_a_structured_logs_message_is_read_as_a_line():
    # LiteLLM proxy's JSON debug log (BerriAI/litellm issue, 2025-05; held-out round 139); Go's slog/zap "msg"
    (run,) = read('{"message": "Spend Logs transactions: 0", "level": "DEBUG", "timestamp": "2025-05-26T09:48:01.786608"}',
                  '{"level": "info", "msg": "model loaded in 12.5 s"}', '{"msg": "took 3 s", "took_ms": 5}')
    got = {f.label: (f.value, f.unit) for f, _ in run.figures}
    assert got == {"Spend Logs transactions": (0, None), "model loaded": (12.5, "s"), "took ms": (5.0, "ms")}  # (a line
    # with numbers of its own says them in its message too: the message is left)
    assert run.core["load_ms"][0] == 12500.0


def test_a_real_time_factor_its_quotient_and_a_record_that_says_its_kind():
    # sherpa-onnx's RKNN demo (k2-fsa/sherpa-onnx issue, 2025-08), CosyVoice2's stream log (held-out round 139)
    (run,) = read("Real Time Factor (RTF): 1.778 / 5.841 = 0.304")
    assert [(f.label, f.value) for f, _ in run.figures] == [
        ("Real Time Factor (RTF)", 0.304), ("Real Time Factor (RTF) numerator", 1.778),
        ("Real Time Factor (RTF) denominator", 5.841)]
    (run,) = read("2025-08-12 09:03:40,673 INFO yield speech len 1.76, rtf 0.16669996760108255")
    assert [(f.label, f.value, f.kind) for f, _ in run.figures] == [
        ("yield speech len", 1.76, "value"), ("rtf", 0.16669996760108255, "ratio")]
    (run,) = read("version 2, build 3")  # words that say no kind: no record
    assert run.figures == []


def test_a_sizes_unit_spelled_out_in_brackets():
    # DeepSpeed's inference kernels' memory lines (held-out round 139)
    (run,) = read("Free memory : 8.592285 (GigaBytes)  ", "Requested memory: 0.335938 (GigaBytes) ")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("Free memory", 8.592285, "GB"),
                                                                     ("Requested memory", 0.335938, "GB")]


def test_java_millis_are_milliseconds():
    # llama3.java's load line (mukel/llama3.java issue, 2024-12; held-out round 140)
    (run,) = read("Load LlaMa model: 793 millis")
    assert [(f.label, f.value, f.unit) for f, _ in run.figures] == [("Load LlaMa model", 793, "ms")]
    assert run.core["load_ms"][0] == 793


def test_kernel_benchmark_printouts():
    # flash-attention's benchmark on ROCm, tritonbench, a Marlin tabulate table, a torch matmul sweep (held-out round 140)
    (run,) = read("Flash2 fwd: 73.70 TFLOPs/s, bwd: 47.18 TFLOPs/s, fwd + bwd: 52.58 TFLOPs/s")
    assert [(f.value, f.unit, f.kind) for f, _ in run.figures][0] == (73.7, "TFLOPs/s", "rate")
    (rep,) = frameworks.parse_lines(["  (Batch, Heads, SeqLen, Dhead)    cudnn-tflops    flash_v3-tflops",
                                     "-------------------------------  --------------  -----------------",
                                     "             (8, 16, 8192, 128)         581.868            465.518"])
    assert {f["value"]: f["unit"] for f in rep["figures"]} == {581.868: "TFLOPS", 465.518: "TFLOPS"}
    (rep,) = frameworks.parse_lines(["   n     k     m    torch-fp16    marlin-w4a16",
                                     "----  ----  ----  ------------  --------------",
                                     "1024  2048     1    0.0116816       0.00570508"])
    assert [f["value"] for f in rep["figures"]] == [0.0116816, 0.00570508]  # a dtype in a column's name: no flag
    (run,) = read("FP32:", "  1024x1024: 27.62 TFLOPS", "  2048x2048: 33.41 TFLOPS", "", "TF32:", "  1024x1024: 99.71 TFLOPS")
    assert [(f.label, f.value) for f, _ in run.figures] == [("FP32 1024x1024", 27.62), ("FP32 2048x2048", 33.41),
                                                           ("TF32 1024x1024", 99.71)]


def test_an_engines_name_as_a_column_among_others_is_no_evidence():
    # DeepGEMM's perf report printed as a pandas frame (held-out round 140): its columns compare three engines
    reps = frameworks.parse_lines(["fp8-gemm-performance-comparison-tp16:",
                                   "         m        n       k  tp_size     DeepGEMM       SGLang         vLLM",
                                   "0      8.0    576.0  7168.0     16.0   234.512001   179.104000   179.232001"])
    assert {r["framework"] for r in reps} == {"unknown"}
    # a compose service's prefix is a log's line, not a header
    (rep,) = frameworks.parse_lines(["vllm-1  | INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.0"])
    assert rep["framework"] == "vllm"


def test_openvinos_name_alone_is_no_evidence_of_openvino_genai():
    # an optimum-intel SmoothQuant run (held-out round 47): OpenVINO is the runtime other programs use too
    reps = frameworks.parse_lines(["$ lm_eval --model openvino --tasks lambada_openai --model_args pretrained=./m",
                                   "PPL: 5.63 @ chunk 512/8192: 100%|████████████████| 41/41 [02:18<00:00,  3.38s/it]"])
    assert {r["framework"] for r in reps} == {"unknown"}
    (rep,) = frameworks.parse_lines(["[ INFO ] OpenVINO GenAI version: 2025.1", "Load time: 3512.00 ms"])
    assert rep["framework"] == "openvino-genai"


def test_token_counts_named_with_a_hyphen_or_a_total_are_counts_not_limits():
    # SGLang on Ascend, its batch line cut by a terminal (held-out round 143); a batching script's "Total token"
    (run,) = read("[2026-05-28 02:59:50 TP0] Prefill batch, #new-seq: 1, #new-token: 896, #pending-token: 23787, npu",
                  "Total token: 6108", "EOS token: 50256")
    assert {f.label: f.value for f, _ in run.figures} == {"new-token": 896, "pending-token": 23787,
                                                          "Total token": 6108}


def test_colon_statistics_under_a_heading_that_names_the_unit():
    # transformers' Pixtral image-processor timing (huggingface/transformers issue, 2024-11; held-out round 144): the
    # heading, no figure of its own, is found above; a heading with no unit makes no figures of bare statistics
    (rep,) = frameworks.parse_lines(["-" * 50, "Slow Processor (PIL Image) Statistics (milliseconds):",
                                     "          Mean: 23.680", "       Std Dev: 2.240", "           Max: 36.064"])
    assert [(f["label"], f["value"], f["unit"]) for f in rep["figures"]] == [
        ("Slow Processor (PIL Image) Statistics Mean", 23.68, "ms"),
        ("Slow Processor (PIL Image) Statistics Std Dev", 2.24, "ms"),
        ("Slow Processor (PIL Image) Statistics Max", 36.064, "ms")]
    (rep,) = frameworks.parse_lines(["Limits:", "  Max: 5"])
    assert rep["figures"] == []


def test_another_programs_version_in_brackets_is_no_ollama_line():
    # ComfyUI's quantization note (held-out round 144): ollama's is "Listening on 127.0.0.1:11434 (version 0.5.7)"
    (rep,) = frameworks.parse_lines(["Requested to load Flux2TEModel_", "Found quantization metadata (version 1.0)"])
    assert rep["framework"] == "unknown"
    (rep,) = frameworks.parse_lines(['time=2025-01-01T00:00:00Z level=INFO source=routes.go:1 msg="Listening on 127.0.0.1:11434 (version 0.5.7)"'])
    assert rep["framework"] == "ollama" and rep["version"] == "0.5.7"


def figs(lines: list) -> list:
    (rep,) = frameworks.parse_lines(lines)
    return [(f["label"], f["value"], f["unit"]) for f in rep["figures"]]


def test_rows_of_a_table_whose_header_the_log_does_not_hold():
    # vLLM PR (2026; held-out round 152): rows cut from under their header; a bare number is its column's
    rows = ["mixed_partial    64   32768   134%   0.131   0.401    3.05x",
            "topk_whole      128   32768   100%   0.114   0.525    4.62x"]
    got = figs(rows)
    assert ("mixed partial column 5", 0.131, None) in got and ("mixed partial", 3.05, "x") in got
    assert ("mixed partial column 2", 64, None) in got  # the first row, read once the second shows the run
    assert figs(rows[:1]) == [("mixed partial", 134, "%"), ("mixed partial", 3.05, "x")]  # one row: no table


def test_device_matrices_with_a_diagonal_not_measured_a_direction_per_row_and_the_sum():
    # nvbandwidth v0.8 on 6x A6000 (held-out round 155): "N/A" for a device and itself; its SUM in the matrix's unit
    got = figs(["memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)", "           0         1",
                " 0       N/A     26.34", " 1     26.35       N/A", "", "SUM device_to_device_memcpy_read_ce 52.69"])
    assert got == [("memcpy CE GPU(row) -> GPU(column) bandwidth 0 to 1", 26.34, "GB/s"),
                   ("memcpy CE GPU(row) -> GPU(column) bandwidth 1 to 0", 26.35, "GB/s"),
                   ("device_to_device_memcpy_read_ce sum", 52.69, "GB/s")]
    # DCGM diag's busgrind: a setting after the title's unit, rows named by their direction
    got = figs(["Host/Device Bandwidth Matrix (GB/s), memory=Pinned", "   Dir\\D       0      1",
                "   D2H     56.83  57.12", "   BiDir  101.26 101.38"])
    assert got[-1] == ("Host/Device Bandwidth Matrix BiDir device 1", 101.38, "GB/s") and len(got) == 4


def test_counts_of_things_and_a_named_amount_per_line():
    # hipfire's diagnostics (held-out round 155): counts after a label; a model's name, then far apart its size
    assert figs(["kernels/gfx1201: 48 blobs, 48 hashes"]) == [("kernels/gfx1201 blobs", 48, None),
                                                            ("kernels/gfx1201 hashes", 48, None)]
    assert figs(["  qwen3.5-0.8b.mq4                    0.5GB"]) == [("qwen3.5-0.8b.mq4", 0.5, "GB")]
    # a count's record after its name, the rest of the line left ("over 104765 reference words")
    assert figs(["Errors: 55 insertions, 83 deletions, 589 substitutions, over 104765 reference words"])[:3] == [
        ("Errors insertions", 55, None), ("Errors deletions", 83, None), ("Errors substitutions", 589, None)]


def test_keys_glued_to_their_values_after_a_records_counters():
    # EfficientQAT's block log (held-out round 155): "epoch 0" is a counter, "recon_loss" the key of its value
    got = figs(["blocks 27 epoch 0 recon_loss:0.0335 val_loss:0.0391 norm:0.01479192 max memory_allocated 6822.4"])
    assert got == [("recon loss", 0.0335, None), ("val loss", 0.0391, None), ("norm", 0.01479192, None)]


def test_quoted_list_items_a_named_dict_and_a_rate_alone_in_a_piped_cell():
    # SGLang's run_eval (held-out round 155): scores printed as strings
    assert figs(["Scores: ['0.803', '0.793']"]) == [("Scores [1]", 0.803, None), ("Scores [2]", 0.793, None)]
    # lm-eval's result dict after its task's name; a dict of what a call was given is no result
    assert figs(["gsm8k: {'alias': 'gsm8k', 'exact_match,strict-match': 0.953125}"]) == [
        ("gsm8k exact match,strict-match", 0.953125, None)]
    assert figs(["kwargs: {'n': 1, 'max_tokens': 512}"]) == []
    # bullet's trainer (held-out round 155): "7381480 pos/sec" fills its cell alone
    got = figs(["superbatch 1 | time 13.5s | running loss 0.041029 | 7381480 pos/sec | total time 16.0s"])
    assert ("running loss", 0.041029, None) in got and ("rate", 7381480, "pos/s") in got


def test_a_figure_named_after_it_in_a_line_of_settings_and_a_label_with_digits_in_brackets():
    # DeepEP's tuning sweep (held-out round 155): the second figure of the line is named by its bracket
    assert figs(["[tuning] SMs 24, NVL chunk 4, RDMA chunk 8: 39.85 GB/s (RDMA), 130.35 GB/s (NVL) "]) == [
        ("RDMA chunk 8", 39.85, "GB/s"), ("RDMA chunk 8 NVL", 130.35, "GB/s")]
    # DeepGEMM's test, quoted in a reply: a label whose brackets hold the case's shape
    assert figs(["Perf (num_groups=2, m=16):   35 us"]) == [("Perf (num groups=2, m=16)", 35, "us")]


def test_line_profilers_rows_of_blank_source_lines_and_metrics_at_k():
    # line_profiler (held-out round 156): the paste stripped each row's blank "Line Contents"; its number names it
    got = figs(["Line #      Hits         Time  Per Hit   % Time  Line Contents", "=" * 62,
                "    42      1872    1621000.0    865.9      0.1    ", "    43       936     136000.0    145.3      0.0"])
    assert ("L42 Hits", 1872, None) in got and ("L43 Per Hit", 145.3, None) in got
    assert figs(["Recall@1: 75.00%", "pass@1: 0.23"]) == [("Recall@1", 75, "%"), ("pass@1", 0.23, None)]
    assert figs(["Total decode time: 1293.82ms (avg: 10.11ms/step)"])[1] == ("Total decode time avg", 10.11, "ms/step")
    assert ("naive allreduce iter 0/10 rate", 108.85, "Gb/s") in figs(
        ["naive_allreduce iter 0/10: 0.71 sec 9.07 GFLOP/s 108.85 Gb/s"])  # tinygrad's: gigabits a second


def test_counts_of_things_ending_a_line_after_a_comma_and_a_process_named_by_another_tool():
    # RAGFlow's GraphRAG progress (held-out round 156)
    got = figs(["19:35:57 Entities extraction of chunk 17 620/641 done, 2 nodes, 5 edges, 8250 tokens."])
    assert [(v, u) for _, v, u in got] == [(2, None), (5, None), (8250, "tokens")]
    # numastat -p names the process it measured: no ktransformers line
    (rep,) = frameworks.parse_lines(["Per-node process memory usage (in MBs) for PID 2402316 (ktransformers)",
                                     "Heap                      1120.50           22.47         1142.97"])
    assert rep["framework"] == "unknown"


def test_a_labels_statistics_each_a_number_and_its_name_and_a_benchmarks_name_is_no_setting():
    # Ray Data's Dataset.stats() (held-out round 157): units glued to each number, or in the label's brackets
    assert figs(["* Remote wall time: 92.49ms min, 2.92s max, 1.22s mean, 243.21s total"]) == [
        ("Remote wall time min", 92.49, "ms"), ("Remote wall time max", 2.92, "s"),
        ("Remote wall time mean", 1.22, "s"), ("Remote wall time total", 243.21, "s")]
    assert figs(["* Peak heap memory usage (MiB): 407.04 min, 683.52 max, 527 mean"])[1] == (
        "Peak heap memory usage max", 683.52, "MiB")
    assert figs(["* Tasks per node: 14 min, 25 max, 20 mean; 10 nodes used"])[:3] == [
        ("Tasks per node min", 14, None), ("Tasks per node max", 25, None), ("Tasks per node mean", 20, None)]
    # criterion (held-out round 157): "… with varying seeds" names the benchmark, sets no seed
    assert figs(["transfer/Run multiple transfers with varying seeds",
                 "                        time:   [213.61 ms 224.95 ms 235.29 ms]"])[0] == (
        "multiple transfers with varying seeds time", 224.95, "ms")


def test_a_csv_whose_cells_stand_comma_space_apart_and_end_in_a_comma():
    # lc0's backendbench (held-out round 158): its header, words with spaces, is found above its first row
    got = figs(["size, mean nps, mean ms,   sdev,     cv, max nps,  median, min nps,",
                "  16,    10648,   1.503, 0.1334, 0.0888,   11449,   11138,    8433",
                "  32,    17628,   1.815, 0.0348, 0.0192,   18145,   17641,   16285"])
    assert ("mean nps", 10648, None) in got and ("mean nps", 17628, None) in got and ("cv", 0.0192, None) in got
    # a nvidia-smi CSV row's PCI address is no value ("00000000:DE:00.0")
    assert ("DE", 0, None) not in figs(["IDLE 1 0, 00000000:DE:00.0, GPU-7, NVIDIA PG506-230, 0, 98304, 0, 610.43.02"])


def test_counts_of_records_and_embeddings():
    # airbyte's read progress and VectorDBBench's loader (held-out round 158)
    got = figs(["Read 10,000,135 records over 6min 7s (27,248.3 records / second)."])
    assert ("Read", 10000135, "records") in got
    assert figs(["INFO: Loaded 9400000 embeddings into VectorDB (serial_runner.py:93)"]) == [
        ("Loaded", 9400000, "embeddings")]


def test_osu_tables_a_commented_header_with_units_and_rows_named_by_their_size():
    # OSU micro-benchmarks (held-out round 159): "# Size  Bandwidth (MB/s)" over two columns, a comment between
    assert figs(["# OSU MPI Bandwidth Test v7.5", "# Size      Bandwidth (MB/s)", "# Datatype: MPI_CHAR.",
                 "1                       3.87", "2                       8.19"]) == [
        ("Bandwidth", 3.87, "MB/s"), ("Bandwidth", 8.19, "MB/s")]
    # rows whose header the paste lost, each named by its message size
    got = figs(["1                      50.89             18.27             89.23        1000",
                "2                      50.20             18.24             88.37        1000"])
    assert ("1 column 2", 50.89, None) in got and ("2 column 4", 88.37, None) in got
    # devices numbered over a connectivity matrix, and its flags, are no rows
    assert figs(["     D\\D     0     1     2     3", "     0\t     1     1     1     1", "     1\t     1     1     1     1"]) == []


def test_pandas_describe_header_with_percentile_columns():
    # a pandas describe() frame as markdown (held-out round 159): "25%" names a column there
    got = figs(["|                    |   count |    mean |   25% |     50% |", "|:--|--:|--:|--:|--:|",
                "| results_a          |    1904 | 53.9296 |    46 | 53      |"])
    assert ("results a count", 1904, None) in got and ("results a 25%", 46, None) in got


def test_a_three_column_csv_comma_space_apart():
    # PyTorch on an Arc A770 (held-out round 160): "size, elapsed_time, tops", rows of three numbers
    got = figs(["size, elapsed_time, tops", "256, 0.0069244384765625, 0.004845798271379462",
                "304, 0.002539801597595215, 0.022123353278146574"])
    assert ("tops", 0.022123353278146574, None) in got and ("elapsed time", 0.0069244384765625, None) in got
    # a list of settings that goes on in words is no row ("1, 4, 16 and inf")
    assert figs(["- Average QPS (query per second): 1, 4, 16 and inf."]) == []
