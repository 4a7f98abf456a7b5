"""The human summary printed on stderr after a run (pure: record → text)."""
from __future__ import annotations

from typing import Optional

from ...derive import energy, gaps, limits, loadsteps, reasoning
from ...derive.record import dominant_phase, unmeasured_share

PHASE_ROWS = (("load", "load_s"), ("ttft", "ttft_s"), ("decode", "decode_s"), ("total", "total_s"))
RESOURCE_COLUMNS = (
    ("peak VRAM MiB", "vram_used_peak_mib", "{:.0f}"),
    ("GPU util %", "gpu_util_mean", "{:.0f}"),
    ("CPU % mean", "cpu_pct_mean", "{:.0f}"),
    ("CPU % max", "cpu_pct_max", "{:.0f}"),
    ("busiest thread %", "cpu_busiest_thread_pct_max", "{:.0f}"),
    ("disk read MB", "disk_read_mib", "{:.1f}"),
)
BAR_CHARS = 40


def _fmt(value, pattern="{:.3f}") -> str:
    return "n/a" if value is None else pattern.format(value)


def _reason(record: dict, field: str) -> Optional[str]:
    for item in record.get("missing", []):
        if item["field"] == field:
            return item["reason"]
    return None


def phase_bar(record: dict) -> Optional[str]:
    """A one-line bar of phase shares, e.g. ``[LLLLLLLLTTDDDDDDDD..] L=40% T=10% D=40%``."""
    phases = record["phases"]
    total = phases.get("total_s")
    if not total:
        return None
    bar, legend = "", []
    for letter, key in (("L", "load_s"), ("T", "ttft_s"), ("D", "decode_s")):
        value = phases.get(key)
        if value is None:
            continue
        share = value / total
        bar += letter * round(share * BAR_CHARS)
        legend.append(f"{letter}={share:.0%}")
    bar = (bar + "." * BAR_CHARS)[:BAR_CHARS]
    return f"[{bar}] {' '.join(legend)}  (.=other: start-up before load, after last token, exit)"


def render(record: dict) -> str:
    """The per-run table: phase, seconds, share of total, resource columns when sampled."""
    from tabulate import tabulate  # imported here: it costs ~50 ms of start-up that --format json never needs
    phases = record["phases"]
    total = phases.get("total_s")
    resources = record.get("resources") or {}
    res_cols = [c for c in RESOURCE_COLUMNS if any((resources.get(p) or {}).get(c[1]) is not None
                                                    for p, _ in PHASE_ROWS)]
    rows = []
    for name, key in PHASE_ROWS:
        value = phases.get(key)
        share = "" if value is None or not total else f"{value / total:.0%}"
        seconds = _fmt(value) if value is not None else "n/a *"
        per_phase = resources.get(name) or {}
        rows.append([name, seconds, share] + [_fmt(per_phase.get(k), p) for _, k, p in res_cols])
    lines = [f"phasewrap: run {record['run_id']} · {record['status']} (exit {record['exit_code']}) · "
             f"profile {record['profile']}"]
    lines.append(tabulate(rows, headers=["phase", "seconds", "share"] + [c[0] for c in res_cols],
                          disable_numparse=True))
    for name, key in PHASE_ROWS:
        if phases.get(key) is None:
            lines.append(f"* {name}: {_reason(record, key) or 'not measured'}")
    steps_line = loadsteps.summary_line(record)
    if steps_line:
        lines.append(steps_line)
    tokens = record.get("tokens") or {}
    if tokens.get("output") is not None:
        rate = record.get("ms_per_token")
        lines.append(f"tokens: {tokens['output']} ({tokens['source']})"
                     + (f" · {rate:.2f} ms/token · {record['tokens_per_s']:.1f} tokens/s" if rate else ""))
    for line in (gaps.summary_line(record), reasoning.summary_line(record), energy.summary_line(record)):
        if line:
            lines.append(line)
    lines += limits.summary_lines(record)
    dom = dominant_phase(record)
    unmeasured = unmeasured_share(record)
    if unmeasured is not None and unmeasured > 0.5:
        largest = f"; the largest measured phase is {dom[0][:-2]} ({dom[1]:.0%})" if dom is not None else ""
        lines.append(f"mostly unmeasured: {unmeasured:.0%} of the run is in no measured phase (markers never seen, "
                     f"start-up before a marker, the time after the last token){largest}")
    elif dom is not None:
        lines.append(f"dominant phase: {dom[0][:-2]} ({dom[1]:.0%} of total)")
    bar = phase_bar(record)
    if bar:
        lines.append(bar)
    for row in record.get("reported_vs_measured") or []:
        flag = f"  <-- differs: {row['why']}" if row["flagged"] else ""
        lines.append(f"{row['phase'][:-2]}: measured {row['measured_s']:.3f} s, framework reports "
                     f"{row['reported_s']:.3f} s (diff {row['diff_s']:+.3f} s){flag}")
    for item in record.get("missing", []):
        if item["field"].startswith("markers."):
            lines.append(f"marker never seen: {item['field'][8:]}: {item['reason']}")
    for name, info in sorted(((resources.get("samplers") or {}).items())):
        if not info.get("available") and "turned off" not in (info.get("reason") or ""):
            lines.append(f"sampler {name}: n/a ({info.get('reason')})")
    for warning in record.get("warnings", []):
        lines.append(f"warning: {warning}")
    return "\n".join(lines) + "\n"


