"""The per-run figures that are compared, gated, exported and summarised, declared once.

A metric has a key (what options and JSON call it), a unit, a label, a number format, whether lower is better,
and where the record keeps it. ``value(record, key)`` is the one way to read one; None = not measured.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from . import accessors, phases


def _at(*path: str) -> Callable[[dict], Optional[float]]:
    def read(record: dict) -> Optional[float]:
        value = record
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return read


@dataclass(frozen=True)
class Metric:
    key: str
    unit: str                  # "s", "ms", "mJ", "count", "ratio", "1/s"
    label: str
    digits: int                # decimals when printed
    lower_is_better: bool
    read: Callable[[dict], Optional[float]]
    doc: str


METRICS = tuple(
    [Metric(p.key, "s", p.label, 3, True, (lambda r, _p=p: accessors.phase_s(r, _p)), p.doc) for p in phases.PHASES]
    + [
        Metric("ms_per_token", "ms", "ms/token", 2, True, _at("ms_per_token"), "decode time per output token"),
        Metric("tokens_per_s", "1/s", "tokens/s", 1, False, _at("tokens_per_s"), "output tokens per decode second"),
        Metric("gap_p99_ms", "ms", "gap p99", 1, True, _at("decode_gaps_ms", "p99"),
               "p99 of the gaps between token reads in decode"),
        Metric("stalls_total", "count", "stalls", 1, True, _at("stalls_total"), "decode stalls"),
        Metric("energy_per_output_token_mj", "mJ", "mJ/token", 1, True,
               _at("resources", "energy_per_output_token_mj"), "GPU energy per output token"),
        Metric("decode_floor_ms", "ms", "decode floor", 3, True, _at("limits", "decode", "floor_ms_per_token"),
               "the hardware's floor per output token (a quant changes it)"),
        Metric("decode_efficiency", "ratio", "decode efficiency", 3, False, _at("limits", "decode", "efficiency"),
               "decode floor ÷ measured ms/token (a flag change moves it)"),
        Metric("load_efficiency", "ratio", "load efficiency", 3, False, _at("limits", "load", "efficiency"),
               "load floor ÷ measured load_s"),
    ])
BY_KEY = {m.key: m for m in METRICS}


def value(record: dict, key: str) -> Optional[float]:
    """The metric ``key`` of one record; None when not measured (or not a number)."""
    return BY_KEY[key].read(record)
