"""ollama: `run --verbose` statistics and server logs -> reported figures; exact values as printed."""

from wrapper.derive.frameworks import parse_lines
from .conftest import log_fixture



def only(name: str) -> dict:
    with open(log_fixture(name), encoding="utf-8") as fh:
        runs = parse_lines(fh)
    assert len(runs) == 1
    assert runs[0]["framework"] == "ollama"
    return runs[0]


def verbose(r: dict) -> tuple:
    return (r["total_ms"], r["load_ms"], r["prompt_tokens"], r["prompt_eval_ms"], r["prompt_tps"], r["eval_tokens"],
            r["eval_ms"], r["eval_tps"])


def test_verbose_nanosecond_durations():
    r = only("ollama__run-verbose-32k-prompt-2025-10-after.log")
    assert verbose(r) == (30024.798033, 4758.588663, 32768, 7779.621548, 4212.03, 1769, 17148.014223, 103.16)


def test_verbose_interactive_session():
    r = only("ollama__run-verbose-interactive-mistral-2024-01.log")
    assert verbose(r) == (5088.275983, 1.365523, 11, 204.563, 53.77, 120, 4876.787, 24.61)
    assert r["warnings"] == []


def test_verbose_microseconds_and_gpu_loaded_layers():
    r = only("ollama__run-verbose-set-verbose-metal-gpu-loaded-layers-devbranch.log")
    assert verbose(r) == (835.322625, 0.452875, 42, 593.785, 70.73, 10, 240.374, 41.60)  # load 452.875µs
    assert r["gpu_layers"] == {"offloaded": 1, "total": 27}
    assert r["extra"] == {"llm_library": "metal"}


def test_verbose_whole_milliseconds_and_seconds():
    r = only("ollama__run-verbose-stats-mistral-small.log")
    assert verbose(r) == (3046.232704, 11.114031, 1119, 2185.0, 512.13, 9, 847.0, 10.63)


def test_2023_server_runner_started_and_embedded_llama_print_timings():
    r = only("ollama__server-2023-journald-runner-started-llama_print_timings.log")
    assert r["load_ms"] == 9200.88  # "llama runner started in 9.200880 seconds"
    assert r["sampling_ms"] == 107.35
    assert r["extra"] == {"llama_cpp_load_ms": 8317.76, "sampling_runs": 396,
                          "sampling_ms_per_token": 0.27, "sampling_tps": 3688.73}


def test_2024_runner_oom_creating_the_context():
    r = only("ollama__2024-cuda-oom-compute-buffers-failed-to-create-context.log")
    assert r["buffers"] == {"CUDA_Host": {"model_mib": None, "kv_mib": 8192.00, "compute_mib": None}}
    assert r["extra"] == {"kv_self_mib": 8192.00, "output_buffers_mib": {"CUDA_Host": 0.50}}
    assert r["warnings"] == [
        {"kind": "offload_cpu", "line": "llama_kv_cache_init:  CUDA_Host KV buffer size =  8192.00 MiB"},
        {"kind": "oom", "line": "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4507.00 MiB on device 0: "
                                "cudaMalloc failed: out of memory"},
        {"kind": "oom", "line": "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4725934080"},
        {"kind": "oom", "line": "llama_new_context_with_model: failed to allocate compute buffers"},
    ]


def test_offload_to_cpu_with_no_layers_offloaded():
    path = log_fixture("ollama__ipex-llm-server-2024-12-offload-to-cpu-layers-offload-0.log")
    r = only(path.name)
    assert r["gpu_layers"] == {"offloaded": 0, "total": 29}
    assert r["extra"] == {"offload_to": "cpu", "layers_requested": -1, "memory_estimate_mib": {
        "available": [24064.0], "required.full": 2355.2, "required.partial": 0.0, "required.kv": 224.0,
        "required.allocations": [2355.2], "weights.total": 1843.2, "weights.repeating": 1536.0,
        "weights.nonrepeating": 308.2, "graph.full": 124.0, "graph.partial": 570.7}}
    offload_line = next(line for line in path.read_text(encoding="utf-8").splitlines() if "offload to cpu" in line)
    assert r["warnings"] == [{"kind": "offload_cpu", "line": offload_line}]


def test_offload_to_cuda_all_layers():
    r = only("ollama__server-2024-12-offload-to-cuda-starting-llama-server.log")
    assert r["gpu_layers"] == {"offloaded": 29, "total": 29}
    assert r["extra"]["offload_to"] == "cuda"
    assert r["extra"]["memory_estimate_mib"]["available"] == [80486.4]  # "[78.6 GiB]"
    assert r["extra"]["memory_estimate_mib"]["required.kv"] == 896.0
    assert r["warnings"] == []


