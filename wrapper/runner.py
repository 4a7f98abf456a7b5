"""One run, start to record: config → launch (stamped chunks) → tracker/capture/reported → record.

Data flows one way: the launcher's chunks go to the tracker (markers, tokens), the capture writer and the
reported-figures line feeder; samplers run beside; at the end everything is assembled by ``record.build``.
"""
from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from . import profiles as _profiles
from .aggregate import aggregate
from .capture import CaptureWriter
from .events import Chunk, Marker
from .launch import Control, LaunchOptions, LaunchResult, StartError, launch
from .loadsteps import LoadWatcher, load_steps
from .markers import ANY, MarkerSpec, PhaseTracker, TokenRule, compile_marker
from .record import RunFacts, build, iso_utc
from .reported import LineFeeder

HTTP = "http"  # the token stream of a server run: the events of the --request response
BURST_WINDOW_S = 0.1
BURST_MIN_RUN_S = 1.0


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
    warnings: tuple


def prepare(config: RunConfig) -> Prepared:
    """Resolve the profile and compile markers; raises ValueError naming the bad option."""
    if not config.command:
        raise ValueError("run: no command given; usage: phasewrap run [options] -- CMD [ARGS...]")
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
    if config.request is not None:
        _request_for(config, profile)  # surfaces a bad --url / --port / --max-tokens before the start
    return Prepared(config, profile, tuple(candidates), ready, ready_optional, tuple(marks), tokens,
                    tuple(_profiles.command_warnings(profile, config.command)))


def _request_for(config: RunConfig, profile: _profiles.Profile, on_done=None, clock=time.monotonic_ns,
                 ready_text: str = ""):
    """The --request to send. Where to: --url; else the URL the server printed in its ready line; else its
    command's --host/--port (or the profile's environment variable, e.g. OLLAMA_HOST); else the profile's port."""
    from .request import StreamRequest, base_url_from, url_in_text  # http.client: start-up most runs don't need

    base = config.url or url_in_text(ready_text) or base_url_from(
        config.command, profile.default_port or 8080, host_env=profile.host_env, env=config.env or os.environ)
    return StreamRequest(base, config.request, config.max_tokens, config.api, model=config.model,
                         discover_model=profile.discover_model and config.model is None and config.api == "openai",
                         on_done=on_done, clock=clock)


def new_run_id(wall_s: Optional[float] = None) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(wall_s if wall_s is not None else time.time()))
    return f"{stamp}-{secrets.token_hex(3)}"


class _Pipeline:
    """The per-chunk consumer: tracker, capture, reported lines, boundary notifications."""

    def __init__(self, tracker: PhaseTracker, feeder: LineFeeder, capture: Optional[CaptureWriter],
                 on_boundary: Callable[[str], None], watcher: Optional[LoadWatcher] = None) -> None:
        self.tracker = tracker
        self.feeder = feeder
        self.capture = capture
        self._on_boundary = on_boundary
        self._seen = 0
        self.watcher = watcher  # the load window's chunks, until ready

    def __call__(self, chunk: Chunk) -> None:
        tracker = self.tracker
        tracker.feed(chunk)
        if self.watcher is not None:
            self.watcher.feed(chunk)
            if "ready" in tracker.found:
                self.watcher.stop()
                self.watcher = None
        if self.capture is not None:
            self.capture.chunk(chunk)
        self.feeder.feed(chunk)
        if len(tracker.found) != self._seen:
            for name in list(tracker.found)[self._seen:]:
                self._on_boundary(name)
            self._seen = len(tracker.found)


def _detected_profile(prep: Prepared, tracker: PhaseTracker) -> _profiles.Profile:
    ready = tracker.found.get("ready")
    if prep.ready_optional and ready is not None:
        for candidate in prep.candidates:
            if candidate.output_detect and re.search(candidate.output_detect, ready.text):
                return candidate
    return prep.profile


def _burst_warning(tracker: PhaseTracker, result: LaunchResult, token_stream: str) -> Optional[str]:
    first = tracker.stream_first_ns.get(token_stream)
    if first is None or result.exit_ns is None:
        return None
    run_s = (result.exit_ns - result.t0_ns) / 1e9
    if run_s >= BURST_MIN_RUN_S and (result.exit_ns - first) / 1e9 <= BURST_WINDOW_S:
        return (f"all {token_stream} output arrived in one burst at exit: the child probably block-buffers "
                "when piped; try --pty, `stdbuf -o0 CMD` or PYTHONUNBUFFERED=1")
    return None


