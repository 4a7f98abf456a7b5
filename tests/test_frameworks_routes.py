"""The routing table: keys declared apart from the parsers, and families imported only when a line needs them."""
import subprocess
import sys

from wrapper.derive.frameworks import FAMILIES, parse_lines, routes, serving_bench, vllm


def test_every_family_has_a_route_and_its_parser_takes_its_keys_from_it():
    assert [f.name for f in FAMILIES] == list(routes.ROUTES)
    for family in FAMILIES:
        route = routes.ROUTES[family.name]
        assert family.parser.KEYS == route.keys
        assert family.parser.EVIDENCE_KEYS == route.evidence


def test_every_gate_of_a_rules_family_is_one_of_its_routing_keys():
    for family in FAMILIES:
        for rule in getattr(family.parser, "RULES", ()):
            assert rule.gate in routes.ROUTES[family.name].keys, (family.name, rule.gate)


def test_every_gate_the_vllm_parser_tests_is_a_routing_key():
    # a gate that is not a key would never see its line: the line is not routed to the parser
    gates = {gate for gate, _, _ in vllm._RULES} | set(vllm._MEMORY_GATES) | {serving_bench.HEADER}
    assert gates - set(routes.VLLM_KEYS) == set()


def _modules_after(code: str) -> set:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True).stdout.split()
    return {m.rpartition(".")[2] for m in out if m.startswith("wrapper.derive.frameworks.")}


FAMILY_MODULES = {r.module for r in routes.ROUTES.values()}


def test_output_that_names_no_family_imports_no_family_module():
    loaded = _modules_after("from wrapper.derive.frameworks import parse_lines\n"
                            "parse_lines(['once upon a time\\n', 'x' * 4096 + '\\n'])")
    assert loaded & FAMILY_MODULES == set()


def test_a_llama_cpp_log_imports_the_llama_family_and_not_the_engines():
    loaded = _modules_after("from wrapper.derive.frameworks import parse_lines\n"
                            "parse_lines(['load_tensors: offloaded 0/25 layers to GPU\\n',"
                            " 'llama_perf_context_print:        eval time =     100.00 ms /    10 runs\\n'])")
    assert "llama_cpp" in loaded
    assert loaded & {"vllm", "sglang", "tgi", "tensorrt_llm", "mlx_lm", "transformers"} == set()


def test_a_warning_seen_before_its_family_is_recognised_is_kept():
    # the out-of-memory line reaches every family as a warning before vLLM's own lines import its parser
    [report] = parse_lines(["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
                            "INFO 01-02 03:04:05 [core.py:1] vLLM API server version 0.8.5\n"])
    assert report["framework"] == "vllm"
    assert [w["kind"] for w in report["warnings"]] == ["oom"]


def test_tensorrt_llm_convert_checkpoint_claims_over_the_transformers_it_loads_with():
    # NVIDIA/TensorRT-LLM issue (2025-01, held-out round 63): convert_checkpoint.py loads the model with transformers,
    # whose bar comes first; the script's own closing line says whose log it is
    lines = ["Loading checkpoint shards: 100%|\u2588\u2588\u2588\u2588| 37/37 [00:12<00:00,  2.95it/s]",
             "Weights loaded. Total time: 00:04:54",
             "Total time of converting checkpoints: 02:16:55"]
    (rep,) = parse_lines(lines)
    assert rep["framework"] == "tensorrt-llm"
    assert parse_lines(lines[:2])[0]["framework"] == "transformers"


def test_a_serving_report_opening_with_total_requests_is_not_vllms():
    # NVIDIA/TensorRT-LLM pull request (2026-03, held-out round 66): its copy of the serving benchmark opens the
    # report with "Total requests:", which vLLM's never prints; vLLM's own report still claims the log
    report = ["============ Serving Benchmark Result ============", "Successful requests:                     1000",
              "Benchmark duration (s):                  30.85"]
    assert parse_lines(report)[0]["framework"] == "vllm"
    trt = [report[0], "Total requests:                          1000"] + report[1:]
    (rep,) = parse_lines(trt)
    assert rep["framework"] == "unknown"
    assert {(f["label"], f["value"]) for f in rep["figures"]} >= {("Total requests", 1000), ("Successful requests", 1000)}


