"""Spawn the child, read its raw output, stamp it, pass it through, hand it on. Knows no formats.

The read loop uses ``selectors`` and ``os.read`` directly rather than a library's line-oriented reader
(``sh`` or ``subprocess.communicate``): tokens arrive without newlines, the stamp must be taken right after
the read returns, and the passthrough must cost little more than a bare read/write relay.
"""
from __future__ import annotations

import errno
import fcntl
import os
import select
import selectors
import signal
import subprocess
import sys
import threading
import time
import tty
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from .errors import StartError
from .events import ERR, OUT, Chunk

READ_BYTES = 1 << 20
PIPE_BYTES = 1 << 20
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@dataclass
class LaunchOptions:
    passthrough: bool = True
    pty: bool = False
    timeout_s: Optional[float] = None
    kill_grace_s: float = 5.0
    drain_s: float = 2.0
    env: Optional[dict] = None
    cwd: Optional[str] = None
    out_fd: int = 1
    err_fd: int = 2


@dataclass
class LaunchResult:
    """How the child ended. Times are CLOCK_MONOTONIC ns."""

    pid: int
    t0_ns: int
    wall_t0_s: float
    exit_ns: int
    returncode: int
    status: str
    signal: Optional[int] = None
    received_signal: Optional[int] = None
    stop_reason: Optional[str] = None
    leftover_killed: int = 0
    drain_timed_out: bool = False
    passthrough_closed: list = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        """The shell convention: the child's code, or 128+N when signal N ended it."""
        return 128 + self.signal if self.signal else self.returncode


