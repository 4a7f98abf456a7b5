"""vLLM, SGLang, TGI, TensorRT-LLM, mlx_lm and transformers logs -> reported figures; exact values as printed."""

from wrapper.derive.frameworks import parse_lines
from .conftest import events_lines, log_fixture

TIMINGS = ("load_ms", "prompt_eval_ms", "prompt_tokens", "eval_ms", "eval_tokens", "total_ms", "sampling_ms",
           "prompt_tps", "eval_tps")


def parse(name: str) -> list[dict]:
    with open(log_fixture(name), encoding="utf-8") as fh:
        return parse_lines(fh)


def without_series(extra: dict) -> dict:
    """``extra`` with the per-line ``series`` lists taken out of its summaries (checked on their own)."""
    return {k: ({kk: vv for kk, vv in v.items() if kk != "series"} if isinstance(v, dict) else v)
            for k, v in extra.items()}


def only(name: str, framework: str) -> dict:
    runs = parse(name)
    assert len(runs) == 1
    assert runs[0]["framework"] == framework
    return runs[0]


def test_vllm_v0_weights_gb_and_blocks_and_no_oom_from_advice():
    r = only("vllm__v0-2024-07-loading-model-weights-took-GB-gpu-blocks-cuda-graphs.log", "vllm")
    assert r["extra"] == {"model_weights_gb": 6.1138, "gpu_blocks": 10039, "cpu_blocks": 1310}
    assert all(r[k] is None for k in TIMINGS)
    assert r["warnings"] == []  # "If you are running out of memory, consider …" is advice, not an OOM


def test_vllm_v1_tp_workers_model_loading():
    r = only("vllm__v1-2025-08-enginecore-tp-workers-model-loading-took-GiB-and-seconds.log", "vllm")
    assert r["load_ms"] == 3106.979  # TP0, printed first; TP1 printed 3.001256 seconds
    assert r["extra"] == {"weights_load_ms": 2630.0, "model_loading_gib": 11.0802, "workers_reporting": 2,
                          "weights_progress_elapsed_ms": 2000, "worker_load_ms": [3106.979, 3001.256],
                          "worker_weights_load_ms": [2630.0, 2600.0]}


def test_vllm_spec_decoding_rate_first_as_v1_printed_it_in_2025_06():
    # held-out round 101-a: the rate opened the line, without "Avg", and the length came second
    runs = parse_lines([
        "INFO 06-06 14:20:34 [loggers.py:116] Engine 000: Avg prompt throughput: 11244.6 tokens/s, Avg generation "
        "throughput: 267.6 tokens/s, Running: 337 reqs, Waiting: 633 reqs, GPU KV cache usage: 9.5%\n",
        "INFO 06-06 14:20:34 [metrics.py:86] SpecDecoding metrics: Draft acceptance rate: 38.8%, Mean acceptance "
        "length: 2.16, Accepted: 150 tokens, Drafted: 387 tokens, Per-position acceptance rate: 0.543, 0.357, 0.264\n"])
    assert [r["framework"] for r in runs] == ["vllm"]
    assert without_series(runs[0]["extra"])["spec_decoding"] == {
        "mean_acceptance_length": 2.16, "draft_acceptance_rate_pct": 38.8, "accepted_tokens": 150,
        "drafted_tokens": 387, "per_position_acceptance_rate": [0.543, 0.357, 0.264], "lines": 1}


def test_vllm_v1_kv_cache_graph_capture_init_engine():
    r = only("vllm__v1-2026-kv-cache-size-cuda-graph-capture-init-engine-took.log", "vllm")
    assert r["extra"] == {"kv_cache_tokens": 396928, "max_concurrency": 3.03, "graph_capture_ms": 2000.0,
                          "graph_capture_gib": 0.11, "init_engine_ms": 13700.0, "compilation_ms": 7280.0,
                          "cuda_graph_pool_gib": 0.11, "cuda_graph_pool_estimated_gib": 0.14}
    assert r["load_ms"] is None  # "Model loaded in 22.4s" is the launcher's line, not vLLM's


