"""The NVML sampler against a small fake pynvml with the same call surface, fed the H200 capture's values."""
import ast
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from wrapper.derive.aggregate import aggregate
from wrapper.measure.sampling import NvmlSampler, ProcSampler, busy_gpu_processes, make_samplers

H200 = Path(__file__).parent / "fixtures" / "h200"
BUSY = json.loads((H200 / "nvml-busy.json").read_text())  # while another process held 4 GB
IDLE = json.loads((H200 / "nvml-idle.json").read_text())
MIB = 1048576


def captured(call, capture=BUSY):
    return ast.literal_eval(capture["calls"][call]["value"])


class FakeNVMLError(Exception):
    def __init__(self, value, text):
        super().__init__(text)
        self.value = value


class FakePynvml:
    """What the sampler calls of pynvml, answering with the values an H200 gave while 4 GB were held.

    ``procs`` are (pid, bytes) pairs; ``fail`` maps a function name to the NVML error code it raises;
    the energy counter advances ``energy_step_mj`` per read; ``calls`` counts every call.
    """

    NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU = 1, 2, 0
    NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND = 3, 13
    NVML_ERROR_LIBRARY_NOT_FOUND, NVML_ERROR_UNKNOWN = 12, 999
    nvmlMemory_v2 = 0x02000028
    NVMLError = FakeNVMLError

    def __init__(self, procs=(), fail=None, init_error=None, energy_step_mj=1000, v2=True):
        self.procs = list(procs)
        self.fail = dict(fail or {})
        self.init_error = init_error
        self.energy_mj = captured("energy_mj")
        self.energy_step_mj = energy_step_mj
        self.calls = {}
        if not v2:
            self.nvmlMemory_v2 = None

    def __getattribute__(self, name):
        attr = object.__getattribute__(self, name)
        if name.startswith("nvml") and callable(attr):
            calls = object.__getattribute__(self, "calls")
            fail = object.__getattribute__(self, "fail")

            def counted(*args, **kwargs):
                calls[name] = calls.get(name, 0) + 1
                if name in fail:
                    raise FakeNVMLError(fail[name], {3: "Not Supported", 999: "Unknown Error"}[fail[name]])
                return attr(*args, **kwargs)

            return counted
        return attr

    def nvmlInit(self):
        if self.init_error is not None:
            raise FakeNVMLError(self.init_error, "NVML Shared Library Not Found")

    def nvmlShutdown(self):
        pass

    def nvmlSystemGetDriverVersion(self):
        return BUSY["driver"]

    def nvmlDeviceGetCount(self):
        return BUSY["count"]

    def nvmlDeviceGetHandleByIndex(self, i):
        return ("handle", i)

    def nvmlDeviceGetName(self, handle):
        return captured("name")

    def nvmlDeviceGetUUID(self, handle):
        return captured("uuid")

    def nvmlDeviceGetUtilizationRates(self, handle):
        gpu, memory = captured("utilization")
        return SimpleNamespace(gpu=gpu, memory=memory)

    def nvmlDeviceGetMemoryInfo(self, handle, version=None):
        if version is None:
            total, used, free = captured("memory")
            return SimpleNamespace(total=total, free=free, used=used)
        if version != self.nvmlMemory_v2:
            raise FakeNVMLError(self.NVML_ERROR_FUNCTION_NOT_FOUND, "Function Not Found")
        total, used, free, reserved = captured("memory_v2")
        return SimpleNamespace(version=version, total=total, reserved=reserved, free=free, used=used)

    def nvmlDeviceGetPowerUsage(self, handle):
        return captured("power_mw")

    def nvmlDeviceGetClockInfo(self, handle, clock):
        return captured({self.NVML_CLOCK_SM: "clock_sm", self.NVML_CLOCK_MEM: "clock_mem"}[clock])

    def nvmlDeviceGetTemperature(self, handle, sensor):
        assert sensor == self.NVML_TEMPERATURE_GPU
        return captured("temp")

    def nvmlDeviceGetComputeRunningProcesses(self, handle):
        return [SimpleNamespace(pid=pid, usedGpuMemory=used) for pid, used in self.procs]

    def nvmlDeviceGetTotalEnergyConsumption(self, handle):
        self.energy_mj += self.energy_step_mj
        return self.energy_mj

    def nvmlDeviceGetPcieThroughput(self, handle, counter):
        raise AssertionError("PCIe throughput takes ~21 ms a call and must stay out of sampling")


