"""Choosing samplers, unavailability as data, the deadline thread, and the dmon sampler's process handling."""
import ctypes
import os
import shutil
import signal
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from wrapper.model.events import Sample
from wrapper.measure.sampling import DmonSampler, PidstatSampler, ProcSampler, UnavailableSampler, make_samplers
from wrapper.measure.sampling.loops import ThreadedSampler

from .conftest import poll

H200 = Path(__file__).parent / "fixtures" / "h200"



def _exited() -> bool:
    """Every child of this process has exited (zombies until the sampler reaps them on stop)."""
    try:
        children = psutil.Process().children()
        return bool(children) and all(c.status() == psutil.STATUS_ZOMBIE for c in children)
    except psutil.NoSuchProcess:
        return False


class NoDriver:
    """A pynvml whose library cannot be loaded, as on this GPU-less machine."""

    NVML_ERROR_LIBRARY_NOT_FOUND = 12

    class NVMLError(Exception):
        pass

    def nvmlInit(self):
        error = self.NVMLError("NVML Shared Library Not Found")
        error.value = 12
        raise error


def nothing_on_path(name):
    return None


def has_nvidia_driver():
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
        return True
    except OSError:
        return False


def test_gpu_less_machine_gets_an_unavailable_gpu_sampler_with_both_reasons():
    gpu, cpu = make_samplers(nvml_module=NoDriver(), which=nothing_on_path)
    assert isinstance(gpu, UnavailableSampler)
    assert gpu.info() == {
        "name": "gpu", "available": False,
        "reason": "NVML: libnvidia-ml.so.1 not found (no NVIDIA driver here?); nvidia-smi: not on PATH",
    }
    assert isinstance(cpu, ProcSampler) and cpu.info()["available"] is True
    gpu.start(os.getpid())
    gpu.notify("ready")
    gpu.stop()
    assert gpu.samples() == []


@pytest.mark.skipif(has_nvidia_driver(), reason="this machine has an NVIDIA driver")
def test_real_pynvml_here_reports_the_missing_library():
    gpu, _ = make_samplers(which=nothing_on_path)
    assert gpu.info()["available"] is False
    assert gpu.info()["reason"].startswith("NVML: libnvidia-ml.so.1 not found")


def test_auto_falls_back_to_dmon_when_nvidia_smi_is_on_path():
    gpu, _ = make_samplers(nvml_module=NoDriver(), which=lambda name: f"/usr/bin/{name}")
    assert isinstance(gpu, DmonSampler)
    assert gpu.info()["available"] is True and gpu.info()["resolution_s"] == 1.0


def test_explicit_choices_and_off():
    gpu, cpu = make_samplers(gpu="nvml", cpu="pidstat", nvml_module=NoDriver(), which=nothing_on_path)
    assert gpu.info()["reason"] == "NVML: libnvidia-ml.so.1 not found (no NVIDIA driver here?)"
    assert isinstance(cpu, PidstatSampler)
    assert cpu.info() == {
        "name": "pidstat", "available": False,
        "reason": "pidstat: not on PATH (it comes with sysstat: apt-get install sysstat)",
    }
    gpu, cpu = make_samplers(gpu="off", cpu="off")
    assert gpu.info() == {"name": "gpu", "available": False, "reason": "turned off (gpu='off')"}
    assert cpu.info() == {"name": "cpu", "available": False, "reason": "turned off (cpu='off')"}
    gpu, _ = make_samplers(gpu="dmon", which=nothing_on_path)
    assert gpu.info() == {"name": "dmon", "available": False, "reason": "nvidia-smi: not on PATH"}


@pytest.mark.parametrize("kwargs,message", [
    ({"gpu": "cuda"}, "gpu: expected one of auto, nvml, dmon, off, got 'cuda'"),
    ({"cpu": "top"}, "cpu: expected one of auto, psutil, pidstat, off, got 'top'"),
    ({"interval_s": 0}, "interval_s: must be a positive number of seconds, got 0"),
])
def test_bad_choices_name_the_input(kwargs, message):
    with pytest.raises(ValueError) as e:
        make_samplers(**kwargs)
    assert str(e.value) == message


class Flaky(ThreadedSampler):
    """Every third tick raises; the others record the tick number."""

    name = "flaky"

    def _open(self, pid):
        self.n = 0

    def _tick(self):
        self.n += 1
        if self.n % 3 == 0:
            raise RuntimeError("device fell off the bus")
        return [Sample(self._clock(), self.name, "x", {"n": float(self.n)})]


def test_a_failing_tick_is_recorded_once_and_the_thread_goes_on():
    sampler = Flaky(0.005, time.monotonic_ns)
    sampler.start(os.getpid())
    deadline = time.monotonic() + 5
    while len(sampler.samples()) < 8 and time.monotonic() < deadline:
        time.sleep(0.005)
    sampler.stop()
    sampler.stop()
    values = [s.values["n"] for s in sampler.samples()]
    assert len(values) >= 8 and all(v % 3 for v in values)
    info = sampler.info()
    (error,) = info["errors"].values()
    assert error["message"] == "tick failed: RuntimeError('device fell off the bus')"
    assert error["count"] == info["ticks"] // 3
    times = [s.t_ns for s in sampler.samples()]
    assert times == sorted(times)


