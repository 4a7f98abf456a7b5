"""The rule-table families (frameworks/rules.py): each claims a log only on its own lines, never a neighbour's."""
from wrapper.derive import frameworks
from wrapper.derive.frameworks import rules
from wrapper.derive.frameworks.base import SERIES_MAX


def _one(lines: list[str]) -> dict:
    (rep,) = frameworks.parse_lines(lines)
    return rep


OLLAMA_BLOCK = ["prompt eval count:    15 token(s)", "prompt eval duration: 483.086ms",
                "eval count:           18 token(s)", "eval duration:        781.205ms",
                "eval rate:            23.04 tokens/s"]


def test_ollamas_block_stays_ollamas_and_python_float_seconds_make_it_ktransformers():
    assert _one(OLLAMA_BLOCK)["framework"] == "ollama"
    kt = _one(["prompt eval count:    14 token(s)", "prompt eval duration: 3.272608757019043s",
               "eval count:           300 token(s)", "eval duration:        104.77625703811646s"])
    assert kt["framework"] == "ktransformers"
    assert (kt["prompt_tokens"], kt["prompt_eval_ms"], kt["eval_tokens"]) == (14, 3272.608757019043, 300)


def test_tgis_span_line_is_not_teis_and_teis_is_not_tgis():
    tgi = ('generate{parameters=GenerateParameters { max_new_tokens: Some(20) } total_time="611.286748ms" '
           'validation_time="754.5µs" queue_time="127.337µs" inference_time="610.405028ms" '
           'time_per_token="43.600359ms" seed="None"}: text_generation_router::server: '
           'router/src/server.rs:305: Success')
    assert _one([tgi])["framework"] == "tgi"
    tei = ('INFO embed{total_time="685.148571ms" tokenization_time="8.812018ms" queue_time="724.303µs" '
           'inference_time="675.535478ms"}: text_embeddings_router::http::server: '
           'router/src/http/server.rs:1290: Success')
    rep = _one([tei])
    assert rep["framework"] == "text-embeddings-inference"
    assert rep["total_ms"] == 685.148571 and rep["extra"]["tokenization_ms"] == 8.812018


def test_mnns_table_is_not_llama_bench_and_llama_benchs_is_not_mnns():
    header = "| model                          |  modelSize | backend    | threads | test          |        t/s |"
    row = "| qwen2.5-0.5b                   | 265.09 MiB | CPU        |     4 | pp512         | 996.03 ± 16.28 |"
    assert _one([header, row])["framework"] == "mnn-llm"
    bench = ["| model | size | params | backend | ngl | test | t/s |",
             "| --- | ---: | ---: | --- | --: | ---: | ---: |",
             "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | pp512 | 4425.06 ± 12.12 |"]
    assert {r["framework"] for r in frameworks.parse_lines(bench)} == {"llama-bench"}


def test_a_throughput_line_alone_names_no_engine_and_the_logger_name_does():
    line = "Throughput (T/s) 18.00, Prefix cache hitrate 50.00%, 1 running, 0 waiting"
    assert _one([line])["framework"] != "mistral.rs"
    rep = _one(["2025-12-16T17:23:05.430919Z  INFO mistralrs_core::engine::logger: " + line])
    assert rep["framework"] == "mistral.rs"
    assert rep["extra"]["engine_metrics"]["last"] == {"throughput_tps": 18.0, "prefix_cache_hit_rate_pct": 50.0,
                                                      "running_reqs": 1, "waiting_reqs": 0}


def test_a_plain_llama_server_log_is_never_localais():
    line = "slot print_timing: id  6 | task 170 | n_decoded =    374, tg =   5.49 t/s, tg_3s =   0.51 t/s"
    assert _one([line])["framework"] == "llama-server"
    wrapped = f'Aug 05 15:27:04 DEBUG GRPC stderr id="m.gguf-127.0.0.1:42043" line="3.28.844.467 I {line}" caller={{}}'
    rep = _one([wrapped])
    assert rep["framework"] == "localai" and rep["extra"]["progress"]["n_decoded"] == 374


def test_gpt_fast_lines_alone_are_not_torchchats():
    lines = ["Time to load model: 2.51 seconds", "Time for inference 1: 3.92 sec total, 51.05 tokens/sec",
             "Bandwidth achieved: 715.36 GB/s"]
    assert _one(lines)["framework"] != "torchchat"
    assert _one(["python torchchat.py generate llama3"] + lines)["framework"] == "torchchat"


class _Table(rules.RulesParser):
    NAME = "unknown"  # no route: the rules alone
    RULES = (rules.rule("open", r"open (\d+)", ("prompt_tokens", rules.INT), start=True),
             rules.rule("again", r"again (\d+)", ("prompt_tokens", rules.INT), mode="fill"),
             rules.rule("tick", r"tick ([\d.]+)", ("v", rules.NUM), series="ticks", claims=False),
             rules.rule("shut", r"shut ([\d.]+)s", ("total_ms", rules.S_MS), end=True))


