"""Runs as a Chrome trace-event / Perfetto JSON file (``--trace FILE.json``), for the timeline viewers engineers
already use (ui.perfetto.dev, chrome://tracing).

Pure: run views in, bytes out. Each run is one trace "process" (pid = its place in the list, named after the run)
with four named threads: the phases as nested complete (``X``) slices (total around load / TTFT / decode), the load
steps as slices, the tokens as instant (``i``) events with the stalls as slices between them, and the markers as
instants; the resource samples become counter (``C``) events, one track per metric and device. Times (``ts``,
``dur``) are microseconds since that run's launch, so several runs line up at their start as in the timeline
picture.
"""
from __future__ import annotations

import json
from typing import Sequence

from ...model import phases as _phases
from ..plot.runs import RunView
from ..plot.series import PANELS, series_of

US_PER_S = 1e6
# (tid, thread name), in the order the viewer shows them
PHASES_TID, STEPS_TID, TOKENS_TID, MARKERS_TID, COUNTERS_TID = 1, 2, 3, 4, 0
THREADS = ((PHASES_TID, "phases"), (STEPS_TID, "load steps"), (TOKENS_TID, "tokens"), (MARKERS_TID, "markers"))
BYTES_PER_MB = 1e6


def _us(seconds: float) -> float:
    return round(seconds * US_PER_S, 3)  # ns precision, as the clock has


def _event(ph: str, name: str, pid: int, tid: int, t_s: float, **more) -> dict:
    return {"name": name, "ph": ph, "ts": _us(t_s), "pid": pid, "tid": tid, **more}


def _metadata(pid: int, view: RunView) -> list[dict]:
    """Names and order of the run's process and threads (``M`` events carry them in ``args``)."""
    out = [_event("M", "process_name", pid, 0, 0.0, args={"name": f"run {view.label()}"}),
           _event("M", "process_sort_index", pid, 0, 0.0, args={"sort_index": pid})]
    for tid, name in THREADS:
        out.append(_event("M", "thread_name", pid, tid, 0.0, args={"name": name}))
        out.append(_event("M", "thread_sort_index", pid, tid, 0.0, args={"sort_index": tid}))
    return out


def _phase_slices(pid: int, view: RunView) -> list[dict]:
    """Total first, then the timed phases inside it: a viewer nests slices of one thread by containment."""
    out = []
    end_s = view.phase_s("total_s")
    for phase in (_phases.BY_NAME["total"],) + _phases.TIMED:
        seconds = view.phase_s(phase.key)
        start, end = _phases.window_ns(phase, 0.0, end_s, view.marker_s)
        if seconds is None or start is None or end is None:
            continue
        out.append(_event("X", phase.label, pid, PHASES_TID, start, dur=_us(end - start), cat="phase",
                          args={"seconds": seconds, "what": phase.doc}))
    return out


def _step_slices(pid: int, view: RunView) -> list[dict]:
    out = []
    for step in (view.record or {}).get("load_steps") or []:
        args = {"kind": step.get("kind"), "evidence": step.get("evidence"), "seconds": step.get("dur_s")}
        args.update({k: v for k, v in (step.get("resources") or {}).items() if v is not None})
        out.append(_event("X", step["name"], pid, STEPS_TID, step["start_s"],
                          dur=_us(step["end_s"] - step["start_s"]), cat="load step", args=args))
    return out


def _token_events(pid: int, view: RunView) -> list[dict]:
    out = [_event("i", "token", pid, TOKENS_TID, t_s, s="t", cat="token") for t_s in view.token_times_s()]
    for stall in (view.record or {}).get("stalls") or []:
        start_s = stall["t_s"] - stall["gap_ms"] / 1000
        out.append(_event("X", "stall", pid, TOKENS_TID, start_s, dur=_us(stall["gap_ms"] / 1000), cat="stall",
                          args={"gap_ms": stall["gap_ms"]}))
    return out


def _marker_events(pid: int, view: RunView) -> list[dict]:
    out = []
    for name, marker in ((view.record or {}).get("markers") or {}).items():
        if marker and marker.get("t_s") is not None:
            out.append(_event("i", name, pid, MARKERS_TID, marker["t_s"], s="t", cat="marker",
                              args={"stream": marker.get("stream"), "text": marker.get("text")}))
    return out


def _counter_name(key: str, rate: bool) -> str:
    return key.replace("_bytes_total", "_mb_per_s") if rate else key


def _counter_points(xs: list, ys: list, rate: bool, drawstyle: str) -> list[tuple[float, float]]:
    """(time, value) from where each value starts to hold: a counter holds its value until the next event.

    A rate series comes as (start, end) pairs per interval; a reading that averages the interval before it
    (``steps-pre``) starts at the previous reading, so the first one, whose interval is unknown, is left out."""
    if rate:
        return list(zip(xs[0::2], ys[0::2]))
    if drawstyle == "steps-pre":
        return list(zip(xs[:-1], ys[1:]))
    return list(zip(xs, ys))


def _counters(pid: int, view: RunView) -> list[dict]:
    out = []
    for panel in PANELS:
        for metric in panel.metrics:
            series = series_of(view, metric, 1 / BYTES_PER_MB if metric.rate else 1.0)
            for device, xs, ys in series:
                name = _counter_name(metric.key, metric.rate) + (f" {device}" if len(series) > 1 else "")
                out += [_event("C", name, pid, COUNTERS_TID, t_s, cat="sample", args={"value": round(value, 6)})
                        for t_s, value in _counter_points(xs, ys, metric.rate, metric.drawstyle)]
    return out


def events(views: Sequence[RunView]) -> list[dict]:
    """The trace events of ``views``: metadata first, then every other event in time order (longer slices
    before the slices they contain)."""
    meta, timed = [], []
    for pid, view in enumerate(views, 1):
        meta += _metadata(pid, view)
        for part in (_phase_slices, _step_slices, _token_events, _marker_events, _counters):
            timed += part(pid, view)
    timed.sort(key=lambda e: (e["pid"], e["ts"], -e.get("dur", 0)))
    return meta + timed


def serialize(views: Sequence[RunView]) -> bytes:
    """The trace file of ``views``: ``{"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}``."""
    other = {"producer": "phasewrap", "time": "microseconds since each run's launch",
             "runs": [v.run_id for v in views]}
    doc = {"traceEvents": events(views), "displayTimeUnit": "ms", "otherData": other}
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "surrogateescape")
