"""phasewrap run end to end on real child processes."""
import json
import os
import signal
import subprocess
import sys

import pytest

from .conftest import PHASEWRAP, STANDIN, json_record, read_jsonl, run_phasewrap

TOLERANCE_NS = 30_000_000


def test_standin_phases_agree_with_child_clock():
    proc = run_phasewrap(["run", "--ready", "model loaded", "--format", "json", "--", *STANDIN,
                          "--load-s", "0.8", "--ttft-s", "0.4", "--tokens", "40", "--interval-s", "0.02",
                          "-p", "Tell me about phases", "--stamps"])
    assert proc.returncode == 0, proc.stderr
    rec = json_record(proc)
    stamps = json.loads(proc.stderr.decode().splitlines()[-1])
    t0 = rec["t0_monotonic_ns"]
    for marker, child_ns in (("ready", stamps["ready_ns"]), ("first_token", stamps["first_token_ns"]),
                             ("last_token", stamps["last_token_ns"])):
        ours = t0 + round(rec["markers"][marker]["t_s"] * 1e9)
        assert abs(ours - child_ns) <= TOLERANCE_NS, (marker, ours - child_ns)
    assert rec["tokens"] == {"output": 40, "source": "chunks", "input": None, "chunks": 40}
    assert rec["markers"]["first_token"]["text"] == "the"  # the echoed prompt is not the first token
    assert abs(rec["phases"]["ttft_s"] - 0.4) <= 0.03
    assert abs(rec["phases"]["decode_s"] - 39 * 0.02) <= 0.05
    # every phase measured; only the floors are missing (the stand-in names no model file; the few hundred KiB a
    # cold start reads, as in a fresh clone on CI, are below the 1 MiB a disk floor needs)
    assert rec["status"] == "ok" and [m["field"] for m in rec["missing"]] == ["model", "limits"]


PASSTHROUGH_CHILD = r"""
import os, time
w = lambda fd, b: os.write(fd, b)
w(1, b"plain\n\x00nul\xff\xfe invalid\x1b[31mred\x1b[0m\r10%\r50%\r100%\n")
e = "é€".encode()
w(1, e[:3]); time.sleep(0.05); w(1, e[3:])
w(2, b"log line\n\xc3")
time.sleep(0.05)
w(2, b"\xa9 tail without newline")
w(1, b"x" * 300000)
"""


def test_passthrough_is_byte_identical_to_unwrapped_run():
    bare = subprocess.run([sys.executable, "-c", PASSTHROUGH_CHILD], capture_output=True)
    wrapped = run_phasewrap(["run", "--format", "none", "--", sys.executable, "-c", PASSTHROUGH_CHILD])
    assert wrapped.returncode == 0
    assert wrapped.stdout == bare.stdout
    assert wrapped.stderr == bare.stderr


def test_exit_code_passes_through():
    proc = run_phasewrap(["run", "--format", "none", "--", sys.executable, "-c", "raise SystemExit(3)"])
    assert proc.returncode == 3


def test_signal_death_exits_128_plus_n_with_killed_record(tmp):
    log = tmp / "runs.jsonl"
    proc = run_phasewrap(["run", "--jsonl", str(log), "--format", "none", "--", sys.executable, "-c",
                          "import os, signal; print('hi', flush=True); os.kill(os.getpid(), signal.SIGSEGV)"])
    assert proc.returncode == 128 + signal.SIGSEGV
    rec = read_jsonl(log)[0]
    assert rec["status"] == "killed" and rec["child"]["signal"] == signal.SIGSEGV


def test_missing_binary_exits_127_and_leaves_no_capture(tmp):
    proc = run_phasewrap(["run", "--capture", str(tmp), "--", "/nonexistent/llama-nope"])
    assert proc.returncode == 127
    assert b"command not found" in proc.stderr
    assert os.listdir(tmp) == []


def test_invalid_regex_is_usage_error_naming_option():
    proc = run_phasewrap(["run", "--ready", "(", "--", "true"])
    assert proc.returncode == 2
    lines = proc.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "--ready: invalid regex '('" in lines[0]


def test_unwritable_output_fails_before_child_starts(tmp):
    marker = tmp / "started"
    proc = run_phasewrap(["run", "--jsonl", "/nonexistent-dir/x.jsonl", "--", sys.executable, "-c",
                          f"open({str(marker)!r}, 'w')"])
    assert proc.returncode == 2
    assert b"--jsonl: directory /nonexistent-dir does not exist" in proc.stderr
    assert not marker.exists()


