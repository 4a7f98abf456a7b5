"""The record pipeline a live run and a re-analysis share: config → prepared markers → chunks → facts → record.

A source (``runner`` for a live child, ``analyze`` for a recording) does three things and nothing else:

1. ``prepare(RunConfig(...))`` once: the profile resolved, every regex compiled;
2. feed its stamped chunks to a ``Consumer`` (the phase tracker, the framework's figure lines, an optional
   capture and boundary callback);
3. at the end, hand a ``RunStart`` and a ``RunEnd`` (``events.py``) with its own warnings to ``facts_from``,
   then ``finish`` (resources per phase, then ``record.build``).

So a live run and a replay of its capture can't disagree: they differ only in where the chunks and the run-end
event come from.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from ..model import phases as _phases
from ..model import profiles as _profiles
from ..model.accessors import BUFFERED_KIND
from ..model.events import Chunk, Marker, RunEnd, RunStart, RunWarning
from .gaps import GapStamps, stall_windows
from .limits import LimitsInput, fastest_read_mib_s
from .loadsteps import LoadWatcher, load_steps
from .reasoning import Boundary
from .markers import ANY, MarkerSpec, PhaseTracker, TokenRule, compile_marker
from .record import RunFacts, build

HTTP = "http"  # the token stream of a server run: the events of the --request response
BURST_WINDOW_S = 0.1
BURST_BUFFER_BYTES = 4096  # the smallest stdio buffer a block-buffered child flushes at a time


@dataclass
class RunConfig:
    """Everything ``phasewrap run`` needs for one run. Regexes are compiled by ``prepare``."""

    command: list
    profile: str = "auto"
    ready: Optional[str] = None
    ready_stream: str = ANY
    first_token: Optional[str] = None
    first_token_stream: str = ANY
    marks: list = field(default_factory=list)  # (name, regex, stream)
    tags: dict = field(default_factory=dict)
    note: Optional[str] = None
    quiet: bool = False
    stdout_fd: int = 1  # where the child's stdout passes through: 2 keeps our stdout for --format json
    pty: bool = False
    timeout_s: Optional[float] = None
    kill_grace_s: float = 5.0
    drain_s: float = 2.0
    capture_dir: Optional[str] = None
    env: Optional[dict] = None
    request: Optional[str] = None  # a prompt: send one streaming completion once the server is ready
    max_tokens: Optional[int] = None
    api: str = "openai"
    url: Optional[str] = None
    model: Optional[str] = None
    limits: Optional[LimitsInput] = None  # model facts, hardware peaks, --model-bytes/--peak (derive.limits)


# The options that shape how a run's output is read: a capture stores them, so its re-analysis reads it as the
# live run did (``analyze CAPTURE`` with none of these options given reproduces the live record's phases).
ANALYSIS_FIELDS = ("profile", "ready", "ready_stream", "first_token", "first_token_stream", "marks")


def analysis_options(config: RunConfig) -> dict:
    """The run's analysis-shaping options, as a capture header stores them (JSON types)."""
    return {name: ([list(m) for m in config.marks] if name == "marks" else getattr(config, name))
            for name in ANALYSIS_FIELDS}


def _stored_option(name: str, value):
    """A stored option's value if it has the type the option takes, else None (a hand-edited or foreign header)."""
    if name == "marks":
        ok = isinstance(value, list) and all(isinstance(m, list) and len(m) == 3 and all(isinstance(x, str) for x in m)
                                             for m in value)
        return [tuple(m) for m in value] if ok else None
    if name in ("ready", "first_token"):
        return value if value is None or isinstance(value, str) else None
    return value if isinstance(value, str) else None


def with_recorded_options(config: RunConfig, stored) -> RunConfig:
    """``config`` as the recorded run had it, when the caller gave none of the analysis options (their defaults
    all round); options given on the command line win, all of them together."""
    defaults = RunConfig(command=[])
    if not isinstance(stored, dict) or any(getattr(config, n) != getattr(defaults, n) for n in ANALYSIS_FIELDS):
        return config
    values = {n: _stored_option(n, stored.get(n)) for n in ANALYSIS_FIELDS if n in stored}
    return dataclasses.replace(config, **{n: v for n, v in values.items()
                                          if v is not None or n in ("ready", "first_token")})


