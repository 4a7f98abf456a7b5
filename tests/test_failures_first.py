"""Failures first (issue 23, item 2): a failed run leads with how it failed and its last lines, with no tuning
advice; a missing model path on the framework's own model flag is refused before the start; buffered output is
warned about at any run length and the diagnosis then ranks no phase; advice never contradicts the record."""
import json
import os
import stat
import sys

import pytest

from wrapper import api
from wrapper.method.diagnose import diagnose
from wrapper.model import profiles

from .conftest import STANDIN, read_jsonl, run_phasewrap
from .test_diagnose import QUIET, REPORTED_CLEAN, rec

FAILING_CHILD = ("import sys, time\nprint('loading weights', file=sys.stderr, flush=True)\ntime.sleep(0.05)\n"
                 "print('error: no such weights: w.bin', file=sys.stderr)\nsys.exit(3)\n")


def test_failed_run_leads_with_its_exit_code_and_last_stderr_lines(tmp):
    log = str(tmp / "r.jsonl")
    proc = run_phasewrap(["run", "-q", "--jsonl", log, "--ready", "model loaded", "--", sys.executable, "-c",
                          FAILING_CHILD])
    assert proc.returncode == 3
    err = proc.stderr.decode()
    lines = err.splitlines()
    assert lines[0].startswith("phasewrap: the command failed (exit 3) · run ")
    assert lines[1:4] == ["last lines on stderr:", "  loading weights", "  error: no such weights: w.bin"]
    assert "next: give the markers" not in err and "--ready REGEX" not in err
    assert "never appeared on" not in err and "dominant phase" not in err
    [record] = read_jsonl(log)
    assert record["failure"] == {"status": "failed", "exit_code": 3, "how": "the command failed (exit 3)",
                                 "stream": "err", "last_lines": ["loading weights", "error: no such weights: w.bin"]}
    [finding] = diagnose([record])
    assert finding.rule == "run_failed"
    assert 'its last line on stderr: "error: no such weights: w.bin"' in finding.statement


def test_repeated_runs_that_all_fail_lead_with_the_failure_not_an_empty_table():
    proc = run_phasewrap(["run", "-q", "-n", "2", "--", sys.executable, "-c", FAILING_CHILD])
    assert proc.returncode == 3
    err = proc.stderr.decode()
    summary = err[err.index("phasewrap: 2 of 2 run(s) failed, none measured; the first:"):]
    assert summary.splitlines()[1].startswith("phasewrap: the command failed (exit 3) · run ")
    assert "median [min–max]" not in err and "next: give the markers" not in err


def test_timeout_before_ready_is_a_failure_and_an_ok_run_has_none(tmp):
    log = str(tmp / "r.jsonl")
    run_phasewrap(["run", "-q", "--jsonl", log, "--timeout", "0.3", "--ready", "never", "--", sys.executable, "-c",
                   "import time; time.sleep(5)"])
    run_phasewrap(["run", "-q", "--jsonl", log, "--", *STANDIN, "--load-s", "0.05", "--ttft-s", "0.05",
                   "--tokens", "3"])
    timed_out, ok = read_jsonl(log)
    assert timed_out["failure"]["how"] == "the command timed out (--timeout) before its ready marker appeared"
    assert ok["failure"] is None


