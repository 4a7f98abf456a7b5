"""The regression gate: base vs candidate runs judged against thresholds, each metric passing, failing or
saying it can't tell.

A threshold is ``METRIC OP VALUE`` (``ttft>+5%``, ``load>+0.5s``, ``load>2s``, ``decode.efficiency<0.6``): a
signed value is a change of the candidate's median from the base's (``%``: relative), an unsigned one a bound
on the candidate's median. A metric fails only when it is beyond its threshold *and* beyond noise: a change by
``stats.differs`` (Mann-Whitney U), a bound by ``stats.beyond_bound`` (sign test on the candidate's runs). When
the runs are too few for that test to ever see anything, or the metric was not measured, the answer is
"can't tell", never a pass. The sides are pooled as ``compare`` pools them (no warm-ups, status ok, one cache
state), and its one-variable guard's warnings come along.

Pure: records in, a JSON-ready dict out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from ..model import metrics
from . import compare, stats

PASS, FAIL, CANT_TELL = "pass", "fail", "cant_tell"
OUTCOMES = (PASS, FAIL, CANT_TELL)
DEFAULT_FAIL_IF = ("load>+10%", "ttft>+10%", "ms_per_token>+10%")
RELATIVE, CHANGE, BOUND = "relative", "change", "bound"
# units a threshold may be written in, per metric unit: factor to the metric's own unit
UNITS = {"s": {"s": 1.0, "ms": 1e-3}, "ms": {"ms": 1.0, "s": 1e3}, "mJ": {"mJ": 1.0, "J": 1e3}}
# a baseline recorded on other hardware is named even when it is the only difference: condition → what it is
HARDWARE_CONDITIONS = {"cpu": "CPU", "gpus": "GPU", "driver": "GPU driver"}
GRAMMAR = ("METRIC>VALUE or METRIC<VALUE; VALUE +N% / -N% (relative change of the median), +N / -N with an "
           "optional unit (change), or N (a bound on the candidate's median)")
_THRESHOLD = re.compile(r"^(?P<metric>.+?)\s*(?P<op>[<>])\s*(?P<sign>[+-]?)(?P<number>\d+(?:\.\d*)?|\.\d+)"
                        r"\s*(?P<unit>%|[A-Za-z]+)?$")


@dataclass(frozen=True)
class Threshold:
    text: str                  # as written: the report's name for the test
    metric: metrics.Metric
    op: str                    # ">" fails above the limit, "<" below it
    kind: str                  # RELATIVE (limit a fraction), CHANGE (metric units), BOUND (metric units)
    limit: float


def parse_threshold(text: str) -> Threshold:
    """``ttft>+5%`` → Threshold; raises ``ValueError`` naming the text, what is wrong and the grammar."""
    match = _THRESHOLD.match(text.strip())
    if not match:
        raise ValueError(f"{text!r}: not a threshold; write {GRAMMAR}, e.g. 'ttft>+10%' or 'load>2s'")
    name, op, sign, number, unit = match.group("metric", "op", "sign", "number", "unit")
    metric = metrics.resolve(name.strip())
    if metric is None:
        known = ", ".join(sorted(metrics.BY_NAME))
        raise ValueError(f"{text!r}: unknown metric {name.strip()!r}; use one of {known}, step:<load step name> "
                         f"or <phase>.efficiency")
    amount = float(number) * (-1 if sign == "-" else 1)
    if unit == "%":
        if not sign:
            raise ValueError(f"{text!r}: a relative change needs its sign: '{name.strip()}{op}+{number}%' (or a "
                             f"bound without %: '{name.strip()}{op}{number}')")
        return Threshold(text, metric, op, RELATIVE, amount / 100)
    factors = UNITS.get(metric.unit, {})
    if unit is not None and unit not in factors:
        allowed = ", ".join(factors) or "none (a plain number)"
        raise ValueError(f"{text!r}: unit {unit!r} does not fit {metric.key} ({metric.unit}); units: {allowed}")
    return Threshold(text, metric, op, CHANGE if sign else BOUND, amount * factors.get(unit, 1.0))


def _crossed(value: Optional[float], threshold: Threshold) -> Optional[bool]:
    if value is None:
        return None
    return value > threshold.limit if threshold.op == ">" else value < threshold.limit


def _not_measured(side: str) -> str:
    return f"not measured on the {side} side (no run of it has this figure)"


def _sizes(threshold: Threshold, nb: int, nc: int) -> Optional[str]:
    """Why these run counts can't tell, or None when the test can see a difference at these sizes."""
    if threshold.kind == BOUND:
        if stats.can_show_beyond_bound(nc):
            return None
        return f"too few runs to tell: {nc} candidate run(s); a bound needs at least 5 (sign test at {stats.ALPHA})"
    if stats.can_show_difference(nb, nc):
        return None
    return (f"too few runs to tell: {nb} vs {nc}; a change needs at least 4 runs a side (Mann-Whitney U at "
            f"{stats.ALPHA}; 5 or more to see small differences)")