def test_sigint_reaches_child_group_and_record_says_interrupted(tmp):
    log = tmp / "runs.jsonl"
    flag = tmp / "child-got-sigint"
    child = (f"import signal, sys, time\n"
             f"def h(*a):\n    open({str(flag)!r}, 'w').close(); sys.exit(1)\n"
             f"signal.signal(signal.SIGINT, h)\nprint('ready', flush=True)\ntime.sleep(30)\n")
    proc = subprocess.Popen(PHASEWRAP + ["run", "--jsonl", str(log), "--format", "none", "--", sys.executable,
                                         "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=20)
    assert flag.exists()
    rec = read_jsonl(log)[0]
    assert rec["status"] == "interrupted"
    assert rec["child"]["received_signal"] == signal.SIGINT


def test_pty_gives_child_a_terminal():
    proc = run_phasewrap(["run", "--pty", "--format", "json", "--", sys.executable, "-c",
                          "import sys; print('tty' if sys.stdout.isatty() else 'pipe')"])
    assert proc.returncode == 0
    # --format json sends the child's stdout to stderr; raw mode: no \r\n translation
    assert b"tty\n" in proc.stderr and b"tty\r\n" not in proc.stderr


def test_burst_at_exit_is_reported():
    # what a block-buffered child looks like: nothing for a while, then everything as it exits
    child = "import os, time\ntime.sleep(1.2)\nos.write(1, b'a b c d\\n')\n"
    proc = run_phasewrap(["run", "--format", "json", "--quiet", "--", sys.executable, "-c", child])
    rec = json_record(proc)
    assert any("one burst at exit" in w for w in rec["warnings"])


def test_quiet_suppresses_passthrough_and_summary_goes_to_stderr():
    proc = run_phasewrap(["run", "--quiet", "--ready", "model loaded", "--", *STANDIN, "--load-s", "0.1", "--ttft-s", "0.05", "--tokens", "3"])
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert "phase" in err and "share" in err and "dominant phase" in err


def test_missing_phases_are_null_with_reasons():
    proc = run_phasewrap(["run", "--ready", "never-printed", "--format", "json", "--quiet", "--", *STANDIN,
                          "--load-s", "0.05", "--ttft-s", "0.05", "--tokens", "3"])
    rec = json_record(proc)
    assert rec["phases"]["load_s"] is None and rec["phases"]["ttft_s"] is None
    reasons = {m["field"]: m["reason"] for m in rec["missing"]}
    assert "never appeared" in reasons["load_s"]
    assert rec["markers"]["ready"] is None
    assert rec["phases"]["total_s"] > 0


def test_csv_header_once_and_tags_as_columns(tmp):
    path = tmp / "log.csv"
    for quant in ("Q4_K_M", "Q8_0"):
        proc = run_phasewrap(["run", "--quiet", "--format", "none", "--csv", str(path), "--tag", f"quant={quant}",
                              "--tag", "ctx=4096", "--note", "baseline", "--", *STANDIN, "--load-s", "0.05",
                              "--ttft-s", "0.05", "--tokens", "3", "--interval-s", "0.01"])
        assert proc.returncode == 0
    rows = path.read_text().splitlines()
    assert rows[0] == ("date_time,run_id,quant,ctx,input_tokens,output_tokens,load_s,ttft_s,decode_s,total_s,"
                       "ms_per_token,vram_peak_mib,warmup,cache,status,note")
    assert len(rows) == 3
    assert rows[1].split(",")[2:4] == ["Q4_K_M", "4096"] and rows[2].split(",")[2] == "Q8_0"
    assert rows[2].endswith(",ok,baseline")


def test_concurrent_appends_leave_whole_lines(tmp):
    path = tmp / "runs.jsonl"
    procs = [subprocess.Popen(PHASEWRAP + ["run", "--quiet", "--format", "none", "--jsonl", str(path), "--tag",
                                           f"i={i}", "--", sys.executable, "-c", "print('x' * 5000)"],
                              stdin=subprocess.DEVNULL) for i in range(8)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    records = read_jsonl(path)
    assert sorted(r["tags"]["i"] for r in records) == [str(i) for i in range(8)]


def test_capture_is_lossless_and_has_header(tmp):
    from wrapper.sources.capture import read_capture

    proc = run_phasewrap(["run", "--quiet", "--format", "json", "--capture", str(tmp / "cap"), "--",
                          sys.executable, "-c", PASSTHROUGH_CHILD])
    rec = json_record(proc)
    bare = subprocess.run([sys.executable, "-c", PASSTHROUGH_CHILD], capture_output=True)
    [name] = os.listdir(tmp / "cap")
    cap = read_capture(str(tmp / "cap" / name))
    assert cap.header["t0_monotonic_ns"] == rec["t0_monotonic_ns"]
    assert b"".join(c.data for c in cap.chunks if c.stream == "out") == bare.stdout
    assert b"".join(c.data for c in cap.chunks if c.stream == "err") == bare.stderr
    assert cap.record["run_id"] == rec["run_id"] and not cap.truncated
    mode = os.stat(tmp / "cap" / name).st_mode
    assert not mode & 0o002


SERVER = [sys.executable, os.path.join(os.path.dirname(STANDIN[1]), "standin_server.py")]


@pytest.mark.parametrize("api", ["openai", "llama"])
def test_server_request_measures_stream_and_stops_server(api):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = run_phasewrap(["run", "--ready", "listening on", "--request", "hello", "--max-tokens", "12", "--api", api,
                          "--format", "json", "--", *SERVER, "--port", str(port), "--load-s", "0.3",
                          "--ttft-s", "0.25", "--interval-s", "0.02"])
    assert proc.returncode == 0, proc.stderr
    rec = json_record(proc)
    assert rec["status"] == "ok" and rec["child"]["stop_reason"] == "request complete"
    assert 0.25 <= rec["phases"]["ttft_s"] < 0.5
    assert 11 * 0.02 <= rec["phases"]["decode_s"] < 1.0
    assert rec["tokens"]["output"] == 12
    assert rec["markers"]["request_sent"]["stream"] == "http"
    # the markers quote the first and the last generated text, as for a CLI run
    words = standin_server_words()
    assert rec["markers"]["first_token"]["text"] == words[0]
    assert rec["markers"]["last_token"]["text"] == words[11 % len(words)]
    assert rec["reported"]["eval_tokens"] == 12
    assert not psutil_alive(rec["child"]["pid"])


def standin_server_words():
    import ast
    source = open(SERVER[1], encoding="utf-8").read()
    return ast.literal_eval(source.split("WORDS = ", 1)[1].split("\n", 1)[0])


def psutil_alive(pid):
    import psutil
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_capture_is_not_world_writable_even_with_umask_0(tmp):
    proc = run_phasewrap(["run", "--quiet", "--format", "none", "--capture", str(tmp), "--", "true"],
                         preexec_fn=lambda: os.umask(0))
    assert proc.returncode == 0
    [name] = os.listdir(tmp)
    assert not os.stat(tmp / name).st_mode & 0o002


def test_llama_log_cut_short_gives_missing_phases_not_a_crash(tmp):
    """Replays the real llama-completion run whose log thread lost its tail (exit 0, no echo, no perf block)."""
    from .conftest import fixture

    base = fixture("llama-cpp-0.3.36", "completion-lost-tail")
    child = (f"import sys\nsys.stdout.buffer.write(open({base + '.stdout'!r}, 'rb').read())\n"
             f"sys.stderr.buffer.write(open({base + '.stderr'!r}, 'rb').read())\n")
    proc = run_phasewrap(["run", "--profile", "llama.cpp", "--format", "json", "--quiet", "--", sys.executable, "-c",
                          child])
    assert proc.returncode == 0
    rec = json_record(proc)
    assert rec["status"] == "ok" and (rec["reported"] or {}).get("eval_ms") is None
    reasons = {m["field"]: m["reason"] for m in rec["missing"]}
    assert "never appeared" in reasons["load_s"] and "decode_s" in reasons
    assert rec["phases"]["total_s"] > 0


def test_closed_stdin_is_not_confused_with_the_childs_pipes():
    # `0<&-`: phasewrap started with stdin closed, as cron or a CI runner may do
    child = "import sys, os; os.write(1, b'stdin ' + (b'empty' if sys.stdin.read() == '' else b'odd'))"
    proc = subprocess.run(["sh", "-c", 'exec "$@" 0<&-', "sh", *PHASEWRAP, "run", "--format", "none", "--",
                           sys.executable, "-c", child], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"stdin empty"


def test_bin_phasewrap_keeps_its_compiled_modules_in_its_cache_when_bytecode_beside_the_sources_is_off(tmp_path):
    # PYTHONDONTWRITEBYTECODE=1 (no __pycache__ beside the sources): every start would compile every module again;
    # bin/phasewrap writes them under $PHASEWRAP_CACHE/pycache instead, and reads them there the next time
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PHASEWRAP_CACHE": str(tmp_path / "cache")}
    proc = run_phasewrap(["--version"], env=env)
    assert proc.returncode == 0, proc.stderr
    compiled = [name for _, _, names in os.walk(tmp_path / "cache" / "pycache") for name in names]
    assert any(name.startswith("cli.") and name.endswith(".pyc") for name in compiled), compiled
