"""The in-process CPU sampler: on real children, and on a hand-made /proc for exact counter values."""
import os
import shutil
import subprocess
import sys
import time

import pytest

from wrapper.derive.aggregate import aggregate
from wrapper.measure.sampling import ProcSampler

PAGE = os.sysconf("SC_PAGE_SIZE")

BURN_THEN_SLEEP = """\
import time
print("burn", flush=True)
w, c = time.monotonic(), time.process_time()
while time.monotonic() - w < 1.0:
    pass
print((time.process_time() - c) / (time.monotonic() - w) * 100, flush=True)
time.sleep(1.0)
"""


def test_cpu_follows_a_child_that_burns_a_core_then_sleeps():
    sampler = ProcSampler(0.1)
    child = subprocess.Popen([sys.executable, "-c", BURN_THEN_SLEEP], stdout=subprocess.PIPE, text=True)
    sampler.start(child.pid)
    assert child.stdout.readline() == "burn\n"
    t_burn = time.monotonic_ns()
    burned_pct = float(child.stdout.readline())  # what the child itself got of a core while burning
    t_sleep = time.monotonic_ns()
    child.wait()
    t_end = time.monotonic_ns()
    time.sleep(0.15)
    sampler.stop()
    samples = sampler.samples()
    assert samples[0].values["cpu_pct"] is None  # nothing to take a delta from yet
    assert {(s.source, s.device) for s in samples} == {("psutil", "proc")}
    if burned_pct < 30:
        pytest.skip(f"the machine is too busy: the burning child got {burned_pct:.0f}% of a core")
    ms = 1_000_000
    windows = {"burn": (t_burn + 100 * ms, t_sleep), "sleep": (t_sleep + 150 * ms, t_end)}
    result = aggregate(samples, windows, [sampler.info()])
    burn, sleep = result["burn"], result["sleep"]
    # loose: 10 ms clock ticks over 100 ms intervals, and a shared, noisy machine
    assert abs(burn["cpu_pct_mean"] - burned_pct) < 30
    assert burn["cpu_busiest_thread_pct_max"] > burned_pct - 40
    assert sleep["cpu_pct_mean"] < 10
    assert burn["rss_peak_mib"] > 1
    assert burn["samples"] >= 5 and not burn["approximate"]
    assert samples[-1].values["nprocs"] == 0.0
    info = sampler.info()
    assert info["available"] is True and info["ticks"] == len(samples)
    assert info["tick_cpu_us_mean"] > 0  # its cost per tick is a benchmark row (tests/bench/bench_overhead.py)


def writes_are_accounted(directory):
    def written():
        fields = open("/proc/self/io").read().split()
        return int(fields[11])

    before = written()
    with open(directory / "probe", "wb") as f:
        f.write(b"x" * 65536)
        f.flush()
        os.fsync(f.fileno())
    return written() - before >= 65536


TREE = """\
import os, subprocess, sys, time
write = "import os,sys,time\\nwith open(sys.argv[1],'wb') as f:\\n f.write(os.urandom(4<<20)); f.flush(); os.fsync(f.fileno())\\ntime.sleep(0.8)"
g = subprocess.Popen([sys.executable, "-c", write, sys.argv[1] + "/grandchild.bin"])
time.sleep(0.1)
with open(sys.argv[1] + "/child.bin", "wb") as f:
    f.write(os.urandom(1 << 20)); f.flush(); os.fsync(f.fileno())
g.wait()
time.sleep(0.6)
"""


def test_tree_counters_keep_what_exited_children_did(tmp_path):
    if not writes_are_accounted(tmp_path):
        pytest.skip(f"{tmp_path}: this filesystem does not account written bytes in /proc/PID/io")
    sampler = ProcSampler(0.05, tree_refresh_s=0.1)
    child = subprocess.Popen([sys.executable, "-c", TREE, str(tmp_path)])
    sampler.start(child.pid)
    child.wait()
    time.sleep(0.15)
    sampler.stop()
    samples = sampler.samples()
    assert max(s.values["nprocs"] for s in samples) == 2.0
    writes = [s.values["disk_write_bytes_total"] for s in samples]
    faults = [s.values["major_faults_total"] for s in samples]
    assert writes == sorted(writes) and faults == sorted(faults)
    # the grandchild's 4 MiB stay counted after it exited, once: Linux folds them into the child's
    # /proc/PID/io when the child reaps it; then the child's own 1 MiB too, after it exited
    assert 5 << 20 <= writes[-1] < 6 << 20
    assert samples[-1].values["nprocs"] == 0.0


def test_unreadable_child_is_unavailable():
    gone = subprocess.Popen(["true"])
    gone.wait()
    sampler = ProcSampler(0.1)
    sampler.start(gone.pid)
    sampler.stop()
    assert sampler.info() == {
        "name": "psutil", "available": False,
        "reason": f"cannot read /proc/{gone.pid}/stat (needs Linux /proc; or the child exited before sampling began)",
    }


def stat_line(pid, comm, ppid, majflt, utime, stime, starttime, rss_pages):
    fields = [pid, f"({comm})", "S", ppid, pid, pid, 0, -1, 4194304, 500, 0, majflt, 0, utime, stime, 0, 0,
              20, 0, 1, 0, starttime, 1 << 30, rss_pages] + [0] * 28
    return " ".join(str(f) for f in fields) + "\n"


def io_text(read_bytes, write_bytes):
    return (f"rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: {read_bytes}\nwrite_bytes: {write_bytes}\n"
            f"cancelled_write_bytes: 0\n")


