"""The runs a picture shows: ``RunView`` (a record, and from a capture its chunks and samples) and reading them.

Inputs are record files (read by ``records_io``, the one reader of record files: a line that is not a record is
skipped with one warning naming it), capture files and capture folders.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Optional, Sequence

from ...sources.capture import SUFFIX as CAPTURE_SUFFIX
from ...sources.capture import CaptureError, read_capture
from ...errors import UsageError
from ..export.summary import phase_bar
from ...sources.inputs import MAX_LINE_BYTES, InputError, check_input
from ...sources.records_io import load_records

BASE_MARKERS = ("ready", "first_token", "last_token")
# (phase key, label, start marker or None for launch, end marker, colour)
PHASE_BANDS = (
    ("load_s", "load", None, "ready", "#8da0cb"),
    ("ttft_s", "TTFT", "ready", "first_token", "#fc8d62"),
    ("decode_s", "decode", "first_token", "last_token", "#66c2a5"),
)


class PlotInputError(UsageError):
    """An input that can't be read as records or captures; the message names the file and the fix."""


@dataclass
class RunView:
    """One run as the pictures need it: its record (None for a capture cut short before it was written),
    and from a capture the stamped chunks and resource samples (monotonic ns, ``t0_ns`` = launch)."""

    run_id: str
    source: str
    record: Optional[dict] = None
    t0_ns: Optional[int] = None
    chunks: list = field(default_factory=list)
    samples: list = field(default_factory=list)
    from_capture: bool = False

    def seconds(self, t_ns: int) -> float:
        return (t_ns - self.t0_ns) / 1e9

    def marker_s(self, name: str) -> Optional[float]:
        marker = ((self.record or {}).get("markers") or {}).get(name)
        return None if not marker else marker.get("t_s")

    def phase_s(self, key: str) -> Optional[float]:
        return ((self.record or {}).get("phases") or {}).get(key)

    def end_s(self) -> float:
        """Where the run's time axis ends: the exit, else the last thing seen."""
        total = self.phase_s("total_s")
        if total is not None:
            return total
        times = [self.seconds(c.t_ns) for c in self.chunks] + [self.seconds(s.t_ns) for s in self.samples]
        marks = [m.get("t_s") for m in ((self.record or {}).get("markers") or {}).values() if m]
        return max([t for t in times + marks if t is not None], default=0.0)

    def token_times_s(self) -> list[float]:
        """Arrival of every token-stream chunk from first_token to last_token (captures only)."""
        first = ((self.record or {}).get("markers") or {}).get("first_token")
        last_s = self.marker_s("last_token")
        if not first or first.get("t_s") is None or self.t0_ns is None:
            return []
        end = last_s if last_s is not None else math.inf
        out = []
        for chunk in self.chunks:
            t = self.seconds(chunk.t_ns)
            if chunk.stream == first["stream"] and first["t_s"] - 1e-6 <= t <= end + 1e-6:
                out.append(t)
        return out

    def stalls_s(self) -> list[tuple[float, float]]:
        """(start s, end s) of each stall the record lists: the gap before the read that ended it."""
        return [(s["t_s"] - s["gap_ms"] / 1000, s["t_s"]) for s in (self.record or {}).get("stalls") or []]

    def bands(self) -> list[tuple[str, str, float, float, str]]:
        """(phase key, label, start s, end s, colour) of each phase the record measured, in run order."""
        out = []
        for key, label, start_name, end_name, colour in PHASE_BANDS:
            start = 0.0 if start_name is None else self.marker_s(start_name)
            end = self.marker_s(end_name)
            if start is not None and end is not None and self.phase_s(key) is not None:
                out.append((key, label, start, end, colour))
        return out

    def unmeasured(self) -> list[str]:
        """``"load n/a (why)"`` for each of load / TTFT / decode the record could not measure."""
        if self.record is None:
            return []
        reasons = {m.get("field"): m.get("reason") for m in self.record.get("missing", [])}
        return [f"{label} n/a ({reasons.get(key) or 'not measured'})"
                for key, label, *_ in PHASE_BANDS if self.phase_s(key) is None]

    def load_steps(self) -> list[tuple[str, str, float, float]]:
        """(name, kind, start s, end s) of each load step the record has."""
        return [(st["name"], st["kind"], st["start_s"], st["end_s"])
                for st in (self.record or {}).get("load_steps") or []]

    def custom_markers(self) -> list[tuple[str, float, str]]:
        """(name, t_s, text) of every named mark other than ready / first_token / last_token."""
        markers = (self.record or {}).get("markers") or {}
        return sorted(((name, m["t_s"], m.get("text") or "") for name, m in markers.items()
                       if name not in BASE_MARKERS and m and m.get("t_s") is not None), key=lambda x: x[1])

    @property
    def cache(self) -> Optional[str]:
        rec = self.record or {}
        value = rec.get("cache", (rec.get("tags") or {}).get("cache"))
        if isinstance(value, dict):
            value = next((value[k] for k in ("label", "state", "guess") if value.get(k)), None)
        return None if value is None else str(value)

    def label(self) -> str:
        """Row label: the run id's short form, the cache label, the tags."""
        parts = [short_id(self.run_id)]
        if self.cache:
            parts.append(self.cache)
        tags = (self.record or {}).get("tags") or {}
        parts += [f"{k}={v}" for k, v in tags.items() if k != "cache"]
        if self.record is None:
            parts.append("(capture cut short: no record)")
        return " · ".join(parts)


