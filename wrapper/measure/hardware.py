"""The host's peak rates, for the floors (``derive.limits``): probed once per host and cached, before a run starts.

* ``gpu-memory``: NVML's maximum memory clock × bus width × 2 (double data rate), else a small table of published
  figures keyed by the device name (with the source).
* ``pcie``: NVML's maximum link generation × width → GB/s after encoding (the current link beside it).
* ``cpu-memory``: measured: as many processes as the run has threads (``-t N``), started together, each scanning
  its own buffer (a multiple of the last-level cache in all) with ``bytes.find`` of an absent byte (C's memchr: a
  streaming read); the larger of one process's fastest pass per second of its own CPU time and the processes'
  fastest pass together on the wall clock. A process each, not a thread: ``bytes.find`` holds the GIL.
* ``disk``: measured: a sequential read of the model file with direct I/O (``O_DIRECT``: the device, not the
  page cache; the file's cached pages are left as they are), at most ``DISK_READ_MAX_BYTES`` or ``PROBE_MAX_S``.
* ``page-cache``: measured: a temporary file written to the cache directory, read back from the page cache.

The cache (``$XDG_CACHE_HOME/phasewrap/hardware.json``, else ``~/.cache/phasewrap/``) is keyed by the host name,
the CPU model and the GPUs the driver lists; CPU memory per thread count, disk per device. ``PHASEWRAP_CACHE_DIR``
moves it (tests). A figure that can't be had is null with the reason.
"""
from __future__ import annotations

import json
import mmap
import os
import re
import subprocess
import sys
import time
from typing import Optional, Sequence

from ..core.digest import sha256_hex
from ..core.writer import write_file

DISK_READ_MAX_BYTES = 512 << 20
DISK_READ_MIN_BYTES = 16 << 20  # a shorter read times the request latency, not the device
PROBE_MAX_S = 2.0
PAGE_CACHE_FILE_BYTES = 64 << 20
CPU_BUFFER_TOTAL_BYTES = 1 << 30
CPU_BUFFER_MIN_BYTES = 32 << 20  # the buffers together, not each, must outsize the last-level cache
CPU_PASSES = 12
_CHUNK = 4 << 20
PROBE_VERSION = 2  # part of the cache key: a changed probe measures again
# GB/s per lane after line encoding (8b/10b to gen 2, 128b/130b from gen 3, FLIT from gen 6)
PCIE_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}
# Published memory bandwidth, GB/s, by device name (NVIDIA's product datasheets): the fallback where NVML gives
# no clock or bus width. Most specific first; \b keeps "H200" off "GH200".
PUBLISHED_GPU_GBPS = (
    (r"\bH200\b", 4800.0), (r"\bH100 NVL\b", 3900.0), (r"\bH100 PCIe\b", 2000.0), (r"\bH100\b", 3350.0),
    (r"\bA100[- ]SXM4?[- ]80GB\b", 2039.0), (r"\bA100[- ]PCIE[- ]80GB\b", 1935.0), (r"\bA100\b", 1555.0),
    (r"\bL40S?\b", 864.0), (r"\bL4\b", 300.0), (r"\bA10G?\b", 600.0), (r"\bV100\b", 900.0), (r"\bT4\b", 320.0),
    (r"\bRTX 4090\b", 1008.0), (r"\bRTX 3090\b", 936.0),
)
_WORKER = r"""
import sys, time
n, passes = int(sys.argv[1]), int(sys.argv[2])
buf = b"\x02" * n
buf.find(b"\x01")
sys.stdout.write("ready\n"); sys.stdout.flush()
sys.stdin.readline()
cpu, wall = [time.process_time_ns()], [time.monotonic_ns()]
for _ in range(passes):
    buf.find(b"\x01")
    cpu.append(time.process_time_ns())
    wall.append(time.monotonic_ns())
print(n, *cpu, *wall, flush=True)
"""


