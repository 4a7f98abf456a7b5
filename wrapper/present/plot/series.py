"""The resource panels of a timeline (declared once, as a table) and the time series each run has for them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from .runs import RunView

# Where a metric may come from, best first (as in aggregate.py): one source per metric, never a mix.
SOURCE_RANK = ("nvml", "query-gpu", "dmon", "psutil", "pidstat")


@dataclass(frozen=True)
class Metric:
    key: str  # the values key in a Sample
    label: str  # legend label
    style: str  # line style
    rate: bool = False  # a cumulative counter, drawn as its rate per second
    ceiling: bool = False  # a limit (VRAM total): drawn, but not allowed to squash the data to the floor
    # "steps-pre": the reading averages the interval before it (CPU %, utilization, power), so it is drawn
    # flat over that interval instead of as a slope; "default": a reading of that instant (memory in use)
    drawstyle: str = "steps-pre"


@dataclass(frozen=True)
class Panel:
    name: str  # said in the "not drawn" note
    ylabel: str
    metrics: tuple  # the first metric decides whether the panel has data
    scale: float = 1.0
    ylim: Optional[tuple] = None
    one_core_line: bool = False
    unit: str = ""


PANELS = (
    Panel("GPU utilization", "GPU util %", (Metric("gpu_util_pct", "util", "-"),), ylim=(0, 105)),
    Panel("VRAM", "VRAM GiB", (Metric("vram_used_mib", "used", "-", drawstyle="default"),
                          Metric("vram_total_mib", "total", "--", ceiling=True, drawstyle="default")),
          scale=1 / 1024, unit="GiB"),
    Panel("power", "power W", (Metric("power_w", "power", "-"),)),
    Panel("CPU", "CPU %", (Metric("cpu_pct", "total", "-"), Metric("busiest_thread_pct", "busiest thread", "--")),
          one_core_line=True),
    Panel("disk read", "disk read MB/s",
          (Metric("disk_read_bytes_total", "read", "-", rate=True, drawstyle="default"),), scale=1e-6),
)


def series_of(view: RunView, metric: Metric, scale: float) -> list[tuple[str, list[float], list[float]]]:
    """(device, times s, values) per device for one metric, from the best source that measured it."""
    by_source: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for s in view.samples:
        value = s.values.get(metric.key)
        if value is not None:
            by_source.setdefault(s.source, {}).setdefault(s.device, []).append((s.t_ns, float(value)))
    if not by_source:
        return []
    rank = {name: i for i, name in enumerate(SOURCE_RANK)}
    source = min(by_source, key=lambda src: (rank.get(src, len(rank)), src))
    out = []
    for device, points in sorted(by_source[source].items()):
        points.sort()
        if metric.rate:
            xs, ys = [], []
            for (t1, v1), (t2, v2) in zip(points, points[1:]):
                if t2 > t1:
                    xs += [view.seconds(t1), view.seconds(t2)]
                    ys += [(v2 - v1) / ((t2 - t1) / 1e9) * scale] * 2  # flat over the interval it covers
        else:
            xs = [view.seconds(t) for t, _ in points]
            ys = [v * scale for _, v in points]
        if xs:
            out.append((device, xs, ys))
    return out


def _not_drawn_reason(panel: Panel, views: list[RunView]) -> str:
    if not any(v.has_stream for v in views):
        return "records only: time series need a capture, run --capture DIR"
    if not any(v.samples for v in views):
        return "no resource samples taken"
    return f"no {panel.metrics[0].key} samples"


def panel_plan(views: Sequence[RunView]) -> tuple[list[Panel], Optional[str]]:
    """The panels some run has data for, and a note naming the others and why (None when all are drawn)."""
    drawn = [p for p in PANELS if any(series_of(v, p.metrics[0], p.scale) for v in views)]
    by_reason: dict[str, list[str]] = {}
    for panel in PANELS:
        if panel not in drawn:
            by_reason.setdefault(_not_drawn_reason(panel, list(views)), []).append(panel.name)
    if not by_reason:
        return drawn, None
    return drawn, "not drawn: " + "; ".join(f"{', '.join(names)} ({why})" for why, names in by_reason.items())

