"""Post-hoc analysis: recorded output → the same chunks → the same tracker, parsers and record as a live run.

Inputs, recognised from their first line:
  * a phasewrap capture (``--capture``; a file or a directory of ``*.capture.jsonl``): replayed exactly;
  * an asciinema v2 recording (``.cast``): output events with times; stdout and stderr merged;
  * an events file (first line ``{"wall_start": …, "cmd": […]}``, then ``[t_s, "out"|"err", text]``);
  * a log whose lines carry times (``ts``, ISO 8601, llama.cpp ``--log-timestamps``, journald with a year …):
    each line becomes a chunk at its printed time; streams merged;
  * a plain log without times: only the framework's own figures, one record per run/request it printed,
    with phases taken from them (``phases_source: "reported"``).
Side files (``nvidia-smi dmon``, ``--query-gpu`` CSV, ``pidstat``) are placed on the same clock through the
input's wall-clock anchor and aggregated per phase under ``resources``, as in a live run.
"""
from __future__ import annotations

import collections
import dataclasses
import json
import logging
import math
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Optional

from ..derive import frameworks
from ..errors import UsageError
from . import inputs
from .capture import SUFFIX, Capture, CaptureError, read_capture
from .inputs import open_input, read_lines
from ..core.writer import show_path
from .filelines import FileLines
from ..model.events import OUT, Chunk, RunEnd, RunStart, RunWarning
from ..derive.markers import ANY, MarkerSpec
from ..derive.pipeline import (Consumer, Prepared, RunConfig, apply_stream, burst_warning, detected_profile, facts_from,
                               finish, prepare, tracker_for, watcher_for, with_recorded_options)
from ..derive.limits import LimitsInput
from ..derive.record import RunFacts, build
from ..measure import model_facts
from ..derive.line_feeder import LineFeeder
from ..model.profiles import PROFILES

SNIFF_BYTES = 64 << 10
SNIFF_LINES = 200
_SECONDS = re.compile(r"(\d+\.\d{3,9}) ")
RUN_FACT_KEYS = ("cache", "env", "warmup", "repeat", "tags", "note", "fleet")
TIMED_SHARE = 0.5  # a log is "timed" when at least this share of its first lines carry a time


class AnalyzeError(UsageError):
    """An input that can't be analyzed; the message names the file (and line) and the fix."""


@dataclass
class Observed:
    """What a recording tells, whatever its format. Times are ns on one clock (monotonic, or synthetic)."""

    source: str
    kind: str
    chunks: list
    t0_ns: int
    wall_anchor: Optional[tuple]  # (wall_ns, mono_ns) read together, to place side files
    command: list
    end_ns: Optional[int] = None
    exit: Optional[dict] = None
    samples: list = field(default_factory=list)
    merged: bool = False
    request: Optional[dict] = None
    header: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)  # RunWarning
    sampler_infos: list = field(default_factory=list)
    run_facts: dict = field(default_factory=dict)  # what the chunks can't tell: cache state, env, repeat
    recorded_limits: dict = field(default_factory=dict)  # a capture's live ``model`` and ``hardware``
    raw_lines: Optional[object] = None  # a log's own lines (a list, or a FileLines read in blocks): for the parser
    parsed: Optional[list] = None  # the framework's reports from raw_lines, once parsed


# -- readers -------------------------------------------------------------------------------------------------

def _from_capture(cap: Capture) -> Observed:
    h = cap.header
    t0 = h["t0_monotonic_ns"]
    obs = Observed(source=cap.path, kind="capture", chunks=cap.chunks, t0_ns=t0,
                   wall_anchor=(round(h["wall_t0_s"] * 1e9), t0), command=list(h.get("command") or []),
                   samples=cap.samples, header=h, request=cap.extra.get("request"))
    obs.sampler_infos = (cap.extra.get("samplers") or {}).get("infos") or []
    obs.run_facts = {k: v for k, v in (cap.record or {}).items() if k in RUN_FACT_KEYS}
    # the peaks probed on the machine that ran it (not this one's), and its model where the file is gone
    obs.recorded_limits = {k: (cap.record or {}).get(k) for k in ("model", "hardware")}
    obs.recorded_limits["hardware_reason"] = next((m.get("reason") for m in (cap.record or {}).get("missing") or ()
                                                   if m.get("field") == "hardware"), None)
    if cap.exit is not None:
        obs.exit = cap.exit
        obs.end_ns = t0 + int(cap.exit["t_ns"])
    else:
        obs.warnings.append(RunWarning("capture_cut_off", "the capture ends without an exit line (the wrapper or "
                                       "the machine stopped): total and exit status are unknown"))
    if cap.skipped_lines:
        obs.warnings.append(RunWarning("capture_lines_skipped", f"{len(cap.skipped_lines)} unreadable capture "
                                       f"line(s) skipped (first: line {cap.skipped_lines[0]})"))
    return obs


