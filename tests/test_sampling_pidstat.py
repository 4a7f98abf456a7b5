"""The pidstat sampler on a real child, with the real sysstat pidstat (skipped where it is not installed)."""
import shutil
import subprocess
import sys
import time

import pytest

from wrapper.measure.sampling import PidstatSampler

pytestmark = pytest.mark.skipif(shutil.which("pidstat") is None, reason="pidstat not installed (apt-get install sysstat)")

BURN_THEN_SLEEP = """\
import threading, time
def burn():
    w, c = time.monotonic(), time.thread_time()
    while time.monotonic() - w < 2.2:
        pass
    print((time.thread_time() - c) / (time.monotonic() - w) * 100, flush=True)
threading.Thread(target=burn).start()
time.sleep(4.5)
"""


def test_pidstat_reads_a_real_child_and_its_threads():
    sampler = PidstatSampler()
    child = subprocess.Popen([sys.executable, "-c", BURN_THEN_SLEEP], stdout=subprocess.PIPE, text=True)
    sampler.start(child.pid)
    burned_pct = float(child.stdout.readline())  # what the burning thread itself got of a core
    child.wait()
    time.sleep(1.2)  # pidstat notices the exit at its next report and ends by itself
    sampler.stop()
    samples = sampler.samples()
    origin, reports = samples[0], samples[1:]
    assert set(origin.values) == {"disk_read_bytes_total", "disk_write_bytes_total", "major_faults_total"}
    assert len(reports) >= 3
    assert {(s.source, s.device) for s in samples} == {("pidstat", "proc")}
    assert [s.t_ns for s in samples] == sorted(s.t_ns for s in samples)
    # the burning thread (not the main one) is the busiest; loose bounds, the machine is shared
    assert max(s.values["busiest_thread_pct"] for s in reports) > burned_pct - 35
    assert max(s.values["cpu_pct"] for s in reports) >= max(s.values["busiest_thread_pct"] for s in reports) - 2
    assert min(s.values["cpu_pct"] for s in reports) < 10
    assert all(s.values["nprocs"] == 1.0 for s in reports)
    # reports stamp the end of their second: each lies within the run, in whole seconds apart
    gaps = {round((b.t_ns - a.t_ns) / 1e9) for a, b in zip(reports, reports[1:])}
    assert gaps <= {1, 2}
    info = sampler.info()
    assert info["available"] is True and info["resolution_s"] == 1.0
    assert info["command"][1:] == ["-h", "-H", "-u", "-r", "-d", "-t", "-p", str(child.pid), "1"]
    assert info["errors"] == {}
    assert info["returncode"] == 0  # it ended by itself when the child was gone
