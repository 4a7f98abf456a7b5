"""Assemble the run record (schema ``phasewrap.run/1``) from the pieces a run or a re-analysis produced.

Pure: no clocks, no I/O. Every phase that can't be measured is ``None`` with a reason in ``missing``.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from ..model import phases as phase_table
from .energy import per_token
from ..model.events import Marker, stream_name
from .gaps import GapStamps, decode_gaps
from .limits import LimitsInput, hardware_section, limits_section, model_section
from .markers import MarkerSpec
from .reasoning import Boundary, summary as reasoning_summary

SCHEMA = "phasewrap.run/1"
PHASES = phase_table.KEYS
# reported field → measured phase it corresponds to, for the side-by-side comparison
REPORTED_PHASES = tuple((p.reported, p.key) for p in phase_table.TIMED)
FLAG_RATIO = 0.20
FLAG_ABS_S = 0.050


@dataclass
class RunFacts:
    """What a run (live or replayed) yields, before it is turned into a record."""

    run_id: str
    command: list
    profile: Optional[str]
    t0_ns: int
    wall_t0_s: Optional[float]  # None: the source carries no wall-clock time (started_at null)
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
    warnings: list = field(default_factory=list)  # events.RunWarning
    child: dict = field(default_factory=dict)
    stream_tokens: tuple = (None, None)  # (count, source) from a server's response stream
    resources: Optional[dict] = None
    token_stream_problem: Optional[str] = None  # why the token stream had nothing (a failed --request)
    monotonic_clock: bool = True  # False: times are a recording's own, t0_monotonic_ns is null
    phases_source: Optional[str] = None  # "reported": a log without times, phases from the framework's figures
    source: Optional[dict] = None  # a re-analysis: {"file", "kind"} of the input
    carried: dict = field(default_factory=dict)  # keys the caller adds as they are (cache, env, warmup, repeat)
    gap_stamps: Optional[GapStamps] = None  # the token-stream reads' stamps, for the decode gaps
    load_steps: Optional[list] = None  # the load window cut into steps (loadsteps.py)
    load_steps_reason: Optional[str] = None  # why load_steps is None
    thinking: Boundary = Boundary()  # a reasoning model's thinking → answer boundary
    stall_resources: list = field(default_factory=list)  # resource statistics of each listed stall's window
    last_lines: dict = field(default_factory=dict)  # stream → its last non-blank lines (a failed run's evidence)
    limits_input: Optional[LimitsInput] = None  # the model file's facts, the host's peaks, the user's figures


def iso_utc(epoch_s: float) -> str:
    return _dt.datetime.fromtimestamp(epoch_s, _dt.timezone.utc).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def _since(t0_ns: int, marker: Optional[Marker]) -> Optional[float]:
    return None if marker is None else round((marker.t_ns - t0_ns) / 1e9, 6)


def _span(start: Optional[Marker], end: Optional[Marker]) -> Optional[float]:
    if start is None or end is None:
        return None
    return round((end.t_ns - start.t_ns) / 1e9, 6)


def _phase_seconds(f: RunFacts) -> dict:
    """Each phase's seconds from its window in the phase table; a decode of no time (one read) is not measured."""
    windows = phase_table.windows_ns(f.t0_ns, f.end_ns, {name: mk.t_ns for name, mk in f.markers.items()})
    out = {}
    for phase in phase_table.PHASES:
        start, end = windows[phase.name]
        out[phase.key] = None if start is None or end is None else round((end - start) / 1e9, 6)
    out["decode_s"] = out["decode_s"] or None
    return out


def _missing_reasons(f: RunFacts) -> list[dict]:
    m = f.markers
    out = []
    never = {spec.name: spec for spec in f.pending}

    def why_marker(name: str) -> str:
        if name in never:
            return f"{name} marker /{never[name].pattern.pattern}/ never appeared on {stream_name(never[name].stream)}"
        spec = {"ready": f.ready_spec, "first_token": f.first_token_spec}.get(name)
        if spec is not None:  # a regex was given (or the profile has one) and it never matched
            where = " after the ready marker" if name == "first_token" and f.ready_spec is not None else ""
            return f"{name} marker /{spec.pattern.pattern}/ never appeared on {stream_name(spec.stream)}{where}"
        return f"no {name} marker: profile {f.profile!r} has none; pass --{name.replace('_', '-')} REGEX"

    if "ready" not in m:
        out.append({"field": "load_s", "reason": why_marker("ready")})
        out.append({"field": "ttft_s", "reason": "needs the ready marker"})
    if "first_token" not in m:
        if f.first_token_spec is not None:
            reason = why_marker("first_token")
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
            out.append({"field": f"markers.{spec.name}", "reason": f"/{spec.pattern.pattern}/ never appeared on "
                        f"{stream_name(spec.stream)}"})
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