def _seconds(value) -> bool:
    """A time in a recording: a finite number (not a bool, not NaN, not 1e999)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _check_header(path: str, header: dict, checks: dict) -> None:
    """Each header key present (and not null) passes its check, or one line naming it."""
    for key, check in checks.items():
        if header.get(key) is not None and not check(header[key]):
            raise AnalyzeError(f"{path}:1: header {key} is {header[key]!r}, not what the format says; the file "
                               "is damaged")


def _from_events(path: str, lines: Iterable[tuple[int, str]], header: dict) -> Observed:
    """The ``[t_s, stream, text]`` events format (one JSON array per chunk, seconds since launch)."""
    chunks, end_ns, exit_info = [], None, None
    for number, line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, list) and len(obj) == 3 and _seconds(obj[0]) and obj[1] in ("out", "err") \
                and isinstance(obj[2], str):
            chunks.append(Chunk(round(obj[0] * 1e9), obj[1], obj[2].encode("utf-8", "surrogateescape")))
        elif isinstance(obj, dict) and "t_end" in obj and _seconds(obj["t_end"]):
            end_ns, exit_info = round(obj["t_end"] * 1e9), {"exit_code": obj.get("rc"), "status": None}
        elif not isinstance(obj, dict) or "t_end" in obj:
            raise AnalyzeError(f"{path}:{number}: not an event: expected [t_s, \"out\"|\"err\", text] or "
                               "{\"t_end\": t_s, \"rc\": code}; the file is damaged")
    _check_header(path, header, {"wall_start": _seconds, "cmd": _strings})
    wall = header.get("wall_start")
    return Observed(source=path, kind="events", chunks=chunks, t0_ns=0,
                    wall_anchor=None if wall is None else (round(wall * 1e9), 0), command=list(header.get("cmd") or []),
                    end_ns=end_ns, exit=exit_info, header=header)


def _split_command(command: str) -> list:
    """The cast header's command line as the shell split it: a quoted ``-p '…'`` prompt stays one argument, so
    its echo is recognised; unbalanced quotes fall back to splitting at spaces."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _from_cast(path: str, lines: Iterable[tuple[int, str]], header: dict) -> Observed:
    """asciinema v2: ``[t_s, "o", data]`` output events; input and marker events are ignored."""
    chunks = []
    last = 0
    for number, line in lines:
        if not line.strip():
            continue
        try:
            t_s, code, data = json.loads(line)
            if not (_seconds(t_s) and isinstance(code, str) and isinstance(data, str)):
                raise ValueError(line)
        except (ValueError, TypeError, RecursionError):
            raise AnalyzeError(f"{path}:{number}: not an asciinema v2 event ([time, code, data])") from None
        last = round(t_s * 1e9)
        if code == "o":
            chunks.append(Chunk(last, OUT, data.encode("utf-8", "surrogateescape")))
    _check_header(path, header, {"timestamp": _seconds})
    wall = header.get("timestamp")
    command = header.get("command")
    return Observed(source=path, kind="asciinema", chunks=chunks, t0_ns=0,
                    wall_anchor=None if wall is None else (round(float(wall) * 1e9), 0),
                    command=_split_command(command) if isinstance(command, str) else [], end_ns=last, merged=True,
                    header=header, warnings=[RunWarning("streams_merged", "asciinema merges stdout and stderr: markers watch both")])


# After lines of a timed log went unread (``_TimedLines.waiting``), this many of the last are read all the same: the
# tracker's last lines and its window then hold what they would have held
REPLAY_LINES = 64