def short_id(run_id: str) -> str:
    """``20261130T005140Z-1861ad`` → ``1861ad``; other ids are cut to 12 characters."""
    head, _, tail = run_id.rpartition("-")
    return tail if head and tail else run_id[:12]



def _view_from_capture(path: str) -> RunView:
    try:
        cap = read_capture(path)
    except CaptureError as exc:
        raise PlotInputError(str(exc)) from None
    run_id = cap.header.get("run_id") or (cap.record or {}).get("run_id") or os.path.basename(path)
    return RunView(run_id=run_id, source=path, record=cap.record, t0_ns=cap.header["t0_monotonic_ns"],
                   chunks=list(cap.chunks), samples=list(cap.samples), from_capture=True)


def _view_from_record(record: dict, source: str) -> RunView:
    return RunView(run_id=record["run_id"], source=source, record=record, t0_ns=record.get("t0_monotonic_ns"))


def views_from_records(records: Sequence[dict], source: str = "run") -> list[RunView]:
    """Views of records already in memory (no token ticks or samples: those live in captures)."""
    return [_view_from_record(record, source) for record in records]


def _check_input(path: str, directory_ok: bool = False) -> None:
    try:
        check_input(path, directory_ok)
    except InputError as exc:
        raise PlotInputError(str(exc)) from None


def _load_file(path: str) -> list[RunView]:
    with open(path, "rb") as fh:
        first = fh.readline(MAX_LINE_BYTES)
    try:
        head = json.loads(first)
    except ValueError:
        head = None
    if isinstance(head, dict) and head.get("type") == "header":
        return [_view_from_capture(path)]
    return [_view_from_record(r, path) for r in load_records(path)]


def load_runs(inputs: Sequence[str]) -> list[RunView]:
    """Runs from record JSONL files, capture files and capture folders (their ``*.capture.jsonl``).

    Input order is kept (a folder's captures in name order, which is launch order). A run met twice — its
    capture and its JSONL record — appears once: the capture's view, with the record filled in from the
    JSONL if the capture was cut short before its record line.
    """
    if not inputs:
        raise PlotInputError("no inputs; pass record JSONL files, capture files or --capture folders")
    views: list[RunView] = []
    by_id: dict[str, RunView] = {}
    for path in inputs:
        _check_input(path, directory_ok=True)
        if os.path.isdir(path):
            names = sorted(n for n in os.listdir(path) if n.endswith(CAPTURE_SUFFIX))
            if not names:
                raise PlotInputError(f"{path}: no *{CAPTURE_SUFFIX} files in this folder; "
                                     "is it the folder given to run --capture?")
            for name in names:
                _check_input(os.path.join(path, name))
            found = [_view_from_capture(os.path.join(path, n)) for n in names]
        elif path == "-":  # records on stdin (a capture is a file: it is read twice)
            found = [_view_from_record(r, path) for r in load_records(path)]
        else:
            found = _load_file(path)
        for view in found:
            known = by_id.get(view.run_id)
            if known is None:
                by_id[view.run_id] = view
                views.append(view)
            elif view.from_capture and not known.from_capture:
                view.record = view.record or known.record
                views[views.index(known)] = by_id[view.run_id] = view
            elif known.record is None:
                known.record = view.record
    return views



def ascii_bar(record: dict) -> str:
    """The phase shares as one terminal line (``export.summary.phase_bar``), or why there is none."""
    bar = phase_bar(record)
    if bar is not None:
        return bar
    reason = next((m["reason"] for m in record.get("missing", []) if m.get("field") == "total_s"), None)
    return f"n/a ({reason or 'no total_s in the record'})"