@dataclass(frozen=True)
class Prepared:
    """A config checked and compiled: usage errors surface here, before anything is started."""

    config: RunConfig
    profile: _profiles.Profile
    candidates: tuple
    ready: Optional[MarkerSpec]
    ready_optional: bool
    marks: tuple
    tokens: TokenRule
    warnings: tuple  # RunWarning: what the command line alone justifies


def prepare(config: RunConfig) -> Prepared:
    """Resolve the profile and compile markers; raises ValueError naming the bad option."""
    if not config.command or not config.command[0]:
        raise ValueError("no command given (or an empty name); usage: phasewrap run [options] -- CMD [ARGS...]")
    profile, candidates = _profiles.resolve(config.profile, config.command)
    ready, ready_optional = None, False
    if config.ready is not None:
        ready = compile_marker("--ready", "ready", config.ready, config.ready_stream)
    elif profile.ready is not None:
        ready = compile_marker(f"profile {profile.name}", "ready", profile.ready, profile.ready_stream)
    elif candidates:
        union = "|".join(f"(?:{p.ready})" for p in candidates)
        streams = {p.ready_stream for p in candidates}
        # Watch only the stream(s) the candidates print on: a pending regex costs a decode per chunk.
        stream = streams.pop() if len(streams) == 1 else ANY
        ready, ready_optional = compile_marker("profile auto", "ready", union, stream), True
    first = None
    if config.first_token is not None:
        first = compile_marker("--first-token", "first_token", config.first_token, config.first_token_stream)
    elif profile.first_token is not None:
        first = compile_marker(f"profile {profile.name}", "first_token", profile.first_token, profile.token_stream)
    marks = []
    if config.ready is None and ready is not None and not ready_optional:
        marks += [compile_marker(f"profile {profile.name}", "ready", regex, stream)
                  for stream, regex in profile.ready_also]
    for name, regex, stream in config.marks:
        if name in ("ready", "first_token", "last_token"):
            raise ValueError(f"--mark: {name!r} is reserved; use --{name.replace('_', '-')} for it")
        marks.append(compile_marker(f"--mark {name}", name, regex, stream))
    end = compile_marker(f"profile {profile.name}", "end", profile.token_end).pattern if profile.token_end else None
    token_stream = HTTP if config.request is not None else profile.token_stream
    tokens = TokenRule(stream=token_stream, prompts=_profiles.prompts(profile, config.command),
                       first_token=first, end=end)
    warnings = tuple(RunWarning(kind, text) for kind, text in _profiles.command_warnings(profile, config.command))
    return Prepared(config, profile, tuple(candidates), ready, ready_optional, tuple(marks), tokens, warnings)


def burst_warning(tracker: PhaseTracker, t0_ns: int, exit_ns: Optional[int], token_stream: str) -> Optional[RunWarning]:
    """The warning for a token stream that came in one burst at exit, whatever the run's length: then its reads
    can't show when tokens (or a ready line on it) came. A stream written as it goes has a read per write; a
    block-buffered one has a read per buffer-full, so few reads for its bytes tell the two apart. For a live
    run and the replay of its capture (the reads are the capture's chunks)."""
    first = tracker.stream_first_ns.get(token_stream)
    if first is None or exit_ns is None:
        return None
    run_s = (exit_ns - t0_ns) / 1e9
    reads = tracker.stream_reads.get(token_stream, 0)
    few_reads = reads <= tracker.stream_bytes.get(token_stream, 0) // BURST_BUFFER_BYTES + 1
    if run_s > BURST_WINDOW_S and (exit_ns - first) / 1e9 <= BURST_WINDOW_S and few_reads:
        return RunWarning(BUFFERED_KIND, f"all {token_stream} output arrived in one burst at exit ({run_s:.2f} s into "
                          "the run): the child probably block-buffers when piped, so its phases can't be measured; "
                          "try --pty, `stdbuf -o0 CMD` or PYTHONUNBUFFERED=1")
    return None


def tracker_for(prep: Prepared) -> PhaseTracker:
    """A fresh phase tracker for the prepared markers."""
    return PhaseTracker(prep.ready, prep.marks, prep.tokens, ready_optional=prep.ready_optional)


