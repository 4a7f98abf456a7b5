"""llama.cpp CLI logs -> reported figures; exact values as printed in tests/fixtures/logs."""
import json

from wrapper.derive.frameworks import parse_lines
from .conftest import events_lines, log_fixture


def parse(name: str, framework=None) -> list[dict]:
    with open(log_fixture(name), encoding="utf-8") as fh:
        return parse_lines(fh, framework)


def only(name: str) -> dict:
    runs = parse(name)
    assert len(runs) == 1
    return runs[0]


def test_b4662_cli_full_run_llama_perf_generation():
    r = only("llama.cpp__cli-cuda-v100-b4662-timestamped-full-run.log")
    assert r["framework"] == "llama.cpp"
    assert r["version"] == "4662 (7ee953a64)"
    assert (r["load_ms"], r["sampling_ms"], r["total_ms"]) == (574.28, 11.39, 1655.64)
    assert (r["prompt_eval_ms"], r["prompt_tokens"], r["prompt_tps"]) == (9.32, 7, 751.40)
    assert (r["eval_ms"], r["eval_tokens"], r["eval_tps"]) == (1607.76, 255, 158.61)
    assert r["gpu_layers"] == {"offloaded": 33, "total": 33}
    assert r["buffers"] == {
        "CUDA0": {"model_mib": 1454.83, "kv_mib": 640.00, "compute_mib": 162.00},
        "CPU_Mapped": {"model_mib": 69.08, "kv_mib": None, "compute_mib": None},
        "CUDA_Host": {"model_mib": None, "kv_mib": None, "compute_mib": 9.01},
    }
    # print_info's "file size = 1.49 GiB", "model params = 2.78 B", "arch = gptneox", "n_layer = 32", "n_expert = 0"
    # the per-token times and the sampler's rate, as printed: "( 0.04 ms per token, 23084.35 tokens per second)"
    assert r["extra"] == {"kv_self_mib": 640.00, "output_buffers_mib": {"CUDA_Host": 0.19}, "sampling_runs": 263,
                          "sampling_ms_per_token": 0.04, "sampling_tps": 23084.35, "prompt_ms_per_token": 1.33,
                          "eval_ms_per_token": 6.3, "total_tokens": 262, "model_info": {
                              "file_bytes": round(1.49 * 2 ** 30), "params": 2_780_000_000, "arch": "gptneox",
                              "layers": 32, "expert_count": 0, "expert_used": 0,
                              "tensor_types": {"f32": 258, "q4_0": 129, "q6_K": 1}}}  # "- type  f32:  258 tensors"
    assert r["moe_experts_cpu"] is None and r["peak_memory_gb"] is None
    assert r["warnings"] == []


def test_b3285_old_llama_print_timings_with_nan_prompt_rate():
    r = only("llama.cpp__cli-b3285-metal-old-llama_print_timings-nan-prompt.log")
    assert r["framework"] == "llama.cpp"
    assert r["version"] is None  # the build line is in the issue, not in this excerpt
    assert (r["load_ms"], r["sampling_ms"], r["extra"]["sampling_runs"]) == (3222.35, 4.66, 128)
    assert (r["prompt_eval_ms"], r["prompt_tokens"], r["prompt_tps"]) == (0.00, 0, None)
    assert (r["eval_ms"], r["eval_tokens"], r["eval_tps"]) == (119475.59, 128, 1.07)
    assert (r["total_ms"], r["extra"]["total_tokens"]) == (119510.07, 128)


def test_common_perf_print_2026_from_h200_capture():
    runs = parse_lines(events_lines("warm-ngl99.events.jsonl"))
    assert len(runs) == 1
    r = runs[0]
    assert r["framework"] == "llama.cpp"
    assert (r["load_ms"], r["sampling_ms"], r["total_ms"]) == (443.24, 2.49, 517.79)
    assert (r["prompt_eval_ms"], r["prompt_tokens"], r["prompt_tps"]) == (183.92, 1761, 9574.97)
    assert (r["eval_ms"], r["eval_tokens"], r["eval_tps"]) == (328.31, 127, 386.83)
    assert r["extra"] == {"samplers_ms": 1.11, "samplers_tokens": 1889, "total_tokens": 1888, "unaccounted_ms": 3.07,
                          "unaccounted_pct": 0.6, "graphs_reused": 125, "prompt_ms_per_token": 0.1,
                          "eval_ms_per_token": 2.59}
    assert r["warnings"] == [{"kind": "cpu_fallback", "line": "0.00.697.710 W resolve_fused_ops: layer 0 is assigned "
                              "to device CUDA0 but Flash Attention is assigned to device CPU (usually due to missing "
                              "support)"}]


