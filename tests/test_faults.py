"""Faults from the hardening issue: each ends with a complete record and no process left behind."""
import signal
import subprocess
import sys
import time

import psutil

from .conftest import PHASEWRAP, STANDIN, poll, read_jsonl, run_phasewrap, json_record



def _standin_children(pid: int) -> list:
    found = []
    for child in psutil.Process(pid).children():
        try:
            if any("standin.py" in arg for arg in child.cmdline()):
                found.append(child.pid)
        except psutil.NoSuchProcess:
            pass
    return found


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_sigkill_like_oom_killer_gives_killed_record_with_phases_reached(tmp):
    log = tmp / "r.jsonl"
    child = ("import os, signal, sys, time\nsys.stderr.write('model loaded\\n'); sys.stderr.flush()\n"
             "time.sleep(0.1)\nos.write(1, b'tok tok')\ntime.sleep(0.1)\nos.kill(os.getpid(), signal.SIGKILL)\n")
    proc = run_phasewrap(["run", "--ready", "model loaded", "--jsonl", str(log), "--format", "none", "--",
                          sys.executable, "-c", child])
    assert proc.returncode == 128 + signal.SIGKILL
    rec = read_jsonl(log)[0]
    assert rec["status"] == "killed" and rec["child"]["signal"] == signal.SIGKILL
    assert rec["phases"]["load_s"] is not None and rec["phases"]["ttft_s"] is not None


def test_timeout_terms_then_kills_the_group_and_says_timeout(tmp):
    log = tmp / "r.jsonl"
    child = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('started', flush=True)\ntime.sleep(60)\n"
    t = time.monotonic()
    proc = run_phasewrap(["run", "--ready", "never", "--timeout", "1", "--kill-grace", "0.5", "--jsonl", str(log),
                          "--format", "table", "--", sys.executable, "-c", child])
    assert time.monotonic() - t < 10
    rec = read_jsonl(log)[0]
    assert rec["status"] == "timeout"
    assert proc.returncode == 128 + signal.SIGKILL
    assert not _alive(rec["child"]["pid"])
    assert "never appeared" in {m["field"]: m["reason"] for m in rec["missing"]}["load_s"]


def test_grandchild_holding_pipes_does_not_hang_the_run(tmp):
    log = tmp / "r.jsonl"
    pidfile = tmp / "grandchild.pid"
    # the child forks a daemon-like grandchild that keeps stdout/stderr open, then exits
    child = (f"import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(60)\n    os._exit(0)\n"
             f"open({str(pidfile)!r}, 'w').write(str(pid))\nprint('parent done', flush=True)\n")
    t = time.monotonic()
    proc = subprocess.run(PHASEWRAP + ["run", "--jsonl", str(log), "--format", "none", "--", sys.executable, "-c",
                                       child], stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    assert time.monotonic() - t < 10
    assert proc.returncode == 0
    rec = read_jsonl(log)[0]
    assert rec["status"] == "ok"
    assert "drain_timeout" in [w["kind"] for w in rec["warning_details"]]
    assert any("kept its output open" in w for w in rec["warnings"])
    grandchild = int(pidfile.read_text())
    assert poll(lambda: not _alive(grandchild), 5), f"grandchild {grandchild} still alive"


def test_stdout_closed_early_keeps_running_and_writes_record(tmp):
    log = tmp / "r.jsonl"
    cmd = PHASEWRAP + ["run", "--jsonl", str(log), "--format", "table", "--", *STANDIN, "--load-s", "0.1",
                       "--ttft-s", "0.1", "--tokens", "30", "--interval-s", "0.01"]
    # `phasewrap run ... | head -c 5`
    pw = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    pw.stdout.read(5)
    pw.stdout.close()
    _, err = pw.communicate(timeout=30)
    assert b"Traceback" not in err
    assert pw.returncode == 0
    rec = read_jsonl(log)[0]
    assert rec["status"] == "ok" and rec["tokens"]["output"] == 30
    assert [w["kind"] for w in rec["warning_details"]] == ["passthrough_closed"]
    assert any("closed by its reader" in w for w in rec["warnings"])


def test_huge_line_and_large_output_keep_memory_bounded(tmp):
    # 264 MB without a single newline: passed through whole, while phasewrap's RSS stays bounded
    child = ("import os\nblock = b'x' * (1 << 20)\n"
             "for _ in range(264):\n    os.write(1, block)\n")
    out, log = tmp / "out.bin", tmp / "r.jsonl"
    with open(out, "wb") as fh:
        proc = subprocess.Popen(PHASEWRAP + ["run", "--format", "none", "--jsonl", str(log), "--", sys.executable,
                                             "-c", child], stdout=fh, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        peak = 0
        ps = psutil.Process(proc.pid)
        while proc.poll() is None:
            try:
                peak = max(peak, ps.memory_info().rss)
            except psutil.NoSuchProcess:
                break
            time.sleep(0.02)
        proc.communicate()
    assert out.stat().st_size == 264 << 20
    assert read_jsonl(log)[0]["child"]["stdout_bytes"] == 264 << 20
    assert peak < 200 << 20, peak


def test_quiet_passthrough_of_binary_tokens_counts_them():
    proc = run_phasewrap(["run", "--ready", "model loaded", "--format", "json", "--quiet", "--", *STANDIN,
                          "--binary", "--load-s", "0.05", "--ttft-s", "0.05", "--tokens", "12", "--interval-s", "0.01"])
    rec = json_record(proc)
    assert rec["tokens"]["output"] == 12


def test_sigterm_during_repeated_runs_keeps_finished_runs(tmp):
    log = tmp / "r.jsonl"
    pw = subprocess.Popen(PHASEWRAP + ["run", "-n", "5", "--quiet", "--format", "none", "--jsonl", str(log), "--",
                                       *STANDIN, "--load-s", "0.05", "--ttft-s", "0.05", "--tokens", "3",
                                       "--interval-s", "0.3"], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert poll(lambda: log.exists() and len(log.read_text().splitlines()) >= 2, 20)
    # the second record is written after its child exited: a stand-in child now is the third run's
    assert poll(lambda: _standin_children(pw.pid), 20)
    pw.send_signal(signal.SIGTERM)
    pw.communicate(timeout=30)
    records = read_jsonl(log)
    assert [r["status"] for r in records] == ["ok", "ok", "interrupted"]
    assert records[-1]["child"]["received_signal"] == signal.SIGTERM
    assert not _alive(records[-1]["child"]["pid"])
