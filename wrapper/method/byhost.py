"""``--by host``: the runs of a merged sweep side by side per host, so the node slower than its twins stands out.

Pure: records in, a table (dict) or text/HTML/picture bytes out. A host is an **outlier** in a phase when its
median is more than ``OUTLIER_RATIO`` away from the fleet's typical host (the median of the host medians, which
one odd host can't drag along when there are three or more) *and* its runs differ from the other hosts' runs
pooled beyond noise (``stats.differs``: Mann-Whitney U with >= 3 runs a side, else non-overlapping ranges).
With two hosts there is no typical one: both differ from their mean alike.
Warm-up runs are left out. Runs must match otherwise (same plan item on each host), which the merged sweep
of one configuration across a fleet gives.
"""
from __future__ import annotations

from typing import Sequence

from ..model import accessors
from ..model import phases as phase_table
from . import stats

PHASES = phase_table.KEYS
OUTLIER_RATIO = 0.10  # a difference below 10 % is not worth a page, even when it is beyond noise
UNKNOWN = accessors.UNKNOWN_HOST


def host_of(record: dict) -> str:
    return accessors.host(record)


def group(records: Sequence[dict]) -> dict[str, list[dict]]:
    """Recorded (non warm-up) runs by host, hosts in first-seen order."""
    out: dict[str, list[dict]] = {}
    for record in records:
        if not record.get("warmup"):
            out.setdefault(host_of(record), []).append(record)
    return out


def _values(records: Sequence[dict], key: str) -> list:
    return [(r.get("phases") or {}).get(key) if key in PHASES else r.get(key) for r in records]


def table(records: Sequence[dict], keys: Sequence[str] = (*PHASES, "tokens_per_s")) -> dict:
    """``{"keys", "fleet_median": {key: v}, "hosts": [{"host", "runs", "median": {key: v}, "vs_fleet": {key:
    ratio}, "outlier": {key: bool|None}, "why": {key: text}}], "outliers": [(host, key)]}``; ``fleet_median`` is
    the median of the host medians, a ratio the host's median over it (None when either is unknown, or with a
    single host)."""
    groups = group(records)
    medians = {host: {key: stats.median(_values(mine, key)) for key in keys} for host, mine in groups.items()}
    fleet = {key: stats.median([m[key] for m in medians.values()]) if len(groups) > 1 else None for key in keys}
    hosts = []
    flagged = []
    for host, mine in groups.items():
        others = [r for h, rs in groups.items() if h != host for r in rs]
        row = {"host": host, "runs": len(mine), "median": {}, "vs_fleet": {}, "outlier": {}, "why": {}}
        for key in keys:
            own = medians[host][key]
            row["median"][key] = own
            ratio = own / fleet[key] if own is not None and fleet[key] else None
            row["vs_fleet"][key] = None if ratio is None else round(ratio, 4)
            if ratio is None:
                row["outlier"][key] = None
                continue
            verdict = stats.differs(_values(others, key), _values(mine, key))
            row["outlier"][key] = bool(verdict["beyond_noise"]) and abs(ratio - 1) > OUTLIER_RATIO
            row["why"][key] = verdict["why"]
            if row["outlier"][key]:
                flagged.append((host, key))
        hosts.append(row)
    return {"keys": list(keys), "fleet_median": fleet, "hosts": hosts, "outliers": flagged}
