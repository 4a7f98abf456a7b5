"""strip_prefix and Go/Rust durations, on lines copied from the real logs in tests/fixtures/logs."""
import calendar

import pytest

from wrapper.derive.frameworks import PrefixTime, strip_prefix, strip_text
from wrapper.derive.frameworks.units import go_duration_ms, seconds_to_ms
from wrapper.derive.frameworks.units import integer, number, size_mib
from .conftest import log_fixture



def line_of(name: str, marker: str) -> str:
    """The first line of a fixture log that contains ``marker``, as printed (newline kept)."""
    with open(log_fixture(name), encoding="utf-8") as fh:
        return next(line for line in fh if marker in line)


def epoch(y, mo, d, h, mi, s):
    return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))


def test_llama_cpp_log_timestamp_is_relative_minutes_seconds_ms_us():
    rest, t = strip_prefix(line_of(
        "llama.cpp__cli-cuda-v100-b4662-timestamped-full-run.log", "build:"))
    assert rest == "build: 4662 (7ee953a64) with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0 for x86_64-linux-gnu"
    assert t == PrefixTime("relative", 0.000197)


def test_llama_cpp_timestamp_past_one_minute():
    rest, t = strip_prefix(line_of(
        "llama-server__2026-rocm-tg-progress-n_gen-tg_3s.log", "3144"))
    assert rest.startswith("slot print_timing: id  0 | task 0 | n_gen =   3144")
    assert t == PrefixTime("relative", 120.091109)


def test_llama_cpp_timestamp_with_empty_message():
    rest, t = strip_prefix(line_of(
        "llama.cpp__cli-cuda-v100-b4662-timestamped-full-run.log", "0.00.849.107"))
    assert (rest, t) == ("", PrefixTime("relative", 0.849107))


def test_pid_then_llama_timestamp():
    rest, t = strip_prefix(line_of(
        "llama-server__pid-prefixed-timestamped-print_timing.log", "1.37.495.377"))
    assert rest == "slot print_timing: id  0 | task 388 | "
    assert t == PrefixTime("relative", 97.495377)


def test_pid_alone_has_no_time():
    rest, t = strip_prefix(line_of(
        "llama-server__pid-prefixed-timestamped-print_timing.log", "prompt eval time"))
    assert rest == "prompt eval time =     789.03 ms /    27 tokens (   29.22 ms per token,    34.22 tokens per second)"
    assert t is None


def test_docker_compose_then_iso_utc():
    rest, t = strip_prefix(line_of(
        "tgi__2025-04-docker-startup-download-shard-ready-in.log", "Shard ready"))
    assert rest == "INFO shard-manager: text_generation_launcher: Shard ready in 18.016616627s rank=0"
    assert t.kind == "epoch"
    assert t.t_s == pytest.approx(epoch(2025, 4, 16, 17, 59, 9) + 0.569182, abs=1e-6)


def test_journald_has_no_year_so_the_go_log_time_is_used():
    rest, t = strip_prefix(line_of(
        "ollama__server-2023-journald-runner-started-llama_print_timings.log", "runner started"))
    assert rest == "llama.go:492: llama runner started in 9.200880 seconds"
    assert t == PrefixTime("naive", epoch(2023, 12, 3, 14, 58, 42))


def test_journald_alone():
    rest, t = strip_prefix(line_of(
        "ollama__server-2023-journald-runner-started-llama_print_timings.log", "load time"))
    assert rest == "llama_print_timings:        load time =    8317.76 ms"
    assert t is None


def test_ollama_slog_time_with_offset():
    rest, t = strip_prefix(line_of(
        "ollama__server-2024-12-offload-to-cuda-starting-llama-server.log", "loaded runners"))
    assert rest == 'level=INFO source=sched.go:449 msg="loaded runners" count=1'
    assert t == PrefixTime("epoch", epoch(2024, 12, 14, 16, 34, 58) + 0.907)


def test_vllm_process_tags_stack():
    rest, t = strip_prefix(line_of(
        "vllm__v1-2025-08-enginecore-tp-workers-model-loading-took-GiB-and-seconds.log", "Model loading took"))
    assert rest == "INFO 08-17 22:48:22 [gpu_model_runner.py:2005] Model loading took 11.0802 GiB and 3.106979 seconds"
    assert t is None


def test_vllm_v0_indented_worker_tag():
    rest, _ = strip_prefix(line_of(
        "vllm__v0-2024-07-loading-model-weights-took-GB-gpu-blocks-cuda-graphs.log", "pid=6923"))
    assert rest == "INFO 07-17 23:41:16 model_runner.py:559] Loading model weights took 6.1138 GB"


def test_vllm_worker_tag_with_rank_field():
    rest, t = strip_prefix(line_of(
        "vllm__v1-2025-07-vllmworker-rank-pid-tp8-model-loading-took.log", "rank=4 pid=842"))
    assert rest == "INFO 07-10 12:50:15 [gpu_model_runner.py:1801] Model loading took 1.1187 GiB and 1.258585 seconds"
    assert t is None