def test_ticks_stay_on_the_absolute_grid():
    sampler = Flaky(0.02, time.monotonic_ns)
    t_start = time.monotonic()
    sampler.start(os.getpid())
    assert poll(lambda: sampler.info()["ticks"] + sampler.info()["late_ticks"] >= 25, 10)
    sampler.stop()
    elapsed = time.monotonic() - t_start
    info = sampler.info()
    # every 20 ms grid point passed is a tick or a late (skipped) tick, however starved the thread was: a
    # slow tick never shifts the grid. One point either side for the start and the stop.
    assert abs(info["ticks"] + info["late_ticks"] - elapsed / 0.02) <= 2, (info, elapsed)


def test_a_sampler_that_cannot_open_is_unavailable():
    class Refuses(Flaky):
        def _open(self, pid):
            raise OSError("no /proc here")

    sampler = Refuses(0.01, time.monotonic_ns)
    sampler.start(1)
    sampler.stop()
    assert sampler.info() == {"name": "flaky", "available": False, "reason": "could not start: OSError('no /proc here')"}


FAKE_DMON = """\
    #!{python}
    # Prints dmon's header and one line per 0.1 s with the current local date/time, until SIGINT.
    import signal, sys, time
    assert sys.argv[1:] == ["dmon", "-s", "pucvmet", "-o", "DT", "-d", "1"], sys.argv
    header = open({header!r}).read().splitlines()[:2]
    print(header[0]); print(header[1], flush=True)
    signal.signal(signal.SIGINT, lambda *a: sys.exit(0))
    for n in range(50):
        stamp = time.strftime("%Y%m%d    %H:%M:%S")
        print(f" {{stamp}}       0    {{100 + n}}     34     33      5      1      0      0      0      0   3201   1980      0      0   9313   9314      0      0      0      0      2      2", flush=True)
        time.sleep(0.1)
"""


def fake_tool(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    path.chmod(0o755)
    return str(path)


def test_dmon_sampler_runs_the_tool_and_places_its_lines_on_the_monotonic_clock(tmp_path):
    script = fake_tool(tmp_path, "nvidia-smi", FAKE_DMON.format(python=sys.executable, header=str(H200 / "dmon-pucvmet-DT.txt")))
    sampler = DmonSampler(which={"nvidia-smi": script, "stdbuf": shutil.which("stdbuf")}.get)
    sampler.start(os.getpid())
    deadline = time.monotonic() + 10
    while len(sampler.samples()) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    now = time.monotonic_ns()
    sampler.stop()
    samples = sampler.samples()
    assert len(samples) >= 3
    assert [s.values["power_w"] for s in samples] == [100.0 + n for n in range(len(samples))]
    assert dict(samples[0].values) == {
        "gpu_util_pct": 5.0, "mem_util_pct": 1.0, "vram_used_mib": 9313.0, "power_w": 100.0,
        "sm_clock_mhz": 1980.0, "mem_clock_mhz": 3201.0, "temp_c": 34.0,
    }
    # the line's local time, whole seconds, maps to at most ~1 s before it was read
    assert all(now - 2_000_000_000 < s.t_ns <= now for s in samples)
    info = sampler.info()
    assert info["returncode"] == 0  # it took SIGINT and exited cleanly
    assert info["command"][-8:] == [script, "dmon", "-s", "pucvmet", "-o", "DT", "-d", "1"]
    assert info["errors"] == {} and info["lines_skipped"] == 0


def test_a_tool_that_fails_at_once_is_unavailable_with_its_message(tmp_path):
    script = fake_tool(tmp_path, "nvidia-smi", f"""\
        #!{sys.executable}
        import sys
        print("Failed to initialize NVML: Driver/library version mismatch", file=sys.stderr)
        sys.exit(9)
        """)
    sampler = DmonSampler(which={"nvidia-smi": script}.get)
    sampler.start(os.getpid())
    assert poll(_exited, 10)  # the tool failed on its own, before any stop signal
    sampler.stop()
    assert sampler.info() == {
        "name": "dmon", "available": False,
        "reason": "nvidia-smi exited with status 9: Failed to initialize NVML: Driver/library version mismatch",
    }


def test_a_tool_that_ignores_its_stop_signal_is_killed(tmp_path):
    script = fake_tool(tmp_path, "nvidia-smi", f"""\
        #!{sys.executable}
        import signal, time
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("#Date Time gpu pwr", flush=True)
        time.sleep(60)
        """)
    sampler = DmonSampler(which={"nvidia-smi": script}.get)
    sampler.start(os.getpid())
    assert poll(lambda: sampler.info()["lines"] >= 1, 10)  # its header is out: SIGINT is ignored by now
    t0 = time.monotonic()
    sampler.stop()
    assert time.monotonic() - t0 < 5
    assert sampler.info()["returncode"] == -signal.SIGKILL
