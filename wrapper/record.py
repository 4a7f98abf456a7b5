"""Assemble the run record (schema ``phasewrap.run/1``) from the pieces a run or a re-analysis produced.

Pure: no clocks, no I/O. Every phase that can't be measured is ``None`` with a reason in ``missing``.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Optional, Sequence

from .events import Marker
from .markers import MarkerSpec

SCHEMA = "phasewrap.run/1"
PHASES = ("load_s", "ttft_s", "decode_s", "total_s")
# reported field → measured phase it corresponds to, for the side-by-side comparison
REPORTED_PHASES = (("load_ms", "load_s"), ("prompt_eval_ms", "ttft_s"), ("eval_ms", "decode_s"))
FLAG_RATIO = 0.20
FLAG_ABS_S = 0.050


@dataclass
class RunFacts:
    """What a run (live or replayed) yields, before it is turned into a record."""

    run_id: str
    command: list
    profile: str
    t0_ns: int
    wall_t0_s: float
    end_ns: Optional[int]
    exit_code: Optional[int]
    status: str
    markers: dict = field(default_factory=dict)
    ready_spec: Optional[MarkerSpec] = None
    first_token_spec: Optional[MarkerSpec] = None
    pending: Sequence[MarkerSpec] = ()
    token_stream: str = "out"
    token_chunks: int = 0
    reported: Optional[dict] = None
    reported_output_offset: int = 0
    definitions: dict = field(default_factory=dict)
    tags: dict = field(default_factory=dict)
    note: Optional[str] = None
    warnings: list = field(default_factory=list)
    child: dict = field(default_factory=dict)
    stream_tokens: tuple = (None, None)  # (count, source) from a server's response stream
    resources: Optional[dict] = None
    token_stream_problem: Optional[str] = None  # why the token stream had nothing (a failed --request)
    load_steps: Optional[list] = None  # the load window cut into steps (loadsteps.py)
    load_steps_reason: Optional[str] = None  # why load_steps is None


def iso_utc(epoch_s: float) -> str:
    return _dt.datetime.fromtimestamp(epoch_s, _dt.timezone.utc).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def _since(t0_ns: int, marker: Optional[Marker]) -> Optional[float]:
    return None if marker is None else round((marker.t_ns - t0_ns) / 1e9, 6)


def _span(start: Optional[Marker], end: Optional[Marker]) -> Optional[float]:
    if start is None or end is None:
        return None
    return round((end.t_ns - start.t_ns) / 1e9, 6)


def _missing_reasons(f: RunFacts) -> list[dict]:
    m = f.markers
    out = []
    never = {spec.name: spec for spec in f.pending}

    def why_marker(name: str, spec: Optional[MarkerSpec]) -> str:
        if name in never:
            return f"{name} marker /{never[name].pattern.pattern}/ never appeared on {never[name].stream}"
        return f"no {name} marker: profile {f.profile!r} has none; pass --{name.replace('_', '-')} REGEX"

    if "ready" not in m:
        out.append({"field": "load_s", "reason": why_marker("ready", f.ready_spec)})
        out.append({"field": "ttft_s", "reason": "needs the ready marker"})
    if "first_token" not in m:
        if f.first_token_spec is not None:
            reason = why_marker("first_token", f.first_token_spec)
        elif f.ready_spec is not None and "ready" not in m:
            reason = "the first-token rule starts after the ready marker, which never appeared"
        elif f.token_stream_problem:
            reason = f.token_stream_problem
        else:
            reason = f"no output on the token stream ({f.token_stream}) that is not the echoed prompt"
        if "ready" in m:
            out.append({"field": "ttft_s", "reason": reason})
        out.append({"field": "decode_s", "reason": reason})
    elif "last_token" in m and m["last_token"].t_ns == m["first_token"].t_ns:
        out.append({"field": "decode_s", "reason": "only one token chunk was seen"})
    if f.end_ns is None:
        out.append({"field": "total_s", "reason": "the child's exit was not observed"})
    for spec in f.pending:
        if spec.name not in ("ready", "first_token"):
            out.append({"field": f"markers.{spec.name}", "reason": f"/{spec.pattern.pattern}/ never appeared on {spec.stream}"})
    return out


def _tokens(f: RunFacts) -> dict:
    rep = f.reported or {}
    input_tokens = rep.get("prompt_tokens")
    if rep.get("eval_tokens") is not None:
        return {"output": rep["eval_tokens"] + f.reported_output_offset, "source": "reported",
                "input": input_tokens, "chunks": f.token_chunks}
    count, source = f.stream_tokens
    if count is not None:
        return {"output": count, "source": f"stream:{source}", "input": input_tokens, "chunks": f.token_chunks}
    if f.token_chunks:
        return {"output": f.token_chunks, "source": "chunks", "input": input_tokens, "chunks": f.token_chunks}
    return {"output": None, "source": None, "input": input_tokens, "chunks": 0}


def _compare(phases: dict, reported: Optional[dict], definitions: dict) -> list[dict]:
    rows = []
    if not reported:
        return rows
    for rep_key, phase in REPORTED_PHASES:
        rep_ms = reported.get(rep_key)
        measured = phases.get(phase)
        if rep_ms is None or measured is None:
            continue
        rep_s = rep_ms / 1000.0
        diff = measured - rep_s
        ratio = measured / rep_s if rep_s else None
        flagged = abs(diff) > FLAG_ABS_S and (ratio is None or abs(ratio - 1) > FLAG_RATIO)
        rows.append({
            "phase": phase, "measured_s": round(measured, 6), "reported_s": round(rep_s, 6),
            "diff_s": round(diff, 6), "ratio": None if ratio is None else round(ratio, 4), "flagged": flagged,
            "why": definitions.get(phase) if flagged else None,
        })
    return rows


def build(f: RunFacts) -> dict:
    """The run record as a JSON-ready dict.

    ttft_s runs from the ready marker, or for a server run from the moment the request was sent.
    """
    m = f.markers
    phases = {
        "load_s": _since(f.t0_ns, m.get("ready")),
        "ttft_s": _span(m.get("request_sent") or m.get("ready"), m.get("first_token")),
        "decode_s": _span(m.get("first_token"), m.get("last_token")) or None,
        "total_s": None if f.end_ns is None else round((f.end_ns - f.t0_ns) / 1e9, 6),
    }
    missing = _missing_reasons(f)
    if f.load_steps is None and f.load_steps_reason:
        missing.append({"field": "load_steps", "reason": f.load_steps_reason})
    if phases["ttft_s"] is not None and phases["ttft_s"] < 0:
        phases["ttft_s"] = None
        missing.append({"field": "ttft_s", "reason": "the first token was read before the ready line (the "
                        "framework logs from another thread); TTFT is below what the two streams can resolve"})
    tokens = _tokens(f)
    decode = phases["decode_s"]
    n = tokens["output"]
    ms_per_token = round(decode * 1000 / (n - 1), 4) if decode and n and n > 1 else None
    markers = {name: None for name in ("ready", "first_token", "last_token")}
    for name, mk in m.items():
        markers[name] = {"t_s": _since(f.t0_ns, mk), "stream": mk.stream, "text": mk.text}
    return {
        "schema": SCHEMA,
        "run_id": f.run_id,
        "started_at": iso_utc(f.wall_t0_s),
        "command": list(f.command),
        "exit_code": f.exit_code,
        "status": f.status,
        "t0_monotonic_ns": f.t0_ns,
        "phases": phases,
        "missing": missing,
        "tokens": tokens,
        "ms_per_token": ms_per_token,
        "tokens_per_s": round(1000.0 / ms_per_token, 3) if ms_per_token else None,
        "markers": markers,
        "profile": f.profile,
        "tags": dict(f.tags),
        "note": f.note,
        "warnings": list(f.warnings),
        "child": dict(f.child),
        "reported": f.reported,
        "reported_vs_measured": _compare(phases, f.reported, f.definitions),
        "resources": f.resources,
        "load_steps": f.load_steps,
    }


def dominant_phase(record: dict) -> Optional[tuple[str, float]]:
    """(phase, share of total) of the largest of load / ttft / decode, or None without a total."""
    phases = record["phases"]
    total = phases.get("total_s")
    known = [(k, v) for k, v in phases.items() if k != "total_s" and v is not None]
    if not total or not known:
        return None
    name, value = max(known, key=lambda kv: kv[1])
    return name, value / total
