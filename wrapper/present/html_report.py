"""One self-contained HTML page for a set of runs: tables, diagnosis, environment and the timeline.

The page loads nothing (no script, no font, no stylesheet from anywhere; the timeline is a ``data:`` PNG) and
says so in its Content-Security-Policy, so it opens offline and runs nothing even if something slipped
through. Every piece of text that came from a run (the child's output in marker texts, the command, tags,
notes, warnings, env values) is passed through ``html.escape``: the child's output is untrusted.
"""
from __future__ import annotations

import html
import json
from typing import Optional, Sequence

from ..derive import energy, gaps, reasoning
from .export.summary import PHASE_ROWS, RESOURCE_COLUMNS
from ..core.writer import show_path, write_file
from ..method.diagnose import diagnose, render as render_diagnosis
from .plot import PlotUnavailable, RunView, ascii_bar, html_page, load_runs, png_data_uri, short_id, timeline_bytes

STYLE = (
    "table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}"
    "section{border-top:2px solid #ddd;margin-top:1.5em}code,pre{background:#f6f6f6;padding:1px 3px}"
    "pre{padding:6px;white-space:pre-wrap;word-break:break-all}.na{color:#777}.warn{color:#a40}"
)


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _num(value, pattern: str = "{:.3f}") -> str:
    return '<span class="na">n/a</span>' if value is None else _e(pattern.format(value))


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = ()) -> str:
    """``rows`` hold HTML already escaped; the ``numeric`` columns are right-aligned."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                         for i, c in enumerate(row)) + "</tr>\n"
        for row in rows)
    return f"<table><tr>{head}</tr>\n{body}</table>\n"


def _reason(record: dict, field: str) -> Optional[str]:
    return next((m["reason"] for m in record.get("missing", []) if m.get("field") == field), None)


def _phase_table(record: dict) -> str:
    phases = record.get("phases") or {}
    total = phases.get("total_s")
    resources = record.get("resources") or {}
    columns = [c for c in RESOURCE_COLUMNS
               if any((resources.get(name) or {}).get(c[1]) is not None for name, _ in PHASE_ROWS)]
    rows = []
    for name, key in PHASE_ROWS:
        value = phases.get(key)
        if value is None:
            seconds = f'<span class="na">n/a ({_e(_reason(record, key) or "not measured")})</span>'
        else:
            seconds = _num(value)
        share = "" if value is None or not total else _e(f"{value / total:.0%}")
        per_phase = resources.get(name) or {}
        rows.append([_e(name), seconds, share] + [_num(per_phase.get(k), p) for _, k, p in columns])
    return _table(["phase", "seconds", "share"] + [c[0] for c in columns], rows, range(1, 3 + len(columns)))


def _overview(views: Sequence[RunView]) -> str:
    rows = []
    for v in views:
        rec = v.record or {}
        phases = rec.get("phases") or {}
        rows.append([_e(short_id(v.run_id)), _e(v.cache or ""), _e(rec.get("status", "no record"))]
                    + [_num(phases.get(key)) for _, key in PHASE_ROWS]
                    + [_num(rec.get("tokens_per_s"), "{:.1f}")])
    return _table(["run", "cache", "status"] + [f"{name} s" for name, _ in PHASE_ROWS] + ["tokens/s"], rows,
                  range(3, 4 + len(PHASE_ROWS)))


def _markers_table(record: dict) -> str:
    markers = [(name, m) for name, m in (record.get("markers") or {}).items() if m]
    if not markers:
        return ""
    rows = [[_e(name), _num(m.get("t_s")), _e(m.get("stream", "")), f"<code>{_e(m.get('text', ''))}</code>"]
            for name, m in sorted(markers, key=lambda nm: nm[1].get("t_s") or 0)]
    return "<h3>markers</h3>\n" + _table(["marker", "t_s", "stream", "text"], rows, (1,))


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
    for name in ("load", "ttft", "decode"):
        entry = limits.get(name)
        if not entry:
            continue
        per_token = "floor_ms_per_token" in entry
        measured = entry.get("measured_ms_per_token") if per_token else entry.get("measured_s")
        floor = entry["floor_ms_per_token"] if per_token else entry["floor_s"]
        over = entry.get("over_limit")
        share = (_num(entry["efficiency"], "{:.0%}") if entry.get("efficiency") is not None else
                 f'<span class="warn">{_e(over["reason"])}</span>' if over else _num(None))
        rows.append([_e(name), _num(measured), _num(floor), _e("ms/token" if per_token else "s"), share,
                     _floor_bar(entry.get("efficiency")), _e(entry["bound_by"]), _e(entry["evidence"])])
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


def _flatten(value, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            out += _flatten(item, f"{prefix}.{key}" if prefix else str(key))
        return out
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return [(prefix, text)]


def _env_table(record: dict) -> str:
    env = record.get("env")
    if not env:
        return '<h3>environment</h3>\n<p class="na">not recorded in this run</p>\n'
    rows = [[_e(k), f"<code>{_e(v)}</code>"] for k, v in _flatten(env)]
    return "<h3>environment</h3>\n" + _table(["key", "value"], rows)


def _diagnosis(record: dict) -> str:
    """The diagnosis of this one run (``diagnose`` takes a list of runs)."""
    text = render_diagnosis(diagnose([record]))
    return f"<h3>diagnosis</h3>\n<pre>{_e(text)}</pre>\n" if text else ""


def _run_section(view: RunView) -> str:
    rec = view.record
    parts = [f"<section>\n<h2>run {_e(view.run_id)}</h2>\n"]
    if rec is None:
        parts.append(f'<p class="warn">{_e(view.source)}: the capture was cut short before its record line; '
                     "only the timeline shows this run</p>\n</section>\n")
        return "".join(parts)
    facts = [f"status {rec.get('status')} (exit {rec.get('exit_code')})", f"profile {rec.get('profile')}",
             f"started {rec.get('started_at')}"]
    if view.cache:
        facts.append(f"cache {view.cache}")
    facts += [f"{k}={v}" for k, v in (rec.get("tags") or {}).items()]
    parts.append(f"<p>{' · '.join(_e(f) for f in facts)}</p>\n")
    parts.append(f"<p>command: <code>{_e(' '.join(str(a) for a in rec.get('command') or []))}</code></p>\n")
    if rec.get("note"):
        parts.append(f"<p>note: {_e(rec['note'])}</p>\n")
    parts.append(_phase_table(rec))
    tokens = rec.get("tokens") or {}
    if tokens.get("output") is not None:
        rate = rec.get("ms_per_token")
        line = f"tokens: {tokens['output']} ({tokens.get('source')})"
        if rate:
            line += f" · {rate:.2f} ms/token"
        if rec.get("tokens_per_s"):
            line += f" · {rec['tokens_per_s']:.1f} tokens/s"
        parts.append(f"<p>{_e(line)}</p>\n")
    for line in (gaps.summary_line(rec), reasoning.summary_line(rec), energy.summary_line(rec)):
        if line:
            parts.append(f"<p>{_e(line)}</p>\n")
    parts.append(f"<pre>{_e(ascii_bar(rec))}</pre>\n")
    parts.append(_load_steps_table(rec))
    parts.append(_limits_table(rec))
    parts.append(_reported_table(rec))
    parts.append(_diagnosis(rec))
    notes = [f"marker never seen: {m['field'][8:]}: {m['reason']}" for m in rec.get("missing", [])
             if m.get("field", "").startswith("markers.")]
    notes += [f"warning: {w}" for w in rec.get("warnings") or []]
    if notes:
        parts.append("<ul>" + "".join(f'<li class="warn">{_e(n)}</li>' for n in notes) + "</ul>\n")
    parts.append(_markers_table(rec))
    parts.append(_env_table(rec))
    parts.append("</section>\n")
    return "".join(parts)


def report_html(views: Sequence[RunView], inputs: Sequence[str] = (), sections: Sequence[str] = ()) -> str:
    """The report page for ``views`` (pure: no file I/O); ``inputs`` are named at the top; ``sections``:
    ready HTML fragments (e.g. the by-host table) placed after the overview."""
    views = list(views)
    body = [f"<h1>phasewrap report: {len(views)} run{'s' if len(views) != 1 else ''}</h1>\n"]
    if inputs:
        body.append("<p>from " + ", ".join(f"<code>{_e(show_path(i))}</code>" for i in inputs) + "</p>\n")
    body.append(_overview(views))
    body += list(sections)
    try:
        png = timeline_bytes(views, "png")
    except PlotUnavailable as exc:
        body.append(f'<p class="na">timeline not drawn: {_e(exc)}</p>\n')
    else:
        body.append(f'<p><img alt="timeline of the runs" src="{png_data_uri(png)}"></p>\n')
    body += [_run_section(v) for v in views]
    return html_page("phasewrap report", "".join(body), STYLE)


def write_report(inputs: Sequence[str], path: str, sections: Sequence[str] = ()) -> str:
    """Read runs from ``inputs`` (record JSONL, capture files, capture folders) and write the report to ``path``."""
    write_file(path, report_html(load_runs(inputs), inputs, sections).encode("utf-8", "backslashreplace"),
               "report -o")
    return path