def _header(f: RunFacts, _rec: dict) -> dict:
    return {
        "schema": SCHEMA,
        "run_id": f.run_id,
        "started_at": None if f.wall_t0_s is None else iso_utc(f.wall_t0_s),
        "command": list(f.command),
        "exit_code": f.exit_code,
        "status": f.status,
        # a recording's own clock (seconds since its first line) is no CLOCK_MONOTONIC reading of this machine
        "t0_monotonic_ns": f.t0_ns if f.monotonic_clock else None,
    }


def _reported_s(rep: dict, key: str) -> Optional[float]:
    return None if rep.get(key) is None else round(rep[key] / 1000.0, 6)


def _phases(f: RunFacts, _rec: dict) -> dict:
    """Measured phases from the markers; or, for a log without times, the framework's own figures."""
    if f.phases_source == "reported":
        rep = f.reported or {}
        phases = {"load_s": _reported_s(rep, "load_ms"), "ttft_s": _reported_s(rep, "prompt_eval_ms"),
                  "decode_s": _reported_s(rep, "eval_ms"), "total_s": _reported_s(rep, "total_ms")}
        if all(v is None for v in phases.values()):
            missing = [{"field": "phases", "reason": "the log has no timestamps and no framework timings were "
                        "recognised"}]
        else:
            missing = [{"field": k, "reason": "not printed by the framework, and the log has no timestamps"}
                       for k, v in phases.items() if v is None]
        return {"phases": phases, "phases_source": "reported", "missing": missing}
    m = f.markers
    phases = _phase_seconds(f)
    missing = _missing_reasons(f)
    ready, first = m.get("ready"), m.get("first_token")
    if ready is not None and first is not None and ready.t_ns == first.t_ns and ready.stream == first.stream:
        # Both markers in one read: the time between them passed inside the child, out of sight. Not 0.
        phases["ttft_s"] = None
        reported_ms = (f.reported or {}).get("prompt_eval_ms")
        beside = (f"; the framework reports prompt eval {reported_ms:g} ms (reported.prompt_eval_ms)"
                  if reported_ms is not None else "")
        missing.append({"field": "ttft_s", "reason": "the ready line and the first token arrived in the same read, "
                        f"so the time between them can't be measured from the output{beside}"})
    if phases["ttft_s"] is not None and phases["ttft_s"] < 0:
        phases["ttft_s"] = None
        missing.append({"field": "ttft_s", "reason": "the first token was read before the ready line (the "
                        "framework logs from another thread); TTFT is below what the two streams can resolve"})
    return {"phases": phases, "missing": missing}


def _token_rates(f: RunFacts, rec: dict) -> dict:
    tokens = _tokens(f)
    if f.phases_source == "reported":
        rep = f.reported or {}
        ms_per_token = (None if not rep.get("eval_ms") or not rep.get("eval_tokens")
                        else round(rep["eval_ms"] / rep["eval_tokens"], 4))
        return {"tokens": tokens, "ms_per_token": ms_per_token, "tokens_per_s": rep.get("eval_tps")}
    decode = rec["phases"]["decode_s"]
    n = tokens["output"]
    ms_per_token = round(decode * 1000 / (n - 1), 4) if decode and n and n > 1 else None
    return {"tokens": tokens, "ms_per_token": ms_per_token,
            "tokens_per_s": round(1000.0 / ms_per_token, 3) if ms_per_token else None}