def execute(prep: Prepared, *, samplers: Sequence = (), control: Optional[Control] = None,
            run_id: Optional[str] = None, clock: Callable[[], int] = time.monotonic_ns,
            out_fd: int = 1, err_fd: int = 2, extra: Optional[dict] = None) -> tuple[dict, LaunchResult]:
    """Run the prepared command once; returns (record, launch result). Raises StartError (exit 127).

    ``extra``: keys the caller knows about the run (cache state, environment, repeat index) that go into the
    record, in the capture too.
    """
    cfg = prep.config
    run_id = run_id or new_run_id()
    tracker = PhaseTracker(prep.ready, prep.marks, prep.tokens, ready_optional=prep.ready_optional)
    framework = prep.profile.framework if not prep.candidates else None
    feeder = LineFeeder(framework)
    capture = CaptureWriter(cfg.capture_dir, run_id) if cfg.capture_dir else None
    request = None
    own_control = None
    if cfg.request is not None and control is None:
        control = own_control = Control()

    def on_boundary(name: str) -> None:
        nonlocal request
        if name == "ready" and cfg.request is not None:
            request = _request_for(cfg, prep.profile, on_done=lambda _r: control.stop("request complete"),
                                   clock=clock, ready_text=tracker.found["ready"].text)
            request.start()
        for sampler in samplers:
            sampler.notify(name)

    def on_start(pid: int, t0_ns: int, wall_t0_s: float) -> None:
        if capture is not None:
            capture.header({"run_id": run_id, "t0_monotonic_ns": t0_ns, "wall_t0_s": wall_t0_s,
                            "started_at": iso_utc(wall_t0_s), "command": list(cfg.command), "profile": prep.profile.name,
                            "pty": cfg.pty, "pid": pid})
        for sampler in samplers:
            sampler.start(pid)

    opts = LaunchOptions(passthrough=not cfg.quiet, pty=cfg.pty, timeout_s=cfg.timeout_s,
                         kill_grace_s=cfg.kill_grace_s, drain_s=cfg.drain_s, env=cfg.env,
                         out_fd=out_fd, err_fd=err_fd)
    def on_line() -> None:
        for sampler in samplers:
            sampler.notify("line")

    watcher = LoadWatcher(on_line) if prep.ready is not None else None
    pipeline = _Pipeline(tracker, feeder, capture, on_boundary, watcher)
    try:
        result = launch(cfg.command, pipeline, opts, on_start=on_start, control=control, clock=clock)
    except StartError:
        if capture is not None:  # nothing ran: leave no empty capture behind
            capture.close()
            os.unlink(capture.path)
        raise
    finally:
        for sampler in samplers:
            sampler.notify("exit")
            sampler.stop()
        if own_control is not None:
            own_control.close()
    if capture is not None:
        capture.event("exit", {"t_ns": result.exit_ns - result.t0_ns, "exit_code": result.exit_status,
                               "status": result.status, "signal": result.signal})
    profile = _detected_profile(prep, tracker)
    facts = facts_from(prep, profile, tracker, feeder.results(), run_id, result)
    if request is not None:
        stream = request.result() if request.wait(1.0) else None
        if capture is not None and stream is not None:
            capture.event("request", {"result": _stream_json(stream, result.t0_ns)})
        _apply_stream(facts, stream)
    samples = [s for sampler in samplers for s in sampler.samples()]
    infos = [sampler.info() for sampler in samplers]
    if capture is not None:
        capture.samples(samples)
        capture.event("samplers", {"infos": infos})
    facts.resources = aggregate(samples, phase_windows(facts.markers, result.t0_ns, result.exit_ns), infos)
    add_load_steps(facts, profile, watcher, samples, infos)
    record = build(facts)
    record.update(extra or {})
    if capture is not None:
        capture.event("record", {"record": record})
        capture.close()
    return record, result


def add_load_steps(facts: RunFacts, profile: _profiles.Profile, watcher: Optional[LoadWatcher], samples: list,
                   infos: list) -> None:
    """The load window cut into steps (``load_steps``), from the watched chunks and the samples."""
    if watcher is None:
        facts.load_steps, facts.load_steps_reason = None, "no ready marker: the load window has no end"
        return
    facts.load_steps, facts.load_steps_reason = load_steps(
        watcher.chunks, facts.markers, facts.t0_ns, profile.load_steps, samples, infos, watcher.truncated_ns)