def test_vllm_enginecore_dp_tag():
    rest, _ = strip_prefix(line_of(
        "vllm__v1-2025-10-enginecore_dp0-compilation-backends-dynamo-time-debug.log", "Dynamo"))
    assert rest == "INFO 10-07 16:12:15 [compilation/backends.py:559] Dynamo bytecode transform time: 5.80 s"


def test_docker_rfc3339_nanoseconds_then_process_tag():
    rest, t = strip_prefix(line_of(
        "vllm__v1-2026-05-docker-rfc3339-nanosecond-timestamps-apiserver-metrics.log", "07:54:49"))
    assert rest.startswith("INFO 05-12 07:54:49 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 tokens/s")
    assert t.kind == "epoch"
    assert t.t_s == pytest.approx(epoch(2026, 5, 12, 7, 54, 49) + 0.313004621, abs=1e-6)


def test_docker_desktop_time_and_bar():
    rest, t = strip_prefix(line_of(
        "vllm__v1-2025-05-docker-desktop-time-pipe-prefix-loggers-116.log", "loggers.py:116"))
    assert rest.startswith("INFO 05-30 07:55:29 [loggers.py:116] Engine 000: Avg prompt throughput: 1.1 tokens/s")
    assert t == PrefixTime("naive", epoch(2025, 5, 30, 9, 55, 29) + 0.284)


def test_journald_lower_case_month_of_a_locale():
    rest, t = strip_prefix(line_of(
        "ollama__server-2023-10-journald-lowercase-locale-month-runner-starting.log", "starting llama runner"))
    assert rest == "llama.go:313: starting llama runner"
    assert t == PrefixTime("naive", epoch(2023, 10, 11, 15, 42, 8))
    rest, t = strip_prefix(line_of(
        "ollama__server-2023-10-journald-lowercase-locale-month-runner-starting.log", "Device 0"))
    assert (rest, t) == ("  Device 0: NVIDIA GeForce GTX 1060 6GB, compute capability 6.1", None)


def test_ray_serve_replica_tag_stacked_on_vllm_tags():
    rest, t = strip_prefix(line_of(
        "vllm__v1-2026-08-ray-serve-nested-process-tags-compile-and-warmup-together.log", "together took"))
    assert rest == ("INFO 08-19 18:00:13 [monitor.py:53] torch.compile and initial profiling/warmup run together took "
                    "19.48 s in total")
    assert t is None


def test_sglang_bracketed_naive_time_with_rank():
    rest, t = strip_prefix(line_of(
        "sglang__2025-09-runtime-prefill-decode-batch-gen-throughput.log", "#token: 137"))
    assert rest.startswith("Decode batch. #running-req: 1, #token: 137")
    assert t == PrefixTime("naive", epoch(2025, 9, 3, 18, 33, 19))


def test_python_logging_comma_milliseconds():
    rest, t = strip_prefix(line_of(
        "vllm__v1-2026-kv-cache-size-cuda-graph-capture-init-engine-took.log", "Model loaded in"))
    assert rest == "INFO Model loaded in 22.4s"
    assert t == PrefixTime("naive", epoch(2026, 5, 26, 21, 34, 15) + 0.233)


def test_go_nanosecond_fraction():
    rest, t = strip_prefix('time=2025-08-24T08:26:00.310123456Z level=INFO msg="x"')
    assert rest == 'level=INFO msg="x"'
    assert t == PrefixTime("epoch", epoch(2025, 8, 24, 8, 26, 0) + 0.310123456)


def test_moreutils_ts_formats():
    assert strip_prefix("1795999052.885986 hello") == ("hello", PrefixTime("epoch", 1795999052.885986))
    assert strip_prefix("00:01:05.5 hello") == ("hello", PrefixTime("relative", 65.5))
    assert strip_prefix("Nov 30 00:42:01 hello") == ("hello", None)


@pytest.mark.parametrize("line", [
    "I believe the meaning of life is to laugh",
    "| model                          |       size |",
    "llama_perf_context_print:        load time =     574.28 ms",
    "slot print_timing: id  0 | task 124 | ",
    "[GIN] 2025/08/24 - 08:26:19 | 200 |   40.5837591s |",
    "Trial 1:  prompt_tps=2902.212, generation_tps=205.325, peak_memory=3.285",
    "",
])
def test_lines_without_prefix_come_back_unchanged(line):
    assert strip_prefix(line + "\n") == (line, None)


def _plain_layers(line: str):
    """prefixes._layers without its shortcuts: each layer's class regex tried as it stands."""
    from wrapper.derive.frameworks import prefixes

    pos, timed, composed = 0, None, False
    for _ in range(prefixes._MAX_LAYERS):
        rx = prefixes._BY_FIRST.get(line[pos]) if pos < len(line) else None
        m = None if rx is None else rx.match(line, pos)
        if m is None or m.end() == pos or (m.lastgroup == "compose" and composed):
            break
        composed = composed or m.lastgroup == "compose"
        if timed is None and m.lastgroup in prefixes._TIMED:
            timed = m
        pos = m.end()
    return pos, timed


