"""One self-contained HTML page for a set of runs: a headline, the timeline, tables, diagnosis and environment.

The page loads nothing (no script, no font, no stylesheet from anywhere; the timeline is inline SVG) and says so
in its Content-Security-Policy, so it opens offline and runs nothing even if something slipped through. Every
piece of text that came from a run (the child's output in marker texts, the command, tags, notes, warnings, env
values) is passed through ``html.escape``: the child's output is untrusted. It reads on a phone as on a wide
screen: text wraps, wide tables scroll inside their own box, the timeline scales to the page.
"""
from __future__ import annotations

import html
from typing import Optional, Sequence

from ..core.writer import show_path, write_file
from ..derive import energy, gaps, reasoning
from ..method import stats
from ..method.diagnose import diagnose
from ..model import accessors, phases
from .export.summary import RESOURCE_COLUMNS
from .plot import PlotUnavailable, RunView, html_page, inline_svg, load_runs, short_id, timeline_bytes

STYLE = (
    "body{max-width:72em;margin:0 auto;padding:0 1em;line-height:1.4;overflow-wrap:break-word}"
    "table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;"
    "vertical-align:top}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "th{background:#f3f3f3}.scroll{overflow-x:auto;max-width:100%}"
    "section{border-top:2px solid #ddd;margin-top:1.5em}code{background:#f6f6f6;padding:1px 3px;"
    "overflow-wrap:anywhere}.na{color:#666}.warn{color:#a40}"
    ".headline{border:1px solid #ccc;border-left:6px solid #555;background:#fafafa;padding:.4em 1em;margin:1em 0}"
    ".headline p{margin:.3em 0}.lead{font-size:1.25em}"
    ".bar{display:flex;height:1.4em;border:1px solid #999;margin:.4em 0;max-width:40em}"
    ".bar span{display:block;overflow:hidden;white-space:nowrap;font-size:.8em;line-height:1.75em;padding-left:2px}"
    "ol.findings li{margin-bottom:.4em}.next{color:#333}"
)
TIMED_KEYS = [p.key for p in phases.TIMED]


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _num(value, pattern: str = "{:.3f}") -> str:
    return '<span class="na">n/a</span>' if value is None else _e(pattern.format(value))


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = ()) -> str:
    """``rows`` hold HTML already escaped; the ``numeric`` columns are right-aligned. A table wider than the
    page scrolls inside its own box, never the page."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                         for i, c in enumerate(row)) + "</tr>\n"
        for row in rows)
    return f'<div class="scroll"><table><tr>{head}</tr>\n{body}</table></div>\n'


def _reason(record: dict, field: str) -> Optional[str]:
    return next((m["reason"] for m in record.get("missing", []) if m.get("field") == field), None)


def _measured(records: Sequence[dict]) -> list[dict]:
    """The runs that enter statistics: ended ok, not a warm-up."""
    return [r for r in records if accessors.is_ok(r) and not accessors.is_warmup(r)]


def _medians(records: Sequence[dict]) -> dict:
    """``{phase key: median}`` over ``records`` (None where no run measured it)."""
    return {p.key: stats.median([accessors.phase_s(r, p) for r in records]) for p in phases.PHASES}


def _dominant(medians: dict) -> Optional[tuple[phases.Phase, float, float]]:
    """(phase, seconds, share of total) of the largest timed phase, None without a total or any phase."""
    total = medians.get("total_s")
    known = [(p, medians[p.key]) for p in phases.TIMED if medians.get(p.key) is not None]
    if not total or not known:
        return None
    phase, seconds = max(known, key=lambda ps: ps[1])
    return phase, seconds, seconds / total


def _efficiency(records: Sequence[dict], phase: phases.Phase) -> Optional[float]:
    """The median of ``limits[phase].efficiency`` (measured against the hardware floor), None when no record
    has it (records from before the floors, or a floor that could not be computed)."""
    values = []
    for r in records:
        limit = (r.get("limits") or {}).get(phase.name)
        value = limit.get("efficiency") if isinstance(limit, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            values.append(value)
    return stats.median(values) if values else None


# -- sweeps: one row per tag set ------------------------------------------------------------------------------

CACHE_KEY = "cache"


def _variant_of(record: dict, key: str) -> str:
    if key == CACHE_KEY:
        return str(accessors.cache_label(record) or accessors.tags(record).get(CACHE_KEY) or "n/a")
    return str(accessors.tags(record).get(key, "n/a"))


def _sweep_keys(records: Sequence[dict]) -> list[str]:
    """What tells the variants apart: the tag keys whose values differ between the runs (``-L`` sweeps), and
    ``cache`` when the page-cache labels differ (cold and warm runs never pool into one median)."""
    keys = list(dict.fromkeys(k for r in records for k in accessors.tags(r) if k != CACHE_KEY)) + [CACHE_KEY]
    return [k for k in keys if len({_variant_of(r, k) for r in records}) > 1]


def _variants(records: Sequence[dict], keys: Sequence[str]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in records:
        out.setdefault(" ".join(f"{k}={_variant_of(r, k)}" for k in keys), []).append(r)
    return out


def _first_finding(records: Sequence[dict]):
    """The first finding of the diagnosis that names a bottleneck (not the list of checks not run)."""
    return next((f for f in diagnose(list(records)) if f.rule not in ("not_checked", "no_data")), None)


def _variant_table(records: Sequence[dict]) -> str:
    """For a sweep: per tag set, the number of runs, the phase medians, tokens/s and the first finding."""
    measured = _measured(records)
    keys = _sweep_keys(measured)
    if not keys:
        return ""
    rows = []
    for label, group in _variants(measured, keys).items():
        medians = _medians(group)
        dom = _dominant(medians)
        finding = _first_finding(group)
        rows.append([_e(label), _e(len(group))] + [_num(medians[p.key]) for p in phases.PHASES]
                    + [_num(stats.median([r.get("tokens_per_s") for r in group]), "{:.1f}"),
                       _e(f"{dom[0].label} {dom[2]:.0%}") if dom else '<span class="na">n/a</span>',
                       _e(finding.bottleneck) if finding else '<span class="na">n/a</span>'])
    headers = ["variant", "runs"] + [f"{p.label} s (median)" for p in phases.PHASES] + ["tokens/s", "dominant",
                                                                                         "bottleneck"]
    return ("<h2>variants</h2>\n<p>one row per variant (" + _e(", ".join(keys))
            + "); medians over the runs that ended ok, warm-ups left out</p>\n"
            + _table(headers, rows, range(1, 3 + len(phases.PHASES))))


# -- the headline ---------------------------------------------------------------------------------------------

def _failures_line(records: Sequence[dict]) -> str:
    failed = [r for r in records if not accessors.is_ok(r)]
    if not failed:
        return ""
    how = ", ".join(sorted({f"{r.get('status')} (exit {'n/a' if r.get('exit_code') is None else r['exit_code']})"
                            for r in failed}))
    return (f'<p class="lead warn">{len(failed)} of {len(records)} run{"s" if len(records) != 1 else ""} did not '
            f"end ok: {_e(how)}; their phases are not in the figures below</p>\n")


HEADLINE_VARIANTS = 4  # findings named in the headline of a sweep; the variants table has them all


def _finding_html(finding, lead: str = "") -> str:
    return (f"<p>{_e(lead)}<strong>{_e(finding.bottleneck)}</strong>: {_e(finding.statement)}<br>"
            f'<span class="next">next: {_e(finding.next_step)}</span></p>\n')


def _variants_lines(measured: Sequence[dict], keys: Sequence[str]) -> str:
    groups = _variants(measured, keys)
    doms = [_dominant(_medians(g)) for g in groups.values()]
    named = " / ".join(dict.fromkeys(d[0].label for d in doms if d)) or "n/a"
    shares = [d[2] for d in doms if d]
    spread = f" ({min(shares):.0%}–{max(shares):.0%} of the total)" if shares else ""
    parts = [f'<p class="lead">{len(groups)} variants ({_e(", ".join(keys))}): the dominant phase is '
             f"{_e(named)}{_e(spread)}</p>\n"]
    for label, group in list(groups.items())[:HEADLINE_VARIANTS]:
        finding = _first_finding(group)
        if finding is not None:
            parts.append(_finding_html(finding, f"{label}: "))
    if len(groups) > HEADLINE_VARIANTS:
        parts.append(f"<p>… and {len(groups) - HEADLINE_VARIANTS} more variants in the table below</p>\n")
    return "".join(parts)


def _dominant_line(measured: Sequence[dict]) -> str:
    dom = _dominant(_medians(measured))
    if dom is None:
        return '<p class="lead na">no dominant phase: no run measured its total and a phase</p>\n'
    phase, seconds, share = dom
    over = f", median of {len(measured)} runs" if len(measured) > 1 else ""
    text = f"{phase.label} dominates: {seconds:.3f} s, {share:.0%} of the total{over}"
    efficiency = _efficiency(measured, phase)
    if efficiency is not None:
        text += f" · efficiency {efficiency:.0%} of what the hardware allows"
    parts = [f'<p class="lead">{_e(text)}</p>\n']
    finding = _first_finding(measured)
    if finding is not None:
        parts.append(_finding_html(finding))
    return "".join(parts)


def _headline(views: Sequence[RunView]) -> str:
    """What a reader needs first: failures, the dominant phase and its share (efficiency when the records have
    the hardware floors) and the first finding of the diagnosis with its next step; per variant for a sweep."""
    records = [v.record for v in views if v.record]
    parts = [_failures_line(records)] if records else []
    measured = _measured(records)
    keys = _sweep_keys(measured)
    if keys:
        parts.append(_variants_lines(measured, keys))
    elif measured:
        parts.append(_dominant_line(measured))
    elif not records:
        parts.append('<p class="lead na">no run records to summarise</p>\n')
    return '<div class="headline" id="headline">\n' + "".join(parts) + "</div>\n"


# -- per run --------------------------------------------------------------------------------------------------

def _phase_table(record: dict) -> str:
    total = accessors.phase_s(record, "total")
    resources = record.get("resources") or {}
    columns = [c for c in RESOURCE_COLUMNS
               if any((resources.get(p.name) or {}).get(c[1]) is not None for p in phases.PHASES)]
    rows, reasons = [], []
    for phase in phases.PHASES:
        value = accessors.phase_s(record, phase)
        if value is None:  # the reason goes under the table, where it can wrap
            seconds = '<span class="na">n/a *</span>'
            reasons.append(f"{phase.label}: {_reason(record, phase.key) or 'not measured'}")
        else:
            seconds = _num(value)
        share = "" if value is None or not total else _e(f"{value / total:.0%}")
        per_phase = resources.get(phase.name) or {}
        rows.append([_e(phase.label), seconds, share] + [_num(per_phase.get(k), p) for _, k, p in columns])
    notes = "".join(f'<li class="na">* {_e(r)}</li>' for r in reasons)
    return (_table(["phase", "seconds", "share"] + [c[0] for c in columns], rows, range(1, 3 + len(columns)))
            + (f"<ul>{notes}</ul>\n" if notes else ""))


def _phase_bar(record: dict) -> str:
    """The phase shares as one coloured bar (the terminal's ``[LLLTTDDD..]``), or why there is none."""
    total = accessors.phase_s(record, "total")
    parts = [(p, accessors.phase_s(record, p)) for p in phases.TIMED]
    parts = [(p, v) for p, v in parts if v is not None]
    if not total or not parts:
        return f'<p class="na">no phase bar: {_e(_reason(record, "total_s") or "no total and no timed phase")}</p>\n'
    spans = "".join(f'<span style="width:{100 * v / total:.2f}%;background:{p.colour}" title="{_e(p.label)} '
                    f'{v:.3f} s">{_e(p.label)} {v / total:.0%}</span>' for p, v in parts)
    label = ", ".join(f"{p.label} {v / total:.0%}" for p, v in parts) + " of the total; the rest: start-up, exit"
    return f'<div class="bar" role="img" aria-label="{_e(label)}">{spans}</div>\n'


def _overview(views: Sequence[RunView]) -> str:
    rows = []
    for v in views:
        rec = v.record or {}
        rows.append([_e(short_id(v.run_id)), _e(v.cache or ""), _e(rec.get("status", "no record"))]
                    + [_num(accessors.phase_s(rec, p)) for p in phases.PHASES]
                    + [_num(rec.get("tokens_per_s"), "{:.1f}")])
    return _table(["run", "cache", "status"] + [f"{p.label} s" for p in phases.PHASES] + ["tokens/s"], rows,
                  range(3, 4 + len(phases.PHASES)))


def _markers_table(record: dict) -> str:
    markers = [(name, m) for name, m in (record.get("markers") or {}).items() if m]
    if not markers:
        return ""
    rows = [[_e(name), _num(m.get("t_s")), _e(m.get("stream", "")), f"<code>{_e(m.get('text', ''))}</code>"]
            for name, m in sorted(markers, key=lambda nm: nm[1].get("t_s") or 0)]
    return "<h3>markers</h3>\n" + _table(["marker", "t s", "stream", "text"], rows, (1,))


def _load_steps_table(record: dict) -> str:
    steps = record.get("load_steps") or []
    if not steps:
        return ""
    rows = [[_e(st["name"]), _num(st["start_s"]), _num(st["dur_s"]), _e(st["kind"]),
             _num((st.get("resources") or {}).get("disk_read_mib"), "{:.1f}"),
             _num((st.get("resources") or {}).get("cpu_pct_mean"), "{:.0f}"), _e(st["evidence"]),
             f"<code>{_e(st['ended_by']['text'])}</code>"] for st in steps]
    return ("<h3>load steps</h3>\n"
            + _table(["step", "start s", "seconds", "kind", "disk read MiB", "CPU %", "evidence", "ended by"], rows,
                     (1, 2, 4, 5)))


def _floor_bar(share: Optional[float]) -> str:
    """The measured phase as a full bar with its floor drawn inside it (the share of the bar the floor fills)."""
    if share is None:
        return ""
    return ('<div style="width:12em;background:#ddd;height:0.8em"><div style="width:'
            f'{min(share, 1.0) * 100:.1f}%;background:#555;height:0.8em"></div></div>')


def _limits_table(record: dict) -> str:
    """Each phase beside the floor its bytes allow on this hardware (see derive.limits)."""
    limits = record.get("limits") or {}
    rows = []
    for name in (p.name for p in phases.TIMED):
        entry = limits.get(name)
        if not isinstance(entry, dict):
            continue
        per_token = "floor_ms_per_token" in entry
        measured = entry.get("measured_ms_per_token") if per_token else entry.get("measured_s")
        floor = entry.get("floor_ms_per_token") if per_token else entry.get("floor_s")
        over = entry.get("over_limit")
        share = (_num(entry["efficiency"], "{:.0%}") if entry.get("efficiency") is not None else
                 f'<span class="warn">{_e(over["reason"])}</span>' if over else _num(None))
        rows.append([_e(name), _num(measured), _num(floor), _e("ms/token" if per_token else "s"), share,
                     _floor_bar(entry.get("efficiency")), _e(entry.get("bound_by") or "n/a"), _e(entry.get("evidence") or "")])
    if not rows:
        return ""
    return ("<h3>hardware floors</h3>\n"
            + _table(["phase", "measured", "floor", "unit", "of the limit", "floor in measured", "bound by",
                      "evidence"], rows, (1, 2, 4)))


def _reported_table(record: dict) -> str:
    rows = [[_e(r["phase"]), _num(r["measured_s"]), _num(r["reported_s"]), _num(r["diff_s"], "{:+.3f}"),
             f'<span class="warn">{_e(r["why"] or "differs")}</span>' if r.get("flagged") else ""]
            for r in record.get("reported_vs_measured") or []]
    if not rows:
        return ""
    return ("<h3>measured vs reported by the framework</h3>\n"
            + _table(["phase", "measured s", "reported s", "diff s", "note"], rows, (1, 2, 3)))


# -- the environment, readable --------------------------------------------------------------------------------

UNIT_SUFFIXES = (("_mib", "MiB"), ("_bytes", "bytes"), ("_ms", "ms"), ("_s", "s"), ("_pct", "%"), ("_w", "W"),
                 ("_mhz", "MHz"))
SHORT_HASH = 12
_KIB = 1024


def _size(value: float, unit: str) -> str:
    """Sizes the way people read them: ``24105.6 MiB`` → ``23.5 GiB``; bytes in KiB/MiB/GiB."""
    mib = value / (_KIB * _KIB) if unit == "bytes" else value
    if mib >= _KIB:
        return f"{mib / _KIB:.1f} GiB"
    if mib >= 1:
        return f"{mib:.1f} MiB"
    return f"{value:.0f} bytes" if unit == "bytes" else f"{value * _KIB:.0f} KiB"


def _env_value(key: str, value) -> str:
    """One environment value as text with its unit (from the key's suffix), never raw JSON or ``null``."""
    name = key.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        unit = next((u for suffix, u in UNIT_SUFFIXES if name.endswith(suffix)), "")
        if unit in ("MiB", "bytes"):
            return _size(value, unit)
        return f"{value:g} {unit}".strip()
    if isinstance(value, str) and name.endswith("sha256") and len(value) > SHORT_HASH:
        return value[:SHORT_HASH] + "…"
    if isinstance(value, list):
        return ", ".join(_env_value(key, v) for v in value) if value else "none"
    if isinstance(value, dict):
        return " · ".join(f"{_label(k)} {_env_value(k, v)}" for k, v in value.items() if v is not None)
    return str(value)


def _label(key: str) -> str:
    """``executable.size_bytes`` → ``executable size``: the unit moves to the value."""
    words = key.replace(".", " ")
    for suffix, _unit in UNIT_SUFFIXES:
        if words.endswith(suffix):
            words = words[:-len(suffix)]
            break
    return words.replace("_", " ")


def _env_rows(env: dict, unavailable: dict, prefix: str = "") -> list[tuple[str, str, Optional[str]]]:
    """(label, value text, full value for a tooltip or None) per leaf; a missing value shows as n/a (why)."""
    rows = []
    for key, value in env.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and not (prefix == "" and key == "unavailable"):
            rows += _env_rows(value, unavailable, path + ".")
        elif value is None or value == [] and path in unavailable:
            reason = unavailable.get(path) or unavailable.get(key)
            rows.append((_label(path), f"n/a ({reason})" if reason else "n/a", None))
        elif key != "unavailable" or prefix:
            full = value if isinstance(value, str) and key.endswith("sha256") else None
            rows.append((_label(path), _env_value(path, value), full))
    return rows


def _env_table(record: dict) -> str:
    env = record.get("env")
    if not isinstance(env, dict) or not env:
        return '<h3>environment</h3>\n<p class="na">not recorded in this run</p>\n'
    unavailable = env.get("unavailable") if isinstance(env.get("unavailable"), dict) else {}
    rows = []
    for label, text, full in _env_rows(env, unavailable):
        cell = _e(text) if not text.startswith("n/a") else f'<span class="na">{_e(text)}</span>'
        if full is not None:
            cell = f'<code title="{_e(full)}">{_e(text)}</code>'
        rows.append([_e(label), cell])
    return "<h3>environment</h3>\n" + _table(["what", "value"], rows)


# -- diagnosis and the run's section --------------------------------------------------------------------------

def _diagnosis(record: dict) -> str:
    """The diagnosis of this one run (``diagnose`` takes a list of runs) as a numbered list."""
    findings = diagnose([record])
    if not findings:
        return ""
    items = "".join(f"<li><strong>{_e(f.bottleneck)}</strong>: {_e(f.statement)}<br>"
                    f'<span class="next">next: {_e(f.next_step)}</span></li>\n' for f in findings)
    return f'<h3>diagnosis</h3>\n<ol class="findings">\n{items}</ol>\n'


def _facts_line(view: RunView, rec: dict) -> str:
    exit_code = "n/a" if rec.get("exit_code") is None else rec["exit_code"]
    facts = [f"status {rec.get('status') or 'n/a'} (exit {exit_code})", f"profile {rec.get('profile') or 'n/a'}",
             f"started {rec.get('started_at') or 'n/a'}"]
    if view.cache:
        facts.append(f"cache {view.cache}")
    facts += [f"{k}={v}" for k, v in accessors.tags(rec).items()]
    return f"<p>{' · '.join(_e(f) for f in facts)}</p>\n"


def _tokens_line(rec: dict) -> str:
    tokens = rec.get("tokens") or {}
    if tokens.get("output") is None:
        return ""
    line = f"tokens: {tokens['output']} ({tokens.get('source') or 'n/a'})"
    if rec.get("ms_per_token"):
        line += f" · {rec['ms_per_token']:.2f} ms/token"
    if rec.get("tokens_per_s"):
        line += f" · {rec['tokens_per_s']:.1f} tokens/s"
    return f"<p>{_e(line)}</p>\n"


def _notes(rec: dict) -> str:
    notes = [f"marker never seen: {m['field'][8:]}: {m['reason']}" for m in rec.get("missing", [])
             if m.get("field", "").startswith("markers.")]
    notes += [f"warning: {w}" for w in rec.get("warnings") or []]
    return "<ul>" + "".join(f'<li class="warn">{_e(n)}</li>' for n in notes) + "</ul>\n" if notes else ""


def _run_section(view: RunView) -> str:
    rec = view.record
    parts = [f"<section>\n<h2>run {_e(view.run_id)}</h2>\n"]
    if rec is None:
        parts.append(f'<p class="warn">{_e(view.source)}: the capture was cut short before its record line; '
                     "only the timeline shows this run</p>\n</section>\n")
        return "".join(parts)
    parts.append(_facts_line(view, rec))
    parts.append(f"<p>command: <code>{_e(' '.join(str(a) for a in rec.get('command') or []))}</code></p>\n")
    if rec.get("note"):
        parts.append(f"<p>note: {_e(rec['note'])}</p>\n")
    parts += [_phase_table(rec), _phase_bar(rec), _tokens_line(rec)]
    for line in (gaps.summary_line(rec), reasoning.summary_line(rec), energy.summary_line(rec)):
        if line:
            parts.append(f"<p>{_e(line)}</p>\n")
    parts += [_load_steps_table(rec), _limits_table(rec), _reported_table(rec), _diagnosis(rec), _notes(rec), _markers_table(rec),
              _env_table(rec), "</section>\n"]
    return "".join(parts)


def _timeline(views: Sequence[RunView]) -> str:
    try:
        svg = timeline_bytes(views, "svg")
    except PlotUnavailable as exc:
        return f'<p class="na">timeline not drawn: {_e(exc)}</p>\n'
    return f'<figure id="timeline" style="margin:1em 0">{inline_svg(svg, "timeline of the runs", "timeline")}</figure>\n'


def report_html(views: Sequence[RunView], inputs: Sequence[str] = (), sections: Sequence[str] = ()) -> str:
    """The report page for ``views`` (pure: no file I/O); ``inputs`` are named at the top; ``sections``:
    ready HTML fragments (e.g. the by-host table) placed after the overview."""
    views = list(views)
    body = [f"<h1>phasewrap report: {len(views)} run{'s' if len(views) != 1 else ''}</h1>\n"]
    if inputs:
        body.append("<p>from " + ", ".join(f"<code>{_e(show_path(i))}</code>" for i in inputs) + "</p>\n")
    body.append(_headline(views))
    body.append(_timeline(views))
    body.append(_overview(views))
    body.append(_variant_table([v.record for v in views if v.record]))
    body += list(sections)
    body += [_run_section(v) for v in views]
    return html_page("phasewrap report", "".join(body), STYLE)


def write_report(inputs: Sequence[str], path: str, sections: Sequence[str] = ()) -> str:
    """Read runs from ``inputs`` (record JSONL, capture files, capture folders) and write the report to ``path``."""
    write_file(path, report_html(load_runs(inputs), inputs, sections).encode("utf-8", "backslashreplace"),
               "report -o")
    return path