# Regular files stand in for procfs. The sampler keeps them open and re-reads them, so a counter moving on
# is a same-size rewrite in place, and a process that is gone is an empty file (procfs answers ESRCH).
SIZE = 1024


def put(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        os.pwrite(fd, text.encode().ljust(SIZE), 0)
    finally:
        os.close(fd)


def put_process(root, pid, ppid, comm, majflt, read_bytes, write_bytes, rss_pages):
    # stat last: the tree scan finds a process by its stat, and procfs shows all its files at once
    put(root / str(pid) / "io", io_text(read_bytes, write_bytes))
    put(root / str(pid) / "task" / str(pid) / "stat", stat_line(pid, comm, ppid, majflt, 10, 5, 777, rss_pages))
    put(root / str(pid) / "task" / str(pid) / "schedstat", "150000000 50000000 3\n")  # ran 0.15 s, waited 0.05 s
    put(root / str(pid) / "stat", stat_line(pid, comm, ppid, majflt, 10, 5, 777, rss_pages))


def vanish(root, pid):
    for name in ("stat", "io", f"task/{pid}/stat", f"task/{pid}/schedstat"):
        os.truncate(root / str(pid) / name, 0)
    shutil.rmtree(root / str(pid))


def wait_for_sample(sampler, predicate, after_ns=0, timeout_s=5.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = [s for s in sampler.samples() if s.t_ns > after_ns and predicate(s.values)]
        if found:
            return found[-1]
        time.sleep(0.005)
    raise AssertionError("timed out")


def test_exact_counters_on_a_hand_made_proc(tmp_path):
    root = tmp_path / "proc"
    put_process(root, 1, 0, "init", 9, 9, 9, 9)  # not ours
    put_process(root, 100, 1, "llama server", majflt=7, read_bytes=1000, write_bytes=10, rss_pages=256)
    sampler = ProcSampler(0.01, proc_root=str(root), tree_refresh_s=0.01)
    sampler.start(100)
    first = wait_for_sample(sampler, lambda v: True)
    assert dict(first.values) == {
        "cpu_pct": None, "rss_mib": 256 * PAGE / 1048576, "disk_read_bytes_total": 1000.0,
        "disk_write_bytes_total": 10.0, "major_faults_total": 7.0, "nprocs": 1.0, "busiest_thread_pct": None,
        "cpu_s_total": 15 / os.sysconf("SC_CLK_TCK"),  # utime 10 + stime 5 ticks
        "cpu_sys_s_total": 5 / os.sysconf("SC_CLK_TCK"),
    }
    # right after a boundary the counters are read once more, alone: the CPU figures stay on the tick grid;
    # per thread, schedstat's run and wait time since launch (no boundary reading before this one)
    put(root / "100" / "io", io_text(3000, 10))
    sampler.notify("ready")
    at_ready = wait_for_sample(sampler, lambda v: "nprocs" not in v, first.t_ns)
    assert dict(at_ready.values) == {"disk_read_bytes_total": 3000.0, "disk_write_bytes_total": 10.0,
                                     "major_faults_total": 7.0, "cpu_s_total": 15 / os.sysconf("SC_CLK_TCK"),
                                     "cpu_sys_s_total": 5 / os.sysconf("SC_CLK_TCK"),
                                     "busiest_thread_cpu_s": 0.15, "busiest_thread_demand_s": 0.2}
    put(root / "100" / "task" / "100" / "schedstat", "450000000 60000000 9\n")
    sampler.notify("first_token")  # the next boundary reading covers the time since this one
    second = wait_for_sample(sampler, lambda v: "nprocs" not in v, at_ready.t_ns)
    assert (second.values["busiest_thread_cpu_s"], second.values["busiest_thread_demand_s"]) == (0.3, 0.31)
    put(root / "100" / "io", io_text(1000, 10))  # a zombie's counters: the totals must not step back
    time.sleep(0.05)
    assert all(s.values["disk_read_bytes_total"] == 3000.0 for s in sampler.samples() if s.t_ns > at_ready.t_ns)
    # a worker appears under the server, reads a lot, then exits
    put_process(root, 200, 100, "worker", majflt=3, read_bytes=5000, write_bytes=0, rss_pages=512)
    both = wait_for_sample(sampler, lambda v: v.get("nprocs") == 2.0, at_ready.t_ns)
    assert both.values["disk_read_bytes_total"] == 8000.0
    assert both.values["rss_mib"] == 768 * PAGE / 1048576
    assert both.values["cpu_pct"] in (0.0, None)  # no tick moved; None on the tick it first appears
    put(root / "100" / "io", io_text(8000, 10))  # the server reaps it: Linux adds its I/O to the server's
    vanish(root, 200)
    after = wait_for_sample(sampler, lambda v: v.get("nprocs") == 1.0 and v["cpu_pct"] is not None, both.t_ns)
    sampler.stop()
    assert after.values["disk_read_bytes_total"] == 8000.0  # the worker's reads, counted once
    assert after.values["major_faults_total"] == 10.0  # faults are not folded into the parent: kept from the worker
    assert after.values["rss_mib"] == 256 * PAGE / 1048576
    assert after.values["cpu_pct"] == 0.0
    vanished = [s for s in sampler.samples() if s.values.get("nprocs") == 1.0 and s.t_ns > both.t_ns]
    assert vanished[0].values["cpu_pct"] is None  # the tick that found it gone: its last slice is unknown
