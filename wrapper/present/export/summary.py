"""The human summary printed on stderr after a run (pure: record → text)."""
from __future__ import annotations

from typing import Optional

from ...derive import energy, gaps, limits, loadsteps, reasoning
from ...derive.record import dominant_phase, unmeasured_share
from ...model import phases as phase_table
from ...model.accessors import is_buffered
from ..style import simple_table, wrap

PHASE_ROWS = tuple((p.name, p.key) for p in phase_table.PHASES)
RESOURCE_COLUMNS = (
    ("peak VRAM MiB", "vram_used_peak_mib", "{:.0f}"),
    ("GPU util %", "gpu_util_mean", "{:.0f}"),
    ("CPU % mean", "cpu_pct_mean", "{:.0f}"),
    ("CPU % max", "cpu_pct_max", "{:.0f}"),
    ("busiest thread %", "cpu_busiest_thread_pct_max", "{:.0f}"),
    ("disk read MB", "disk_read_mib", "{:.1f}"),
)
# The terminal's headers for them, short so that the table fits 100 columns; what each means is said once below.
SHORT_HEADERS = {"vram_used_peak_mib": ("VRAM MiB", "peak"), "gpu_util_mean": ("GPU %", "mean utilization"),
                 "cpu_pct_mean": ("CPU %", "mean"), "cpu_pct_max": ("CPU max %", None),
                 "cpu_busiest_thread_pct_max": ("thread %", "the busiest thread's max"),
                 "disk_read_mib": ("read MB", "from disk")}
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
    for letter, key in ((p.letter, p.key) for p in phase_table.TIMED):
        value = phases.get(key)
        if value is None:
            continue
        share = value / total
        bar += letter * round(share * BAR_CHARS)
        legend.append(f"{letter}={share:.0%}")
    bar = (bar + "." * BAR_CHARS)[:BAR_CHARS]
    return f"[{bar}] {' '.join(legend)}  (.=other: start-up before load, after last token, exit)"


def _phase_table(phases: dict, resources: dict) -> list:
    """The phase × resource table, and a line saying what its short resource headers mean."""
    total = phases.get("total_s")
    res_cols = [c for c in RESOURCE_COLUMNS if any((resources.get(p) or {}).get(c[1]) is not None
                                                    for p, _ in PHASE_ROWS)]
    rows = []
    for name, key in PHASE_ROWS:
        value = phases.get(key)
        share = "" if value is None or not total else f"{value / total:.0%}"
        seconds = _fmt(value) if value is not None else "n/a *"
        per_phase = resources.get(name) or {}
        rows.append([name, seconds, share] + [_fmt(per_phase.get(k), p) for _, k, p in res_cols])
    short = [SHORT_HEADERS[c[1]] for c in res_cols]
    meanings = [f"{header}: {meaning}" for header, meaning in short if meaning]
    table = simple_table(rows, ["phase", "seconds", "share"] + [header for header, _ in short])
    return [table] + ([" · ".join(meanings)] if meanings else [])


def render_failure(record: dict) -> Optional[str]:
    """A failed run's summary, failure first: how it failed, its last lines, what was measured before it
    ended; no phase reasons or marker advice (the run never got to be measured). None for a run that did its job."""
    from ...core.safe import terminal

    failure = record.get("failure")
    if not failure:
        return None
    lines = [f"phasewrap: {failure['how']} · run {record['run_id']} · profile {record.get('profile') or 'generic'}"]
    if failure["last_lines"]:
        lines.append(f"last lines on std{failure['stream']}:")
        lines += [f"  {terminal(line)}" for line in failure["last_lines"]]
    phases = record["phases"]
    measured = " · ".join(f"{name} {phases[key]:.3f} s" for name, key in PHASE_ROWS if phases.get(key) is not None)
    lines.append(f"measured before it ended: {measured or 'nothing'}")
    lines += [f"warning: {w}" for w in record.get("warnings", [])]
    return "\n".join(lines) + "\n"


def _share_line(record: dict) -> Optional[str]:
    """The dominant phase, or why none is named (output buffered until exit, most of the run unmeasured)."""
    dom = dominant_phase(record)
    unmeasured = unmeasured_share(record)
    if is_buffered(record):
        return "phases not ranked: the output came in one burst at exit, so the reads can't show them"
    if unmeasured is not None and unmeasured > 0.5:
        largest = f"; the largest measured phase is {dom[0][:-2]} ({dom[1]:.0%})" if dom is not None else ""
        return (f"mostly unmeasured: {unmeasured:.0%} of the run is in no measured phase (markers never seen, "
                f"start-up before a marker, the time after the last token){largest}")
    return None if dom is None else f"dominant phase: {dom[0][:-2]} ({dom[1]:.0%} of total)"


def render(record: dict, width: Optional[int] = None) -> str:
    """The per-run table: phase, seconds, share of total, resource columns when sampled; the lines around it
    folded to ``width`` (None: unfolded). A failed run: its failure first (``render_failure``)."""
    failed = render_failure(record)
    if failed is not None:
        return failed
    phases = record["phases"]
    resources = record.get("resources") or {}
    exit_code, profile = record.get("exit_code"), record.get("profile")  # a replayed log may know neither
    lines = [f"phasewrap: run {record['run_id']} · {record['status']}"
             + (f" (exit {exit_code})" if exit_code is not None else "")
             + (f" · profile {profile}" if profile is not None else "")] + _phase_table(phases, resources)
    for name, key in PHASE_ROWS:
        if phases.get(key) is None:
            lines.append(f"* {name}: {_reason(record, key) or 'not measured'}")
    steps_line = loadsteps.summary_line(record)
    if steps_line:
        lines.append(steps_line)
    tokens = record.get("tokens") or {}
    if tokens.get("output") is not None:
        rate, per_s = record.get("ms_per_token"), record.get("tokens_per_s")  # either may be unknown alone
        lines.append(f"tokens: {tokens['output']} ({tokens['source']})" + (f" · {rate:.2f} ms/token" if rate else "")
                     + (f" · {per_s:.1f} tokens/s" if per_s else ""))
    for line in (gaps.summary_line(record), reasoning.summary_line(record), energy.summary_line(record)):
        if line:
            lines.append(line)
    lines += limits.summary_lines(record)
    share = _share_line(record)
    if share:
        lines.append(share)
    bar = None if is_buffered(record) else phase_bar(record)
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
    return "\n".join(line if "\n" in line else wrap(line, width) for line in lines) + "\n"  # the table stays


