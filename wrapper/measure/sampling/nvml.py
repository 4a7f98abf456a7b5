"""GPU readings through NVML (the ``pynvml`` module of nvidia-ml-py), in-process on a deadline thread.

Every driver call goes through one choke point, ``_Nvml.call``: an error becomes ``None``, is logged once
per function and GPU, and a function the driver does not support there is not called again.

Per tick and GPU (each call 1-12 us on an H200): utilization, memory, power, SM/memory clocks, temperature.
Every ``proc_every`` ticks: the compute processes, for the GPU memory of the child's process tree (a
process belongs to it when its parent chain reaches the child; NVML reports host PIDs, so inside a
container with its own PID namespace nothing matches and ``proc_vram_mib`` is 0). The energy counter
(~4 ms a call) is read only at start, right after each ``notify()`` and at stop (unless a boundary read it
since the last tick), as samples holding just ``energy_mj``, stamped at the middle of the read. The counter's
update period is measured once per GPU and process on a side thread at start (``energy_probe.measure_update_period``:
a read every 5 ms for at most 0.5 s) and reported in ``info()``. PCIe throughput (~21 ms a call) is never read.
"""
from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import Callable, Optional

from . import energy_probe
from ...model.events import Sample
from .loops import ErrorLog, SamplerUnavailable, ThreadedSampler

SOURCE = "nvml"
_MIB = 1048576
# Errors after which a function is not called again for that GPU (the answer will not change).
_PERMANENT = ("NVML_ERROR_NOT_SUPPORTED", "NVML_ERROR_FUNCTION_NOT_FOUND")

# Single-valued per-tick metrics: (values key, NVML function, constant names passed after the handle, scale)
_TICK_METRICS = (
    ("power_w", "nvmlDeviceGetPowerUsage", (), 1e-3),  # mW
    ("sm_clock_mhz", "nvmlDeviceGetClockInfo", ("NVML_CLOCK_SM",), 1.0),
    ("mem_clock_mhz", "nvmlDeviceGetClockInfo", ("NVML_CLOCK_MEM",), 1.0),
    ("temp_c", "nvmlDeviceGetTemperature", ("NVML_TEMPERATURE_GPU",), 1.0),
)


# (id(module), GPU uuid) → (module, period_s, reason): one probe per GPU and process (the module is kept so that
# its id is never reused by another object while the entry exists)
_PERIODS: dict = {}
_PERIODS_LOCK = threading.Lock()


_LIBRARY = "libnvidia-ml.so.1"
_DEVICE_NODES = ("/dev/nvidiactl", "/dev/dxg")  # the NVIDIA driver's control node; WSL2's GPU node
_DEFAULT_LIB_DIRS = ("/lib", "/usr/lib", "/lib64", "/usr/lib64")


def no_driver_here() -> bool:
    """True only when NVML surely cannot start: no NVIDIA device node and no ``libnvidia-ml.so.1`` where the
    dynamic loader looks (its cache, ``LD_LIBRARY_PATH``, the default directories).

    This spares a machine without a GPU the import of pynvml (~8 ms of every run's start-up); anything unsure
    (an unreadable loader cache, a device node present) answers False and NVML itself decides.
    """
    if any(os.path.exists(node) for node in _DEVICE_NODES):
        return False
    try:
        with open("/etc/ld.so.cache", "rb") as fh:
            if _LIBRARY.encode() in fh.read():
                return False
    except OSError:
        return False
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d] + list(_DEFAULT_LIB_DIRS)
    return not any(os.path.exists(os.path.join(d, _LIBRARY)) for d in dirs)


NOT_FOUND = "NVML: libnvidia-ml.so.1 not found (no NVIDIA driver here?)"


def _load(nvml_module):
    if nvml_module is not None:
        return nvml_module
    if no_driver_here():
        raise SamplerUnavailable(NOT_FOUND)
    try:
        import pynvml
    except ImportError:
        raise SamplerUnavailable("NVML: nvidia-ml-py is not installed (pip install nvidia-ml-py)") from None
    return pynvml


def _init_reason(module, error: Exception) -> str:
    if getattr(error, "value", None) == getattr(module, "NVML_ERROR_LIBRARY_NOT_FOUND", object()):
        return NOT_FOUND
    return f"NVML: init failed: {error}"