class Control:
    """Lets another thread ask the read loop to stop the child (e.g. after a server request completed)."""

    def __init__(self) -> None:
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        self.reason: Optional[str] = None

    def stop(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
        try:
            os.write(self._w, b"x")
        except OSError:
            pass

    def close(self) -> None:
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass


def _spawn(argv: Sequence[str], opts: LaunchOptions, out_w: int, err_w: int) -> subprocess.Popen:
    kwargs = {}
    if sys.version_info >= (3, 11):
        kwargs["process_group"] = 0
    else:  # pragma: no cover - Python 3.10
        kwargs["preexec_fn"] = os.setpgrp
    try:
        return subprocess.Popen(
            list(argv), stdin=None, stdout=out_w, stderr=err_w, env=opts.env, cwd=opts.cwd, close_fds=True, **kwargs
        )
    except FileNotFoundError:
        raise StartError(f"{argv[0]}: command not found; check the name or give its full path") from None
    except PermissionError:
        raise StartError(f"{argv[0]}: permission denied; is it executable (chmod +x)?") from None
    except OSError as exc:
        raise StartError(f"{argv[0]}: cannot start ({exc.strerror})") from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except BlockingIOError:  # an inherited non-blocking stdout: wait until it drains
            select.select([], [fd], [])
            continue
        view = view[n:]


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _count_group(pgid: int) -> int:
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.getpgid(int(name)) == pgid:
                    count += 1
            except OSError:
                pass
    return count


def _kill_group(pgid: int, grace_s: float) -> int:
    """SIGTERM what is left of the group, SIGKILL after grace_s; returns how many were left."""
    if not _group_alive(pgid):
        return 0
    left = _count_group(pgid)
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return left
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and _group_alive(pgid):
        time.sleep(0.02)
    if _group_alive(pgid):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


class _Foreground:
    """When stdin is our terminal, hand the child's group the foreground so it can read the terminal."""

    def __init__(self) -> None:
        self.fd: Optional[int] = None

    def give(self, pgid: int) -> None:
        try:
            if os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp():
                old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
                os.tcsetpgrp(0, pgid)
                signal.signal(signal.SIGTTOU, old)
                self.fd = 0
        except OSError:
            self.fd = None

    def take_back(self) -> None:
        if self.fd is None:
            return
        old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            os.tcsetpgrp(self.fd, os.getpgrp())
        except OSError:
            pass
        finally:
            signal.signal(signal.SIGTTOU, old)


def launch(
    argv: Sequence[str],
    on_chunk: Callable[[Chunk], None],
    opts: Optional[LaunchOptions] = None,
    *,
    on_start: Optional[Callable[[int, int, float], None]] = None,
    control: Optional[Control] = None,
    clock: Callable[[], int] = time.monotonic_ns,
) -> LaunchResult:
    """Run ``argv`` to completion; call ``on_chunk`` for every read, in arrival order, on this thread.

    ``on_start(pid, t0_ns, wall_t0_s)`` runs right after the spawn (start samplers there). SIGINT/SIGTERM/SIGHUP sent
    to this process are forwarded to the child's process group; the run then ends as ``interrupted``.
    """
    opts = opts or LaunchOptions()
    out_r, out_w = os.openpty() if opts.pty else os.pipe()
    if opts.pty:
        tty.setraw(out_w)
    err_r, err_w = os.pipe()
    for fd in (out_r, err_r):
        try:
            fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:
            pass
    wall_t0_s = time.time()
    t0_ns = clock()
    try:
        proc = _spawn(argv, opts, out_w, err_w)
    except StartError:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        raise
    os.close(out_w)
    os.close(err_w)
    pgid = proc.pid
    foreground = _Foreground()
    foreground.give(pgid)
    state = {"signal": None, "kill_at": None, "timeout": False}

    def forward(signum, _frame):
        state["signal"] = state["signal"] or signum
        try:
            os.killpg(pgid, signum)
        except ProcessLookupError:
            pass
        if state["kill_at"] is None:
            state["kill_at"] = clock() + int(opts.kill_grace_s * 1e9)

    old_handlers = {}
    if threading.current_thread() is threading.main_thread():
        for sig in FORWARDED_SIGNALS:
            old_handlers[sig] = signal.signal(sig, forward)
    try:
        if on_start is not None:
            on_start(proc.pid, t0_ns, wall_t0_s)
        result = _loop(proc, pgid, t0_ns, wall_t0_s, out_r, err_r, on_chunk, opts, control, clock, state)
    finally:
        for sig, handler in old_handlers.items():
            signal.signal(sig, handler)
        foreground.take_back()
        if proc.returncode is None:
            _kill_group(pgid, 0.5)
            proc.wait()
    return result


def _loop(proc, pgid, t0_ns, wall_t0_s, out_r, err_r, on_chunk, opts, control, clock, state) -> LaunchResult:
    sel = selectors.DefaultSelector()
    dest = {out_r: opts.out_fd if opts.passthrough else None, err_r: opts.err_fd if opts.passthrough else None}
    sel.register(out_r, selectors.EVENT_READ, OUT)
    sel.register(err_r, selectors.EVENT_READ, ERR)
    try:
        pidfd = os.pidfd_open(proc.pid)
        sel.register(pidfd, selectors.EVENT_READ, "exit")
    except (AttributeError, OSError):
        pidfd = None
    if control is not None:
        sel.register(control._r, selectors.EVENT_READ, "control")
    open_streams = 2
    exit_ns: Optional[int] = None
    drain_until: Optional[int] = None
    deadline = t0_ns + int(opts.timeout_s * 1e9) if opts.timeout_s else None
    closed: list[str] = []
    stop_reason = None
    read = os.read
    while open_streams or exit_ns is None:
        now = clock()
        wake = [t for t in (deadline, state["kill_at"], drain_until) if t is not None]
        if pidfd is None and exit_ns is None:
            wake.append(now + 50_000_000)
        timeout = max(0.0, (min(wake) - now) / 1e9) if wake else None
        exited = pidfd is None
        for key, _ in sel.select(timeout):
            fd = key.fd
            tag = key.data
            if tag == "exit":
                exited = True
                continue
            if tag == "control":
                try:
                    os.read(fd, 64)
                except OSError:
                    pass
                if stop_reason is None and exit_ns is None:
                    stop_reason = control.reason
                    _signal_group(pgid, signal.SIGTERM)
                    state["kill_at"] = clock() + int(opts.kill_grace_s * 1e9)
                continue
            try:
                data = read(fd, READ_BYTES)
            except OSError as exc:
                if exc.errno != errno.EIO:  # a pty master reads EIO once the child side is closed
                    raise
                data = b""
            t_ns = clock()
            if not data:
                sel.unregister(fd)
                os.close(fd)
                open_streams -= 1
                continue
            out = dest[fd]
            if out is not None:
                try:
                    _write_all(out, data)
                except (BrokenPipeError, OSError):
                    # Our reader went away (`phasewrap run … | head -1`): keep the child running, discard.
                    dest[fd] = None
                    closed.append(tag)
            on_chunk(Chunk(t_ns, tag, data))
        if exit_ns is None and exited and proc.poll() is not None:
            exit_ns = clock()
            if pidfd is not None:
                sel.unregister(pidfd)
                os.close(pidfd)
                pidfd = None
            drain_until = exit_ns + int(opts.drain_s * 1e9)
        now = clock()
        if deadline is not None and now >= deadline and exit_ns is None and not state["timeout"]:
            state["timeout"] = True
            _signal_group(pgid, signal.SIGTERM)
            state["kill_at"] = now + int(opts.kill_grace_s * 1e9)
            deadline = None
        if state["kill_at"] is not None and now >= state["kill_at"]:
            state["kill_at"] = None
            if exit_ns is None:
                _signal_group(pgid, signal.SIGKILL)
        if drain_until is not None and now >= drain_until and open_streams:
            break
    drain_timed_out = bool(open_streams)
    for key in list(sel.get_map().values()):
        if key.data in (OUT, ERR):
            os.close(key.fd)
    sel.close()
    leftover = _kill_group(pgid, 1.0)
    return LaunchResult(
        pid=proc.pid,
        t0_ns=t0_ns,
        wall_t0_s=wall_t0_s,
        exit_ns=exit_ns,
        returncode=proc.returncode,
        status=_status(proc.returncode, state, stop_reason),
        signal=-proc.returncode if proc.returncode < 0 else None,
        received_signal=state["signal"],
        stop_reason=stop_reason,
        leftover_killed=leftover,
        drain_timed_out=drain_timed_out,
        passthrough_closed=closed,
    )


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def _status(returncode: int, state: dict, stop_reason: Optional[str]) -> str:
    if state["signal"] is not None:
        return "interrupted"
    if state["timeout"]:
        return "timeout"
    if stop_reason is not None:
        return "ok"
    if returncode < 0:
        return "interrupted" if -returncode == signal.SIGINT else "killed"
    return "ok" if returncode == 0 else "failed"
