"""The public API of wrapper.derive.frameworks: detection, the incremental parser, explicit frameworks, unknown logs."""
import json

import pytest

from wrapper.derive.frameworks import DETECTION_WINDOW_LINES, FRAMEWORKS, REPORT_KEYS, ReportedParser, new_parser, parse_lines
from .conftest import ALL_LOG_NAMES, events_lines, log_fixture

ALL_LOGS = ALL_LOG_NAMES
TIMINGS = ("load_ms", "prompt_eval_ms", "prompt_tokens", "eval_ms", "eval_tokens", "total_ms", "sampling_ms",
           "prompt_tps", "eval_tps", "peak_memory_gb", "gpu_layers", "buffers", "moe_experts_cpu")
# the family each capture comes from, as named in its file name or in INDEX.md
EXPECTED = {"ik_llama.cpp": "llama.cpp", "llama-cpp-python": "llama.cpp", "warm-ngl99.events.jsonl": "llama.cpp",
            "server.events.jsonl": "llama-server", "server-stream.txt": "llama-server",
            "server-openai-stream.txt": "llama-server", "cold-p512.events.jsonl": "transformers",
            "warm-p512.events.jsonl": "transformers"}


def log_lines(name: str) -> list[str]:
    """A fixture's lines; for ``*.events.jsonl`` the stderr then stdout chunks joined per stream."""
    if name.endswith(".events.jsonl"):
        return events_lines(name)
    return log_fixture(name).read_text(encoding="utf-8").splitlines(keepends=True)


def expected_framework(name: str) -> str:
    family = name.split("__")[0]
    return EXPECTED.get(family, EXPECTED.get(name, family))


@pytest.mark.parametrize("name", ALL_LOGS)
def test_every_capture_is_attributed_to_its_family(name):
    runs = parse_lines(log_lines(name))
    assert runs, "never empty"
    assert {r["framework"] for r in runs} == {expected_framework(name)}


@pytest.mark.parametrize("name", ALL_LOGS)
def test_reports_are_json_ready_and_complete(name):
    for r in parse_lines(log_lines(name)):
        assert tuple(r) == REPORT_KEYS
        assert json.loads(json.dumps(r, allow_nan=False)) == r
        assert {w["kind"] for w in r["warnings"]} <= {"oom", "cpu_fallback", "offload_cpu"}


@pytest.mark.parametrize("name", ALL_LOGS)
def test_streaming_line_by_line_gives_the_batch_result(name):
    lines = log_lines(name)
    parser = new_parser()
    halfway = None
    for i, line in enumerate(lines):
        parser.feed_line(line)
        if i == len(lines) // 2:
            halfway = parser.results()  # asking early must not disturb what follows
    assert halfway == parse_lines(lines[:len(lines) // 2 + 1])
    assert parser.results() == parse_lines(lines)
    assert parser.results() == parser.results()


def test_stream_parser_satisfies_the_protocol():
    assert isinstance(new_parser("llama.cpp"), ReportedParser)
    parser = new_parser()
    parser.feed_line("llama_perf_context_print:        load time =     574.28 ms\n")
    assert parser.results()[0]["load_ms"] == 574.28


def test_text_that_is_no_log_is_unknown_with_no_figures():
    generated = log_lines("cold-p512.events.jsonl")[-1:]  # the generated words on stdout
    runs = parse_lines(generated)
    assert len(runs) == 1
    r = runs[0]
    assert r["framework"] == "unknown"
    assert all(r[k] is None for k in TIMINGS + ("version",))
    assert r["extra"] == {} and r["warnings"] == []


def test_empty_input_is_one_unknown_report():
    assert parse_lines([]) == parse_lines([], "unknown")
    assert parse_lines([])[0]["framework"] == "unknown"


def test_unknown_log_keeps_its_warnings():
    r = parse_lines(["RuntimeError: CUDA error: out of memory\n"])[0]
    assert r["framework"] == "unknown"
    assert r["warnings"] == [{"kind": "oom", "line": "RuntimeError: CUDA error: out of memory"}]


def test_named_framework_reads_only_that_family():
    lines = log_lines("server.events.jsonl")
    as_cli = parse_lines(lines, "llama.cpp")
    # llama.cpp's CLI parser does not read the server's slot lines
    assert len(as_cli) == 1 and as_cli[0]["framework"] == "llama.cpp" and as_cli[0]["prompt_eval_ms"] is None
    assert parse_lines(lines, "llama-server") == parse_lines(lines)


def test_framework_aliases():
    lines = log_lines("llama.cpp__cli-perf-lines-user-trimmed-two-runs.log")
    assert parse_lines(lines, "llama-cli") == parse_lines(lines, "llama.cpp") == parse_lines(lines)


def test_unknown_framework_name_says_which_are_known():
    with pytest.raises(ValueError) as err:
        parse_lines([], "llamacpp-server-xl")
    message = str(err.value)
    assert "'llamacpp-server-xl'" in message and all(name in message for name in FRAMEWORKS)


def test_wrapper_before_what_it_embeds_ollama_over_llama_cpp():
    lines = log_lines("ollama__server-2023-journald-runner-started-llama_print_timings.log")
    assert parse_lines(lines)[0]["framework"] == "ollama"
    as_llama = parse_lines(lines, "llama.cpp")[0]
    assert as_llama["load_ms"] == 8317.76  # read by llama.cpp's rules, its own load time is load_ms


def test_carriage_return_redraws_are_separate_lines():
    bar = ("Loading weights:   0%|          | 0/120 [00:00<?, ?it/s]\rLoading weights: 100%|##########| 120/120 "
           "[01:02:03<00:00, 20.71it/s]\n")
    r = parse_lines([bar], "transformers")[0]
    assert r["extra"] == {"weights_progress_elapsed_ms": 3723000}


def test_a_wrapper_marker_counts_only_within_the_detection_window():
    perf = log_lines("llama.cpp__cli-perf-lines-user-trimmed-two-runs.log")[1]  # a llama_perf_context_print line
    marker = log_lines("ollama__2024-cuda-oom-compute-buffers-failed-to-create-context.log")[-1]  # mentions .ollama
    early = [perf] * 10 + [marker]
    late = [perf] * (DETECTION_WINDOW_LINES + 10) + [marker]
    assert parse_lines(early)[0]["framework"] == "ollama"
    assert parse_lines(late)[0]["framework"] == "llama.cpp"
    assert parse_lines(late, "ollama")[0]["framework"] == "ollama"


def test_a_whole_text_is_split_into_lines():
    path = log_fixture("mlx_lm__generate-minicpm3-separators-and-stats.log")
    assert parse_lines(path.read_text(encoding="utf-8")) == parse_lines(log_lines(path.name))