TABLE_WIDTH = 100
COLUMN_GAP = 2       # tabulate's "simple" format: two spaces between columns, headers padded by two
MIN_TAG_WIDTH = 8


def _secs(value: float) -> str:
    """Seconds with 4 significant digits at most (0.123, 12.35, 123.5): the range line stays one cell wide."""
    return f"{value:.3f}" if value < 10 else f"{value:.2f}" if value < 100 else f"{value:.1f}"


def _tag_width(headers: list, rows: list, tags: int) -> int:
    """How wide each of the first ``tags`` columns may be for the whole table to fit TABLE_WIDTH."""
    if not tags:
        return MIN_TAG_WIDTH
    rest = sum(max([len(h) + COLUMN_GAP] + [len(line) for row in rows for line in str(row[i]).split("\n")])
               for i, h in enumerate(headers) if i >= tags)
    spare = TABLE_WIDTH - rest - COLUMN_GAP * (len(headers) - 1)
    return max(MIN_TAG_WIDTH, spare // tags)
OUTLIER_FLOOR_S = 0.010
OUTLIER_FLOOR_SHARE = 0.05
MULTI_PHASES = PHASE_ROWS


def _group_key(record: dict, sweep_names: tuple) -> tuple:
    tags = record.get("tags") or {}
    cache = (record.get("cache") or {}).get("label") or "n/a"
    return tuple(tags.get(n) for n in sweep_names) + (cache,)


def render_runs(records: list, sweep_names: tuple = (), width: Optional[int] = None) -> str:
    """Repeated runs: one row per (sweep value, cache label), each phase as its median with min–max beneath;
    prose lines folded to ``width`` (None: unfolded), the table within ``TABLE_WIDTH`` columns.

    Warm-up runs and runs that did not end `ok` (timeout, interrupted, failed, killed) are left out and named;
    runs with different cache labels are never pooled in one row.
    """
    from tabulate import tabulate

    from ...method.stats import first_run_slow, outliers, summarize

    recorded = [r for r in records if not r.get("warmup")]
    # Only runs that ended on their own enter the statistics: a timed-out or interrupted run's phases are cut.
    measured = [r for r in recorded if r.get("status") == "ok"]
    left_out = [r for r in recorded if r.get("status") != "ok"]
    failed = [r for r in left_out if r.get("failure")]
    if failed and not measured:  # nothing to tabulate: the failure first, as for one run
        return (f"phasewrap: {len(failed)} of {len(recorded)} run(s) failed, none measured; the first:\n"
                + render_failure(failed[0]))
    groups: dict = {}
    for record in measured:
        groups.setdefault(_group_key(record, sweep_names), []).append(record)
    rows, notes = [], []
    for key, group in groups.items():
        row = list(key[:-1]) + [key[-1], len(group)]
        for name, phase in MULTI_PHASES:
            values = [r["phases"].get(phase) for r in group]
            st = summarize(values)
            row.append("n/a" if st["median"] is None else  # range beneath: 11 columns a phase, not 25
                       f"{_secs(st['median'])}\n{_secs(st['min'])}–{_secs(st['max'])}")
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
    headers = list(sweep_names) + ["cache", "n"] + [f"{n} s" for n, _ in MULTI_PHASES] + ["ms/token"]
    warmups = len(records) - len(recorded)
    head = f"phasewrap: {len(measured)} measured run(s)" + (f", {warmups} warm-up(s) not counted" if warmups else "")
    if left_out:
        named = ", ".join(f"{r['run_id']} ({r.get('status')})" for r in left_out)
        head += f"; {len(left_out)} run(s) left out of the statistics, not complete: {named}"
    from ...method.sweep import effect_lines

    buffered = sum(1 for r in measured if is_buffered(r))
    if buffered:
        notes.insert(0, f"warning: in {buffered} of {len(measured)} run(s) the output came in one burst at exit: "
                        "their phases can't be measured (try --pty, `stdbuf -o0 CMD` or PYTHONUNBUFFERED=1)")
    # tag values (paths, prompts) fold inside their cells so the table keeps within TABLE_WIDTH
    tag_width = _tag_width(headers, rows, len(sweep_names))
    table = tabulate(rows, headers=headers, disable_numparse=True,
                     maxcolwidths=[tag_width] * len(sweep_names) + [None] * (len(headers) - len(sweep_names)))
    return "\n".join([wrap(head, width), "each phase: median s, min–max beneath", table]
                     + [wrap(n, width) for n in notes + effect_lines(records)]) + "\n"


def one_line(record: dict) -> str:
    """A run in one line, for progress during repeated runs."""
    phases = record["phases"]
    parts = [f"{name} {_fmt(phases.get(key))}" for name, key in PHASE_ROWS]
    cache = (record.get("cache") or {}).get("label") or "n/a"
    return (f"phasewrap: {record['run_id']} {record['status']}{' (warm-up)' if record.get('warmup') else ''} · "
            + " · ".join(parts) + f" s · cache {cache}")
