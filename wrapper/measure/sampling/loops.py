"""The two ways a sampler runs beside the child: a thread on a deadline grid, or a monitoring tool's lines.

Both keep the stream reader's share of the GIL large: a tick does its reads and returns, the rest of the
time the thread sleeps in ``Event.wait`` (GIL released) until the next absolute deadline on the monotonic
clock, so a slow tick delays the next one but never shifts the grid.
"""
from __future__ import annotations

import collections
import logging
import os
import signal
import subprocess
import tempfile
import threading
import time
from typing import Callable, Iterable, Optional, Protocol

from ...model.events import Sample
from .anchor import Anchor

log = logging.getLogger("phasewrap.sampling")

# A tool gets this long to exit after its stop signal before it is killed.
_TOOL_EXIT_S = 2.0


class SamplerUnavailable(Exception):
    """Raised while opening a sampler: the message is the reason recorded in ``info()``."""


class ErrorLog:
    """A sampler's errors: each kind logged the first time it happens, counted after that."""

    def __init__(self, sampler: str):
        self._sampler = sampler
        self._first: dict[str, str] = {}
        self._count: dict[str, int] = {}

    def record(self, key: str, message: str) -> None:
        n = self._count.get(key, 0)
        self._count[key] = n + 1
        if n == 0:
            self._first[key] = message
            log.warning("%s sampler: %s", self._sampler, message)

    def as_dict(self) -> dict:
        return {k: {"message": m, "count": self._count[k]} for k, m in self._first.items()}


class _Sampler:
    """What every sampler shares: its samples, its errors (logged once), why it is unavailable, an idempotent
    ``stop`` (``_stop_work`` once; an exception there is an error, never the run's), and ``info``: name,
    availability, interval, resolution and sample count, then ``_details()``, then the errors."""

    name = "?"

    def __init__(self, clock: Callable[[], int]):
        self._clock = clock
        self._samples: list[Sample] = []
        self._errors = ErrorLog(self.name)
        self._reason: Optional[str] = None
        self._stopped = False

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            self._stop_work()
        except Exception as e:
            self._errors.record("stop", f"stop failed: {e!r}")

    def samples(self) -> list[Sample]:
        return list(self._samples)

    def info(self) -> dict:
        if self._reason is not None:
            return {"name": self.name, "available": False, "reason": self._reason}
        return {"name": self.name, "available": True, "reason": None, "interval_s": self.interval_s,
                "resolution_s": self.resolution_s, "samples": len(self._samples), **self._details(),
                "errors": self._errors.as_dict()}

    def _stop_work(self) -> None:
        raise NotImplementedError

    def _details(self) -> dict:
        return {}