def test_vllm_v1_engine_metrics_and_spec_decoding():
    r = only("vllm__v1-2026-metrics-engine000-specdecoding.log", "vllm")
    assert [line["generation_tps"] for line in r["extra"]["engine_metrics"]["series"]] == [28.4, 0.0]
    assert without_series(r["extra"]) == {
        "engine_metrics": {"lines": 2, "max_prompt_tps": 0.0, "max_generation_tps": 28.4,
                           "last": {"prompt_tps": 0.0, "generation_tps": 0.0, "running_reqs": 0, "waiting_reqs": 0,
                                    "gpu_kv_cache_usage_pct": 0.0, "prefix_cache_hit_rate_pct": 0.0,
                                    "mm_cache_hit_rate_pct": 0.0}},
        "spec_decoding": {"mean_acceptance_length": 2.20, "draft_acceptance_rate_pct": 40.0, "accepted_tps": 15.60,
                          "drafted_tps": 38.99, "accepted_tokens": 78, "drafted_tokens": 195,
                          "per_position_acceptance_rate": [0.615, 0.415, 0.169], "lines": 1}}
    # each line's values, as engine_metrics keeps them: the first lines of a long log are not lost to the last
    assert r["extra"]["spec_decoding"]["series"] == [{k: v for k, v in r["extra"]["spec_decoding"].items()
                                                      if k not in ("lines", "series")}]
    assert r["prompt_tps"] is None and r["eval_tps"] is None


def test_sglang_scheduler_batches():
    r = only("sglang__2025-09-runtime-prefill-decode-batch-gen-throughput.log", "sglang")
    assert [b["gen_throughput_token_s"] for b in r["extra"]["decode"]["series"]] == [1.06, 84.20, 3.17, 81.97]
    assert r["extra"]["prefill"]["series"][1] == {"new_seq": 1, "new_token": 18, "cached_token": 184,
                                                  "token_usage": 0.0, "running_req": 0, "queue_req": 0}
    assert without_series(r["extra"]) == {"prefill": {"batches": 3, "new_seqs": 3, "new_tokens": 103 + 18 + 15,
                                      "cached_tokens": 1 + 184 + 275},
                          "decode": {"batches": 4, "last_gen_tps": 81.97, "max_gen_tps": 84.20}}


def test_sglang_kv_cache_and_cuda_graph_capture():
    r = only("sglang__2025-11-capture-cuda-graph-end-time-elapsed.log", "sglang")
    assert r["extra"] == {"kv_cache_tokens": 2243474, "kv_k_gb": 59.91, "kv_v_gb": 59.91, "cuda_graph_ms": 5370.0,
                          "cuda_graph_mem_gb": 1.44, "avail_mem_after_kv_pool_gb": 40.03,
                          "avail_mem_after_cuda_graph_gb": 38.05}


def test_sglang_weights_loading():
    r = only("sglang__2025-11-startup-load-weight-kv-cache-allocated-cuda-graph-begin.log", "sglang")
    assert r["extra"] == {"weights_progress_elapsed_ms": 1000, "avail_mem_after_weights_gb": 28.91,
                          "weights_mem_gb": 15.09, "kv_cache_tokens": 183133, "kv_k_gb": 11.18, "kv_v_gb": 11.18,
                          "avail_mem_before_weights_gb": 44.00, "avail_mem_after_kv_pool_gb": 5.51}
    assert r["load_ms"] is None


def test_tgi_shard_ready_in():
    r = only("tgi__2025-04-docker-startup-download-shard-ready-in.log", "tgi")
    assert r["load_ms"] == 18016.616627
    assert r["extra"] == {"shards_ready": 1, "shard_ready_ms": [18016.616627]}


def test_tensorrt_llm_paged_kv_cache_gib():
    r = only("tensorrt-llm__2025-04-triton-paged-kv-cache-allocated-GiB.log", "tensorrt-llm")
    assert r["extra"] == {"kv_blocks_per_seq_max": 65, "tokens_per_block": 32, "kv_primary_blocks": 116617,
                          "kv_secondary_blocks": 0, "kv_cache_gib": 78.30, "kv_cache_max_tokens": 3731744}
    assert r["warnings"] == []  # "Attention workspace size is not enough" is not about memory


def test_tensorrt_llm_v08_kv_cache_bytes():
    r = only("tensorrt-llm__v0.8-kv-cache-bytes-tokens-in-paged-kv-cache.log", "tensorrt-llm")
    assert r["extra"] == {"kv_cache_bytes": 69524783104, "kv_cache_tokens": 132608}


