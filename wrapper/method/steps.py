"""Load steps across runs: pooled by name for one configuration, matched by name between two (``compare``)."""
from __future__ import annotations

from typing import Optional, Sequence

from . import stats


def pooled(records: Sequence[dict]) -> list[dict]:
    """Steps of several runs of one command, matched by name (first run's order): the median duration and disk
    reads, the kind most runs gave (ties: the earliest run's), the evidence of the run nearest the median."""
    by_name: dict[str, list] = {}
    for record in records:
        for step in record.get("load_steps") or []:
            by_name.setdefault(step["name"], []).append(step)
    out = []
    for name, steps in by_name.items():
        dur = stats.median([s["dur_s"] for s in steps])
        kinds = [s["kind"] for s in steps]
        kind = max(dict.fromkeys(kinds), key=kinds.count)
        nearest = min((s for s in steps if s["kind"] == kind), key=lambda s: abs(s["dur_s"] - dur))
        out.append({"name": name, "dur_s": dur, "kind": kind, "evidence": nearest["evidence"], "runs": len(steps),
                    "disk_read_mib": stats.median([(s.get("resources") or {}).get("disk_read_mib") for s in steps]),
                    "ended_by": nearest.get("ended_by")})
    return out



def find(steps: Optional[Sequence[dict]], name: str) -> Optional[dict]:
    """The step called ``name``, or the one it was merged into (a step too short in this run); None if absent."""
    for step in steps or []:
        if step["name"] == name or name in step.get("merged", ()):
            return step
    return None



def _step_names(records: Sequence[dict]) -> list[str]:
    return list(dict.fromkeys(s["name"] for r in records for s in r.get("load_steps") or []))



def compare_steps(base: Sequence[dict], cand: Sequence[dict]) -> list[dict]:
    """Base vs candidate load steps matched by name, largest move first: ``{name, base_median_s, base_n,
    cand_median_s, cand_n, diff_s, base_kind, cand_kind, base_disk_read_mib, cand_disk_read_mib,
    base_merged_into, cand_merged_into, verdict}``. A run where the step was too short and merged into another
    counts on neither side; ``*_merged_into`` names the step that took it (in most such runs)."""
    def most(values):
        values = [v for v in values if v is not None]
        return max(dict.fromkeys(values), key=values.count) if values else None

    rows = []
    for name in dict.fromkeys(_step_names(base) + _step_names(cand)):
        sides = {}
        for side, records in (("base", base), ("cand", cand)):
            own, into = [], []
            for r in records:
                step = find(r.get("load_steps"), name)
                if step is not None and step["name"] == name:
                    own.append(step)
                elif step is not None:
                    into.append(step["name"])
            sides[side] = ([s["dur_s"] for s in own], most([s["kind"] for s in own]),
                           stats.median([(s.get("resources") or {}).get("disk_read_mib") for s in own]), most(into))
        (b, bk, br, bi), (c, ck, cr, ci) = sides["base"], sides["cand"]
        bm, cm = stats.median(b), stats.median(c)
        rows.append({"name": name, "base_median_s": bm, "base_n": len(b), "cand_median_s": cm, "cand_n": len(c),
                     "diff_s": None if bm is None or cm is None else round(cm - bm, 6),
                     "base_kind": bk, "cand_kind": ck, "base_disk_read_mib": br, "cand_disk_read_mib": cr,
                     "base_merged_into": bi, "cand_merged_into": ci, "verdict": stats.differs(b, c)})
    return sorted(rows, key=lambda r: -abs(r["diff_s"] or 0))



def compare_lines(rows: Sequence[dict]) -> list[str]:
    """Text lines for ``compare_steps``: which step moved, its kind on each side."""
    if not rows:
        return []
    out = ["load steps (matched by name; largest move first):"]
    for r in rows:
        def side(median, kind, read, into):
            if median is None:
                return f"merged into '{into}'" if into else "absent"
            return f"{median:.3f} s {kind}" + ("" if read is None else f", read {read:.0f} MiB")

        diff = "n/a" if r["diff_s"] is None else f"{r['diff_s']:+.3f} s"
        noise = r["verdict"]
        word = "" if noise["beyond_noise"] is None else (" beyond noise" if noise["beyond_noise"] else " within noise")
        out.append(f"  '{r['name']}': {side(r['base_median_s'], r['base_kind'], r['base_disk_read_mib'], r['base_merged_into'])}"
                   f" → {side(r['cand_median_s'], r['cand_kind'], r['cand_disk_read_mib'], r['cand_merged_into'])}"
                   f" ({diff}{word})")
    return out