def _decode_gaps(f: RunFacts, rec: dict) -> dict:
    """``tpot_ms`` and the inter-chunk gaps and stalls from the token reads' stamps (see ``gaps``); the gap fields
    are null with a reason in ``missing`` where the stamps can't give them."""
    tokens = rec["tokens"]
    out = {"tpot_ms": rec["ms_per_token"]}
    kept = f.gap_stamps
    first, last = f.markers.get("first_token"), f.markers.get("last_token")
    if f.phases_source == "reported":
        reason = "the log has no timestamps"
    elif kept is None or first is None:
        reason = "no first token" if first is None else "the token reads were not stamped"
    elif not kept.complete:
        reason = "the log was read only up to its markers, so not every token read was stamped"
    else:
        counted = tokens["output"] if tokens["source"] not in (None, "chunks") else None
        gaps = decode_gaps(kept.stamps, None if last is None else last.t_ns, f.t0_ns, counted_tokens=counted,
                           texts=kept.texts, seen=f.stall_resources)
        reason = gaps.pop("reason")
        out.update(gaps)
    if reason is not None:
        out.update(dict.fromkeys(("decode_gaps_ms", "stalls", "stalls_total", "stall_share_of_decode")))
    if reason is not None and f.phases_source != "reported":  # there, phases_source already says why
        out["missing"] = [{"field": "decode_gaps_ms", "reason": reason}]
    return out


def _markers(f: RunFacts, _rec: dict) -> dict:
    markers = {name: None for name in ("ready", "first_token", "last_token")}
    for name, mk in f.markers.items():
        markers[name] = {"t_s": _since(f.t0_ns, mk), "stream": mk.stream, "text": mk.text}
    return {"markers": markers}


def _reasoning(f: RunFacts, rec: dict) -> dict:
    """``reasoning`` for output that thought (see ``reasoning``); no key at all for output that did not."""
    m = f.markers
    start_ns = phase_table.start_ns(phase_table.BY_NAME["ttft"], f.t0_ns, lambda name: m[name].t_ns if name in m else None)
    first, last = m.get("first_token"), m.get("last_token")
    stamps = f.gap_stamps.stamps if f.gap_stamps is not None else ()
    found = reasoning_summary(f.thinking, stamps, first and first.t_ns, last and last.t_ns, start_ns)
    if found is None:
        return {}
    out = {"reasoning": found}
    if found["ttfo_s"] is None:
        reason = ("the thinking never ended before the last token" if f.thinking.first_answer_ns is None
                  else "needs the ready marker (or the request sent)")
        out["missing"] = [{"field": "reasoning.ttfo_s", "reason": reason}]
    return out


def _labels(f: RunFacts, _rec: dict) -> dict:
    return {
        "profile": f.profile,
        "tags": dict(f.tags),
        "note": f.note,
        # ``warnings`` stays a list of sentences (what readers of schema 1 expect); ``warning_details`` carries
        # the same warnings, in the same order, as {"kind", "text"} objects for programs
        "warnings": [w.text for w in f.warnings],
        "warning_details": [{"kind": w.kind, "text": w.text} for w in f.warnings],
        "child": dict(f.child),
    }


def failed_how(f: RunFacts) -> Optional[str]:
    """Why the run did not get to be measured — a non-zero exit, a kill, a timeout before the ready marker, a
    --request with no answer — in words; None for a run that did its job (a timeout after ready is a stop)."""
    if f.status == "failed":
        if f.exit_code:
            return f"the command failed (exit {f.exit_code})"
        return f"the --request got no answer ({f.token_stream_problem or 'the request failed'})"
    if f.status == "killed":
        return f"the command was killed (signal {f.child.get('signal') or -(f.exit_code or 0)})"
    if f.status == "timeout" and f.ready_spec is not None and "ready" not in f.markers:
        return "the command timed out (--timeout) before its ready marker appeared"
    return None


def _failure(f: RunFacts, _rec: dict) -> dict:
    """``failure``: null, or what a person needs first about a run that failed — how, and its last lines."""
    how = failed_how(f)
    if how is None:
        return {"failure": None}
    stream = "err" if f.last_lines.get("err") else "out"
    return {"failure": {"status": f.status, "exit_code": f.exit_code, "how": how, "stream": stream,
                        "last_lines": list(f.last_lines.get(stream) or [])}}