def test_mlx_lm_generate_stats():
    r = only("mlx_lm__generate-minicpm3-separators-and-stats.log", "mlx_lm")
    assert (r["prompt_tokens"], r["prompt_tps"], r["eval_tokens"], r["eval_tps"], r["peak_memory_gb"]) == \
        (14, 53.932, 100, 13.975, 2.913)
    assert r["prompt_eval_ms"] is None and r["eval_ms"] is None


def test_mlx_lm_benchmark_trials_then_averages():
    runs = parse("mlx_lm__benchmark-trials-averages.log")
    assert {r["framework"] for r in runs} == {"mlx_lm"}
    assert {(r["prompt_tokens"], r["eval_tokens"]) for r in runs} == {(2048, 128)}
    assert [(r["prompt_tps"], r["eval_tps"], r["peak_memory_gb"], r["extra"]) for r in runs] == [
        (2902.212, 205.325, 3.285, {"trial": 1}), (2901.392, 205.243, 3.285, {"trial": 2}),
        (2902.077, 205.256, 3.285, {"trial": 3}), (2902.258, 204.587, 3.286, {"trial": 4}),
        (2902.890, 205.085, 3.286, {"trial": 5}), (2902.166, 205.099, 3.285, {"summary": "averages"})]


def test_transformers_accelerate_offload_warnings():
    r = only("transformers__accelerate-offloaded-to-cpu-meta-device-warning.log", "transformers")
    assert r["warnings"] == [
        {"kind": "offload_cpu", "line": "WARNING:root:Some parameters are on the meta device device because they "
                                        "were offloaded to the cpu."},
        {"kind": "offload_cpu", "line": "WARNING:root:Some parameters are on the meta device device because they "
                                        "were offloaded to the cpu and disk."}]
    assert all(r[k] is None for k in TIMINGS)


def test_transformers_h200_script_loading_bar_and_no_false_cpu_fallback():
    cold = parse_lines(events_lines("cold-p512.events.jsonl", ("err",)))
    warm = parse_lines(events_lines("warm-p512.events.jsonl", ("err",)))
    assert [r["framework"] for r in cold + warm] == ["transformers", "transformers"]
    # the finished "Loading weights" bars end "[00:05<00:00, 20.71it/s]" and "[00:01<00:00, 79.20it/s]"
    assert cold[0]["extra"] == {"weights_progress_elapsed_ms": 5000}
    assert warm[0]["extra"] == {"weights_progress_elapsed_ms": 1000}
    # "`causal_conv1d_fn` is falling back to its reference PyTorch implementation" is not a CPU fallback, and the
    # script's own "[workload] …" timings are not the framework's
    assert cold[0]["warnings"] == [] and warm[0]["warnings"] == []
    assert all(cold[0][k] is None for k in TIMINGS)


def test_vllm_early_v1_compile_times_and_gpu_blocks_without_cpu_blocks():
    r = only("vllm__v1-2025-01-early-v1-weights-GB-torch-compile-takes-gpu-blocks-only.log", "vllm")
    assert r["extra"] == {"model_weights_gb": 67.7229, "dynamo_transform_ms": 12880.0, "graph_compile_ms": 41860.0,
                          "torch_compile_ms": 54730.0, "gpu_blocks": 1381, "max_concurrency": 10.79}


def test_vllm_v0_separate_prefix_cache_line_joins_the_last_metrics():
    r = only("vllm__v0-2025-07-xinference-python-logging-dash-metrics-prefix-cache-gpu-cpu.log", "vllm")
    assert r["extra"]["engine_metrics"]["last"] == {
        "prompt_tps": 2.8, "generation_tps": 0.1, "running_reqs": 1, "swapped_reqs": 0, "pending_reqs": 0,
        "gpu_kv_cache_usage_pct": 0.2, "cpu_kv_cache_usage_pct": 0.0, "gpu_prefix_cache_hit_rate_pct": 52.22,
        "cpu_prefix_cache_hit_rate_pct": 0.0}