def _fake_llama(tmp) -> tuple[str, str]:
    """An executable named llama-completion (so the llama.cpp profile applies) that leaves a file when started."""
    flag = str(tmp / "started")
    exe = tmp / "llama-completion"
    exe.write_text(f"#!/bin/sh\ntouch {flag}\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return str(exe), flag


def test_missing_model_on_the_frameworks_flag_is_refused_before_the_start(tmp):
    exe, flag = _fake_llama(tmp)
    for args in (["-m", "/no/such/model.gguf"], ["--model=/no/such/model.gguf"]):
        proc = run_phasewrap(["run", "-q", "--", exe, *args, "-p", "hi"])
        assert proc.returncode == 2
        assert proc.stderr.decode().strip().splitlines() == [
            f"phasewrap run: {args[0].partition('=')[0]}: model file '/no/such/model.gguf' does not exist; check "
            "the path (nothing was started)"]
        assert not os.path.exists(flag)
    model = tmp / "m.gguf"
    model.write_bytes(b"GGUF")
    assert run_phasewrap(["run", "-q", "--", exe, "-m", str(model)]).returncode == 0
    assert os.path.exists(flag)


def test_a_generic_commands_dash_m_is_not_a_model_flag():
    proc = run_phasewrap(["run", "-q", "--", sys.executable, "-m", "json.tool", "--help"])
    assert proc.returncode == 0
    # Python's own -m is never the model flag, even under a profile that has one
    proc = run_phasewrap(["run", "-q", "--profile", "llama.cpp", "--", sys.executable, "-u", "-m", "json.tool",
                          "--help"])
    assert proc.returncode == 0
    assert profiles.missing_model(profiles.PROFILES["vllm"], ["vllm", "serve", "--model", "org/name"]) is None
    assert profiles.missing_model(profiles.PROFILES["vllm"], ["vllm", "serve", "--model", "./nope"]) == (
        "--model", "./nope")


BUFFERED_CHILD = ("import time\nprint('loading weights')\ntime.sleep(0.3)\nprint('model loaded')\ntime.sleep(0.1)\n"
                  "for _ in range(10):\n    print('tok', end=' ')\n    time.sleep(0.01)\nprint()\n")


def test_buffered_output_under_a_second_is_warned_and_no_phase_is_ranked(tmp):
    log = str(tmp / "r.jsonl")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    caps = tmp / "caps"
    proc = run_phasewrap(["run", "-q", "--jsonl", log, "--capture", str(caps), "--ready", "model loaded", "--",
                          sys.executable, "-c", BUFFERED_CHILD], env=env)
    [record] = read_jsonl(log)
    assert record["phases"]["total_s"] < 1.0
    assert [w["kind"] for w in record["warning_details"]] == ["burst_at_exit"]
    err = proc.stderr.decode()
    assert "phases not ranked: the output came in one burst at exit" in err and "dominant phase" not in err
    findings = diagnose([record])
    assert findings[0].rule == "phases_unmeasurable"
    assert not any(f.rule.endswith("_dominant") or f.rule.startswith("load_") for f in findings)
    # the capture's replay reads the same chunks: the same warning, the same diagnosis
    [replayed] = api.analyze([str(caps)])
    assert [w["kind"] for w in replayed["warning_details"]] == ["burst_at_exit"]
    assert diagnose([replayed])[0].rule == "phases_unmeasurable"


def test_repeated_buffered_runs_are_warned_about_in_the_summary():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = run_phasewrap(["run", "-q", "-n", "2", "--", sys.executable, "-c", BUFFERED_CHILD], env=env)
    err = proc.stderr.decode()
    assert "warning: in 2 of 2 run(s) the output came in one burst at exit" in err
    assert "[unmeasurable (output buffered until exit)]" in err


def test_output_written_as_it_goes_is_not_called_buffered(tmp):
    log = str(tmp / "r.jsonl")
    run_phasewrap(["run", "-q", "--jsonl", log, "--", *STANDIN, "--load-s", "0.05", "--ttft-s", "0.02",
                   "--tokens", "20", "--interval-s", "0.001"])
    [record] = read_jsonl(log)
    assert not any(w["kind"] == "burst_at_exit" for w in record["warning_details"])


def _warm_one_core_load(command):
    runs = [rec(load=8.0, ttft=0.5, decode=1.0, total=10.0, cache="warm", reported=REPORTED_CLEAN,
                resources={**QUIET, "load": {**QUIET["load"], "cpu_busiest_thread_pct_max": 99.0,
                                             "cpu_pct_mean": 100.0, "disk_read_mib": 0.0}})]
    runs[0]["command"] = command
    return diagnose(runs)


def test_advice_never_tells_a_gguf_run_to_use_gguf():
    gguf = _warm_one_core_load(["llama-completion", "-m", "/models/m.gguf"])
    assert [f.rule for f in gguf][:2] == ["load_warm_slow", "load_one_core"]
    for finding in gguf[:2]:
        assert "already GGUF" in finding.next_step and "pre-converted" not in finding.next_step
        assert "use a format the backend maps directly" not in finding.next_step
    pickle = _warm_one_core_load(["python3", "load.py", "/models/pytorch_model.bin"])
    assert "pre-converted, mmap-able format (GGUF, safetensors)" in pickle[1].next_step


LLAMA_BIN = os.environ.get("PHASEWRAP_LLAMA_BIN_DIR")


@pytest.mark.llama
@pytest.mark.skipif(not LLAMA_BIN, reason="PHASEWRAP_LLAMA_BIN_DIR is not set: run bin/build-llama-cpp (or .ci/run)")
def test_real_llama_completion_that_fails_to_load_leads_with_its_failure(tmp):
    exe = os.path.join(LLAMA_BIN, "llama-completion")
    bad = tmp / "not-a-model.gguf"
    bad.write_bytes(b"this is no GGUF file\n" * 64)
    # llama-completion 0.3.36 logs from a thread and loses its output, whole or its tail, in some runs here: the
    # check wants a run whose last stderr lines hold its error, then the summary must show them
    for attempt in range(8):
        log = str(tmp / f"r{attempt}.jsonl")
        proc = run_phasewrap(["run", "-q", "--jsonl", log, "--", exe, "-m", str(bad), "-p", "hi", "-n", "4", "-no-cnv"])
        assert proc.returncode == 1
        with open(log, encoding="utf-8") as fh:
            failure = json.loads(fh.readline())["failure"]
        if any("failed to load model" in line for line in failure["last_lines"]):
            break
    err = proc.stderr.decode()
    assert err.splitlines()[0].startswith("phasewrap: the command failed (exit 1) · run ")
    assert "last lines on stderr:" in err and "failed to load model" in err
    assert "next: give the markers" not in err and "/(?=" not in err
    missing = run_phasewrap(["run", "-q", "--", exe, "-m", str(tmp / "absent.gguf"), "-p", "hi"])
    assert missing.returncode == 2 and missing.stderr.decode().count("\n") == 1
    assert "absent.gguf' does not exist" in missing.stderr.decode()
