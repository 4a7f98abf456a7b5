"""One live run, start to record: prepared config → launch (stamped chunks) → the pipeline → record.

Data flows one way: the launcher's chunks go to ``pipeline.Consumer`` (tracker, capture writer, reported-figures
line feeder); samplers run beside; at the end the launch result becomes a run-end event and everything is
assembled by ``pipeline.finish`` — the same path a re-analysis of the capture takes.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from ..core.safe import one_line
from ..model.events import Chunk, RunEnd, RunStart, RunWarning, stream_name
from ..measure.launch import Control, LaunchOptions, LaunchResult, StartError, launch
from ..derive.pipeline import (HTTP, Consumer, Prepared, RunConfig, analysis_options, apply_stream, burst_warning,
                               detected_profile, facts_from, finish, phase_windows, tracker_for, watcher_for)
from ..derive.pipeline import prepare as _prepare
from ..model import profiles as _profiles
from ..derive.record import iso_utc
from ..derive.line_feeder import LineFeeder
from ..derive.markers import PhaseTracker

if TYPE_CHECKING:
    from .capture import CaptureWriter

__all__ = ["HTTP", "Kept", "Prepared", "RunConfig", "StartError", "execute", "new_run_id", "phase_windows", "prepare"]
READY_HINT_S = 30.0
log = logging.getLogger("phasewrap")


@dataclass
class Kept:
    """What a live run saw beside its record, kept in memory so pictures and traces drawn right after the
    session (``run --plot``, ``--trace``) need no capture: the chunks' times and streams (not their bytes) and
    the resource samples, on the run's monotonic clock (``t0_ns`` = launch)."""

    run_id: str
    t0_ns: int
    chunks: list
    samples: list


def prepare(config: RunConfig) -> Prepared:
    """The run's markers and rules (``pipeline.prepare``); a bad --url / --port / --max-tokens of a server run,
    or a model path given to the framework's own model flag that does not exist, is refused here, before the
    start (a replay never checks: its paths are another machine's)."""
    prepared = _prepare(config)
    missing = _profiles.missing_model(prepared.profile, config.command)
    if missing is not None:
        from ..core.safe import one_line

        raise ValueError(f"{missing[0]}: model file '{one_line(missing[1])}' does not exist; check the path "
                         "(nothing was started)")
    if config.request is not None:
        if prepared.ready is None or prepared.ready_optional:  # it goes out at the ready marker: none, never
            raise ValueError(f"--request needs --ready REGEX (the line the server prints when it accepts requests) "
                             f"or --profile NAME of a server: profile {prepared.profile.name!r} has no ready marker")
        request_for(config, prepared.profile)
    return prepared


def request_for(config: RunConfig, profile: _profiles.Profile, on_done=None, clock=time.monotonic_ns,
                ready_text: str = ""):
    """The --request to send. Where to: --url; else the URL the server printed in its ready line; else its
    command's --host/--port (or the profile's environment variable, e.g. OLLAMA_HOST); else the profile's port."""
    from ..sources.request import StreamRequest, base_url_from, url_in_text  # http.client: start-up most runs don't need

    base = config.url or url_in_text(ready_text) or base_url_from(
        config.command, profile.default_port or 8080, host_env=profile.host_env, env=config.env or os.environ)
    return StreamRequest(base, config.request, config.max_tokens, config.api, model=config.model,
                         discover_model=profile.discover_model and config.model is None and config.api == "openai",
                         on_done=on_done, clock=clock)
class ReadyWaitHint:
    """Says "still waiting for the ready marker /…/ after 30 s" (then after 60, 120, every 120 s) while the ready
    marker has not appeared: a typo'd --ready on a server otherwise waits in silence. A timer thread, so the read
    loop's per-chunk path is untouched; it only reads ``tracker.ready``."""

    def __init__(self, tracker: PhaseTracker, spec, say: Callable[[str], None], first_s: float) -> None:
        self._tracker, self._spec, self._say, self._first_s = tracker, spec, say, first_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="phasewrap-ready-hint", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.ident is not None:  # started (the child may not have been)
            self._thread.join()

    def _watch(self) -> None:
        waited_s, step_s = 0.0, self._first_s
        while not self._stop.wait(step_s):
            waited_s += step_s
            if self._tracker.ready is not None:
                return
            self._say(f"still waiting for the ready marker /{self._spec.pattern.pattern}/ on "
                      f"{stream_name(self._spec.stream)} after {round(waited_s, 1):g} s; if the program is ready, the "
                      "regex does not match its output: check --ready (Ctrl-C keeps what is recorded)")
            step_s = min(waited_s, 4 * self._first_s)