def test_sglang_2026_comma_separated_prefill_with_input_throughput():
    r = only("sglang__2026-08-tp0-ep0-chunked-prefill-pending-token-input-throughput.log", "sglang")
    assert [b["pending_token"] for b in r["extra"]["prefill"]["series"]] == [46401, 38209, 30017, 21825, 13638]
    assert without_series(r["extra"]) == {"prefill": {"batches": 5, "new_seqs": 5, "new_tokens": 5 * 8192, "cached_tokens": 0,
                                      "last_input_tps": 7116.45, "max_input_tps": 8072.80}}


def test_sglang_decode_lines_with_http_lines_between():
    r = only("sglang__2026-06-omni-python-logging-decode-prefill-http-interleaved.log", "sglang")
    assert without_series(r["extra"]) == {"decode": {"batches": 3, "last_gen_tps": 82.34, "max_gen_tps": 126.29},
                          "prefill": {"batches": 2, "new_seqs": 2, "new_tokens": 2, "cached_tokens": 14}}


def test_tgi_success_line_is_one_request():
    r = only("tgi__2024-02-docker-startup-warming-up-connected-generate-success.log", "tgi")
    assert r["total_ms"] == 611.286748
    assert r["extra"] == {"validation_ms": 0.7545, "queue_ms": 0.127337, "inference_ms": 610.405028,
                          "time_per_token_ms": 43.600359}


def test_tensorrt_llm_benchmark_line():
    r = only("tensorrt-llm__2024-04-benchmark-py-BENCHMARK-line-latency-tokens-per-sec.log", "tensorrt-llm")
    assert (r["total_ms"], r["eval_ms"], r["eval_tokens"], r["eval_tps"]) == (4409.816, 3751.546, 189, 50.379)
    assert r["extra"] == {"batch_size": 1, "input_length": 710, "output_length": 190, "gpu_peak_mem_gb": 0.0,
                          "build_ms": 116390.0, "tokens_per_sec": 43.09, "percentile95_ms": 5120.208,
                          "percentile99_ms": 5120.208}


def test_mlx_lm_cache_memory_line():
    r = only("mlx_lm__2024-11-generate-stats-with-cache-memory-line-after.log", "mlx_lm")
    assert (r["prompt_tokens"], r["prompt_tps"], r["eval_tokens"], r["eval_tps"], r["peak_memory_gb"]) == (
        32188, 424.646, 892, 32.211, 11.496)
    assert r["extra"] == {"cache_memory_gb": 4.034}


def test_serving_benchmark_report_is_vllms_unless_it_names_the_sglang_backend():
    v = only("vllm__2025-02-benchmark-serving-result-ttft-tpot-itl.log", "vllm")
    assert v["extra"]["serving_benchmark"]["mean_ttft_ms"] == 249.49
    assert v["extra"]["serving_benchmark"]["successful_requests"] == 772
    assert len(v["extra"]["serving_benchmark"]) == 16
    s = only("sglang__2025-08-bench-serving-sglang-oai-e2e-ttft-itl-padded-values.log", "sglang")
    bench = s["extra"]["serving_benchmark"]
    assert (bench["backend"], bench["traffic_request_rate"], bench["p95_itl_ms"]) == ("sglang-oai", "inf", 8.66)
    assert all(s[k] is None for k in TIMINGS)  # aggregates over the whole test, not one run


def test_sglang_bench_one_batch_warmup_and_benchmark_are_two_runs():
    warm, bench = parse("sglang__2026-bench-one-batch-mlx-warmup-then-benchmark.log")
    assert (warm["prompt_eval_ms"], warm["prompt_tps"], warm["total_ms"]) == (22.65, 2648.96, 76.0)
    assert bench["extra"] == {"decode_median_latency_ms": 5.72, "decode_median_tps": 174.85, "total_tps": 1122.76}


def test_vllm_mfu_field_of_the_engine_metrics_line():
    # vllm-project/vllm pull request (2025-12, held-out round 66): --enable-mfu-metrics adds "MFU: … TF/s/GPU … GB/s/GPU"
    line = ("(APIServer pid=2548211) INFO 12-15 18:32:22 [loggers.py:259] Engine 000: Avg prompt throughput: 29400.6 "
            "tokens/s, Avg generation throughput: 8.7 tokens/s, Running: 50 reqs, Waiting: 206 reqs, GPU KV cache "
            "usage: 9.1%, Prefix cache hit rate: 0.0%, MFU: 405.0 TF/s/GPU 269.3 GB/s/GPU")
    (rep,) = parse_lines([line])
    last = rep["extra"]["engine_metrics"]["last"]
    assert (last["mfu_tflops_per_gpu"], last["mfu_gbps_per_gpu"], last["waiting_reqs"]) == (405.0, 269.3, 206)