OUTLIER_FLOOR_S = 0.010
OUTLIER_FLOOR_SHARE = 0.05
MULTI_PHASES = (("load", "load_s"), ("ttft", "ttft_s"), ("decode", "decode_s"), ("total", "total_s"))


def _group_key(record: dict, sweep_names: tuple) -> tuple:
    tags = record.get("tags") or {}
    cache = (record.get("cache") or {}).get("label") or "n/a"
    return tuple(tags.get(n) for n in sweep_names) + (cache,)


def render_runs(records: list, sweep_names: tuple = ()) -> str:
    """Repeated runs: one row per (sweep value, cache label), each phase as median [min–max] ± spread.

    Warm-up runs and runs that did not end `ok` (timeout, interrupted, failed, killed) are left out and named;
    runs with different cache labels are never pooled in one row.
    """
    from tabulate import tabulate

    from ...method.stats import first_run_slow, outliers, summarize

    recorded = [r for r in records if not r.get("warmup")]
    # Only runs that ended on their own enter the statistics: a timed-out or interrupted run's phases are cut.
    measured = [r for r in recorded if r.get("status") == "ok"]
    left_out = [r for r in recorded if r.get("status") != "ok"]
    groups: dict = {}
    for record in measured:
        groups.setdefault(_group_key(record, sweep_names), []).append(record)
    rows, notes = [], []
    for key, group in groups.items():
        row = list(key[:-1]) + [key[-1], len(group)]
        for name, phase in MULTI_PHASES:
            values = [r["phases"].get(phase) for r in group]
            st = summarize(values)
            row.append("n/a" if st["median"] is None else
                       f"{st['median']:.3f} [{st['min']:.3f}–{st['max']:.3f}]")
            label = " ".join(f"{n}={v}" for n, v in zip(sweep_names, key)) or "all runs"
            for i in outliers(values):
                if abs(values[i] - st["median"]) < max(OUTLIER_FLOOR_S, OUTLIER_FLOOR_SHARE * st["median"]):
                    continue  # statistically unusual but too small to matter (a tight MAD)
                notes.append(f"outlier: {name} of run {group[i]['run_id']} ({values[i]:.3f} s) in {label}, "
                             f"cache {key[-1]} (modified z-score > 3.5)")
            if name == "total" and first_run_slow(values):
                notes.append(f"the first run of {label} is much slower than the rest (total {values[0]:.3f} s vs "
                             f"median {st['median']:.3f} s): cold first run? use --cold or --warmup")
        tokens = summarize([r.get("ms_per_token") for r in group])
        row.append("n/a" if tokens["median"] is None else f"{tokens['median']:.2f}")
        rows.append(row)
    headers = list(sweep_names) + ["cache", "n"] + [f"{n} s median [min–max]" for n, _ in MULTI_PHASES] + ["ms/token"]
    warmups = len(records) - len(recorded)
    head = f"phasewrap: {len(measured)} measured run(s)" + (f", {warmups} warm-up(s) not counted" if warmups else "")
    if left_out:
        named = ", ".join(f"{r['run_id']} ({r.get('status')})" for r in left_out)
        head += f"; {len(left_out)} run(s) left out of the statistics, not complete: {named}"
    return "\n".join([head, tabulate(rows, headers=headers, disable_numparse=True)] + notes) + "\n"


def one_line(record: dict) -> str:
    """A run in one line, for progress during repeated runs."""
    phases = record["phases"]
    parts = [f"{name} {_fmt(phases.get(key))}" for name, key in PHASE_ROWS]
    cache = (record.get("cache") or {}).get("label") or "n/a"
    return (f"phasewrap: {record['run_id']} {record['status']}{' (warm-up)' if record.get('warmup') else ''} · "
            + " · ".join(parts) + f" s · cache {cache}")