def new_run_id(wall_s: Optional[float] = None) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(wall_s if wall_s is not None else time.time()))
    return f"{stamp}-{os.urandom(3).hex()}"


def execute(prep: Prepared, *, samplers: Sequence = (), control: Optional[Control] = None,
            run_id: Optional[str] = None, clock: Callable[[], int] = time.monotonic_ns,
            out_fd: Optional[int] = None, err_fd: int = 2, extra: Optional[dict] = None,
            signals=None, keep: Optional[Callable[[Kept], None]] = None,
            ready_hint_s: float = READY_HINT_S) -> tuple[dict, LaunchResult]:
    """Run the prepared command once; returns (record, launch result). Raises StartError (exit 127).
    ``extra``: what the caller knows of the run (cache state, env, repeat index), into the record and the capture;
    ``signals``: the session's ``SignalGuard``; ``keep``: gets the run's ``Kept`` stream once the record is made;
    a ready marker not seen after ``ready_hint_s`` is said on the ``phasewrap`` logger (``ReadyWaitHint``)."""
    cfg, run_id, tracker = prep.config, run_id or new_run_id(), tracker_for(prep)
    feeder = LineFeeder(prep.profile.framework if not prep.candidates else None)
    capture, capture_warning = _open_capture(cfg.capture_dir, run_id)
    request = None
    own_control = Control() if cfg.request is not None and control is None else None  # stopped when answered
    control = control or own_control

    def on_boundary(name: str) -> None:
        nonlocal request
        if name == "ready" and cfg.request is not None:
            request = request_for(cfg, prep.profile, on_done=lambda _r: control.stop("request complete"),
                                  clock=clock, ready_text=tracker.found["ready"].text)
            request.start()
        for sampler in samplers:
            sampler.notify(name)

    def on_start(pid: int, t0_ns: int, wall_t0_s: float) -> None:
        if capture is not None:
            capture.header(_capture_header(prep, run_id, pid, t0_ns, wall_t0_s))
        for sampler in samplers:
            sampler.start(pid)
        if hint is not None:
            hint.start()

    opts = LaunchOptions(passthrough=not cfg.quiet, pty=cfg.pty, timeout_s=cfg.timeout_s, kill_grace_s=cfg.kill_grace_s,
                         drain_s=cfg.drain_s, env=cfg.env, out_fd=cfg.stdout_fd if out_fd is None else out_fd,
                         err_fd=err_fd)
    def on_line() -> None:  # a line ended during load: the samplers read their counters now, on their threads
        for sampler in samplers:
            sampler.notify("line")

    pipeline = Consumer(tracker, feeder, capture, on_boundary, watcher_for(prep, on_line))
    kept_chunks: list = []
    hint = (ReadyWaitHint(tracker, prep.ready, log.info, ready_hint_s)
            if prep.ready is not None and not prep.ready_optional else None)
    try:
        result = launch(cfg.command, pipeline if keep is None else _keeping(pipeline, kept_chunks), opts,
                        on_start=on_start, control=control, signals=signals, clock=clock)
    except StartError:
        if capture is not None:  # nothing ran: leave no empty capture behind
            capture.close()
            os.unlink(capture.path)
        raise
    finally:
        _after_launch(hint, samplers, own_control)
    record, samples = _record_of(prep, tracker, feeder, result, run_id, extra, request, samplers, capture,
                                 capture_warning, pipeline.watcher)
    if keep is not None:
        keep(Kept(run_id, result.t0_ns, kept_chunks, samples))
    return record, result


def _capture_header(prep: Prepared, run_id: str, pid: int, t0_ns: int, wall_t0_s: float) -> dict:
    cfg = prep.config
    return {"run_id": run_id, "t0_monotonic_ns": t0_ns, "wall_t0_s": wall_t0_s, "started_at": iso_utc(wall_t0_s),
            "command": list(cfg.command), "profile": prep.profile.name, "pty": cfg.pty, "pid": pid,
            "analysis": analysis_options(cfg)}


def _after_launch(hint, samplers: Sequence, own_control: Optional[Control]) -> None:
    """Whatever the launch did: the wait hint, the samplers and the run's own control pipe are stopped."""
    if hint is not None:
        hint.stop()
    for sampler in samplers:
        sampler.notify("exit")
        sampler.stop()
    if own_control is not None:
        own_control.close()


