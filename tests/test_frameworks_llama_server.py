"""llama-server logs and response bodies -> one dict per request; exact values as printed."""
import json

from wrapper.derive.frameworks import from_server_timings, parse_lines
from .conftest import events_lines, log_fixture


def parse(name: str, framework=None) -> list[dict]:
    with open(log_fixture(name), encoding="utf-8") as fh:
        return parse_lines(fh, framework)


def figures(r: dict) -> tuple:
    return (r["prompt_eval_ms"], r["prompt_tokens"], r["prompt_tps"], r["eval_ms"], r["eval_tokens"], r["eval_tps"],
            r["total_ms"])


def test_2026_prefixed_timing_lines_two_requests_from_h200_capture():
    runs = parse_lines(events_lines("server.events.jsonl"))
    assert [r["framework"] for r in runs] == ["llama-server", "llama-server"]
    assert [figures(r) for r in runs] == [(129.42, 21, 162.26, 71.89, 46, 625.98, 201.31),
                                          (1.68, 1, 593.82, 47.92, 32, 646.86, 49.61)]
    assert runs[0]["extra"] == {"slot_id": 3, "task_id": 0, "total_tokens": 67, "graphs_reused": 45,
                                "prompt_ms_per_token": 6.16, "eval_ms_per_token": 1.6}
    assert runs[1]["extra"] == {"slot_id": 3, "task_id": 47, "total_tokens": 33, "graphs_reused": 77,
                                "prompt_ms_per_token": 1.68, "eval_ms_per_token": 1.55,
                                "lcp_similarity": 1.0, "lcp_kept_fraction": 0.318}  # its slot pick
    # the startup warning belongs to the first request, as startup figures do
    assert runs[0]["warnings"] == [{"kind": "cpu_fallback", "line": "0.00.706.792 W resolve_fused_ops: layer 0 is "
                                    "assigned to device CUDA0 but Flash Attention is assigned to device CPU (usually "
                                    "due to missing support)"}]
    assert runs[1]["warnings"] == []


def test_2025_slot_line_then_bare_block():
    runs = parse("llama-server__slot-print_timing-multiline-block.log")
    assert len(runs) == 1
    r = runs[0]
    assert r["framework"] == "llama-server"
    assert figures(r) == (5093.47, 1360, 267.01, 319.58, 10, 31.29, 5413.05)
    assert r["extra"] == {"slot_id": 0, "task_id": 124, "total_tokens": 1370, "prompt_ms_per_token": 3.75,
                          "eval_ms_per_token": 31.96}


def test_pid_and_timestamp_prefixed_block_keeps_the_last_progress_line():
    runs = parse("llama-server__pid-prefixed-timestamped-print_timing.log")
    assert len(runs) == 1
    r = runs[0]
    assert figures(r) == (789.03, 27, 34.22, 16112.50, 192, 11.92, 16901.53)
    assert r["extra"] == {"slot_id": 0, "task_id": 388, "progress": {"n_decoded": 172, "tg_tps": 12.00},
                          "total_tokens": 219, "prompt_ms_per_token": 29.22, "eval_ms_per_token": 83.92}


def test_user_trimmed_bare_block_is_llama_server():
    runs = parse("llama-server__2025-timing-block-user-trimmed.log")
    assert [r["framework"] for r in runs] == ["llama-server"]
    assert figures(runs[0]) == (8734.21, 971, 111.17, 1075.76, 19, 17.66, 9809.97)
    assert runs[0]["extra"] == {"total_tokens": 990, "prompt_ms_per_token": 9.0, "eval_ms_per_token": 56.62}


def test_2024_json_log_uses_the_structured_fields():
    runs = parse("llama-server__2024-json-log-print_timings.log")
    assert len(runs) == 1
    assert figures(runs[0]) == (2684.386, 27, 10.058166001461787, 3559.272, 25, 7.023908259891348, 6243.657999999999)
    # t_token: the time per token the text beside it prints as "(… ms per token, …)"
    assert runs[0]["extra"] == {"slot_id": 0, "task_id": 19, "prompt_ms_per_token": 99.4217037037037,
                                "eval_ms_per_token": 142.37088}


def test_progress_only_log_reports_no_final_figures():
    runs = parse("llama-server__2026-rocm-tg-progress-n_gen-tg_3s.log")
    assert len(runs) == 1
    r = runs[0]
    assert figures(r) == (None,) * 7
    assert r["extra"] == {"slot_id": 0, "task_id": 0, "progress": {"n_gen": 3433, "tg_tps": 36.97, "tg_3s_tps": 32.88}}


def test_startup_only_log_is_detected_with_no_figures():
    runs = parse("llama-server__2026-startup-model-loaded-listening-timestamped.log")
    assert len(runs) == 1
    assert runs[0]["framework"] == "llama-server"
    assert figures(runs[0]) == (None,) * 7 and runs[0]["extra"] == {} and runs[0]["warnings"] == []


def test_completion_stream_body_final_event_timings():
    runs = parse("server-stream.txt")
    assert len(runs) == 1
    r = runs[0]
    assert r["framework"] == "llama-server"
    assert figures(r) == (129.424, 21, 162.25738657436023, 71.887, 46, 625.9824446701073, None)
    assert r["extra"] == {"cache_tokens": 0, "prompt_per_token_ms": 6.163047619047619,
                          "predicted_per_token_ms": 1.597488888888889}