class _Nvml:
    """The choke point: every driver call of this package goes through ``call``."""

    def __init__(self, module, errors: ErrorLog):
        self.m = module
        self._errors = errors
        self._permanent = {getattr(module, n, None) for n in _PERMANENT} - {None}
        self._dead: set[tuple[str, str]] = set()
        self.last_error: Optional[str] = None  # "func: why" of the last call that failed

    def call(self, func: str, *args, gpu: str = "", log: bool = True):
        """``module.func(*args)``, or ``None`` when it fails (logged once per function and GPU unless
        ``log`` is false: a probe whose failure only picks a fallback; ``last_error`` says why)."""
        if (func, gpu) in self._dead:
            return None
        fn = getattr(self.m, func, None)
        if fn is None:
            self._dead.add((func, gpu))
            self.last_error = f"{func}: not in this nvidia-ml-py"
            self._errors.record(func, f"{func}: not in this nvidia-ml-py; its metric is not available")
            return None
        try:
            return fn(*args)
        except Exception as e:
            if getattr(e, "value", None) in self._permanent:
                self._dead.add((func, gpu))
            self.last_error = f"{func}: {e}"
            if log:
                self._errors.record(f"{func}({gpu})", f"{func}({gpu}): {e}")
            return None


class NvmlSampler(ThreadedSampler):
    """Every GPU through NVML; device ``gpu0``, ``gpu1``, ... (NVML index order).

    NVML is initialized here (so ``make_samplers`` can fall back when it is unavailable) and shut down in
    ``stop()``. values: ``gpu_util_pct``, ``mem_util_pct`` (the driver's own averages over its sample
    period), ``vram_used_mib``, ``vram_total_mib`` (the v2 memory query where there is one: "used" without the
    driver's reserved memory, as nvidia-smi shows it), ``power_w``, ``sm_clock_mhz``, ``mem_clock_mhz``,
    ``temp_c``, ``proc_vram_mib`` (on process ticks) and ``energy_mj`` (on boundary samples).
    """

    name = SOURCE
    wants_boundaries = True

    def __init__(
        self,
        interval_s: float = 0.1,
        *,
        nvml_module=None,
        clock: Callable[[], int] = time.monotonic_ns,
        proc_every: int = 5,
        energy_probe_s: float = energy_probe.PROBE_MAX_S,
    ):
        super().__init__(interval_s, clock)
        self._probe_s = energy_probe_s
        self._probe: Optional[threading.Thread] = None
        self._period: tuple = (None, "not measured (energy_probe_s=0)")
        self._proc_every = max(1, proc_every)
        self._nvml: Optional[_Nvml] = None
        self._gpus: list[tuple[str, object]] = []
        self._gpu_info: list[dict] = []
        self._memory_version = None
        self._root_pid: Optional[int] = None
        self._in_tree: dict[int, bool] = {}
        self._child_gpus: set[str] = set()
        self._n = 0
        self._energy_fresh = False
        self._driver: Optional[str] = None
        try:
            self._setup(_load(nvml_module))
        except SamplerUnavailable as e:
            self._reason = str(e)
        except Exception as e:  # a binding too old or too odd to use: data, not a crash
            self._reason = f"NVML: cannot use this nvidia-ml-py: {e!r}"
            self._close()

    def _setup(self, module) -> None:
        try:  # outside the choke point: its error is the reason the sampler is unavailable
            module.nvmlInit()
        except Exception as e:
            raise SamplerUnavailable(_init_reason(module, e)) from None
        nvml = self._nvml = _Nvml(module, self._errors)
        count = nvml.call("nvmlDeviceGetCount")
        if not count:
            nvml.call("nvmlShutdown")
            self._nvml = None
            raise SamplerUnavailable("NVML: no GPU found" if count == 0 else "NVML: cannot count GPUs")
        self._driver = _text(nvml.call("nvmlSystemGetDriverVersion"))
        for i in range(count):
            gpu = f"gpu{i}"
            handle = nvml.call("nvmlDeviceGetHandleByIndex", i, gpu=gpu)
            if handle is None:
                continue
            self._gpus.append((gpu, handle))
            self._gpu_info.append({
                "device": gpu,
                "name": _text(nvml.call("nvmlDeviceGetName", handle, gpu=gpu)),
                "uuid": _text(nvml.call("nvmlDeviceGetUUID", handle, gpu=gpu)),
            })
        if not self._gpus:
            raise SamplerUnavailable("NVML: no GPU handle could be opened")
        # The v2 memory query matches nvidia-smi's "used"; older drivers and bindings only have v1.
        v2 = getattr(module, "nvmlMemory_v2", None)
        gpu, handle = self._gpus[0]
        if v2 is not None and nvml.call("nvmlDeviceGetMemoryInfo", handle, v2, gpu=gpu, log=False) is not None:
            self._memory_version = v2
        self._tick_calls = [
            (key, func, tuple(getattr(module, c) for c in consts), scale)
            for key, func, consts, scale in _TICK_METRICS
        ]

    # -- ThreadedSampler hooks -------------------------------------------------------------------
    def _open(self, pid: int) -> None:
        self._root_pid = pid
        self._boundaries.append("start")  # the thread reads the energy counter first thing
        if self._probe_s > 0:
            self._probe = threading.Thread(target=self._probe_period, name="phasewrap-nvml-energy", daemon=True)
            self._probe.start()

    def _tick(self) -> list[Sample]:
        nvml = self._nvml
        read_procs = self._n % self._proc_every == 0
        self._n += 1
        out = []
        for gpu, handle in self._gpus:
            values: dict[str, Optional[float]] = {}
            util = nvml.call("nvmlDeviceGetUtilizationRates", handle, gpu=gpu)
            values["gpu_util_pct"] = None if util is None else float(util.gpu)
            values["mem_util_pct"] = None if util is None else float(util.memory)
            if self._memory_version is not None:
                mem = nvml.call("nvmlDeviceGetMemoryInfo", handle, self._memory_version, gpu=gpu)
            else:
                mem = nvml.call("nvmlDeviceGetMemoryInfo", handle, gpu=gpu)
            values["vram_used_mib"] = None if mem is None else mem.used / _MIB
            values["vram_total_mib"] = None if mem is None else mem.total / _MIB
            for key, func, consts, scale in self._tick_calls:
                raw = nvml.call(func, handle, *consts, gpu=gpu)
                values[key] = None if raw is None else raw * scale
            if read_procs:
                values["proc_vram_mib"] = self._tree_vram_mib(gpu, handle)
            out.append(Sample(self._clock(), SOURCE, gpu, values))
        self._energy_fresh = False
        return out

    def _on_boundaries(self, names: list[str]) -> None:
        self._read_energy()
        self._energy_fresh = True

    def _finish(self) -> None:
        if not self._energy_fresh:  # the "exit" boundary usually has just read it
            self._read_energy()
        if self._probe is not None:
            self._probe.join(self._probe_s + 1.0)  # bounded by the probe's own limit; NVML shuts down after this

    def _close(self) -> None:
        if self._nvml is not None:
            self._nvml.call("nvmlShutdown")
            self._nvml = None

    def _extra_info(self) -> dict:
        return {
            "driver": self._driver,
            "gpus": self._gpu_info,
            "child_gpus": sorted(self._child_gpus, key=lambda g: int(g[3:])),
            "memory_query": "v2" if self._memory_version is not None else "v1",
            "proc_every_ticks": self._proc_every,
            "energy_update_period_s": self._period[0],
            "energy_update_period_reason": self._period[1],
        }

    # -- helpers ---------------------------------------------------------------------------------
    def _probe_period(self) -> None:
        """The first GPU's energy-counter update period, measured once per process (side thread, bounded)."""
        gpu, handle = self._gpus[0]
        key = (id(self._nvml.m), self._gpu_info[0]["uuid"] or gpu)
        with _PERIODS_LOCK:
            known = _PERIODS.get(key)
            if known is None:
                def read():
                    return self._nvml.call("nvmlDeviceGetTotalEnergyConsumption", handle, gpu=gpu, log=False)

                try:
                    period = energy_probe.measure_update_period(read, clock=self._clock, max_s=self._probe_s)
                except Exception as e:  # a background thread never kills the run
                    period = (None, f"measuring the energy counter's update period failed: {e!r}")
                known = _PERIODS[key] = (self._nvml.m, *period)
        self._period = known[1:]

    def _read_energy(self) -> None:
        for gpu, handle in self._gpus:
            t0 = self._clock()
            mj = self._nvml.call("nvmlDeviceGetTotalEnergyConsumption", handle, gpu=gpu)
            t1 = self._clock()
            if mj is not None:
                self._samples.append(Sample((t0 + t1) // 2, SOURCE, gpu, {"energy_mj": float(mj)}))

    def _tree_vram_mib(self, gpu: str, handle) -> Optional[float]:
        procs = self._nvml.call("nvmlDeviceGetComputeRunningProcesses", handle, gpu=gpu)
        if procs is None:
            return None
        total = 0
        for p in procs:
            if not self._belongs(p.pid):
                continue
            if p.usedGpuMemory is None:  # not available (e.g. WDDM): the sum would be a guess
                return None
            total += p.usedGpuMemory
        if total:
            self._child_gpus.add(gpu)
        return total / _MIB

    def _belongs(self, pid: int) -> bool:
        """Whether ``pid`` is the child or a descendant; answers are cached (a few new PIDs per run)."""
        known = self._in_tree.get(pid)
        if known is not None:
            return known
        self._in_tree[pid] = _descends(pid, self._root_pid)
        return self._in_tree[pid]


def _descends(pid: int, root: Optional[int]) -> bool:
    import psutil

    seen = 0
    while pid > 1 and seen < 64:
        if pid == root:
            return True
        try:
            pid = psutil.Process(pid).ppid()
        except psutil.Error:
            return False
        seen += 1
    return False


def _text(value) -> Optional[str]:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return value


@contextlib.contextmanager
def session(nvml_module=None, log: bool = True):
    """NVML opened for one query behind the choke point, shut down after: yields ``(_Nvml, None)``, or
    ``(None, why)`` when NVML can't start (no driver, no nvidia-ml-py, init failed). ``log``: driver errors are
    logged once (False: a probe, whose failures only leave figures None)."""
    try:
        module = _load(nvml_module)
    except SamplerUnavailable as e:
        yield None, str(e)
        return
    try:
        module.nvmlInit()
    except Exception as e:
        yield None, _init_reason(module, e)
        return
    nvml = _Nvml(module, ErrorLog("nvml"))
    try:
        yield nvml, None
    finally:
        nvml.call("nvmlShutdown", log=log)


def busy_gpu_processes(nvml_module=None) -> Optional[list[dict]]:
    """Processes holding GPU memory right now, for an idle-GPU check before launch.

    Returns ``[{"device": "gpu0", "pid": 789, "name": "python3" or None, "vram_mib": 4334.0 or None}]``
    (empty when every GPU is idle), or ``None`` when NVML cannot tell.
    """
    with session(nvml_module) as (nvml, _why):
        return None if nvml is None else _busy(nvml)


def _busy(nvml: _Nvml) -> Optional[list[dict]]:
    count = nvml.call("nvmlDeviceGetCount")
    if count is None:
        return None
    found = []
    for i in range(count):
        gpu = f"gpu{i}"
        handle = nvml.call("nvmlDeviceGetHandleByIndex", i, gpu=gpu)
        procs = None if handle is None else nvml.call("nvmlDeviceGetComputeRunningProcesses", handle, gpu=gpu)
        if procs is None:
            return None
        for p in procs:
            import psutil  # only when there is something to name: it costs ~20 ms of start-up

            try:
                name = psutil.Process(p.pid).name()
            except psutil.Error:
                name = None  # another PID namespace, or already gone
            vram = None if p.usedGpuMemory is None else p.usedGpuMemory / _MIB
            found.append({"device": gpu, "pid": p.pid, "name": name, "vram_mib": vram})
    return found


def gpu_links(nvml_module=None) -> Optional[list[dict]]:
    """Each GPU's memory and PCIe link for the hardware peaks: ``[{"device", "name", "uuid", "mem_clock_max_mhz",
    "bus_width_bits", "pcie_max": (gen, width), "pcie_current": (gen, width)}]`` (a value NVML can't give is
    None); ``None`` when NVML is not available."""
    with session(nvml_module) as (nvml, _why):
        return None if nvml is None else _links(nvml)


def _links(nvml: _Nvml) -> list[dict]:
    found = []
    for i in range(nvml.call("nvmlDeviceGetCount") or 0):
        gpu = f"gpu{i}"
        h = nvml.call("nvmlDeviceGetHandleByIndex", i, gpu=gpu)
        if h is None:
            continue

        def q(func, *args, h=h, gpu=gpu):  # a probe: a missing function just leaves its figure None
            return nvml.call(func, h, *args, gpu=gpu, log=False)

        found.append({
            "device": gpu, "name": _text(q("nvmlDeviceGetName")), "uuid": _text(q("nvmlDeviceGetUUID")),
            "mem_clock_max_mhz": q("nvmlDeviceGetMaxClockInfo", getattr(nvml.m, "NVML_CLOCK_MEM", 2)),
            "bus_width_bits": q("nvmlDeviceGetMemoryBusWidth"),
            "pcie_max": (q("nvmlDeviceGetMaxPcieLinkGeneration"), q("nvmlDeviceGetMaxPcieLinkWidth")),
            "pcie_current": (q("nvmlDeviceGetCurrPcieLinkGeneration"), q("nvmlDeviceGetCurrPcieLinkWidth")),
        })
    return found