class Consumer:
    """The per-chunk consumer: tracker, framework figure lines, capture, boundary notifications.

    ``feeder`` (a ``reported.LineFeeder``) may be None when the framework's figures are parsed from the whole
    log instead; ``capture`` (a ``capture.CaptureWriter``) is None unless the run is being captured; ``watcher``
    (a ``loadsteps.LoadWatcher``, see ``watcher_for``) keeps the load window for ``finish``.
    """

    def __init__(self, tracker: PhaseTracker, feeder=None, capture=None,
                 on_boundary: Optional[Callable[[str], None]] = None, watcher: Optional[LoadWatcher] = None) -> None:
        self.tracker = tracker
        self.feeder = feeder
        self.capture = capture
        self._on_boundary = on_boundary
        self._seen = 0
        self.watcher = watcher  # keeps the load window's chunks for the load steps, until ready
        self._watching = watcher

    def __call__(self, chunk: Chunk) -> None:
        tracker = self.tracker
        tracker.feed(chunk)
        if self._watching is not None:
            self._watching.feed(chunk)
            if "ready" in tracker.found:
                self._watching.stop()
                self._watching = None
        if self.capture is not None:
            self.capture.chunk(chunk)
        if self.feeder is not None:
            self.feeder.feed(chunk)
        if self._on_boundary is not None and len(tracker.found) != self._seen:
            for name in list(tracker.found)[self._seen:]:
                self._on_boundary(name)
            self._seen = len(tracker.found)


def detected_profile(prep: Prepared, tracker: PhaseTracker) -> _profiles.Profile:
    """The profile the run turned out to be: with ``auto``, the candidate whose ready line matched."""
    ready = tracker.found.get("ready")
    if prep.ready_optional and ready is not None:
        for candidate in prep.candidates:
            if candidate.output_detect and re.search(candidate.output_detect, ready.text):
                return candidate
    return prep.profile


def phase_windows(markers: dict, t0_ns: int, end_ns: Optional[int]) -> dict:
    """The per-phase time windows (monotonic ns) that resources are split by; None where a bound is missing."""
    return _phases.windows_ns(t0_ns, end_ns, {name: mk.t_ns for name, mk in markers.items()})


def apply_stream(facts: RunFacts, stream) -> None:
    """A server run's token markers and counts come from the response stream (a ``request.StreamResult``, or
    None when none finished), its timings into reported."""
    if stream is None:
        reason = ("the server never became ready, so the request was not sent" if "ready" not in facts.markers
                  else "the request did not finish before the server exited")
        facts.warnings.append(RunWarning("request", f"--request: {reason}"))
        facts.token_stream_problem = f"no --request result: {reason}"
        _request_failed(facts)
        return
    if stream.error:
        facts.warnings.append(RunWarning("request", f"--request: {stream.error}"))
        facts.token_stream_problem = f"the --request failed: {stream.error}"
        if stream.t_first_content_ns is None:
            _request_failed(facts)
    for name, t_ns, text in (("request_sent", stream.t_sent_ns, ""),
                             ("first_token", stream.t_first_content_ns, stream.first_text),
                             ("first_answer_token", stream.t_first_answer_ns, ""),
                             ("last_token", stream.t_last_content_ns, stream.last_text)):
        if t_ns is not None:
            facts.markers[name] = Marker(name, t_ns, HTTP, text.strip())
    facts.token_chunks = stream.content_events
    facts.thinking = Boundary(stream.thinking, stream.t_think_end_ns, stream.t_first_answer_ns)
    facts.gap_stamps = GapStamps.of(stream.content_stamps_ns, {i: text.encode("utf-8") for i, text in stream.gap_texts})
    facts.stream_tokens = (stream.tokens, stream.tokens_source)
    if stream.timings:
        from .frameworks import from_server_timings

        facts.reported = from_server_timings(stream.timings)
        facts.reported_output_offset = 0


def _request_failed(facts: RunFacts) -> None:
    """The server ran, but the request it was started for got no answer: the run did not do its job."""
    if facts.status == "ok":
        facts.status = "failed"


