"""Pure: samples x phase windows -> per-window resource statistics.

Nothing here reads a clock, a file or a device; ``analyze`` and a live run feed it the same way.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Iterable, Mapping, Optional

from . import energy as _energy
from ..model.events import CPU_SOURCES, GPU_SOURCES, Sample

KEYS = (
    "gpu_util_mean", "gpu_util_max", "vram_used_peak_mib", "vram_total_mib", "proc_vram_peak_mib",
    "power_mean_w", "energy_j", "cpu_pct_mean", "cpu_pct_max", "cpu_busiest_thread_pct_max",
    "rss_peak_mib", "disk_read_mib", "disk_write_mib", "major_faults", "samples", "approximate",
    "energy_source", "energy_approximate",
)

# Where a metric may come from, best first; one source per metric, never a mix of two.

# How soon after a bound a boundary reading comes (NVML's energy read alone takes ~4 ms).
_BOUNDARY_SLACK_NS = 50_000_000

_MIB = 1048576

Series = tuple[list[int], list[float]]  # times (sorted) and values, None readings left out


def aggregate(
    samples: Iterable[Sample],
    windows: Mapping[str, tuple[Optional[int], Optional[int]]],
    infos: Iterable[dict],
) -> dict:
    """Statistics of each window (``{name: (start_ns, end_ns)}``), plus the samplers' ``info()`` under ``samplers``.

    Each window gets exactly ``KEYS``; a metric no sampler measured is ``None``, and a window with a
    ``None`` bound has every key ``None`` plus a ``reason``.

    Gauges use the samples with ``start <= t <= end``; when none falls inside (a window shorter than the
    interval), the first sample after the end stands in if it is within one resolution of it (its reading
    covers the window), and the window is marked ``approximate``. Counters (disk bytes, major faults,
    energy) are the difference between the reading at or just before the end and the one at or just
    before the start (the first reading when the window starts before any). A sampler whose info says
    ``boundary_readings`` reads its counters again just after each boundary is notified; for its counters a
    reading up to 50 ms after a bound, if nearer than the one before, is the bound's own.

    Several GPUs: only the GPUs the child used (where its processes held memory, ``proc_vram_mib`` > 0 at
    any time of the run) count, else all GPUs seen. Over those GPUs ``gpu_util_mean``/``_max`` are the mean
    and max over every (GPU, sample) reading; ``vram_used_peak_mib`` and ``proc_vram_peak_mib`` add each
    GPU's own peak (the peaks may come at slightly different moments, so the sum is an upper bound of the
    simultaneous use); ``vram_total_mib``, ``power_mean_w`` and ``energy_j`` add the GPUs up.

    ``approximate`` is true when the window is shorter than the resolution of a sampler it used, or holds
    fewer than 2 of that sampler's samples, or a reading after the end stood in, or a counter's two
    readings are the same one.
    """
    infos = list(infos)
    usable = [info for info in infos if info.get("available") and "name" in info]
    resolution = {info["name"]: info["resolution_s"] for info in usable if info.get("resolution_s")}
    table = _Table(samples, {info["name"] for info in usable if info.get("boundary_readings")})
    periods = {info["name"]: info["energy_update_period_s"] for info in usable if info.get("energy_update_period_s")}
    out: dict = {name: _window(table, start, end, resolution, periods) for name, (start, end) in windows.items()}
    out["samplers"] = {info.get("name", f"sampler{i}"): info for i, info in enumerate(infos)}
    return out


class _Table:
    """The samples as sorted series per (source, device, metric)."""

    def __init__(self, samples: Iterable[Sample], boundary_sources: set[str]):
        self.boundary_sources = boundary_sources
        rows: dict[tuple[str, str, str], list[tuple[int, float]]] = {}
        times: list[int] = []
        by_source: dict[str, set[int]] = {}
        for s in samples:
            times.append(s.t_ns)
            by_source.setdefault(s.source, set()).add(s.t_ns)
            for metric, value in s.values.items():
                if value is not None:
                    rows.setdefault((s.source, s.device, metric), []).append((s.t_ns, value))
        self.times = sorted(times)
        self.source_times = {src: sorted(ts) for src, ts in by_source.items()}
        self.series: dict[tuple[str, str, str], Series] = {}
        for key, points in rows.items():
            points.sort(key=lambda p: p[0])
            self.series[key] = ([t for t, _ in points], [v for _, v in points])
        self.child_gpus = {
            dev for (_, dev, metric), (_, values) in self.series.items()
            if metric == "proc_vram_mib" and any(v > 0 for v in values)
        }

    def pick(self, metric: str, sources: tuple[str, ...], gpu: bool = False) -> tuple[Optional[str], list[Series]]:
        """The best source that measured ``metric`` and its series, one per device counted."""
        for src in sources:
            devices = sorted(dev for (s, dev, m) in self.series if s == src and m == metric)
            if not devices:
                continue
            if gpu and self.child_gpus & set(devices):
                devices = [d for d in devices if d in self.child_gpus]
            return src, [self.series[(src, dev, metric)] for dev in devices]
        return None, []


class _Window:
    """Statistics of one window; remembers which sources it used and whether any figure is approximate."""

    def __init__(self, table: _Table, start: int, end: int, resolution_s: Mapping[str, float]):
        self.table = table
        self.start = start
        self.end = end
        self.resolution_s = resolution_s
        self.approximate = False

    def _use(self, src: str) -> Optional[int]:
        """Note that ``src`` serves a figure of this window; its resolution in ns when known."""
        times = self.table.source_times[src]
        if bisect_right(times, self.end) - bisect_left(times, self.start) < 2:
            self.approximate = True
        res_s = self.resolution_s.get(src)
        if res_s is None:
            return None
        res_ns = round(res_s * 1e9)
        if self.end - self.start < res_ns:
            self.approximate = True
        return res_ns

    def gauge(self, metric: str, sources: tuple[str, ...], gpu: bool = False) -> Optional[list[list[float]]]:
        """In-window readings per counted device, or ``None`` when no source measured the metric."""
        src, series = self.table.pick(metric, sources, gpu)
        if src is None:
            return None
        res_ns = self._use(src)
        per_device = []
        for times, values in series:
            i, j = bisect_left(times, self.start), bisect_right(times, self.end)
            if i < j:
                per_device.append(values[i:j])
            elif j < len(times) and res_ns is not None and times[j] - self.end <= res_ns:
                per_device.append([values[j]])  # the reading just after covers the whole short window
                self.approximate = True
        return per_device or None

    def counter(self, metric: str, sources: tuple[str, ...], gpu: bool = False) -> Optional[float]:
        """Sum over counted devices of (reading at the end - reading at the start)."""
        src, series = self.table.pick(metric, sources, gpu)
        if src is None:
            return None
        self._use(src)
        slack_ns = _BOUNDARY_SLACK_NS if src in self.table.boundary_sources else 0
        total = 0.0
        for times, values in series:
            i_end = reading_index(times, self.end, slack_ns)
            if i_end is None:
                return None  # the window ended before the first reading
            i_start = reading_index(times, self.start, slack_ns)
            if i_start is None:
                i_start = 0
            if i_start >= i_end:
                self.approximate = True
            total += values[i_end] - values[i_start]
        return total

    def count(self) -> int:
        times = self.table.times
        return bisect_right(times, self.end) - bisect_left(times, self.start)


def reading_index(times: list[int], t: int, slack_ns: int) -> Optional[int]:
    """The reading that stands for time ``t``: the last one at or before it, or the first one up to
    ``slack_ns`` after it when that is nearer; ``None`` when there is neither."""
    before = bisect_right(times, t) - 1
    after = before + 1
    if after < len(times) and times[after] - t <= slack_ns:
        if before < 0 or times[after] - t < t - times[before]:
            return after
    return before if before >= 0 else None


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _energy_j(table: _Table, w: _Window,
              periods: Mapping[str, float]) -> tuple[Optional[float], Optional[str], Optional[bool]]:
    """(joules, energy_source, energy_approximate) of a window: the energy counter's difference where a GPU sampler
    read one (approximate when the window is shorter than two of its update periods), else the integral of the
    power samples (approximate with fewer than 2 samples inside the window)."""
    src, series = table.pick("energy_mj", GPU_SOURCES, gpu=True)
    if src is not None:
        w._use(src)
        slack_ns = _BOUNDARY_SLACK_NS if src in table.boundary_sources else 0
        energy_mj = 0.0
        for times, values in series:
            end_mj = _energy.counter_at(times, values, w.end, slack_ns)
            if end_mj is None:
                return None, None, None  # the window ended before the first reading
            start_mj = _energy.counter_at(times, values, w.start, slack_ns)
            energy_mj += end_mj - (values[0] if start_mj is None else start_mj)
        period_s = periods.get(src)
        if period_s is None:  # update period unknown: the window's own approximate flag is all there is
            return energy_mj / 1000, _energy.COUNTER, w.approximate
        return energy_mj / 1000, _energy.COUNTER, w.end - w.start < 2 * period_s * 1e9
    src, series = table.pick("power_w", GPU_SOURCES, gpu=True)
    if src is None:
        return None, None, None
    w._use(src)
    total, approximate = 0.0, False
    for times, watts in series:
        joules, approx = _energy.power_integral_j(times, watts, w.start, w.end)
        if joules is None:
            return None, None, None
        total += joules
        approximate = approximate or approx
    return total, _energy.POWER_INTEGRAL, approximate


def _window(table: _Table, start: Optional[int], end: Optional[int], resolution_s: Mapping[str, float],
            periods: Mapping[str, float]) -> dict:
    if start is None or end is None:
        missing = "start" if start is None else "end"
        return {**dict.fromkeys(KEYS), "reason": f"the window has no {missing}: its boundary was not seen"}
    if end < start:
        return {**dict.fromkeys(KEYS), "reason": "the window ends before it starts"}
    w = _Window(table, start, end, resolution_s)

    util = w.gauge("gpu_util_pct", GPU_SOURCES, gpu=True)
    vram = w.gauge("vram_used_mib", GPU_SOURCES, gpu=True)
    proc_vram = w.gauge("proc_vram_mib", GPU_SOURCES, gpu=True)
    power = w.gauge("power_w", GPU_SOURCES, gpu=True)
    energy_j, energy_source, energy_approximate = _energy_j(table, w, periods)
    cpu = w.gauge("cpu_pct", CPU_SOURCES)
    busiest = w.gauge("busiest_thread_pct", CPU_SOURCES)
    rss = w.gauge("rss_mib", CPU_SOURCES)
    read = w.counter("disk_read_bytes_total", CPU_SOURCES)
    write = w.counter("disk_write_bytes_total", CPU_SOURCES)
    faults = w.counter("major_faults_total", CPU_SOURCES)
    _, totals = table.pick("vram_total_mib", GPU_SOURCES, gpu=True)

    flat_util = [v for dev in util for v in dev] if util else None
    flat_cpu = [v for dev in cpu for v in dev] if cpu else None
    return {
        "gpu_util_mean": _mean(flat_util) if flat_util else None,
        "gpu_util_max": max(flat_util) if flat_util else None,
        "vram_used_peak_mib": sum(max(dev) for dev in vram) if vram else None,
        "vram_total_mib": sum(max(values) for _, values in totals) if totals else None,
        "proc_vram_peak_mib": sum(max(dev) for dev in proc_vram) if proc_vram else None,
        "power_mean_w": sum(_mean(dev) for dev in power) if power else None,
        "energy_j": energy_j,
        "cpu_pct_mean": _mean(flat_cpu) if flat_cpu else None,
        "cpu_pct_max": max(flat_cpu) if flat_cpu else None,
        "cpu_busiest_thread_pct_max": max(v for dev in busiest for v in dev) if busiest else None,
        "rss_peak_mib": max(v for dev in rss for v in dev) if rss else None,
        "disk_read_mib": read / _MIB if read is not None else None,
        "disk_write_mib": write / _MIB if write is not None else None,
        "major_faults": faults,
        "samples": w.count(),
        "approximate": w.approximate or bool(energy_approximate),
        "energy_source": energy_source,
        "energy_approximate": energy_approximate,
    }