def test_koboldcpps_prompt_progress_keeps_how_far_it_got_when_the_error_is_glued_to_it():
    # LostRuins/koboldcpp issue #1711 (2025-08, held-out round 84): the CUDA error follows the progress line on
    # the same line; the prompt stopped at 512 of its 12710 tokens
    from wrapper.derive.frameworks import parse_lines

    (rep,) = parse_lines(["Processing Prompt [BLAS] (512 / 12710 tokens)CUDA error: out of memory"])
    assert rep["framework"] == "koboldcpp"
    assert rep["prompt_tokens"] == 12710 and rep["extra"]["prompt_tokens_processed"] == 512


def test_a_bar_glued_before_the_engine_metrics_line_keeps_its_figures():
    # held-out round 101-b (vllm-project/vllm, 2024-06): a paste that lost the offline bar's carriage return
    bar = ("Processed prompts:   0%|    | 47/10000 [00:35<42:17,  3.92it/s, est. speed input: 473.45 toks/s, "
           "output: 8904.44 toks/s]")
    metrics = ("INFO 06-16 21:24:20 metrics.py:341] Avg prompt throughput: 3737.0 tokens/s, Avg generation throughput: "
               "8906.6 tokens/s, Running: 37 reqs, Swapped: 137 reqs, Pending: 9779 reqs, GPU KV cache usage: 76.6%, "
               "CPU KV cache usage: 77.9%.")
    (rep,) = parse_lines([metrics + "\n", bar + metrics + "\n"])  # the family met first, then the glued line
    assert rep["framework"] == "vllm" and rep["extra"]["engine_metrics"]["lines"] == 2
    assert {(f["label"], f["value"]) for f in rep["figures"]} >= {
        ("Processed prompts done", 47), ("Processed prompts elapsed so far", 35.0), ("Processed prompts", 3.92),
        ("speed input", 473.45), ("output", 8904.44)}


def test_another_programs_memory_breakdown_is_no_llama_cpp_evidence():
    # held-out round 101-b: vllm-metal on an M1 Pro (2026-05) was named llama.cpp for this line
    (rep,) = parse_lines([
        "INFO [cache_policy.py:568] Paged attention memory breakdown: metal_limit=12.71GB, fraction=0.90, "
        "usable_metal=11.44GB, model_memory=4.29GB, overhead=1.42GB, kv_budget=5.73GB\n"])
    assert rep["framework"] == "unknown"
    assert ("usable metal", 11.44) in {(f["label"], f["value"]) for f in rep["figures"]}


def test_tgi_launchers_weight_download():
    # TGI 2.0 downloading Mixtral's shards (huggingface/text-generation-inference issue, 2024-04; held-out round 141)
    from wrapper.derive.frameworks import parse_lines
    (rep,) = parse_lines([
        "2024-04-30T21:50:05.764569Z  INFO text_generation_launcher: Downloaded /data/m/model-00008-of-00019.safetensors in 0:00:03.",
        "2024-04-30T21:50:05.764759Z  INFO text_generation_launcher: Download: [8/19] -- ETA: 0:00:37.125000",
        "2024-04-30T21:50:09.301908Z  INFO text_generation_launcher: Downloaded /data/m/model-00009-of-00019.safetensors in 0:00:03.5."])
    assert rep["framework"] == "tgi"
    assert {k: rep["extra"][k] for k in ("download_file_ms", "download_ms", "download_files_done", "download_files_total")} \
        == {"download_file_ms": [3000.0, 3500.0], "download_ms": 6500.0, "download_files_done": 8, "download_files_total": 19}


def test_llama_cpp_loaders_tensor_types():
    # the loader's quantization mix (ollama issue, 2025-07; held-out round 141)
    from wrapper.derive.frameworks import parse_lines
    (rep,) = parse_lines(["llama_model_loader: - type  f32:  241 tensors", "llama_model_loader: - type q3_K:  217 tensors",
                          "print_info: file size   = 13.58 GiB (3.82 BPW) "])
    assert rep["extra"]["model_info"]["tensor_types"] == {"f32": 241, "q3_K": 217}