HELD = captured("compute_procs")[0][1]  # 4544528384 bytes


def test_the_held_memory_is_what_nvidia_smi_showed():
    # compute-apps.txt: "764, python3, 4334 MiB", taken while the same 4 GB were held
    assert (H200 / "compute-apps.txt").read_text().splitlines()[1].endswith(", 4334 MiB")
    assert HELD / MIB == 4334.0
    assert captured("compute_procs", IDLE) == []
TICK_VALUES = {
    "gpu_util_pct": 0.0, "mem_util_pct": 0.0,
    "vram_used_mib": 4553768960 / MIB,  # the v2 "used", as nvidia-smi shows it
    "vram_total_mib": 143771.0, "power_w": 86.556, "sm_clock_mhz": 1980.0, "mem_clock_mhz": 3201.0, "temp_c": 35.0,
}


@pytest.fixture
def family():
    """A real child that starts a grandchild; yields (child, grandchild pid)."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import subprocess,sys,time\n"
         "g = subprocess.Popen(['sleep', '30']); print(g.pid, flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )
    grandchild = int(child.stdout.readline())
    yield child, grandchild
    psutil.Process(grandchild).kill()
    child.kill()
    child.wait()


def wait_for(predicate, timeout_s=5.0):
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_ticks_carry_the_captured_values_and_the_trees_gpu_memory(family):
    child, grandchild = family
    # the grandchild holds the fixture's 4 GB; our own process (the child's parent) holds some too
    fake = FakePynvml(procs=[(grandchild, HELD), (os.getpid(), 7 * MIB)])
    sampler = NvmlSampler(0.02, nvml_module=fake, proc_every=2)
    sampler.start(child.pid)
    wait_for(lambda: len([s for s in sampler.samples() if "gpu_util_pct" in s.values]) >= 6)
    sampler.stop()
    ticks = [s for s in sampler.samples() if "gpu_util_pct" in s.values]
    assert {(s.source, s.device) for s in ticks} == {("nvml", "gpu0")}
    assert [s.t_ns for s in ticks] == sorted(s.t_ns for s in ticks)
    for i, s in enumerate(ticks):
        expected = dict(TICK_VALUES)
        if i % 2 == 0:
            expected["proc_vram_mib"] = 4334.0
        assert dict(s.values) == expected
    info = sampler.info()
    assert info["available"] is True and info["reason"] is None
    assert info["interval_s"] == info["resolution_s"] == 0.02
    assert info["child_gpus"] == ["gpu0"]
    assert info["gpus"] == [{"device": "gpu0", "name": "NVIDIA H200", "uuid": "GPU-9a48c30d-4e93-df4c-5c50-04ae00c11a75"}]
    assert info["driver"] == "580.159.04"
    assert info["memory_query"] == "v2"
    assert info["errors"] == {}
    assert fake.calls["nvmlShutdown"] == 1


def test_energy_is_read_at_start_on_each_boundary_and_at_stop_only(family):
    child, _ = family
    fake = FakePynvml()
    sampler = NvmlSampler(0.05, nvml_module=fake, energy_probe_s=0)  # no update-period probe: exact read counts
    energy = lambda: [s for s in sampler.samples() if "energy_mj" in s.values]  # noqa: E731
    t_launch = time.monotonic_ns()
    sampler.start(child.pid)
    wait_for(lambda: len(energy()) == 1)
    marks = {}
    for n, boundary in enumerate(("ready", "first_token", "last_token"), start=2):
        time.sleep(0.08)
        marks[boundary] = time.monotonic_ns()
        sampler.notify(boundary)
        wait_for(lambda: len(energy()) == n)
    time.sleep(0.05)
    t_exit = time.monotonic_ns()
    sampler.notify("exit")
    sampler.stop()
    sampler.stop()  # idempotent
    readings = energy()
    # start and 4 boundaries; stop reads it again only when a tick came after the "exit" reading
    assert fake.calls["nvmlDeviceGetTotalEnergyConsumption"] == len(readings) in (5, 6)
    start_mj = captured("energy_mj")
    assert [s.values["energy_mj"] for s in readings] == [float(start_mj + 1000 * k) for k in range(1, len(readings) + 1)]
    assert all(set(s.values) == {"energy_mj"} and s.device == "gpu0" for s in readings)
    assert "nvmlDeviceGetPcieThroughput" not in fake.calls
    # each boundary's reading stands for its boundary: one step (1 J) between consecutive boundaries
    windows = {
        "load": (t_launch, marks["ready"]), "ttft": (marks["ready"], marks["first_token"]),
        "decode": (marks["first_token"], marks["last_token"]), "total": (t_launch, t_exit),
    }
    result = aggregate(sampler.samples(), windows, [sampler.info()])
    assert [result[w]["energy_j"] for w in ("load", "ttft", "decode", "total")] == [1.0, 1.0, 1.0, 4.0]
    assert result["total"]["power_mean_w"] == pytest.approx(86.556)
    assert result["samplers"]["nvml"]["available"] is True


def test_stop_reads_the_energy_when_no_boundary_just_did(family):
    child, _ = family
    fake = FakePynvml()
    sampler = NvmlSampler(0.01, nvml_module=fake, energy_probe_s=0)
    sampler.start(child.pid)
    wait_for(lambda: len([s for s in sampler.samples() if "gpu_util_pct" in s.values]) >= 2)
    sampler.stop()
    assert [s.values["energy_mj"] for s in sampler.samples() if "energy_mj" in s.values] == [
        captured("energy_mj") + 1000.0, captured("energy_mj") + 2000.0]


def test_driver_errors_become_none_and_are_logged_once(family, caplog, monkeypatch):
    child, _ = family
    fake = FakePynvml(fail={
        "nvmlDeviceGetTemperature": FakePynvml.NVML_ERROR_NOT_SUPPORTED,   # permanent: asked once
        "nvmlDeviceGetPowerUsage": FakePynvml.NVML_ERROR_UNKNOWN,          # may pass later: asked every tick
        "nvmlDeviceGetTotalEnergyConsumption": FakePynvml.NVML_ERROR_NOT_SUPPORTED,
    })
    sampler = NvmlSampler(0.01, nvml_module=fake)
    monkeypatch.setattr(logging.getLogger("phasewrap"), "propagate", True)  # an in-process CLI run turns it off
    with caplog.at_level(logging.WARNING, logger="phasewrap.sampling"):
        sampler.start(child.pid)
        wait_for(lambda: len(sampler.samples()) >= 5)
        sampler.notify("ready")
        sampler.stop()
    ticks = sampler.samples()
    assert all(s.values["temp_c"] is None and s.values["power_w"] is None for s in ticks)
    assert all(s.values["sm_clock_mhz"] == 1980.0 for s in ticks)
    assert not any("energy_mj" in s.values for s in ticks)
    assert fake.calls["nvmlDeviceGetTemperature"] == 1
    assert fake.calls["nvmlDeviceGetTotalEnergyConsumption"] == 1
    assert fake.calls["nvmlDeviceGetPowerUsage"] == len(ticks)
    errors = sampler.info()["errors"]
    assert errors["nvmlDeviceGetPowerUsage(gpu0)"] == {"message": "nvmlDeviceGetPowerUsage(gpu0): Unknown Error", "count": len(ticks)}
    assert errors["nvmlDeviceGetTemperature(gpu0)"]["count"] == 1
    assert len([r for r in caplog.records if "nvmlDeviceGetPowerUsage" in r.getMessage()]) == 1


def test_memory_falls_back_to_v1_where_the_binding_has_no_v2(family):
    child, _ = family
    sampler = NvmlSampler(0.01, nvml_module=FakePynvml(v2=False))
    sampler.start(child.pid)
    wait_for(lambda: len(sampler.samples()) >= 2)
    sampler.stop()
    tick = next(s for s in sampler.samples() if "vram_used_mib" in s.values)
    assert tick.values["vram_used_mib"] == 5198708736 / MIB  # v1 "used" includes the driver's reserve
    assert sampler.info()["memory_query"] == "v1"


def test_missing_driver_is_a_reason_not_a_crash():
    sampler = NvmlSampler(nvml_module=FakePynvml(init_error=FakePynvml.NVML_ERROR_LIBRARY_NOT_FOUND))
    sampler.start(os.getpid())
    sampler.notify("ready")
    sampler.stop()
    assert sampler.samples() == []
    assert sampler.info() == {
        "name": "nvml", "available": False, "reason": "NVML: libnvidia-ml.so.1 not found (no NVIDIA driver here?)",
    }


def test_without_a_driver_pynvml_is_not_even_imported(tmp_path, monkeypatch):
    from wrapper.measure.sampling import nvml
    monkeypatch.setattr(nvml, "_DEVICE_NODES", (str(tmp_path / "nvidiactl"),))
    monkeypatch.setattr(nvml, "_DEFAULT_LIB_DIRS", (str(tmp_path / "lib"),))
    cache = tmp_path / "ld.so.cache"
    cache.write_bytes(b"ld.so-1.7.0\x00libc.so.6\x00/lib/x86_64-linux-gnu/libc.so.6\x00")
    real_open = open
    monkeypatch.setattr("builtins.open", lambda path, *a, **k: real_open(cache if path == "/etc/ld.so.cache"
                                                                         else path, *a, **k))
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path / "cuda"))
    monkeypatch.setitem(sys.modules, "pynvml", None)  # an import would raise ImportError, a different reason
    assert nvml.no_driver_here()
    sampler = NvmlSampler()
    sampler.start(os.getpid())
    sampler.stop()
    assert sampler.info()["reason"] == "NVML: libnvidia-ml.so.1 not found (no NVIDIA driver here?)"
    # anything that says a driver may be here leaves the decision to NVML itself
    (tmp_path / "cuda").mkdir()
    (tmp_path / "cuda" / "libnvidia-ml.so.1").write_bytes(b"")
    assert not nvml.no_driver_here()
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    assert nvml.no_driver_here()
    cache.write_bytes(b"ld.so-1.7.0\x00libnvidia-ml.so.1\x00/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1\x00")
    assert not nvml.no_driver_here()
    cache.write_bytes(b"")
    (tmp_path / "nvidiactl").write_bytes(b"")
    assert not nvml.no_driver_here()


def test_busy_gpu_processes():
    me = psutil.Process().name()
    busy = busy_gpu_processes(FakePynvml(procs=[(os.getpid(), HELD)]))
    assert busy == [{"device": "gpu0", "pid": os.getpid(), "name": me, "vram_mib": 4334.0}]
    assert busy_gpu_processes(FakePynvml(procs=captured("compute_procs", IDLE))) == []
    assert busy_gpu_processes(FakePynvml(init_error=FakePynvml.NVML_ERROR_LIBRARY_NOT_FOUND)) is None
    failing = FakePynvml(fail={"nvmlDeviceGetComputeRunningProcesses": FakePynvml.NVML_ERROR_UNKNOWN})
    assert busy_gpu_processes(failing) is None


def test_make_samplers_prefers_nvml():
    samplers = make_samplers(nvml_module=FakePynvml(), which=lambda name: None)
    try:
        assert [type(s) for s in samplers] == [NvmlSampler, ProcSampler]
        assert [s.name for s in samplers] == ["nvml", "psutil"]
    finally:
        for s in samplers:
            s.stop()
