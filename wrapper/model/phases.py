"""The phases of a run, declared once: every window, record key, plot band, summary row, exporter label and
comparison reads this table.

A phase runs from its start marker to its end marker. ``starts`` lists candidate start markers, the first one
the run has wins: TTFT starts when the request was sent (a server run), else when the model was ready. ``None``
as a start is the launch (t0); ``None`` as the end is the end of the run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional


@dataclass(frozen=True)
class Phase:
    name: str                         # "load": the name in records' ``resources``, exporters' labels, options
    key: str                          # "load_s": the key in the record's ``phases``
    label: str                        # how people see it: "load", "TTFT"
    starts: tuple                     # candidate start markers, first present wins; None = launch
    end: Optional[str]                # end marker; None = end of the run
    colour: str                       # plot band / bar colour
    letter: str                       # its letter in the one-line bar ("L", "T", "D")
    reported: Optional[str]           # the framework's own figure for it (``reported``), ms
    doc: str                          # one line for help texts and the README


PHASES = (
    Phase("load", "load_s", "load", (None,), "ready", "#8da0cb", "L", "load_ms",
          "process start → weights ready (the ready marker)"),
    Phase("ttft", "ttft_s", "TTFT", ("request_sent", "ready"), "first_token", "#fc8d62", "T", "prompt_eval_ms",
          "request (server) or ready → first token"),
    Phase("decode", "decode_s", "decode", ("first_token",), "last_token", "#66c2a5", "D", "eval_ms",
          "first token → last token"),
    Phase("total", "total_s", "total", (None,), None, "#9e9e9e", "", None,
          "process start → process end"),
)
TIMED = PHASES[:3]                    # the three costs that add up (with what lies between them) to the total
BY_NAME = {p.name: p for p in PHASES}
BY_KEY = {p.key: p for p in PHASES}
KEYS = tuple(p.key for p in PHASES)
NAMES = tuple(p.name for p in PHASES)
MARKERS = ("ready", "first_token", "last_token")  # the markers that bound the timed phases
SERVER_START = "request_sent"          # a server run's TTFT starts here


def start_ns(phase: Phase, t0_ns: int, at: Callable[[str], Optional[int]]) -> Optional[int]:
    """When ``phase`` starts: the first of its start markers the run has (``at(name)`` → ns or None); the launch
    for a ``None`` start."""
    for name in phase.starts:
        if name is None:
            return t0_ns
        t = at(name)
        if t is not None:
            return t
    return None


def window_ns(phase: Phase, t0_ns: int, end_ns: Optional[int],
              at: Callable[[str], Optional[int]]) -> tuple[Optional[int], Optional[int]]:
    """(start, end) of ``phase`` in ns on the run's clock; either is None where its marker was not seen."""
    return start_ns(phase, t0_ns, at), (end_ns if phase.end is None else at(phase.end))


def windows_ns(t0_ns: int, end_ns: Optional[int], markers: Mapping[str, Optional[int]]) -> dict:
    """``{name: (start, end)}`` for every phase, from a mapping of marker name → ns."""
    return {p.name: window_ns(p, t0_ns, end_ns, markers.get) for p in PHASES}