def test_user_trimmed_perf_lines_give_two_runs():
    runs = parse("llama.cpp__cli-perf-lines-user-trimmed-two-runs.log")
    assert [(r["prompt_eval_ms"], r["prompt_tokens"], r["prompt_tps"], r["eval_ms"], r["eval_tokens"], r["eval_tps"])
            for r in runs] == [(81388.87, 32163, 395.18, 24015.13, 802, 33.40),
                               (109641.06, 32163, 293.35, 83881.20, 795, 9.48)]
    assert all(r["load_ms"] is None and r["total_ms"] is None for r in runs)


def test_2024_llm_load_tensors_kindless_buffer_lines_are_model_buffers():
    r = only("llama.cpp__2024-10-llm_load_tensors-CUDA0-buffer-size-kv-self-size.log")
    assert r["gpu_layers"] == {"offloaded": 33, "total": 33}
    assert r["buffers"] == {"CPU": {"model_mib": 281.81, "kv_mib": None, "compute_mib": None},
                            "CUDA0": {"model_mib": 4155.99, "kv_mib": 1024.00, "compute_mib": None}}
    assert r["extra"] == {"kv_self_mib": 1024.00}
    assert r["load_ms"] is None and r["warnings"] == []


def test_2023_nothing_offloaded_vram_used_zero():
    r = only("llama.cpp__llava-2023-offloaded-0of35-layers-VRAM-used-0.log")
    assert r["gpu_layers"] == {"offloaded": 0, "total": 35}
    assert r["buffers"] is None
    assert r["extra"] == {"mem_required_mib": 4560.96, "vram_used_mib": 0.00, "kv_self_mib": 1024.00,
                          "compute_total_mib": 162.13}
    assert r["warnings"] == [{"kind": "offload_cpu", "line": "llm_load_tensors: offloaded 0/35 layers to GPU"}]


def test_2026_load_tensors_all_layers_on_gpu():
    r = only("llama.cpp__lfm2.5-audio-cuda-offload-17of17-layers.log")
    assert r["gpu_layers"] == {"offloaded": 17, "total": 17}
    assert r["buffers"] == {"CPU": {"model_mib": 105.00, "kv_mib": None, "compute_mib": None},
                            "CUDA0": {"model_mib": 661.25, "kv_mib": 48.00, "compute_mib": None}}
    assert r["extra"] == {"output_buffers_mib": {"CUDA_Host": 0.25}}
    assert r["moe_experts_cpu"] is None and r["warnings"] == []


def test_cuda_oom_at_model_load():
    r = only("llama.cpp__cuda-oom-model-load-unable-to-allocate-CUDA0-buffer.log")
    assert r["framework"] == "llama.cpp"
    assert r["warnings"] == [
        {"kind": "oom", "line": "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 144817.04 MiB on device 0: "
                                "cudaMalloc failed: out of memory"},
        {"kind": "oom", "line": "alloc_tensor_range: failed to allocate CUDA0 buffer of size 151851674624"},
        {"kind": "oom", "line": "llama_model_load: error loading model: unable to allocate CUDA0 buffer"},
    ]
    assert all(r[k] is None for k in ("load_ms", "prompt_eval_ms", "eval_ms", "total_ms", "buffers", "gpu_layers"))


