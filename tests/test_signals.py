"""Signals to a real phasewrap process, and children that must not outlive it.

Each test drives bin/phasewrap as a separate process and signals it the way a user, a shell or an
orchestrator would (SIGTERM, SIGINT, kill -9).
"""
import fcntl
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from .conftest import PHASEWRAP, read_jsonl

QUIET = ["run", "--quiet", "--gpu", "off", "--cpu", "off", "--no-env"]


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _wait_for(predicate, timeout_s=20.0, what="condition"):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def _start(args, **kwargs):
    return subprocess.Popen(PHASEWRAP + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kwargs)


def _pid_file_child(pidfile, body="time.sleep(30)", ignore_term=False):
    lines = ["import os, signal, sys, time"]
    if ignore_term:
        lines.append("signal.signal(signal.SIGTERM, signal.SIG_IGN)")
    lines += [f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))", body]
    return [sys.executable, "-c", "\n".join(lines)]


def test_sigterm_with_a_silent_term_ignoring_child_escalates_after_the_grace(tmp):
    pidfile = tmp / "child.pid"
    log = tmp / "runs.jsonl"
    pw = _start(QUIET + ["--format", "none", "--kill-grace", "0.5", "--jsonl", str(log), "--",
                         *_pid_file_child(pidfile, ignore_term=True)])
    _wait_for(lambda: pidfile.exists() and pidfile.read_text(), what="the child's pid file")
    time.sleep(0.2)
    t = time.monotonic()
    pw.send_signal(signal.SIGTERM)
    pw.communicate(timeout=30)
    took_s = time.monotonic() - t
    assert took_s < 2.0, f"phasewrap took {took_s:.1f} s after SIGTERM with --kill-grace 0.5"
    rec = read_jsonl(log)[0]
    assert rec["status"] == "interrupted" and rec["child"]["received_signal"] == signal.SIGTERM
    assert rec["child"]["signal"] == signal.SIGKILL
    assert not _alive(int(pidfile.read_text()))


def _blocked_in_flock(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/wchan") as fh:
            return "lock" in fh.read()
    except OSError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signal_between_runs_stops_the_session_keeps_records_and_prints_the_summary(tmp, sig):
    log = tmp / "runs.jsonl"
    log.touch()
    # Hold the records file's lock: after run 1, phasewrap waits to append its record, between two runs.
    with open(log, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        pw = _start(QUIET + ["-n", "3", "--format", "table", "--jsonl", str(log), "--", sys.executable, "-c",
                             "print('hello')"])
        _wait_for(lambda: _blocked_in_flock(pw.pid), what="phasewrap waiting for the records file's lock")
        pw.send_signal(sig)
        time.sleep(0.3)
        fcntl.flock(held, fcntl.LOCK_UN)
    _, err = pw.communicate(timeout=60)
    text = err.decode()
    assert pw.returncode == 128 + sig, text
    assert "Traceback" not in text
    assert [r["status"] for r in read_jsonl(log)] == ["ok"]
    assert f"phasewrap: stopped by signal {sig} between runs; 1 run(s) recorded" in text
    assert "phasewrap: 1 measured run(s)" in text  # the summary of what was recorded


def test_kill_9_of_phasewrap_takes_the_child_with_it(tmp):
    pidfile = tmp / "child.pid"
    pw = _start(QUIET + ["--format", "none", "--", *_pid_file_child(pidfile, ignore_term=True)])
    _wait_for(lambda: pidfile.exists() and pidfile.read_text(), what="the child's pid file")
    child = int(pidfile.read_text())
    pw.kill()
    pw.wait(timeout=10)
    t = time.monotonic()
    while _alive(child) and time.monotonic() - t < 1.0:
        time.sleep(0.02)
    alive = _alive(child)
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive, "the child outlived phasewrap's kill -9 by more than a second"


def test_a_daemon_escaping_with_setsid_is_named_in_the_warnings(tmp):
    pidfile = tmp / "daemon.pid"
    log = tmp / "runs.jsonl"
    child = ("import os, sys, time\n"
             "if os.fork() == 0:\n"
             "    os.setsid()\n"
             "    null = os.open(os.devnull, os.O_RDWR)\n"
             "    for fd in (0, 1, 2):\n"
             "        os.dup2(null, fd)\n"
             f"    open({str(pidfile)!r} + '.tmp', 'w').write(str(os.getpid()))\n"
             f"    os.rename({str(pidfile)!r} + '.tmp', {str(pidfile)!r})\n"
             "    time.sleep(30)\n"
             "    os._exit(0)\n"
             f"while not os.path.exists({str(pidfile)!r}):\n"
             "    time.sleep(0.01)\n"
             "print('started the daemon', flush=True)\n")
    proc = subprocess.run(PHASEWRAP + QUIET + ["--format", "none", "--jsonl", str(log), "--", sys.executable, "-c",
                                               child], stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    daemon = int(pidfile.read_text())
    try:
        assert proc.returncode == 0, proc.stderr
        rec = read_jsonl(log)[0]
        details = [w for w in rec["warning_details"] if w["kind"] == "escaped_process"]
        assert len(details) == 1 and details[0]["text"].startswith(f"pid {daemon} (")
        assert "left its process group with setsid" in details[0]["text"]
        assert _alive(daemon)  # named, not stopped: it chose to leave
    finally:
        os.kill(daemon, signal.SIGKILL)


def test_kill_9_of_phasewrap_takes_what_the_child_started_in_its_group_too(tmp):
    pidfile = tmp / "grandchild.pid"
    work_py = tmp / "work.py"
    work_py.write_text(_pid_file_child(pidfile, ignore_term=True)[2])
    # a shell script that starts the real work and waits: the shell is the direct child, the work its child
    pw = _start(QUIET + ["--format", "none", "--", "/bin/sh", "-c", f"{sys.executable} {work_py} & wait"])
    _wait_for(lambda: pidfile.exists() and pidfile.read_text(), what="the grandchild's pid file")
    work = int(pidfile.read_text())
    pw.kill()
    pw.wait(timeout=10)
    t = time.monotonic()
    while _alive(work) and time.monotonic() - t < 1.0:
        time.sleep(0.02)
    alive = _alive(work)
    if alive:
        os.kill(work, signal.SIGKILL)
    assert not alive, "the child's own child outlived phasewrap's kill -9 by more than a second"
