"""Bad input: one line naming the input and the fix, exit status 2, never a traceback, nothing started."""
import json
import sys

import pytest

from .conftest import fixture, one_line_usage_error as _one_line_usage_error, run_phasewrap

QUIET = ["run", "--quiet", "--format", "none", "--gpu", "off", "--cpu", "off", "--no-env"]


@pytest.mark.parametrize("option,value,needle", [
    ("--timeout", "inf", "--timeout expects a finite number of seconds"),
    ("--timeout", "1e300", "--timeout must be > 0 and at most 1e+06 seconds"),
    ("--timeout", "nan", "--timeout expects a finite number of seconds"),
    ("--kill-grace", "inf", "--kill-grace expects a finite number of seconds"),
    ("--kill-grace", "nan", "--kill-grace expects a finite number of seconds"),
    ("--interval", "inf", "--interval expects a finite number of seconds"),
    ("--interval", "1e9", "--interval must be > 0 and at most 60 seconds"),
    ("--url", "http://[::1", "--url: 'http://[::1' is not a URL"),
    ("--url", "notaurl", "--url: 'notaurl' is not an http://HOST:PORT URL"),
    ("--plot", "x.bmp", "--plot: 'x.bmp': unknown picture format '.bmp'"),
    ("--ready", "(", "--ready: invalid regex '('"),
])
def test_bad_run_option_values_are_refused_before_the_run(tmp, option, value, needle):
    marker = tmp / "started"
    extra = ["--request", "hi"] if option == "--url" else []
    proc = run_phasewrap(QUIET + [option, value, *extra, "--", sys.executable, "-c", f"open({str(marker)!r}, 'w')"],
                         cwd=tmp)
    _one_line_usage_error(proc, needle)
    assert not marker.exists()
    assert not (tmp / "x.bmp").exists()


def test_jsonl_onto_a_read_only_file_like_proc_version_is_refused_before_the_run(tmp):
    marker = tmp / "started"
    proc = run_phasewrap(QUIET + ["--jsonl", "/proc/version", "--", sys.executable, "-c",
                                  f"open({str(marker)!r}, 'w')"])
    _one_line_usage_error(proc, "--jsonl: cannot write /proc/version (read-only, mode 0444)")
    assert not marker.exists()


PLAIN_LOG = "hello\nworld\n"


@pytest.mark.parametrize("args,needle", [
    (["--ready", "("], "--ready: invalid regex '('"),
    (["--first-token", "[a-"], "--first-token: invalid regex '[a-'"),
    (["--mark", "x=("], "--mark x: invalid regex '('"),
    (["--dmon", "/nonexistent"], "--dmon: /nonexistent does not exist"),
    (["--query-gpu", "/nonexistent"], "--query-gpu: /nonexistent does not exist"),
    (["--pidstat", "/nonexistent"], "--pidstat: /nonexistent does not exist"),
])
def test_bad_analyze_options_on_a_plain_log_are_refused(tmp, args, needle):
    log = tmp / "plain.log"
    log.write_text(PLAIN_LOG)
    proc = run_phasewrap(["analyze", *args, str(log)])
    _one_line_usage_error(proc, needle)
    assert proc.stdout == b""


def test_compare_plot_with_an_unknown_format_is_refused_before_comparing(tmp):
    records = tmp / "runs.jsonl"
    assert run_phasewrap(QUIET + ["--jsonl", str(records), "--", "true"]).returncode == 0
    proc = run_phasewrap(["compare", "--plot", "x.gif", str(records), str(records)], cwd=tmp)
    _one_line_usage_error(proc, "--plot: 'x.gif': unknown picture format '.gif'")
    assert proc.stdout == b""


def _records_file(tmp, change):
    records = tmp / "runs.jsonl"
    assert run_phasewrap(QUIET + ["--jsonl", str(records), "--", "true"]).returncode == 0
    rec = json.loads(records.read_text())
    change(rec)
    bad = tmp / "bad.jsonl"
    bad.write_text(json.dumps(rec) + "\n")
    return bad


@pytest.mark.parametrize("subcommand", [["diagnose"], ["report", "-o", "r.html"], ["plot", "-o", "p.svg"],
                                        ["compare"]])
@pytest.mark.parametrize("change,needle", [
    (lambda r: r.update(phases=[1, 2]), 'not a usable run record: "phases" is not an object'),
    (lambda r: r.pop("run_id"), 'not a usable run record: no "run_id" string'),
])
def test_records_of_the_right_schema_but_the_wrong_shape_are_one_line(tmp, subcommand, change, needle):
    bad = _records_file(tmp, change)
    inputs = [str(bad), str(bad)] if subcommand == ["compare"] else [str(bad)]
    proc = run_phasewrap(subcommand + inputs, cwd=tmp)
    _one_line_usage_error(proc, f"{bad}: line 1: {needle}")
    assert not (tmp / "r.html").exists() and not (tmp / "p.svg").exists()


def test_analyze_framework_is_honoured_on_a_timed_log_another_framework_also_matches(tmp):
    # llama.cpp timing lines, then a vLLM log: detection alone would pick llama.cpp
    lines = (open(fixture("logs", "llama.cpp__2023-07-xeon-numa-f16-llama_print_timings-block.log")).read()
             .splitlines()[:30]
             + open(fixture("logs", "vllm__v0-2024-07-loading-model-weights-took-GB-gpu-blocks-cuda-graphs.log"))
             .read().splitlines())
    log = tmp / "mixed.log"
    log.write_text("".join(f"2026-01-01T10:00:{i // 10:02d}.{(i % 10) * 1000:06d}Z {line}\n"
                           for i, line in enumerate(lines, 1)))
    detected = json.loads(run_phasewrap(["analyze", "--format", "json", str(log)]).stdout)
    assert detected[-1]["reported"]["framework"] == "llama.cpp"  # the premise: both families match
    proc = run_phasewrap(["analyze", "--framework", "vllm", "--format", "json", str(log)])
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    assert [r["reported"]["framework"] for r in records] == ["vllm"] * len(records)
    assert records[-1]["source"]["kind"] != "log (no times)"  # still the timed path