def test_moe_experts_on_cpu_seen_through_cpu_mapped_buffers():
    r = only("llama.cpp__moe-deepseek-r1-ot-exps-cpu-62of62-cpu_mapped-buffers.log")
    assert r["gpu_layers"] == {"offloaded": 62, "total": 62}
    # nine CPU_Mapped model buffers add up: 45358.94 + 47124.64 + 47124.64 + 45927.96 + 47124.64 + 46024.76
    # + 47124.64 + 44656.01 + 14105.06
    assert r["buffers"] == {"CUDA0": {"model_mib": 9460.52, "kv_mib": None, "compute_mib": None},
                            "CPU_Mapped": {"model_mib": 384571.29, "kv_mib": None, "compute_mib": None}}
    assert r["moe_experts_cpu"] == {"exps_tensors_cpu": None, "exps_tensors_other": None, "cpu_model_mib": 384571.29,
                                    "n_cpu_moe": None}
    assert r["warnings"] == [{"kind": "offload_cpu",
                              "line": "load_tensors:   CPU_Mapped model buffer size = 45358.94 MiB"}]


def test_ik_llama_expert_overrides_to_other_gpus_are_counted_not_warned():
    r = only("ik_llama.cpp__moe-override-tensor-exps-to-CUDA-devices-62of62.log")
    assert r["framework"] == "llama.cpp"
    assert r["gpu_layers"] == {"offloaded": 62, "total": 62}
    assert r["moe_experts_cpu"] == {"exps_tensors_cpu": 0, "exps_tensors_other": {"CUDA13": 6, "CUDA14": 12},
                                    "cpu_model_mib": None, "n_cpu_moe": None}
    assert r["warnings"] == []


def test_ot_exps_cpu_verbose_capture_counts_the_real_load_not_the_fit_probe():
    r = only("llama.cpp__cpu-tiny-lfm2moe-ot-exps-cpu-verbose-stderr.log")
    assert (r["load_ms"], r["sampling_ms"], r["total_ms"]) == (12.64, 0.12, 41.10)
    assert (r["prompt_eval_ms"], r["prompt_tokens"], r["prompt_tps"]) == (7.03, 18, 2561.18)
    assert (r["eval_ms"], r["eval_tokens"], r["eval_tps"]) == (32.67, 7, 214.26)
    # 12 expert tensors (blk.2-5 x gate/down/up) overridden to CPU; the probe load printed the same 12 before
    assert r["moe_experts_cpu"] == {"exps_tensors_cpu": 12, "exps_tensors_other": {}, "cpu_model_mib": None,
                                    "n_cpu_moe": None}
    # the real load's buffers only (the probe printed "CPU model buffer size = 0.00 MiB", KV 0.00, compute 6.26)
    assert r["buffers"] == {"CPU_Mapped": {"model_mib": 5.52, "kv_mib": None, "compute_mib": None},
                            "CPU": {"model_mib": None, "kv_mib": 2.00, "compute_mib": 6.26}}
    assert r["extra"]["kv_self_mib"] == 2.00
    assert r["extra"]["output_buffers_mib"] == {"CPU": 0.00}
    assert r["warnings"] == [{"kind": "offload_cpu", "line": "0.00.006.767 D tensor blk.2.ffn_gate_exps.weight "
                              "(0 MiB f32) buffer type overridden to CPU"}]


def test_every_report_is_json_ready_with_all_keys():
    r = only("llama.cpp__cli-cuda-v100-b4662-timestamped-full-run.log")
    assert json.loads(json.dumps(r)) == r
    assert list(r) == ["framework", "version", "load_ms", "prompt_eval_ms", "prompt_tokens", "eval_ms", "eval_tokens",
                       "total_ms", "sampling_ms", "prompt_tps", "eval_tps", "gpu_layers", "buffers", "moe_experts_cpu",
                       "peak_memory_gb", "extra", "warnings", "unparsed", "ttft_ms", "figures", "sources"]


def test_llama_cli_stats_line_is_its_own_prompt_and_generation_rates():
    # real llama-cli 0.3.36 stdout (tests/fixtures/llama-cpp-0.3.36/README.md)
    from .conftest import fixture

    with open(fixture("llama-cpp-0.3.36", "cli-simple-io.stdout"), encoding="utf-8") as fh:
        [run] = parse_lines(fh, "llama.cpp")
    assert (run["prompt_tps"], run["eval_tps"]) == (14257.9, 21.8)
    two = parse_lines(["[ Prompt: 323.5 t/s | Generation: 17.8 t/s ]", "[ Prompt: 300,0 t/s | Generation: 9.5 t/s ]"],
                      "llama.cpp")
    assert [(r["prompt_tps"], r["eval_tps"]) for r in two] == [(323.5, 17.8), (300.0, 9.5)]