def _reported(f: RunFacts, rec: dict) -> dict:
    measured = [] if f.phases_source == "reported" else _compare(rec["phases"], f.reported, f.definitions)
    return {"reported": f.reported, "reported_vs_measured": measured, "resources": f.resources}


def _load_steps(f: RunFacts, rec: dict) -> dict:
    """The load window's steps, each with the resource that bound it; null with a reason in ``missing``."""
    if f.load_steps is not None:
        return {"load_steps": f.load_steps}
    if f.phases_source == "reported":  # a log without times: phases_source already says why
        return {"load_steps": None}
    reason = f.load_steps_reason or "the load window was not watched"
    return {"load_steps": None, "missing": [{"field": "load_steps", "reason": reason}]}


def _energy_per_token(f: RunFacts, rec: dict) -> dict:
    """Energy per output token, tokens per joule and prefill energy per input token, beside the phases' energy."""
    resources = rec.get("resources")
    if resources is None:
        return {}
    out = {"resources": {**resources, **per_token(resources, rec["tokens"])}}
    if (resources.get("ttft") or {}).get("energy_j") is not None and not rec["tokens"].get("input"):
        out["missing"] = [{"field": "resources.prefill_energy_per_input_token_mj",
                                            "reason": "the input token count is unknown (the framework printed none)"}]
    return out


def _carried(f: RunFacts, _rec: dict) -> dict:
    out = dict(f.carried)
    if f.source is not None:
        out["source"] = dict(f.source)
    return out


def _limits(f: RunFacts, rec: dict) -> dict:
    """``model``, ``hardware`` and each phase's floor in ``limits`` (see ``limits``); nulls say why in ``missing``."""
    model, model_why = model_section(f.limits_input, f.reported)
    hardware, hardware_why = hardware_section(f.limits_input)
    out = {"model": model, "hardware": hardware}
    limits, why = limits_section({**rec, **out}, f.limits_input, f.reported)
    missing = [{"field": k, "reason": r} for k, r in (("model", model_why), ("hardware", hardware_why)) if r]
    return {**out, "limits": limits, "missing": missing + why}


# The record, section by section, in key order. To add a record key: give RunFacts a field for what it needs
# (with a default, so every source keeps working), write ``def _mine(f: RunFacts, rec: dict) -> dict`` returning
# ``{"my_key": value}`` (``rec`` holds the keys of the sections before it; read it, never change it) and, for
# what it could not measure, ``"missing": [{"field": ..., "reason": ...}]`` of its own (``build`` joins them),
# add it here, and give the key a row in the README's field table. The schema only grows: never rename or drop a key.
SECTIONS: tuple = (_header, _phases, _token_rates, _decode_gaps, _markers, _reasoning, _labels, _failure, _reported, _energy_per_token,
                   _load_steps, _carried, _limits)


def build(f: RunFacts, sections: Sequence[Callable[[RunFacts, dict], dict]] = SECTIONS) -> dict:
    """The run record as a JSON-ready dict: the one constructor every record (live run, capture replay, timed
    log, plain log, server run) comes out of.

    ttft_s runs from the ready marker, or for a server run from the moment the request was sent.
    """
    record: dict = {}
    for section in sections:
        part = section(f, record)
        own = part.pop("missing", None)
        record.update(part)
        if own is not None:  # each section names what it could not measure; the record lists them in order
            record.setdefault("missing", []).extend(own)
    return record


def dominant_phase(record: dict) -> Optional[tuple[str, float]]:
    """(phase, share of total) of the largest of load / ttft / decode, or None without a total."""
    phases = record["phases"]
    total = phases.get("total_s")
    known = [(k, v) for k, v in phases.items() if k != "total_s" and v is not None]
    if not total or not known:
        return None
    name, value = max(known, key=lambda kv: kv[1])
    return name, value / total


def unmeasured_share(record: dict) -> Optional[float]:
    """The share of total_s in no measured phase (load, ttft, decode missing or not covering the run);
    None without a total."""
    phases = record["phases"]
    total = phases.get("total_s")
    if not total:
        return None
    measured = sum(v for k, v in phases.items() if k != "total_s" and v is not None)
    return max(0.0, 1.0 - measured / total)