def test_openai_stream_body_last_event_with_usage():
    runs = parse("server-openai-stream.txt")
    assert len(runs) == 1
    assert figures(runs[0]) == (1.684, 1, 593.8242280285036, 47.924, 32, 646.857524413655, None)
    assert runs[0]["extra"] == {"cache_tokens": 20, "prompt_per_token_ms": 1.684,
                                "predicted_per_token_ms": 1.5459354838709678}


def test_from_server_timings_maps_the_object():
    with open(log_fixture("server-openai-stream.txt"), encoding="utf-8") as fh:
        event = next(json.loads(line[len("data: "):]) for line in fh if '"timings"' in line)
    r = from_server_timings(event["timings"])
    assert r["framework"] == "llama-server"
    assert figures(r) == (1.684, 1, 593.8242280285036, 47.924, 32, 646.857524413655, None)
    assert r["extra"]["cache_tokens"] == 20
    assert r["load_ms"] is None and r["warnings"] == []


def test_from_server_timings_drops_non_finite_and_missing_values():
    r = from_server_timings({"prompt_n": 0, "prompt_ms": 0.0, "prompt_per_second": float("nan"), "predicted_n": 3})
    assert (r["prompt_tokens"], r["prompt_eval_ms"], r["prompt_tps"], r["eval_tokens"], r["eval_ms"]) == \
        (0, 0.0, None, 3, None)


def test_a_fork_printing_three_decimals_keeps_its_decimal_point():
    # janhq/cortex.llamacpp PR (held-out round 32): "%.3f" times; printf never groups thousands, so "284.746 ms" is
    # not 284746 ms (a locale's decimal comma still reads as one: "284,75")
    (r,) = parse_lines(["prompt eval time = 284.746 ms / 80 tokens (3.559325 ms per token, 280.952146826 tokens "
                        "per second)", "eval time = 32301.621 ms / 297 runs (108.759666667 ms per token, "
                        "9.19458500241 tokens per second)"])
    assert (r["prompt_eval_ms"], r["prompt_tps"], r["eval_ms"], r["eval_tokens"]) == (284.746, 280.952146826,
                                                                                      32301.621, 297)
    (r,) = parse_lines(["prompt eval time = 284,75 ms / 80 tokens (3,56 ms per token, 280,95 tokens per second)"])
    assert (r["prompt_eval_ms"], r["prompt_tps"]) == (284.75, 280.95)


def test_the_2025_draft_acceptance_rate_line():
    # llama-server with a draft model (ggml-org/llama.cpp issue #12968, ROCm W7900): "draft acceptance rate = …",
    # bare under the block opener, and with the slot prefix
    for line in ["draft acceptance rate = 0.96855 (  154 accepted /   159 generated)",
                 "slot print_timing: id  0 | task 54 | draft acceptance rate = 0.96855 (  154 accepted /   159 generated)"]:
        (r,) = parse_lines(["slot print_timing: id  0 | task 54 | ", line])
        assert r["framework"] == "llama-server"
        assert (r["extra"]["draft_acceptance"], r["extra"]["draft_accepted_tokens"],
                r["extra"]["draft_generated_tokens"]) == (0.96855, 154, 159)


def test_a_forks_srv_lines_are_no_evidence_of_llama_server():
    # llama-box (GPUStack's fork) right-aligns the function's name in 20 characters, llama-server in 12 (held-out
    # rounds 12 and 138): its log is llama.cpp's by its context lines, never llama-server's
    fork = ["0.45.809.189 I llama_init_from_model: KV self size  = 2048.00 MiB, K (f16): 1024.00 MiB, V (f16): 1024.00 MiB",
            "0.45.859.851 I srv                      main: initializing server",
            "0.47.578.892 I srv       log_server_response: rid 317241189892 | GET /v1/models 127.0.0.1:39564 | status 200 | cost 0.00s"]
    assert parse_lines(fork)[-1]["framework"] == "llama.cpp"
    own = ["srv    load_model: loading model '/models/q.gguf'", "slot update_slots: id  0 | task 0 | new prompt, n_ctx_slot = 4096"]
    assert parse_lines(own)[-1]["framework"] == "llama-server"


def test_the_slot_pick_by_prompt_prefix_starts_the_next_request():
    # llama-server router log (ggml-org/llama.cpp, 2026-04; held-out round 138): the pick names how much of the new
    # prompt a slot's cache held; it opens the next request's record, even when the log ends before its timings
    lines = ["slot print_timing: id  0 | task 0 | prompt eval time =     100.00 ms /    10 tokens (   10.00 ms per token,   100.00 tokens per second)",
             "slot get_availabl: id  0 | task -1 | selected slot by LCP similarity, sim_best = 0.625 (> 0.100 thold), f_keep = 0.995",
             "slot launch_slot_: id  0 | task 2 | processing task"]
    first, second = parse_lines(lines)
    assert first["prompt_eval_ms"] == 100.0 and "lcp_similarity" not in first["extra"]
    assert second["extra"] == {"lcp_similarity": 0.625, "lcp_kept_fraction": 0.995} and second["prompt_eval_ms"] is None
    lines.append("slot print_timing: id  0 | task 2 | prompt eval time =      50.00 ms /     4 tokens (   12.50 ms per token,    80.00 tokens per second)")
    second = parse_lines(lines)[1]
    assert second["prompt_eval_ms"] == 50.0 and second["extra"]["task_id"] == 2 and second["extra"]["lcp_similarity"] == 0.625