def _record_of(prep: Prepared, tracker, feeder, result: LaunchResult, run_id: str, extra: Optional[dict], request,
               samplers: Sequence, capture: Optional[CaptureWriter], capture_warning: Optional[str],
               watcher) -> tuple[dict, list]:
    """After the child: the facts of the run, its request's stream and samples, into the record (and the capture);
    (record, samples)."""
    if capture is not None:
        capture.event("exit", {"t_ns": result.exit_ns - result.t0_ns, "exit_code": result.exit_status,
                               "status": result.status, "signal": result.signal})
    start, end = _start_end(result)
    facts = facts_from(prep, detected_profile(prep, tracker), tracker, feeder.results(), run_id, start, end,
                       _live_warnings(prep, tracker, result))
    facts.carried = dict(extra or {})
    if request is not None:
        stream = request.result() if request.wait(1.0) else None
        if capture is not None and stream is not None:
            from .request import stream_to_json

            capture.event("request", {"result": stream_to_json(stream, result.t0_ns)})
        apply_stream(facts, stream)
    samples = [s for sampler in samplers for s in sampler.samples()]
    infos = [sampler.info() for sampler in samplers]
    if capture is not None:
        capture.samples(samples)
        capture.event("samplers", {"infos": infos})
    for text in (capture_warning, capture.failure if capture is not None else None):
        if text:
            facts.warnings.append(RunWarning("capture", text))
    record = finish(facts, samples, infos, watcher)
    if capture is not None:
        capture.event("record", {"record": record})
        capture.close()
    return record, samples


def _keeping(consumer: Consumer, into: list) -> Callable[[Chunk], None]:
    """``consumer`` that also keeps each chunk's time and stream in ``into`` (not its bytes: only the pictures'
    token ticks and the trace's instants need them)."""
    def feed(chunk: Chunk) -> None:
        consumer(chunk)
        into.append(Chunk(chunk.t_ns, chunk.stream, b""))
    return feed


def _open_capture(directory: Optional[str], run_id: str) -> tuple[Optional[CaptureWriter], Optional[str]]:
    """The run's capture writer, or (None, why) when its file can't be created: the run goes on without it."""
    if not directory:
        return None, None
    from .capture import CaptureWriter  # the capture format (and its reader's modules): only a --capture run's

    try:
        return CaptureWriter(directory, run_id), None
    except OSError as exc:
        from ..core.writer import show_path

        return None, f"--capture: cannot create a capture in {show_path(directory)} ({exc.strerror}); none was written"


def _start_end(result: LaunchResult) -> tuple[RunStart, RunEnd]:
    return (RunStart(result.t0_ns, result.wall_t0_s, pid=result.pid),
            RunEnd(result.exit_ns, result.status, exit_code=result.exit_status, signal=result.signal,
                   received_signal=result.received_signal, stop_reason=result.stop_reason))


def _live_warnings(prep: Prepared, tracker, result: LaunchResult) -> list:
    """What only a live run can tell: output held back until exit, descendants, a closed passthrough."""
    warnings = []
    burst = burst_warning(tracker, result.t0_ns, result.exit_ns, prep.tokens.stream)
    if burst:
        warnings.append(burst)
    if result.drain_timed_out:
        warnings.append(RunWarning("drain_timeout", "the child exited but something it started kept its output "
                                   f"open; stopped waiting after {prep.config.drain_s:g} s"))
    if result.leftover_killed:
        warnings.append(RunWarning("leftover_processes", f"{result.leftover_killed} process(es) of the child's "
                                   "group were still running after it exited and were stopped"))
    for pid, name in result.escaped:
        warnings.append(RunWarning("escaped_process", f"pid {pid} ({one_line(name)}), started by the child, left its "
                                   "process group with setsid and was still running after the run; phasewrap did not "
                                   "stop it"))
    for pid, name, pgid in result.moved:
        warnings.append(RunWarning("escaped_process", f"pid {pid} ({one_line(name)}), started by the child, moved to "
                                   f"process group {pgid} and was still running after the run; phasewrap stopped it"))
    for stream in result.passthrough_closed:
        warnings.append(RunWarning("passthrough_closed", f"phasewrap's {stream} was closed by its reader; the "
                                   f"child's {stream} was discarded from then on (still measured)"))
    return warnings