class ThreadedSampler(_Sampler):
    """Base of the in-process samplers: one daemon thread that ticks on absolute deadlines.

    A subclass sets ``name`` and implements ``_open(pid)`` (in ``start``; any exception there makes the
    sampler unavailable, ``SamplerUnavailable`` with its message as the reason) and ``_tick() ->
    list[Sample]``; optionally ``_on_boundaries(names)`` (with ``wants_boundaries = True``: readings taken
    right after ``notify()``, reported as ``boundary_readings`` in ``info()``), ``_finish()`` (last work on
    the thread), ``_close()`` and ``_extra_info()``. An exception in the thread is recorded and logged
    once; the thread goes on.
    """

    name = "?"
    wants_boundaries = False

    def __init__(self, interval_s: float, clock: Callable[[], int]):
        if not interval_s > 0:
            raise ValueError(f"interval_s: must be a positive number of seconds, got {interval_s!r}")
        super().__init__(clock)
        self.interval_s = float(interval_s)
        self._wake = threading.Event()
        self._boundaries: collections.deque[str] = collections.deque()
        self._stopping = False
        self._thread: Optional[threading.Thread] = None
        self._ticks = 0
        self._late_ticks = 0
        self._tick_cpu_ns = 0

    @property
    def resolution_s(self) -> float:
        return self.interval_s

    def start(self, pid: int) -> None:
        if self._reason is not None or self._thread is not None or self._stopped:
            return
        try:
            self._open(pid)
        except SamplerUnavailable as e:
            self._reason = str(e)
            return
        except Exception as e:  # a sampler that cannot start is data, not a failed run
            self._reason = f"could not start: {e!r}"
            return
        self._thread = threading.Thread(target=self._loop, name=f"phasewrap-{self.name}", daemon=True)
        self._thread.start()

    def notify(self, boundary: str) -> None:
        # Called from the stream reader's hot loop: an append and an Event.set, nothing else.
        if self.wants_boundaries and self._thread is not None:
            self._boundaries.append(boundary)
            self._wake.set()

    def _stop_work(self) -> None:
        if self._thread is not None:
            self._stopping = True
            self._wake.set()
            self._thread.join(timeout=max(5.0, 10 * self.interval_s))
            if self._thread.is_alive():
                self._errors.record("join", "sampling thread did not stop within its timeout; left behind")
        self._close()

    def info(self) -> dict:
        info = super().info()
        if info["available"]:
            info.update(self._extra_info())
        return info

    def _details(self) -> dict:
        return {"ticks": self._ticks, "late_ticks": self._late_ticks,
                "tick_cpu_us_mean": round(self._tick_cpu_ns / self._ticks / 1e3, 1) if self._ticks else None,
                "boundary_readings": self.wants_boundaries}

    # -- subclass hooks --------------------------------------------------------------------------
    def _open(self, pid: int) -> None:
        raise NotImplementedError

    def _tick(self) -> list[Sample]:
        raise NotImplementedError

    def _on_boundaries(self, names: list[str]) -> None:
        pass

    def _finish(self) -> None:
        pass

    def _close(self) -> None:
        pass

    def _extra_info(self) -> dict:
        return {}

    # -- the thread ------------------------------------------------------------------------------
    def _loop(self) -> None:
        interval_ns = max(1, round(self.interval_s * 1e9))
        deadline = self._clock()
        while True:
            self._wake.clear()
            if self._boundaries:
                names = [self._boundaries.popleft() for _ in range(len(self._boundaries))]
                self._guard("boundary", self._on_boundaries, names)
            if self._stopping:
                break
            now = self._clock()
            if now >= deadline:
                t0 = time.thread_time_ns()
                self._guard("tick", self._tick_into_samples)
                self._tick_cpu_ns += time.thread_time_ns() - t0
                self._ticks += 1
                deadline += interval_ns
                now = self._clock()
                if now >= deadline:  # overran or starved: skip the missed ticks, stay on the grid
                    missed = (now - deadline) // interval_ns + 1
                    self._late_ticks += missed
                    deadline += missed * interval_ns
            self._wake.wait((deadline - now) / 1e9)
        self._guard("finish", self._finish)

    def _tick_into_samples(self) -> None:
        self._samples.extend(self._tick())

    def _guard(self, what: str, fn: Callable, *args) -> None:
        try:
            fn(*args)
        except Exception as e:  # a background thread never kills the run
            self._errors.record(f"{what}:{type(e).__name__}", f"{what} failed: {e!r}")


class LineParser(Protocol):
    """Incremental parser of a monitoring tool's output; ``skipped`` counts data lines it could not use."""

    skipped: int

    def feed(self, line: str, arrival_ns: Optional[int] = None) -> list[Sample]: ...

    def finish(self) -> list[Sample]: ...


def parse_all(parser: LineParser, lines: Iterable[str]) -> list[Sample]:
    """Run recorded lines through an incremental parser."""
    out: list[Sample] = []
    for line in lines:
        out.extend(parser.feed(line))
    out.extend(parser.finish())
    return out


