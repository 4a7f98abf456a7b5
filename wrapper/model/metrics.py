"""The per-run figures that are compared, gated, exported and summarised, declared once.

A metric has a key (what options and JSON call it), a unit, a label, a number format, whether lower is better,
where the record keeps it, and other names it answers to (``ttft`` for ``ttft_s``). ``value(record, key)`` is the
one way to read one; None = not measured. ``resolve(name)`` also knows the metrics named by a parameter: a load
step's duration (``step:<name>``) and a phase's efficiency against the hardware floor (``<phase>.efficiency``).
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
    aliases: tuple = ()        # other names options accept: the phase's name, a longer spelling


METRICS = tuple(
    [Metric(p.key, "s", p.label, 3, True, (lambda r, _p=p: accessors.phase_s(r, _p)), p.doc, (p.name,))
     for p in phases.PHASES]
    + [
        Metric("ms_per_token", "ms", "ms/token", 2, True, _at("ms_per_token"), "decode time per output token"),
        Metric("tokens_per_s", "1/s", "tokens/s", 1, False, _at("tokens_per_s"), "output tokens per decode second"),
        Metric("gap_p99_ms", "ms", "gap p99", 1, True, _at("decode_gaps_ms", "p99"),
               "p99 of the gaps between token reads in decode", ("decode_gap_p99",)),
        Metric("stalls_total", "count", "stalls", 1, True, _at("stalls_total"), "decode stalls", ("stalls",)),
        Metric("energy_per_output_token_mj", "mJ", "mJ/token", 1, True,
               _at("resources", "energy_per_output_token_mj"), "GPU energy per output token",
               ("energy_per_token",)),
        Metric("decode_floor_ms", "ms", "decode floor", 3, True, _at("limits", "decode", "floor_ms_per_token"),
               "the hardware's floor per output token (a quant changes it)"),
        Metric("decode_efficiency", "ratio", "decode efficiency", 3, False, _at("limits", "decode", "efficiency"),
               "decode floor ÷ measured ms/token (a flag change moves it)"),
        Metric("load_efficiency", "ratio", "load efficiency", 3, False, _at("limits", "load", "efficiency"),
               "load floor ÷ measured load_s"),
    ])
BY_KEY = {m.key: m for m in METRICS}
BY_NAME = {**{a: m for m in METRICS for a in m.aliases}, **BY_KEY}
STEP_PREFIX = "step:"
EFFICIENCY_SUFFIX = ".efficiency"


def _load_step_s(name: str) -> Callable[[dict], Optional[float]]:
    """The duration of the load step called ``name``; None where the run has no step of that name (absent, or
    too short and merged into another: it then counts for neither)."""
    def read(record: dict) -> Optional[float]:
        for step in record.get("load_steps") or []:
            if isinstance(step, dict) and step.get("name") == name:
                return _at("dur_s")(step)
        return None
    return read


def resolve(name: str) -> Optional[Metric]:
    """The metric ``name`` stands for: a key of METRICS or one of its aliases, ``step:<load step name>`` (its
    duration, s) or ``<phase>.efficiency`` (how near the phase came to its hardware floor, as
    ``record["limits"][phase]["efficiency"]`` gives it; higher is better); None when it names none."""
    if name in BY_NAME:
        return BY_NAME[name]
    if name.startswith(STEP_PREFIX) and len(name) > len(STEP_PREFIX):
        step = name[len(STEP_PREFIX):]
        return Metric(name, "s", f"step '{step}'", 3, True, _load_step_s(step), f"duration of load step '{step}'")
    phase = phases.BY_NAME.get(name[:-len(EFFICIENCY_SUFFIX)]) if name.endswith(EFFICIENCY_SUFFIX) else None
    if phase is not None:
        return Metric(name, "ratio", f"{phase.label} efficiency", 2, False,
                      _at("limits", phase.name, "efficiency"), f"{phase.label}: efficiency against the hardware floor "
                      "(record limits)")
    return None


def value(record: dict, key: str) -> Optional[float]:
    """The metric ``key`` of one record; None when not measured (or not a number)."""
    return BY_KEY[key].read(record)