class _TimedLines:
    """Chunks of a timed log, made lazily: one per run of lines with the same printed time.

    ``analyze`` stops pulling chunks once the tracker is settled; ``rest()`` then gives how many lines were
    left and the time of the last timed line, so a long log costs prefix parsing only up to its markers. The
    lines come from a list or from a ``FileLines`` (the file read again in blocks, counted, read from its end).
    """

    def __init__(self, lines, stamp: Callable[[object], tuple[str, Optional[int]]]) -> None:
        self._lines = lines
        self._stamp = stamp  # line -> (text without its prefix, ns since the log's origin or None)
        self._next = 0
        # set by the reader between chunks (``PhaseTracker.waiting``): regexes of which a line that matches none
        # changes nothing; such lines go unread but for their count and their bytes after the prefixes
        self.waiting: Optional[tuple] = None
        self.unread_lines = 0
        self.unread_bytes = 0

    def _fed(self) -> Iterator[tuple]:
        """(index, line) of the lines to stamp: all of them but those that went unread while ``waiting``, of which
        the last REPLAY_LINES before the next line a regex finds (or the end) are read after all."""
        from ..derive.frameworks.prefixes import text_bytes  # (the prefix table compiles its regexes on import)

        recent: collections.deque = collections.deque()
        for index, line in enumerate(self._lines):
            waiting = self.waiting
            if waiting is not None and type(line) is str and not any(p.search(line) for p in waiting):
                if len(recent) == REPLAY_LINES:
                    self.unread_lines += 1
                    self.unread_bytes += text_bytes(recent.popleft()[1]) + 1
                recent.append((index, line))
                continue
            while recent:
                yield recent.popleft()
            yield index, line
        while recent:
            yield recent.popleft()

    def __iter__(self):
        current_t, pending = None, []
        index = 0
        for index, line in self._fed():
            rest, t_ns = self._stamp(line)
            if t_ns is not None:
                if current_t is not None and t_ns != current_t and pending:
                    self._next = index
                    yield Chunk(current_t, OUT, "".join(pending).encode("utf-8", "surrogateescape"))
                    pending = []
                current_t = t_ns if current_t is None else max(current_t, t_ns)
            pending.append(rest + "\n")
        self._next = index + 1 if pending else 0
        if pending:
            yield Chunk(current_t or 0, OUT, "".join(pending).encode("utf-8", "surrogateescape"))

    def rest(self) -> tuple[int, Optional[int]]:
        """(lines not yet made into chunks, time of the last timed line) — for a settled tracker."""
        lines, first = self._lines, self._next
        if isinstance(lines, FileLines):
            return lines.count() - first, lines.last_where(lambda line: self._stamp(line)[1], first)
        for index in range(len(lines) - 1, first - 1, -1):
            t_ns = self._stamp(lines[index])[1]
            if t_ns is not None:
                return len(lines) - first, t_ns
        return len(lines) - first, None


def _prefix_stamps(kind: str, origin_s: float) -> Callable[[str], tuple[str, Optional[int]]]:
    strip_prefix = frameworks.strip_prefix  # the prefix module's own (the package's name for it imports it per call)

    def stamp(line: str) -> tuple[str, Optional[int]]:
        rest, when = strip_prefix(line)
        if when is None or when.kind != kind:
            return rest, None
        return rest, round((when.t_s - origin_s) * 1e9)
    return stamp


def _seconds_stamps(head: list, lines: Iterable[str]) -> Optional[list]:
    """``ts '%.S'`` (seconds within the minute) and ``ts -s '%.s'`` (seconds since start) stamp lines with a bare
    ``SS.ffffff``; times are unrolled across minute wraps (a drop of more than 30 s adds a minute), which needs
    every line before: (text, ns) per line, in memory."""
    head = [line for line in head[:SNIFF_LINES] if line.strip()]
    if not head or sum(1 for line in head if _SECONDS.match(line)) / len(head) < TIMED_SHARE:
        return None
    stamps: list = []
    minutes, last, first = 0, None, None
    for line in lines:
        m = _SECONDS.match(line)
        if m is None:
            stamps.append((line, None))
            continue
        value = float(m.group(1))
        if last is not None and value < last - 30:
            minutes += 1
        last = value
        t = value + 60 * minutes
        first = t if first is None else first
        stamps.append((line[m.end():], round((t - first) * 1e9)))
    return stamps