def test_rules_put_fill_start_end_and_series():
    p = _Table()
    for line in ["open 1", "again 9", "tick 0.5", "shut 1.25s", "open 2", "open 3"]:
        p.feed(line, line)
    runs = p.results()
    assert [r["prompt_tokens"] for r in runs] == [1, 2, 3]  # fill kept the first; start split the last two
    assert runs[0]["total_ms"] == 1250.0 and runs[0]["extra"]["ticks"]["series"] == [{"v": 0.5}]
    assert p.evidence == 5  # six lines, the tick line claimed nothing


def test_a_series_keeps_its_count_and_last_row_past_the_cap():
    p = _Table()
    for i in range(SERIES_MAX + 5):
        p.feed(f"tick {i}", "")
    ticks = p.results()[0]["extra"]["ticks"]
    assert ticks["lines"] == SERIES_MAX + 5 and len(ticks["series"]) == SERIES_MAX
    assert ticks["last"] == {"v": float(SERIES_MAX + 4)}


def test_a_link_to_a_project_is_no_evidence_of_its_output():
    # tenstorrent/tt-inference-server issue #1707 (held-out round 18): a report links GenAI-Perf's repository
    lines = ["**Benchmarking Tool:** [GenAI-Perf](https://github.com/triton-inference-server/perf_analyzer)",
             "| ISL | OSL | TTFT Avg (ms) |", "|-----|-----|---------------|", "| 128 | 128 | 1289.6 |"]
    assert _one(lines)["framework"] == "unknown"
    assert rules.named("./perf_analyzer -m model --concurrency-range 1:4", "perf_analyzer")


def test_a_comparison_with_vllm_in_prose_is_not_vllms_log():
    # tenstorrent/tt-metal issue #25107 (held-out round 18): "@mtairum measured … (without vLLM):"
    lines = ["@mtairum measured the following on BHx31 (without vLLM):", "Batch=1:",
             "Average Time to First Token (TTFT): 193.57ms"]
    assert _one(lines)["framework"] == "unknown"


def test_names_that_are_mentions_claim_nothing():
    # held-out round 106-b: pip's listing above an nvidia-smi table (vllm-project/vllm issue #15216, 2025-03)
    assert _one(["vllm                              0.8.0", "| 30%   30C    P8    11W / 170W |      4MiB / 12288MiB |"
                 "      0%      Default |"])["framework"] == "unknown"
    assert not rules.named("vllm==0.8.0", "vllm")
    # held-out round 15's Triton metrics: a model named after TensorRT-LLM, quoted as a label's value
    assert _one(['nv_inference_compute_infer_duration_us{model="tensorrt_llm_bls",version="1"} 89175401'])[
        "framework"] == "unknown"
    # a table comparing engines names none of them as the log's own (mistral.rs issue, 2024-11)
    assert _one(["| Platform | TG (256) T/s |", "| -- | -- |", "| mistral.rs | 37.39 |", "| llama.cpp | 38.94 |"])[
        "framework"] == "unknown"


def test_ggml_lines_alone_are_no_llama_cpp_log():
    # held-out round 106-b: whisper.cpp on an iPhone prints ggml's Metal lines and its own (whisper.cpp PR #1716)
    lines = ["ggml_metal_init: allocating", "ggml_metal_init: picking default device: Apple A15 GPU",
             "ggml_backend_metal_buffer_type_alloc_buffer: allocated buffer, size =    15.75 MiB, (  157.52)",
             "whisper_init_state: kv self size  =   16.52 MB"]
    rep = _one(lines)
    assert rep["framework"] == "unknown"
    assert {(f["label"], f["value"], f["unit"]) for f in rep["figures"]} >= {
        ("memory in use", 157.52, "MiB"), ("size", 15.75, "MiB")}
    assert _one(["llama_model_loader: loaded meta data with 23 key-value pairs", "ggml_metal_init: allocating"])[
        "framework"] == "llama.cpp"


def test_tgis_radix_prefix_cache_line_is_a_requests_cached_and_computed_tokens():
    # held-out round 111-b: huggingface/text-generation-inference issue #2842 (2024-12), ten admissions in a row
    line = ("2024-12-14T03:44:25.252061Z  INFO text_generation_router_v3::radix: backends/v3/src/radix.rs:108: "
            "Prefix {} - Suffix {}")
    reps = frameworks.parse_lines([line.format(0, 13715), line.format(512, 300)])
    assert [r["framework"] for r in reps] == ["tgi", "tgi"]
    assert [(r["extra"]["radix_prefix_tokens"], r["extra"]["radix_suffix_tokens"]) for r in reps] == [(0, 13715), (512, 300)]