def cache_dir() -> str:
    """Where the peaks are cached: ``PHASEWRAP_CACHE_DIR``, else ``$XDG_CACHE_HOME/phasewrap``, else ~/.cache/phasewrap."""
    given = os.environ.get("PHASEWRAP_CACHE_DIR")
    if given:
        return given
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "phasewrap")


def _cpu_model(proc_root: str = "/proc") -> Optional[str]:
    try:
        with open(os.path.join(proc_root, "cpuinfo"), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(("model name", "Model", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _driver_gpus(proc_root: str = "/proc") -> list:
    """The GPUs the NVIDIA driver lists (``/proc/driver/nvidia/gpus/*/information``): cheap, no NVML."""
    folder = os.path.join(proc_root, "driver", "nvidia", "gpus")
    try:
        buses = sorted(os.listdir(folder))
    except OSError:
        return []
    out = []
    for bus in buses:
        try:
            with open(os.path.join(folder, bus, "information"), encoding="utf-8", errors="replace") as fh:
                model = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("Model:")), None)
        except OSError:
            model = None
        out.append(f"{model} @ {bus}")
    return out


def identity(proc_root: str = "/proc") -> dict:
    """What the cache is keyed by: host name, CPU model, the driver's GPUs."""
    return {"host": os.uname().nodename, "cpu": _cpu_model(proc_root), "gpus": _driver_gpus(proc_root)}


def _figure(gbps: Optional[float], source: Optional[str], reason: Optional[str] = None) -> dict:
    return {"gbps": None if gbps is None else round(gbps, 3), "source": source if gbps is not None else None,
            "reason": None if gbps is not None else reason}


def gpu_peaks(links: Optional[list]) -> tuple[dict, dict]:
    """(gpu-memory figure, pcie figure) of the first GPU from ``nvml.gpu_links``."""
    if links is None:
        reason = "NVML is not available (no NVIDIA GPU here, or nvidia-ml-py is not installed)"
        return _figure(None, None, reason), _figure(None, None, reason)
    if not links:
        return _figure(None, None, "no NVIDIA GPU here"), _figure(None, None, "no NVIDIA GPU here")
    gpu = links[0]
    clock, width = gpu.get("mem_clock_max_mhz"), gpu.get("bus_width_bits")
    if clock and width:
        memory = _figure(clock * 1e6 * width * 2 / 8 / 1e9, f"NVML: {gpu['name']} max memory clock {clock} MHz × "
                         f"{width}-bit bus × 2")
    else:
        published = next((gbps for pattern, gbps in PUBLISHED_GPU_GBPS if re.search(pattern, gpu.get("name") or "")),
                         None)
        memory = _figure(published, f"published figure for {gpu.get('name')} (NVIDIA datasheet)",
                         f"NVML gives no memory clock or bus width for {gpu.get('name')!r} and no published figure "
                         "is known for it")
    (gen, lanes), (cur_gen, cur_lanes) = gpu.get("pcie_max") or (None, None), gpu.get("pcie_current") or (None, None)
    if gen in PCIE_LANE_GBPS and lanes:
        pcie = _figure(PCIE_LANE_GBPS[gen] * lanes, f"NVML: PCIe gen {gen} x{lanes} (now gen {cur_gen} x{cur_lanes})")
    else:
        pcie = _figure(None, None, "NVML gives no PCIe link generation or width")
    return memory, pcie


def _threads(command: Sequence[str]) -> int:
    """The run's thread count: llama.cpp's ``-t``/``--threads``, else every CPU this process may use."""
    for i, arg in enumerate(command):
        name, eq, value = arg.partition("=")
        if name in ("-t", "--threads"):
            value = value if eq else (command[i + 1] if i + 1 < len(command) else "")
            if value.isdigit() and int(value) > 0:
                return int(value)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def cpu_memory_gbps(workers: int) -> tuple[Optional[float], str]:
    """(GB/s, how) streaming reads of ``workers`` processes at once (at most one per CPU); (None, why) on
    failure."""
    workers = max(1, min(workers, os.cpu_count() or 1))
    per = max(CPU_BUFFER_MIN_BYTES, CPU_BUFFER_TOTAL_BYTES // workers)
    procs = []
    try:
        for _ in range(workers):
            procs.append(subprocess.Popen([sys.executable, "-S", "-c", _WORKER, str(per), str(CPU_PASSES)],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        if not all(p.stdout.readline() == "ready\n" for p in procs):
            return None, "a memory-read worker failed to start"
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        results = [tuple(map(int, p.stdout.readline().split())) for p in procs]
    except (OSError, ValueError, MemoryError) as exc:
        return None, f"memory-read workers failed ({exc})"
    finally:
        for p in procs:
            p.stdin.close()  # a worker still waiting for "go" reads EOF and ends
            p.wait()
            p.stdout.close()
    if any(len(r) != 2 * CPU_PASSES + 3 for r in results):
        return None, "a memory-read worker ended before its passes were timed"
    return _peak_gbps(results, workers, per)


def _peak_gbps(results: list, workers: int, per: int) -> tuple[float, str]:
    """The larger of one worker's fastest pass per second of its own CPU time (what one core streams while it
    runs: a pass the scheduler preempted on a shared machine is not slowed by the wait) and the workers' fastest
    pass taken together on the wall clock (from the first start to the last end of pass i): N cores stream at
    least as fast as either."""
    p = CPU_PASSES
    one = max(r[0] / ((r[i + 1] - r[i]) / 1e9) for r in results for i in range(1, p + 1))
    together = max(sum(r[0] for r in results)
                   / ((max(r[p + 3 + i] for r in results) - min(r[p + 2 + i] for r in results)) / 1e9)
                   for i in range(p))
    how = (f"one process's fastest of {p} passes per CPU second" if one >= together else
           f"{workers} processes' fastest of {p} passes together")
    return max(one, together) / 1e9, f"measured: {how}, {per >> 20} MiB streaming read each (memchr)"


def _timed_reads(fd: int, max_bytes: int) -> tuple[int, float]:
    """(bytes, seconds) of sequential reads from ``fd`` into one page-aligned buffer (direct I/O needs it)."""
    buf = mmap.mmap(-1, _CHUNK)
    total, t0 = 0, time.monotonic()
    try:
        while total < max_bytes and time.monotonic() - t0 < PROBE_MAX_S:
            n = os.readv(fd, [buf])
            if n <= 0:
                break
            total += n
        return total, time.monotonic() - t0
    finally:
        buf.close()


def disk_gbps(path: Optional[str]) -> tuple[Optional[float], str]:
    """(GB/s, how) of a direct-I/O sequential read of the model file; (None, why) where that can't be had."""
    if path is None:
        return None, "no model file to read (the disk's rate is read from the model file itself)"
    if os.path.isdir(path):
        files = sorted((os.path.getsize(os.path.join(path, n)), os.path.join(path, n)) for n in os.listdir(path)
                       if os.path.isfile(os.path.join(path, n)))
        path = files[-1][1] if files else path
    if not hasattr(os, "O_DIRECT"):
        return None, "this system has no direct I/O (O_DIRECT) to read past the page cache"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    except OSError as exc:
        return None, f"cannot open {os.path.basename(path)} for direct I/O ({exc.strerror})"
    try:
        n, elapsed_s = _timed_reads(fd, DISK_READ_MAX_BYTES)
    except OSError as exc:  # tmpfs and some overlay filesystems refuse O_DIRECT reads
        return None, f"the model's filesystem refuses direct I/O reads ({exc.strerror})"
    finally:
        os.close(fd)
    if n < DISK_READ_MIN_BYTES:
        return None, f"the model file is too small ({n >> 20} MiB) to time a sequential read"
    return n / elapsed_s / 1e9, f"measured: {n >> 20} MiB direct-I/O sequential read of the model file"


def page_cache_gbps(folder: str) -> tuple[Optional[float], str]:
    """(GB/s, how) reading back a just-written temporary file (its pages are in the page cache)."""
    path = os.path.join(folder, f".pagecache-probe-{os.getpid()}")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(b"\x02" * PAGE_CACHE_FILE_BYTES)
        fd = os.open(path, os.O_RDONLY)
        try:
            _timed_reads(fd, PAGE_CACHE_FILE_BYTES)  # one pass first: the pages are surely resident after it
            os.lseek(fd, 0, os.SEEK_SET)
            n, elapsed_s = _timed_reads(fd, PAGE_CACHE_FILE_BYTES)
        finally:
            os.close(fd)
    except OSError as exc:
        return None, f"cannot write a probe file in {folder} ({exc.strerror})"
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    return n / elapsed_s / 1e9, f"measured: {n >> 20} MiB read back from the page cache"


def _load_cache(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _model_device(path: Optional[str]) -> Optional[str]:
    try:
        return None if path is None else str(os.stat(path).st_dev)
    except OSError:
        return None


def probe(command: Sequence[str], model_path: Optional[str] = None, *, nvml_module=None,
          proc_root: str = "/proc", folder: Optional[str] = None) -> dict:
    """The record's ``hardware``: each peak from the cache, else measured now (and cached). Run before the
    child starts, never on its clock."""
    folder = folder or cache_dir()
    path = os.path.join(folder, "hardware.json")
    ident = identity(proc_root)
    key = sha256_hex(json.dumps([PROBE_VERSION, ident], sort_keys=True).encode())[:16]
    cache = _load_cache(path)
    entry = cache.get(key) if isinstance(cache.get(key), dict) else {"identity": ident}
    cache[key] = entry
    fresh = []

    def cached(slot: str, sub: Optional[str], measure):
        table = entry.setdefault(slot, {}) if sub is not None else entry
        name = sub if sub is not None else slot
        if isinstance(table.get(name), dict):  # anything else is a cache from elsewhere: measure again
            return table[name]
        value = measure()
        fresh.append(slot)
        if value.get("gbps") is not None or slot == "gpu":  # a failed measurement is tried again next time
            table[name] = value
        return value

    threads = _threads(command)
    gpu = cached("gpu", None, lambda: _gpu(nvml_module, ident))
    cpu = cached("cpu_memory", str(threads), lambda: _figure(*_swap(cpu_memory_gbps(threads))))
    device = _model_device(model_path)
    disk = (cached("disk", device, lambda: _figure(*_swap(disk_gbps(model_path)))) if device is not None
            else _figure(None, None, "no model file to read (the disk's rate is read from the model file itself)"))
    page = cached("page_cache", None, lambda: _figure(*_swap(page_cache_gbps(folder))))
    if fresh:
        try:
            write_file(path, json.dumps(cache, indent=1, sort_keys=True))
        except Exception:  # an unwritable cache only means probing again next time
            pass
    return {"host": ident["host"], "cpu": ident["cpu"], "gpus": gpu["names"], "cached": not fresh,
            "cache_file": path, "threads": threads,
            "peaks": {"gpu-memory": gpu["memory"], "cpu-memory": cpu, "disk": disk, "pcie": gpu["pcie"],
                      "page-cache": page}}


def _swap(pair: tuple) -> tuple:
    """(value, text) → the ``_figure`` arguments: the text is the source of a value, else the reason."""
    value, text = pair
    return (value, text, None) if value is not None else (None, None, text)


def _gpu_links(nvml_module, ident: dict) -> Optional[list]:
    """``nvml.gpu_links``; [] where no NVIDIA driver is installed (no NVIDIA GPU), None where NVML can't tell."""
    if nvml_module is None and not ident["gpus"]:
        from .sampling.nvml import no_driver_here

        if no_driver_here():
            return []
    from .sampling.nvml import gpu_links

    return gpu_links(nvml_module)


def _gpu(nvml_module, ident: dict) -> dict:
    """The GPUs' names (None: unknown) and the first one's memory and PCIe figures."""
    links = _gpu_links(nvml_module, ident)
    memory, pcie = gpu_peaks(links)
    return {"names": None if links is None else [g.get("name") for g in links], "memory": memory, "pcie": pcie}