def _from_timed_log(path: str, head: list, lines=None) -> Optional[Observed]:
    """A log whose lines carry times, judged on its first lines (``head``); None when too few carry one.
    ``lines``: all of them (a list or a ``FileLines``); ``head`` alone when only the judgement is wanted."""
    lines = head if lines is None else lines
    stamped = [frameworks.strip_prefix(line) for line in head[:SNIFF_LINES]]
    nonempty = sum(1 for rest, _ in stamped if rest.strip()) or 1
    times = [when for _, when in stamped if when is not None]
    if len(times) / nonempty >= TIMED_SHARE:
        kinds = {when.kind for when in times}
        if len(kinds) > 1:
            kinds = {k for k in kinds if k != "relative"} or kinds
        kind = sorted(kinds)[0]
        origin_s = 0.0 if kind == "relative" else min(w.t_s for w in times if w.kind == kind)
        timed = _TimedLines(lines, _prefix_stamps(kind, origin_s))
        anchor = None if kind == "relative" else (round(origin_s * 1e9), 0)
    else:
        seconds = _seconds_stamps(head, lines)
        if seconds is None:
            return None
        kind, timed, anchor = "seconds", _TimedLines(seconds, lambda pair: pair), None
    obs = Observed(source=path, kind=f"log ({kind} times)", chunks=timed, t0_ns=0, wall_anchor=anchor, command=[],
                   merged=True, raw_lines=lines)
    obs.warnings.append(RunWarning("no_launch_instant", "a log has no launch instant: times count from "
                                   + ("the program's start as its timestamps do" if kind == "relative"
                                      else "its first line")
                                   + "; stdout and stderr are merged, so every line after the first token counts "
                                   "as output"))
    return obs


def _read_text_lines(path: str) -> list:
    try:
        with open_input(path) as fh:
            lines, too_long = read_lines(fh)
    except OSError as exc:
        raise AnalyzeError(f"{path}: cannot read ({exc.strerror}); check the path and its permissions") from None
    for number in too_long:
        logging.getLogger("phasewrap").warning("%s: line %d skipped: longer than %d bytes", show_path(path), number,
                                               inputs.MAX_LINE_BYTES)
    data = b"".join(lines)
    _check_text(path, data)
    text = data.decode("utf-8", "surrogateescape")
    return text.splitlines()


def _check_text(path: str, head: bytes) -> None:
    if b"\x00" in head[:SNIFF_BYTES]:
        raise AnalyzeError(f"{path}: binary file (NUL bytes); analyze reads text logs, .cast recordings and "
                           "phasewrap captures")