def test_the_shortcuts_strip_what_each_layers_regex_strips():
    """_layers skips a letter's regex when none of its prefixes can start there and tries llama.cpp's stamp
    alone first at a digit: the same prefix, times and groups as the plain loop, on every fixture log's lines
    and on lines made to sit at the edges of the shortcuts."""
    import glob
    import os

    from wrapper.derive.frameworks import prefixes

    lines = ["Dec 03 14:58:42 host ollama[937]: 2023/12/03 14:58:42 llama.go:492: x", "time=2024-12-09T00:58:02.941+08:00 a",
             "tgi-1  | 2025-04-16T17:58:47.006993Z  INFO x", "web | 0.00.052.757 I x", "abc d", "ab 3 x", "Dec  3 14:58:42 x",
             "0.00.052.757 I tgi-1  | x", "0.00.052.757 I time=2024-12-09T00:58:02Z x", "0.00.052.757 Dec 03 14:58:42 x",
             "12.34.567.890 W", "0.00.052.757", "0.00.052.757 I", "2025.04.16 x", "2025-04-16 17:58:47,233 x",
             "1795999052.885986 x", "1795999052.88.598.600 x", "00:00:05 x", "0.00.052.757 I [42027] 1.37.495.377 I x",
             "x|", "a b|c", "word  |x", "word  | x", "time=x", "[1234] 0.01.000.000 I (APIServer pid=12) x"]
    for path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "fixtures", "logs", "*.log"))):
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            lines += fh.read().splitlines()
    def seen(m):  # what a match tells: the prefix kind, where it is, the groups it set and the time read
        groups = None if m is None else {k: v for k, v in m.groupdict().items() if v is not None}
        return None if m is None else (m.lastgroup, m.span(), groups, prefixes._time_of(m))

    for line in lines:
        (pos, timed), (want_pos, want_timed) = prefixes._layers(line), _plain_layers(line)
        assert (pos, seen(timed)) == (want_pos, seen(want_timed)), line


@pytest.mark.parametrize("text,ms", [
    ("891.933\u00b5s", 0.891933),
    ("452.875\u00b5s", 0.452875),
    ("2m27.98s", 147980.0),
    ("1h2m3s", 3723000.0),
    ("5.088275983s", 5088.275983),
    ("1.365523ms", 1.365523),
    ("847ms", 847.0),
    ("2.185s", 2185.0),
    ("40.5837591s", 40583.7591),
    ("18.016616627s", 18016.616627),
    ("100ns", 0.0001),
    ("0s", 0.0),
    ("0", 0.0),
])
def test_go_durations(text, ms):
    assert go_duration_ms(text) == ms


@pytest.mark.parametrize("text", ["", "5", "1.5 s", "s", "1x", "nan", "1m2"])
def test_not_go_durations(text):
    assert go_duration_ms(text) is None


def test_seconds_and_sizes_convert_exactly():
    assert seconds_to_ms("3.106979") == 3106.979
    assert seconds_to_ms("9.200880") == 9200.88
    assert seconds_to_ms("x") is None
    assert size_mib("11.9 GiB") == 12185.6
    assert size_mib("680.0 MiB") == 680.0
    assert size_mib("0 B") == 0.0
    assert size_mib("a lot") is None


def test_numbers_nan_inf_and_separators():
    assert number("nan") is None and number("-inf") is None and number("inf") is None
    assert number("27456.03") == 27456.03
    assert integer("396,928") == 396928
    assert integer("3.5") is None


def test_a_locales_abbreviated_month_with_its_dot_and_a_table_row_is_no_compose_prefix():
    # ollama/ollama issue #12846: journald under a French locale ("oct."); ml-explore/mlx-lm PR #839's table rows
    rest, when = strip_prefix("oct. 30 00:11:38 jarvis-server ollama[556420]: [GIN] 2025/10/30 - 00:11:38 | 200 |")
    assert rest.startswith("[GIN]") and when is None
    assert strip_prefix("4096 | 199.149 | 213.337 |  13.592")[0] == "4096 | 199.149 | 213.337 |  13.592"
    assert strip_prefix("ollama-1  | time=2024-08-01T10:00:00Z level=INFO msg=x")[0].startswith("level=INFO")


def test_a_table_row_printed_as_a_comment_is_the_row():
    # a llama-bench quick-start page (mintlify, 2025, held-out round 71): the table with "# " before each row
    assert strip_text("# | qwen2 1.5B Q4_0     | 885.97 MiB |") == "| qwen2 1.5B Q4_0     | 885.97 MiB |"
    assert strip_prefix("# | model | size |")[0] == "| model | size |"
    assert strip_text("# not a table") == "# not a table"