def _value(threshold: Threshold, base_median: Optional[float], cand_median: Optional[float]) -> Optional[float]:
    """The figure compared with the limit: the relative change, the change, or the candidate's median."""
    if threshold.kind == BOUND:
        return cand_median
    if base_median is None or cand_median is None:
        return None
    if threshold.kind == CHANGE:
        return round(cand_median - base_median, 9)
    return None if base_median == 0 else round(cand_median / base_median - 1, 6)


def judge(threshold: Threshold, base: Sequence[dict], cand: Sequence[dict]) -> dict:
    """One threshold over the pooled sides: the medians, the figure, the noise verdict and the outcome."""
    b = [v for v in (threshold.metric.read(r) for r in base) if v is not None]
    c = [v for v in (threshold.metric.read(r) for r in cand) if v is not None]
    bm, cm = stats.median(b), stats.median(c)
    value = _value(threshold, bm, cm)
    crossed = _crossed(value, threshold)
    row = {"threshold": threshold.text, "metric": threshold.metric.key, "label": threshold.metric.label,
           "unit": threshold.metric.unit, "op": threshold.op, "kind": threshold.kind, "limit": threshold.limit,
           "base_median": bm, "base_n": len(b), "cand_median": cm, "cand_n": len(c), "value": value,
           "crossed": crossed, "noise": None}
    needs_base = threshold.kind != BOUND
    if not c or (needs_base and not b):
        return {**row, "outcome": CANT_TELL, "why": _not_measured("candidate" if not c else "base")}
    if needs_base and value is None:
        return {**row, "outcome": CANT_TELL, "why": "the base median is 0: no relative change"}
    row["noise"] = (stats.beyond_bound(c, threshold.limit, threshold.op == ">") if threshold.kind == BOUND
                    else stats.differs(b, c))
    too_few = _sizes(threshold, len(b), len(c))
    if too_few:
        return {**row, "outcome": CANT_TELL, "why": too_few}
    if not crossed:
        return {**row, "outcome": PASS, "why": "within the threshold"}
    if row["noise"]["beyond_noise"]:
        return {**row, "outcome": FAIL, "why": "beyond the threshold and beyond noise"}
    return {**row, "outcome": PASS, "why": "beyond the threshold but within noise"}


def _hardware_warnings(differ: Sequence[dict]) -> list[str]:
    return [f"the base ran on another {HARDWARE_CONDITIONS[d['condition']]} ({'; '.join(d['base'])} → "
            f"{'; '.join(d['cand'])}): a difference may be the machine's, not the change's; record the baseline "
            f"on this machine" for d in differ if d["condition"] in HARDWARE_CONDITIONS]


def outcome(rows: Sequence[dict]) -> str:
    """The gate's answer: fail when any metric fails, else can't tell when any can't, else pass."""
    found = {row["outcome"] for row in rows}
    return FAIL if FAIL in found else CANT_TELL if CANT_TELL in found else PASS


def check(base: Sequence[dict], cand: Sequence[dict], thresholds: Sequence[Threshold],
          labels: Optional[dict] = None) -> dict:
    """Base vs candidate runs against ``thresholds``.

    Returns ``{"outcome": "pass" | "fail" | "cant_tell", "counts": {outcome: n}, "metrics": [one row per
    threshold, see ``judge``], "base", "cand": where each side came from (``labels``), "pool", "runs",
    "conditions", "unknown_conditions", "warnings"}`` (the last five as ``compare`` gives them; warnings also
    name a baseline recorded on another CPU, GPU or driver).
    """
    sides = compare.prepare(base, cand)
    rows = [judge(t, sides["base"], sides["cand"]) for t in thresholds]
    labels = labels or {}
    return {"outcome": outcome(rows), "counts": {o: sum(r["outcome"] == o for r in rows) for o in OUTCOMES},
            "metrics": rows, "base": labels.get("base"), "cand": labels.get("cand"), "pool": sides["pool"],
            "runs": sides["runs"], "conditions": sides["conditions"],
            "unknown_conditions": sides["unknown_conditions"],
            "warnings": _hardware_warnings(sides["conditions"]) + sides["warnings"]}