def test_new_engine_offloaded_layers_and_model_weight_buffers():
    r = only("ollama__server-2025-07-ollama-engine-ggml-offloaded-41of41-model-weights.log")
    assert r["gpu_layers"] == {"offloaded": 41, "total": 41}
    assert r["buffers"] == {"CUDA1": {"model_mib": 12185.6, "kv_mib": None, "compute_mib": None},
                            "CPU": {"model_mib": 680.0, "kv_mib": None, "compute_mib": None},
                            "CUDA0": {"model_mib": 11776.0, "kv_mib": None, "compute_mib": 0.0}}


def test_new_engine_kv_cache_runner_started_and_request():
    r = only("ollama__server-2025-08-new-engine-kv-cache-total-memory-runner-started.log")
    assert r["load_ms"] == 9160.0  # "llama runner started in 9.16 seconds"
    assert r["total_ms"] == 40583.7591  # [GIN] latency of POST /api/generate
    assert r["buffers"] == {"CUDA0": {"model_mib": None, "kv_mib": 936.0, "compute_mib": 98.0},
                            "CPU": {"model_mib": None, "kv_mib": None, "compute_mib": 8.0}}
    assert r["extra"] == {"total_memory_mib": 5529.6, "http_status": 200, "path": "/api/generate"}


def test_api_final_response_durations_in_nanoseconds():
    # No captured API body is at hand: this is the non-streaming /api/generate example response of ollama's
    # docs/api.md, compacted to one line as the server sends it (one JSON object per line).
    body = ('{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z","response":"The sky is blue because it '
            'is the color of the sky.","done":true,"context":[1,2,3],"total_duration":5043500667,'
            '"load_duration":5025959,"prompt_eval_count":26,"prompt_eval_duration":325953000,"eval_count":290,'
            '"eval_duration":4709213000}\n')
    runs = parse_lines([body], "ollama")
    assert len(runs) == 1
    assert verbose(runs[0]) == (5043.500667, 5.025959, 26, 325.953, None, 290, 4709.213, None)
    # streamed chunks before the last one carry no statistics
    assert parse_lines(['{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00","response":"The",'
                        '"done":false}\n'], "ollama")[0]["total_ms"] is None


def test_2025_unquoted_msg_offload_and_the_same_line_wrapped_by_hand_agree():
    one = only("ollama__server-2025-02-msg-offload-unquoted-layers-offload-44of81-four-gpus.log")
    wrapped = only("ollama__server-2025-02-msg-offload-wrapped-continuation-lines-by-user.log")
    for r in (one, wrapped):
        assert r["gpu_layers"] == {"offloaded": 44, "total": 81}
        assert r["extra"]["offload_to"] == "cuda"
        assert r["extra"]["layers_split"] == [11, 11, 11, 11]
        assert r["extra"]["memory_estimate_mib"]["required.kv"] == 19.5 * 1024
        assert r["extra"]["memory_estimate_mib"]["available"] == [22.0 * 1024] * 4
        assert [w["kind"] for w in r["warnings"]] == ["offload_cpu"]
    assert one["extra"] == wrapped["extra"]


def test_the_last_model_load_progress_says_where_a_load_stopped():
    # tests/fixtures/logs/ollama__2025-05-runner-start-timeout-…: debug lines while the weights load, a quarter
    # second apart; held-out round 84's journal stopped at 0.02 before a GPU hang
    from wrapper.derive.frameworks import parse_lines

    lines = ['time=2025-05-01T16:40:14.182+02:00 level=DEBUG source=server.go:625 msg="model load progress 0.18"',
             'time=2025-05-01T16:40:14.433+02:00 level=DEBUG source=server.go:625 msg="model load progress 0.20"']
    (rep,) = parse_lines(lines)
    assert rep["framework"] == "ollama" and rep["extra"]["load_progress"] == 0.20
    assert parse_lines(lines[:1])[0]["extra"]["load_progress"] == 0.18


def test_a_pull_names_ollama_and_each_layers_size():
    # ollama/ollama issue #10920 (2025-05): `ollama run` pulled the model, then found too little memory for it
    r = only("ollama__2025-05-run-deepseek-v2.5-arm64-pull-bars-132-gb-then-requires-164.8-gib-available-13.4-gib.log")
    sizes = [(f["label"], f["value"], f["unit"]) for f in r["figures"] if f["label"].endswith(" size")]
    assert sizes[:2] == [("pulling 799587243b19 size", 132, "GB"), ("pulling 8aa4c0321ccd size", 493, "B")]
    assert [w["kind"] for w in r["warnings"]] == ["oom"]