def test_a_serving_report_with_fastdeploys_decode_section_takes_back_vllms_evidence():
    # PaddlePaddle/FastDeploy pull request (2026-04, held-out round 136): its copy of the serving benchmark prints
    # vLLM's first lines, then a decode-speed section vLLM's report never holds: the log is no vLLM's
    report = ["============ Serving Benchmark Result ============", "Successful requests:                     2000",
              "Benchmark duration (s):                  238.91", "Request throughput (req/s):              8.371",
              "-------------------\u89e3\u7801\u901f\u5ea6(tok/s)--------------------",
              "Mean Decode:                             24.05", "Median Decode:                           23.39"]
    assert parse_lines(report[:4])[0]["framework"] == "vllm"
    (rep,) = parse_lines(report)
    assert rep["framework"] == "unknown"
    assert {(f["label"], f["value"]) for f in rep["figures"]} >= {("Mean Decode", 24.05), ("Successful requests", 2000)}


def test_a_scripts_number_of_requests_line_is_no_evidence_of_tensorrt_llm():
    # ollama issue (2026-03, held-out round 75): a user's benchmark.py against a llamafile server prints
    # "Number of requests: 5", a line TensorRT-LLM's benchmark prints too; alone it claims nothing
    lines = ["Starting streaming benchmark...", "Number of requests: 5",
             "Request 1: 6.65 tokens/sec, First token: 8.383s, Memory: 20.10 GB"]
    assert parse_lines(lines)[0]["framework"] == "unknown"
    trt = ["Number of requests: 5", "Request Throughput (req/sec):                     2.41"]
    (rep,) = parse_lines(trt)
    assert rep["framework"] == "tensorrt-llm" and rep["extra"]["requests"] == 5


def test_vllms_ray_worker_prefix_claims_over_the_transformers_bars_beside_it():
    # OpenRLHF issue (2024-04, held-out round 85): Ray prefixes each actor's lines with its class; vLLM's Ray
    # worker (RayWorkerVllm, vLLM 0.2-0.4) is vLLM's own name, the critic's transformers bars are a neighbour's
    lines = ["(RayWorkerVllm pid=207931, ip=10.0.1.75) [E socket.cpp:922] [c10d] The client socket has timed out "
             "after 1800s while trying to connect to (172.17.0.2, 44737).",
             "Loading checkpoint shards: 100%|\u2588\u2588\u2588\u2588| 38/38 [00:33<00:00,  1.69it/s]"]
    assert parse_lines(lines)[0]["framework"] == "vllm"
    assert parse_lines(lines[1:])[0]["framework"] == "transformers"


def test_a_bench_script_speaking_of_vllms_log_is_no_vllm_log():
    # noonghunna/club-3090 issue #390 (2026, held-out round 91): a bench script against llama-server notes that it
    # could not scrape vLLM's log; the name there is another program's mention
    lines = ["  decode_TPS     mean= 143.79   std=  0.19   CV= 0.1%   min=143.59   max=144.05",
             "  PP tok/s       n/a (vLLM log scrape unavailable; use PP=1 for long-prompt fallback)"]
    assert parse_lines(lines)[0]["framework"] == "unknown"


def test_sglangs_bench_serving_against_a_vllm_backend_is_sglangs_report():
    # sgl-project/sglang (2026-05, held-out round 95): bench_serving names its backend ("vllm-chat") and its
    # traffic rate inside the report, lines vLLM's own report never prints there
    lines = ["============ Serving Benchmark Result ============",
             "Backend:                                 vllm-chat",
             "Traffic request rate:                    1.0",
             "Max request concurrency:                 256",
             "Successful requests:                     64",
             "Benchmark duration (s):                  62.15"]
    (rep,) = parse_lines(lines)
    assert rep["framework"] == "sglang" and rep["extra"]["serving_benchmark"]["successful_requests"] == 64
