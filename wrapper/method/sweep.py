"""A sweep as a sweep: its runs by variant (the tags that vary), and which tag moved which phase.

Pure: records in, variants and effects out. A tag "moves" a phase when the medians of its values differ by at
least max(MOVE_FLOOR_S, MOVE_SHARE × the smaller median) and the runs at the lowest and the highest median
differ beyond noise: Mann-Whitney U (``stats.differs``) with TEST_RUNS or more runs a side (3 vs 3 can never
reach p < 0.05), else their ranges don't overlap — and then the sweep says once that a test needs more runs.
"""
from __future__ import annotations

from typing import Optional, Sequence

from . import stats
from ..model import accessors
from ..model.phases import PHASES

MOVE_FLOOR_S = 0.010
MOVE_SHARE = 0.10
TEST_RUNS = 4


def _usable(records: Sequence[dict]) -> list[dict]:
    return [r for r in records if not accessors.is_warmup(r) and accessors.is_ok(r) and not r.get("failure")]


def varying_tags(records: Sequence[dict]) -> list[str]:
    """The tag names whose value differs among the (non-warm-up) runs, in first-seen order."""
    values: dict = {}
    for record in records:
        if accessors.is_warmup(record):
            continue
        for name, value in accessors.tags(record).items():
            values.setdefault(name, set()).add(str(value))
    missing = {n for r in records if not accessors.is_warmup(r) for n in values if n not in accessors.tags(r)}
    return [n for n, v in values.items() if len(v) > 1 or n in missing]


def label(record: dict, names: Sequence[str]) -> str:
    """``ctx=512 flash=on``: the record's values of the varying tags (``-`` where it has none)."""
    tags = accessors.tags(record)
    return " ".join(f"{n}={tags.get(n, '-')}" for n in names)


def variants(records: Sequence[dict]) -> dict[str, list[dict]]:
    """Records by variant label, in first-seen order; one variant ``""`` when no tag varies."""
    names = varying_tags(records)
    out: dict[str, list[dict]] = {}
    for record in records:
        out.setdefault(label(record, names), []).append(record)
    return out


def _moved(by_value: dict, key: str) -> Optional[dict]:
    """The move of phase ``key`` across one tag's values, or None when it did not move beyond noise."""
    medians = {v: stats.median([accessors.phase_s(r, key) for r in rs]) for v, rs in by_value.items()}
    known = {v: m for v, m in medians.items() if m is not None}
    if len(known) < 2:
        return None
    low, high = min(known, key=known.get), max(known, key=known.get)
    if known[high] - known[low] < max(MOVE_FLOOR_S, MOVE_SHARE * known[low]):
        return None
    a = [x for x in (accessors.phase_s(r, key) for r in by_value[low]) if x is not None]
    b = [x for x in (accessors.phase_s(r, key) for r in by_value[high]) if x is not None]
    if min(len(a), len(b)) >= TEST_RUNS:
        test, beyond = "Mann-Whitney U", stats.differs(a, b)["beyond_noise"]
    else:
        test, beyond = "range overlap", max(a) < min(b)
    if not beyond:
        return None
    return {"phase": key, "low": low, "low_s": known[low], "high": high, "high_s": known[high], "test": test}


def effects(records: Sequence[dict]) -> list[dict]:
    """Per varying tag: ``{"tag", "values", "moved": [{"phase", "low", "low_s", "high", "high_s", "test"}],
    "still": [phase names that did not move]}``; runs pooled over the other tags' values."""
    runs = _usable(records)
    out = []
    for name in varying_tags(records):
        by_value: dict = {}
        for record in runs:
            by_value.setdefault(str(accessors.tags(record).get(name, "-")), []).append(record)
        moved = [m for m in (_moved(by_value, p.key) for p in PHASES) if m is not None]
        still = [p.name for p in PHASES if p.key not in {m["phase"] for m in moved}]
        out.append({"tag": name, "values": list(by_value), "moved": moved, "still": still})
    return out


def too_few_runs(records: Sequence[dict]) -> Optional[int]:
    """The fewest runs a variant has when that is too few for a significance test; None otherwise."""
    counts = [len(_usable(rs)) for rs in variants(records).values()]
    fewest = min(counts, default=0)
    return fewest if 0 < fewest < TEST_RUNS else None


def effect_lines(records: Sequence[dict]) -> list[str]:
    """The effects in words, one line per tag, and once, when so, that there are too few runs for a test."""
    lines = []
    for effect in effects(records):
        name, moved = effect["tag"], sorted(effect["moved"], key=lambda m: (m["phase"] == "total_s",
                                                                            m["low_s"] - m["high_s"]))
        pairs = {(m["low"], m["high"]) for m in moved}
        one_pair = len(pairs) == 1
        head = f"{name}={moved[0]['low']} → {moved[0]['high']}" if one_pair else name
        parts = ", ".join(f"{m['phase'][:-2]} {m['low_s']:.3f} → {m['high_s']:.3f} s"
                          + ("" if one_pair else f" ({name}={m['low']} → {m['high']})") for m in moved)
        still = ", ".join(effect["still"])
        lines.append(f"sweep: {head} moved {parts}" + (f"; not {still}" if still else "") if moved
                     else f"sweep: {name} moved no phase beyond noise")
    fewest = too_few_runs(records)
    if lines and fewest is not None:
        lines.append(f"sweep: {fewest} run(s) in a variant is too few for a significance test (it needs "
                     f"{TEST_RUNS}): 'moved' means the runs' ranges don't overlap; use -n {TEST_RUNS} or more")
    return lines