class CommandSampler(_Sampler):
    """Base of the samplers that run a monitoring tool and parse its lines as they arrive.

    A subclass sets ``name``, ``tool`` (the executable looked up on PATH, found at ``self._exe``) and
    ``stop_signal``, and implements ``_argv(pid)`` (the whole command) and ``_parser(anchor) -> LineParser``.
    The tool's output carries its own wall-clock times; they are placed on the monotonic clock through an
    anchor read at start, so a re-analysis of the recorded lines gives the same samples, up to the
    arrival-time refinement of lines that came at once.
    """

    name = "?"
    tool = "?"
    stop_signal = signal.SIGTERM
    resolution_s = 1.0

    def __init__(self, clock: Callable[[], int], which: Callable[[str], Optional[str]]):
        super().__init__(clock)
        self._exe = which(self.tool)
        if self._exe is None:
            self._reason = f"{self.tool}: not on PATH"
        self._proc: Optional[subprocess.Popen] = None
        self._reader: Optional[threading.Thread] = None
        self._stderr = None
        self._signalled = False
        self._lines = 0
        self._parse_cpu_ns = 0
        self._argv_used: Optional[list[str]] = None
        self._line_parser: Optional[LineParser] = None

    @property
    def interval_s(self) -> float:
        return self.resolution_s

    def start(self, pid: int) -> None:
        if self._reason is not None or self._proc is not None or self._stopped:
            return
        argv = self._argv(pid)
        self._argv_used = argv
        parser = self._line_parser = self._parser(Anchor.now(self._clock))
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env={**os.environ, "LC_ALL": "C"},
                text=True,
                errors="replace",
            )
        except OSError as e:
            self._reason = f"{self.tool}: cannot start ({e.strerror or e})"
            return
        self._reader = threading.Thread(target=self._read, args=(parser,), name=f"phasewrap-{self.name}", daemon=True)
        self._reader.start()

    def notify(self, boundary: str) -> None:
        pass  # the tool runs on its own 1 s grid; boundaries add nothing

    def _stop_work(self) -> None:
        self._stop_tool()

    def _details(self) -> dict:
        return {"command": self._argv_used, "returncode": self._proc.returncode if self._proc is not None else None,
                "lines": self._lines,
                "lines_skipped": self._line_parser.skipped if self._line_parser is not None else 0,
                "parse_cpu_us_per_line": round(self._parse_cpu_ns / self._lines / 1e3, 1) if self._lines else None}

    # -- subclass hooks --------------------------------------------------------------------------
    def _argv(self, pid: int) -> list[str]:
        raise NotImplementedError

    def _parser(self, anchor: Anchor) -> LineParser:
        raise NotImplementedError

    # -- the reader thread and shutdown ----------------------------------------------------------
    def _read(self, parser: LineParser) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        try:
            for line in self._proc.stdout:
                arrival = self._clock()
                t0 = time.thread_time_ns()
                try:
                    self._samples.extend(parser.feed(line, arrival))
                except Exception as e:
                    self._errors.record(f"parse:{type(e).__name__}", f"cannot parse {line.rstrip()!r}: {e!r}")
                self._parse_cpu_ns += time.thread_time_ns() - t0
                self._lines += 1
            self._samples.extend(parser.finish())
        except Exception as e:  # a background thread never kills the run
            self._errors.record(f"read:{type(e).__name__}", f"reading {self.tool} failed: {e!r}")

    def _stop_tool(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            self._signalled = True
            proc.send_signal(self.stop_signal)
            try:
                proc.wait(_TOOL_EXIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._reader is not None:
            self._reader.join(timeout=_TOOL_EXIT_S)
        if not self._signalled and proc.returncode != 0:
            message = f"{self.tool} exited with status {proc.returncode}: {self._stderr_tail() or 'no message'}"
            if self._samples:
                self._errors.record("exit", message)
            else:
                self._reason = message
        if self._stderr is not None:
            self._stderr.close()

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        return lines[-1].strip() if lines else ""