def phase_windows(markers: dict, t0_ns: int, end_ns: Optional[int]) -> dict:
    """The per-phase time windows (monotonic ns) that resources are split by; None where a bound is missing."""
    def t(name):
        mk = markers.get(name)
        return None if mk is None else mk.t_ns

    ttft_start = t("request_sent") or t("ready")
    return {"load": (t0_ns, t("ready")), "ttft": (ttft_start, t("first_token")),
            "decode": (t("first_token"), t("last_token")), "total": (t0_ns, end_ns)}


def _stream_json(stream, t0_ns: int) -> dict:
    out = dict(stream.__dict__)
    for key in ("t_sent_ns", "t_first_content_ns", "t_last_content_ns", "t_end_ns"):
        if out[key] is not None:
            out[key] -= t0_ns  # the capture's clock: ns since launch
    return out


def _apply_stream(facts: RunFacts, stream) -> None:
    """A server run's token markers and counts come from the response stream, its timings into reported."""
    if stream is None:
        reason = ("the server never became ready, so the request was not sent" if "ready" not in facts.markers
                  else "the request did not finish before the server exited")
        facts.warnings.append(f"--request: {reason}")
        facts.token_stream_problem = f"no --request result: {reason}"
        return
    if stream.error:
        facts.warnings.append(f"--request: {stream.error}")
        facts.token_stream_problem = f"the --request failed: {stream.error}"
    for name, t_ns in (("request_sent", stream.t_sent_ns), ("first_token", stream.t_first_content_ns),
                       ("last_token", stream.t_last_content_ns)):
        if t_ns is not None:
            facts.markers[name] = Marker(name, t_ns, HTTP, "")
    facts.token_chunks = stream.content_events
    facts.stream_tokens = (stream.tokens, stream.tokens_source)
    if stream.timings:
        from .frameworks import from_server_timings

        facts.reported = from_server_timings(stream.timings)
        facts.reported_output_offset = 0


def facts_from(prep: Prepared, profile: _profiles.Profile, tracker: PhaseTracker, reported: list,
               run_id: str, result: LaunchResult) -> RunFacts:
    """The pieces of a run as RunFacts (shared by live runs and by re-analysis of a capture)."""
    cfg = prep.config
    warnings = list(prep.warnings)
    burst = _burst_warning(tracker, result, prep.tokens.stream)
    if burst:
        warnings.append(burst)
    if prep.tokens.stream != HTTP and tracker.stream_bytes.get(prep.tokens.stream, 0) == 0 and result.status == "ok":
        warnings.append(f"no output at all on the token stream ({prep.tokens.stream}); if the framework was "
                        "told to be silent (llama.cpp --log-disable also hides the generated text), "
                        "no tokens can be seen")
    if result.drain_timed_out:
        warnings.append("the child exited but something it started kept its output open; stopped waiting "
                        f"after {cfg.drain_s:g} s")
    if result.leftover_killed:
        warnings.append(f"{result.leftover_killed} process(es) of the child's group were still running after "
                        "it exited and were stopped")
    for stream in result.passthrough_closed:
        warnings.append(f"phasewrap's {stream} was closed by its reader; the child's {stream} was discarded "
                        "from then on (still measured)")
    return RunFacts(
        run_id=run_id,
        command=list(cfg.command),
        profile=profile.name,
        t0_ns=result.t0_ns,
        wall_t0_s=result.wall_t0_s,
        end_ns=result.exit_ns,
        exit_code=result.exit_status,
        status=result.status,
        markers=tracker.markers(),
        ready_spec=prep.ready,
        first_token_spec=prep.tokens.first_token,
        pending=tracker.pending(),
        token_stream=prep.tokens.stream,
        token_chunks=tracker.token_chunks,
        reported=reported[-1] if reported else None,
        reported_output_offset=profile.reported_output_offset,
        definitions=dict(profile.definitions),
        tags=dict(cfg.tags),
        note=cfg.note,
        warnings=warnings,
        child={"pid": result.pid, "signal": result.signal, "received_signal": result.received_signal,
               "stop_reason": result.stop_reason, "pty": cfg.pty,
               "stdout_bytes": tracker.stream_bytes.get("out", 0),
               "stderr_bytes": tracker.stream_bytes.get("err", 0)},
    )