def _head_lines(path: str) -> list:
    """The first SNIFF_LINES lines (as ``str.splitlines`` of the whole text gives them), read without the rest."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
            raw = [head]
            while head.count(b"\n") <= SNIFF_LINES:  # long lines: read on until the sniffed lines are whole
                more = fh.readline()
                if not more:
                    break
                raw.append(more)
                head += more
    except OSError as exc:
        raise AnalyzeError(f"{path}: cannot read ({exc.strerror}); check the path and its permissions") from None
    _check_text(path, raw[0])
    return b"".join(raw).decode("utf-8", "surrogateescape").splitlines()[:SNIFF_LINES]


def observe(path: str) -> tuple[Optional[Observed], Optional[list]]:
    """Read one input: (observed chunks, its lines for the framework parser); (None, None) for a log without
    times, which is not read here (see ``streamed_records``)."""
    if path.endswith(SUFFIX):
        try:
            return _from_capture(read_capture(path)), []
        except CaptureError as exc:
            raise AnalyzeError(str(exc)) from None
        except OSError as exc:
            raise AnalyzeError(f"{path}: cannot read ({exc.strerror})") from None
    head = _head_lines(path)
    if not head:
        raise AnalyzeError(f"{path}: empty file; nothing to analyze")
    first = head[0].strip()
    if not first.startswith("{"):  # a log: never read whole (FileLines); without times streamed_records reads it
        obs = _from_timed_log(path, head, FileLines(path))
        return (obs, obs.raw_lines) if obs is not None else (None, None)
    lines = _read_text_lines(path)
    if first.startswith("{"):
        try:
            header = json.loads(first)
        except ValueError:
            header = None
        if isinstance(header, dict):
            if header.get("type") == "header":
                try:
                    return _from_capture(read_capture(path)), []
                except CaptureError as exc:
                    raise AnalyzeError(str(exc)) from None
            if header.get("version") == 2:
                return _from_cast(path, enumerate(lines[1:], 2), header), []
            if "wall_start" in header or "cmd" in header:
                return _from_events(path, enumerate(lines[1:], 2), header), []
    return _from_timed_log(path, lines), lines


# -- side files ----------------------------------------------------------------------------------------------

@dataclass
class SideFiles:
    dmon: Optional[str] = None
    query_gpu: Optional[str] = None
    pidstat: Optional[str] = None
    utc_offset_s: Optional[int] = None


def side_samples(side: SideFiles, anchor: Optional[tuple], source: str) -> tuple[list, list, list]:
    """(samples, sampler infos, warnings) from the side files, placed via the input's wall-clock anchor."""
    from ..measure.sampling import parse_dmon, parse_pidstat, parse_query_gpu

    given = [(name, path) for name, path in (("dmon", side.dmon), ("query-gpu", side.query_gpu),
                                             ("pidstat", side.pidstat)) if path]
    if not given:
        return [], [], []
    if anchor is None:
        return [], [], [RunWarning("side_files_unaligned",
                                   f"side files ignored: {source} carries no wall-clock time to align them with")]
    samples, infos = [], []
    for name, path in given:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError as exc:
            raise AnalyzeError(f"--{name} {path}: cannot read ({exc.strerror})") from None
        if name == "dmon":
            got = parse_dmon(lines, anchor, utc_offset_s=side.utc_offset_s)
            resolution = 1.0
        elif name == "query-gpu":
            got = parse_query_gpu(lines, anchor, utc_offset_s=side.utc_offset_s)
            times = sorted({s.t_ns for s in got})
            steps = [b - a for a, b in zip(times, times[1:]) if b > a]
            resolution = (sorted(steps)[len(steps) // 2] / 1e9) if steps else 1.0
        else:
            got = parse_pidstat(lines, anchor)
            resolution = 1.0
        if not got:
            raise AnalyzeError(f"--{name} {path}: no samples found; is this {name} output?")
        samples += got
        infos.append({"name": name, "available": True, "reason": None, "file": path, "samples": len(got),
                      "resolution_s": resolution, "interval_s": resolution})
    return samples, infos, []


# -- analysis ------------------------------------------------------------------------------------------------

def _merged(prep: Prepared) -> Prepared:
    """With stdout and stderr merged, every marker watches the one stream, and the tokens are on it."""
    def anyway(spec: Optional[MarkerSpec]) -> Optional[MarkerSpec]:
        return None if spec is None else dataclasses.replace(spec, stream=ANY)

    # The closing regex (llama.cpp's "[end of text]") can't separate tokens from log lines here either.
    # The framework's own log lines are on the token stream too: they are neither echo nor tokens.
    log_line = re.compile(prep.profile.log_line) if prep.profile.log_line else None
    tokens = dataclasses.replace(prep.tokens, stream=OUT, first_token=anyway(prep.tokens.first_token), end=None,
                                 log_line=log_line)
    # A profile's per-stream alternatives for ready (llama.cpp: "any stdout") mean nothing once merged.
    marks = tuple(anyway(m) for m in prep.marks if m.name != "ready")
    return dataclasses.replace(prep, ready=anyway(prep.ready), marks=marks, tokens=tokens)


def run_end(obs: Observed) -> RunEnd:
    """How the recorded run ended, as far as the recording shows it; never a made-up exit code."""
    if obs.kind == "capture" and obs.exit is None:
        # the capture stops mid-run: the wrapper (or the machine) was stopped before the child's exit
        return RunEnd(obs.end_ns, "interrupted", exit_code=None)
    exit_info = obs.exit or {}
    code = exit_info.get("exit_code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    status = exit_info.get("status") or ("ok" if code == 0 else "failed" if code is not None else "unknown")
    return RunEnd(obs.end_ns, status, exit_code=code, signal=exit_info.get("signal"))


def run_start(obs: Observed) -> RunStart:
    wall_t0_s = None if obs.wall_anchor is None else (obs.wall_anchor[0] - obs.wall_anchor[1] + obs.t0_ns) / 1e9
    return RunStart(obs.t0_ns, wall_t0_s, pid=obs.header.get("pid"), monotonic=obs.kind == "capture")


def analyze_observed(obs: Observed, config: RunConfig, side: SideFiles, framework: Optional[str] = None) -> dict:
    """The run record of one recording, through the same tracker, parsers and builder as a live run.
    ``framework``: parse its figures as this family (``--framework``) instead of detecting it."""
    reported = None
    if obs.raw_lines is not None:
        if obs.parsed is None:
            for _record in _earlier_runs(obs, obs.source, framework):
                pass  # analyze_observed alone (library use): the earlier requests' records are not wanted
        reported = obs.parsed
        if config.profile == "auto" and reported[-1]["framework"] in PROFILES:
            config = dataclasses.replace(config, profile=reported[-1]["framework"])
    if obs.kind == "capture":
        config = with_recorded_options(config, obs.header.get("analysis"))
    cfg = dataclasses.replace(config, command=obs.command or [os.path.basename(obs.source)])
    cfg = dataclasses.replace(cfg, limits=_limits_input(cfg.limits, obs))
    prep = prepare(cfg)
    if obs.merged:
        prep = _merged(prep)
    tracker = tracker_for(prep)
    feeder = None if reported is not None else LineFeeder(
        framework or (prep.profile.framework if not prep.candidates else None))
    consume = Consumer(tracker, feeder, watcher=watcher_for(prep))
    timed = obs.chunks if isinstance(obs.chunks, _TimedLines) else None
    watcher = consume.watcher
    for chunk in obs.chunks:
        consume(chunk)
        if feeder is None and tracker.settled:
            break
        if timed is not None and feeder is None and (watcher is None or not watcher.active):
            timed.waiting = tracker.waiting()
    if timed is not None:
        tracker.unread(OUT, timed.unread_lines, timed.unread_bytes)
        left, last_ns = obs.chunks.rest()
        tracker.fast_forward(left, last_ns)
        obs.end_ns = tracker.last_token.t_ns if tracker.last_token is not None else last_ns
    profile = detected_profile(prep, tracker)
    run_id = obs.header.get("run_id") or os.path.basename(obs.source)
    samples, infos, warnings = side_samples(side, obs.wall_anchor, obs.source)
    end = run_end(obs)
    burst = burst_warning(tracker, obs.t0_ns, end.t_ns, prep.tokens.stream) if obs.kind == "capture" else None
    facts = facts_from(prep, profile, tracker, reported if feeder is None else feeder.results(), run_id,
                       run_start(obs), end, obs.warnings + warnings + ([burst] if burst else []))
    facts.carried = dict(obs.run_facts)
    facts.source = {"file": obs.source, "kind": obs.kind}
    if obs.request is not None:
        from .request import stream_from_json

        stream = stream_from_json(obs.request["result"], obs.t0_ns)
        apply_stream(facts, stream)
    return finish(facts, list(obs.samples) + samples, list(obs.sampler_infos) + infos, consume.watcher)


def _limits_input(given: Optional[LimitsInput], obs: Observed) -> LimitsInput:
    """The model file the recording names (read here if it exists), else the live record's model; the live
    record's hardware (``--peak`` goes over it)."""
    limits = model_facts.fill(given or LimitsInput(), obs.command or [])
    model, hardware = obs.recorded_limits.get("model"), obs.recorded_limits.get("hardware")
    if limits.model_file is None and model and limits.model_bytes is None and limits.active_bytes is None:
        limits = dataclasses.replace(limits, model_file=model)
    if hardware:
        limits = dataclasses.replace(limits, hardware=hardware)
    elif obs.recorded_limits.get("hardware_reason"):  # the live run's own reason (e.g. its probe failed)
        limits = dataclasses.replace(limits, hardware_reason=obs.recorded_limits["hardware_reason"])
    return limits


def reported_records(path: str, found: list, kind: str, limits: Optional[LimitsInput] = None) -> list:
    """Records of a log's reports (a timed log's earlier runs, see ``_earlier_runs``), as ``_reported_record``."""
    return [_reported_record(path, report, i + 1, kind, limits) for i, report in enumerate(found)]


def _earlier_runs(obs: Observed, path: str, framework: Optional[str] = None,
                  limits: Optional[LimitsInput] = None) -> Iterator[dict]:
    """A timed server log holding several requests: the record of the recording carries the last one's figures
    (as a live run does), so each earlier request gets its own record, as in a log without times, given out as
    the parser hands them over (past its first HOLD_REPORTS). (A command-line tool's timed log is one run;
    figures repeated in it stay with the last. A program without a profile, e.g. one only the general reader
    read, is taken for a server.) Leaves the last reports in ``obs.parsed``."""
    if obs.raw_lines is None:
        return
    parser = frameworks.new_parser(framework)
    number = 0
    for handed in _parsed_blocks(obs.raw_lines, parser):
        if _server_like(handed[-1]):
            for report in handed:
                number += 1
                yield _reported_record(path, report, number, obs.kind, limits)
    found = obs.parsed = parser.results()
    if (number or len(found) > 1) and _server_like(found[-1]):
        for report in found[:-1]:
            number += 1
            yield _reported_record(path, report, number, obs.kind, limits)


def _server_like(report: dict) -> bool:
    profile = PROFILES.get(report["framework"])
    return profile is None or profile.server


def _parsed_blocks(lines, parser) -> Iterator[list]:
    """Feed ``parser`` every line (a ``FileLines`` in blocks through the prefilter); yields the finished reports
    it hands over on the way (``pop_finished``)."""
    if not isinstance(lines, FileLines):
        for line in lines:
            parser.feed_line(line)
        return
    from ..derive.frameworks.blocks import BlockFeeder

    feeder = BlockFeeder(parser)
    with open(lines.path, "rb") as fh:
        for _block in feeder.read(fh):
            handed = parser.pop_finished()
            if handed:
                yield handed
    feeder.close()


def streamed_records(path: str, framework: Optional[str], limits: Optional[LimitsInput] = None) -> Iterator[dict]:
    """A log without times, read in blocks (frameworks/blocks.py): one record per run/request the framework
    printed (``_reported_record``), each given out as soon as its run is known to be over
    (past the first ``frameworks.HOLD_REPORTS``), so memory stays flat however long the log."""
    from ..derive.frameworks.blocks import BlockFeeder

    parser = frameworks.new_parser(framework)
    feeder = BlockFeeder(parser)
    number = 0
    try:
        with open(path, "rb") as fh:
            for _block in feeder.read(fh):
                for report in parser.pop_finished():
                    number += 1
                    yield _reported_record(path, report, number, limits=limits)
    except OSError as exc:
        raise AnalyzeError(f"{path}: cannot read ({exc.strerror}); check the path and its permissions") from None
    feeder.close()
    for report in parser.results():
        number += 1
        yield _reported_record(path, report, number, limits=limits)


def _reported_record(path: str, report: dict, number: int, kind: str = "log (no times)",
                     limits: Optional[LimitsInput] = None) -> dict:
    """One run/request the framework printed, phases from its own figures. The log shows neither a launch
    instant nor how the run ended: status ``unknown``, exit code null."""
    return build(RunFacts(
        run_id=f"{os.path.basename(path)}#{number}", command=[], profile=None, t0_ns=0, wall_t0_s=None,
        end_ns=None, exit_code=None, status="unknown", reported=report,
        phases_source="reported", monotonic_clock=False, source={"file": path, "kind": kind},
        limits_input=limits))


def iter_analyze(paths: Iterable[str], config: RunConfig, side: SideFiles,
                 framework: Optional[str] = None, on_progress: Callable[[str], None] = lambda _m: None
                 ) -> Iterator[dict]:
    """Records for every input (``reader.expand``: a folder counts as its capture and record files), each as soon as
    it is made; a records file passes its records through. Raises AnalyzeError on bad input."""
    from . import reader
    from .records_io import load_records

    files = reader.expand(paths)
    kinds = [reader.kind_of(path) for path in files]
    for path, kind in zip(files, kinds):  # every input's head checked before the first record: no half output
        if kind in (reader.LOG, reader.CAST, reader.EVENTS) and not _head_lines(path):
            raise AnalyzeError(f"{path}: empty file; nothing to analyze")
    for i, (path, kind) in enumerate(zip(files, kinds), 1):
        if len(files) > 1:
            on_progress(f"phasewrap analyze: {i}/{len(files)} {path}")
        if kind == reader.RECORDS:
            yield from load_records(path)  # already records: the same runs, nothing to re-derive
            continue
        obs, _lines = observe(path)
        if obs is None:
            yield from streamed_records(path, framework, config.limits)
        else:
            yield from _earlier_runs(obs, path, framework, config.limits)
            yield analyze_observed(obs, config, side, framework)


def analyze(paths: Iterable[str], config: RunConfig, side: SideFiles,
            framework: Optional[str] = None, on_progress: Callable[[str], None] = lambda _m: None) -> list:
    """Records for every input (a capture directory counts as its files); raises AnalyzeError on bad input."""
    return list(iter_analyze(paths, config, side, framework, on_progress))