def facts_from(prep: Prepared, profile: _profiles.Profile, tracker: PhaseTracker, reported: list, run_id: str,
               start: RunStart, end: RunEnd, warnings: Sequence[RunWarning] = ()) -> RunFacts:
    """The pieces of a run as RunFacts, whatever produced them. ``warnings``: the source's own (a live run's
    leftover processes, a capture cut short); the command line's and the token stream's are added here."""
    cfg = prep.config
    # A command-line guess that the run proved wrong (llama-cli "sees no tokens", yet tokens were read) goes.
    found = [w for w in prep.warnings
             if not (tracker.token_chunks and w.kind == _profiles.NO_TOKENS_KIND)]
    ready_spec, pending = prep.ready, tracker.pending()
    if prep.ready_optional and "ready" not in tracker.found:
        # --profile auto watched for every known framework's ready line and saw none: the run is the generic
        # profile's, which has no ready marker (not "the union of other frameworks' regexes never appeared").
        ready_spec, pending = None, [spec for spec in pending if spec.name != "ready"]
    if prep.tokens.stream != HTTP and tracker.stream_bytes.get(prep.tokens.stream, 0) == 0 and end.status == "ok":
        found.append(RunWarning("no_token_output", f"no output at all on the token stream ({prep.tokens.stream}); "
                                "if the framework was told to be silent (llama.cpp --log-disable also hides the "
                                "generated text), no tokens can be seen"))
    return RunFacts(
        run_id=run_id,
        command=list(cfg.command),
        profile=profile.name,
        t0_ns=start.t0_ns,
        wall_t0_s=start.wall_t0_s,
        end_ns=end.t_ns,
        exit_code=end.exit_code,
        status=end.status,
        markers=tracker.markers(),
        ready_spec=ready_spec,
        first_token_spec=prep.tokens.first_token,
        pending=pending,
        token_stream=prep.tokens.stream,
        token_chunks=tracker.token_chunks,
        gap_stamps=tracker.gap_stamps,
        thinking=tracker.think.boundary(),
        reported=reported[-1] if reported else None,
        reported_output_offset=profile.reported_output_offset,
        definitions=dict(profile.definitions),
        tags=dict(cfg.tags),
        note=cfg.note,
        warnings=found + list(warnings),
        monotonic_clock=start.monotonic,
        limits_input=cfg.limits,
        child={"pid": start.pid, "signal": end.signal, "received_signal": end.received_signal,
               "stop_reason": end.stop_reason, "pty": cfg.pty,
               "stdout_bytes": tracker.stream_bytes.get("out", 0),
               "stderr_bytes": tracker.stream_bytes.get("err", 0)},
        last_lines={stream: tracker.last_lines(stream) for stream in ("out", "err")},
    )


def watcher_for(prep: Prepared, on_line: Callable[[], None] = lambda: None) -> Optional[LoadWatcher]:
    """A watcher of the load window when there is a ready marker to end it (``on_line``: tell the samplers)."""
    return LoadWatcher(on_line) if prep.ready is not None else None


def finish(facts: RunFacts, samples: Sequence = (), infos: Sequence = (),
           watcher: Optional[LoadWatcher] = None) -> dict:
    """Resources split by phase (when any sampler ran or was asked for), the load steps, then the record."""
    from .aggregate import aggregate

    samples, infos = list(samples), list(infos)
    windows = phase_windows(facts.markers, facts.t0_ns, facts.end_ns)
    stalls = []
    last = facts.markers.get("last_token")
    if samples and facts.gap_stamps is not None and facts.gap_stamps.complete:
        # what the samplers saw during each listed stall (GPU idle? CPU busy? disk reads?), quoted beside it
        stalls = stall_windows(facts.gap_stamps.stamps, None if last is None else last.t_ns)
        windows.update({("stall", i): window for i, window in enumerate(stalls)})
    resources = aggregate(samples, windows, infos)
    facts.stall_resources = [resources.pop(("stall", i)) for i in range(len(stalls))]
    ready = facts.markers.get("ready")
    if ready is not None and samples:  # the disk's rate as this run saw it, for a load floor without a probe
        import dataclasses

        facts.limits_input = dataclasses.replace(facts.limits_input or LimitsInput(),
                                                 disk_read_peak_mib_s=fastest_read_mib_s(samples, facts.t0_ns, ready.t_ns))
    facts.resources = resources
    if watcher is None:
        facts.load_steps_reason = "no ready marker: the load window has no end"
    else:
        profile = _profiles.PROFILES.get(facts.profile or "")
        facts.load_steps, facts.load_steps_reason = load_steps(
            watcher.chunks, facts.markers, facts.t0_ns, profile.load_steps if profile else (), samples, infos,
            watcher.truncated_ns)
    return build(facts)
