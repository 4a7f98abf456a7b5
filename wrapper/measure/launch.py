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
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from ..core.writer import show_path
from ..errors import StartError
from ..model.events import ERR, OUT, Chunk
from .signals import SignalGuard

READ_BYTES = 1 << 20
PIPE_BYTES = 1 << 20
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37


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
    escaped: list = field(default_factory=list)  # [(pid, name)] that left the session with setsid, still running
    moved: list = field(default_factory=list)  # [(pid, name, pgid)] still running in another group: stopped

    @property
    def exit_status(self) -> int:
        """The shell convention: the child's code, or 128+N when signal N ended it."""
        return 128 + self.signal if self.signal else self.returncode

    @property
    def run_status(self) -> int:
        """What the run exits with: ``exit_status``, but 0 for a server phasewrap itself stopped (after its
        request) that died of phasewrap's SIGTERM or SIGKILL: that is not the server failing on its own."""
        if self.stop_reason is not None and self.signal in (signal.SIGTERM, signal.SIGKILL):
            return 0
        return self.exit_status


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


def _libc_prctl():
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
        prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
        return prctl
    except (OSError, AttributeError):  # not Linux/glibc: no parent-death signal, no subreaper
        return None


_prctl = _libc_prctl()


def _become_subreaper() -> Optional[bool]:
    """Orphans of the child (a daemon it started, then exited) become our children rather than init's, so
    one that escaped the process group with setsid can be found and named. Returns whether this process already
    was a subreaper (None: unknown), so that a library caller gets its state back after the run."""
    if _prctl is None:
        return None
    import ctypes

    flag = ctypes.c_int(0)
    was = bool(flag.value) if _prctl(PR_GET_CHILD_SUBREAPER, ctypes.addressof(flag), 0, 0, 0) == 0 else None
    _prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    return was


def _restore_subreaper(was: Optional[bool]) -> None:
    """A notebook or service that imported phasewrap must not go on adopting every orphan of its other
    children (they would stay zombies, never reaped) once the run is over."""
    if was is False and _prctl is not None:
        _prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def _child_setup(parent_pid: int) -> None:
    """Runs in the child between fork and exec: its own process group, and SIGKILL when phasewrap dies (even
    by SIGKILL), so the child never outlives the wrapper."""
    os.setpgid(0, 0)
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent_pid:  # the wrapper died before the line above took effect
            os.kill(os.getpid(), signal.SIGKILL)


def _spawn(argv: Sequence[str], opts: LaunchOptions, out_w: int, err_w: int) -> subprocess.Popen:
    parent = os.getpid()
    try:
        return subprocess.Popen(
            list(argv), stdin=None, stdout=out_w, stderr=err_w, env=opts.env, cwd=opts.cwd, close_fds=True,
            preexec_fn=lambda: _child_setup(parent),
        )
    except FileNotFoundError:
        raise StartError(f"{show_path(argv[0])}: command not found; check the name or give its full path") from None
    except PermissionError:
        if os.path.isdir(argv[0]):  # execve says EACCES for a directory: name the real cause
            raise StartError(f"{show_path(argv[0])}: is a directory, not a program; give the program's path") from None
        raise StartError(f"{show_path(argv[0])}: permission denied; is it executable (chmod +x)?") from None
    except OSError as exc:
        raise StartError(f"{show_path(argv[0])}: cannot start ({exc.strerror})") from None


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
    _reap_orphans(pgid, group=pgid)  # a stopped orphan of the group is our zombie until reaped, and would count as alive
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


def _stat_text(entry: str) -> Optional[str]:
    """``/proc/ENTRY/stat`` as text, None when it can't be read (the process is gone). Read through a bare
    descriptor: a pass over /proc reads one per process, and a file object's set-up cost more than the reads."""
    try:
        fd = os.open(f"/proc/{entry}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        parts = []
        while True:
            data = os.read(fd, 4096)
            if not data:
                return b"".join(parts).decode("utf-8", "replace")
            parts.append(data)
    except OSError:
        return None
    finally:
        os.close(fd)


def _processes() -> dict[int, tuple[int, str, int, int, str]]:
    """Every process: pid → (ppid, name, pgid, sid, state), from one pass over /proc."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            raw = _stat_text(entry)
            if raw is None:
                continue
            fields = raw[raw.rindex(")") + 2:].split()
            out[int(entry)] = (int(fields[1]), raw[raw.index("(") + 1:raw.rindex(")")], int(fields[2]),
                               int(fields[3]), fields[0])
    return out


def _our_children() -> frozenset:
    """This process's children now: before the run's orphans arrive, they are our own helpers (samplers, the
    watchdog, a library caller's processes), never part of the run's tree. Read from each thread's
    ``/proc/self/task/TID/children`` (a few small reads, so the first read of the child's output is not
    delayed); a full /proc pass where the kernel lacks those files."""
    try:
        pids = set()
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children", "rb") as fh:
                pids.update(int(p) for p in fh.read().split())
        return frozenset(pids)
    except OSError:
        me = os.getpid()
        return frozenset(pid for pid, (ppid, *_rest) in _processes().items() if ppid == me)


def _tree(root: int, helpers: frozenset) -> list[tuple[int, str, int, int, str]]:
    """The run's process tree, wherever its members moved: ``root`` and its descendants, and the orphans of
    the tree that we (a subreaper) adopted, with theirs: [(pid, name, pgid, sid, state)], root excluded."""
    procs = _processes()
    me = os.getpid()
    kids: dict[int, list[int]] = {}
    for pid, (ppid, *_rest) in procs.items():
        kids.setdefault(ppid, []).append(pid)
    todo = [root] + [pid for pid in kids.get(me, []) if pid != root and pid not in helpers]
    seen: set = set()
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            todo.extend(kids.get(pid, []))
    seen.discard(root)
    return [(pid, *procs[pid][1:]) for pid in sorted(seen) if pid in procs]


def _strays(root: int, pgid: int, helpers: frozenset) -> list[tuple[int, str, int, int, str]]:
    """Live members of the run's tree outside the child's process group (a group kill misses them)."""
    return [p for p in _tree(root, helpers) if p[2] != pgid and p[4] != "Z"]


def _reap_orphans(root: int, helpers: frozenset = frozenset(), group: Optional[int] = None) -> None:
    """Wait for the run's zombies that we adopted (of ``group`` only, if given): they are ours to reap now;
    helpers and the child itself are waited for by their owners."""
    me = os.getpid()
    for pid, (ppid, _name, pgid, _sid, state) in _processes().items():
        if ppid == me and state == "Z" and pid != root and pid not in helpers and group in (None, pgid):
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _kill_each(pids, sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _signal_strays(root: int, pgid: int, helpers: frozenset, sig: int) -> None:
    """``sig`` to the direct child (it may have left its group) and to every member of the run's tree that
    moved to another group of our session; a daemon that left the session (setsid) is left alone."""
    own_sid = os.getsid(0)
    _kill_each([root] + [pid for pid, _n, _g, sid, _s in _strays(root, pgid, helpers) if sid == own_sid], sig)


def _stop_strays(root: int, pgid: int, helpers: frozenset, grace_s: float) -> tuple[list, list]:
    """At the end: ([(pid, name)] that left the session with setsid: named, not stopped; [(pid, name, pgid)]
    still running in another group of our session: named and stopped, SIGTERM then SIGKILL after grace_s)."""
    own_sid = os.getsid(0)
    strays = _strays(root, pgid, helpers)
    escaped = [(pid, name) for pid, name, _g, sid, _s in strays if sid != own_sid]
    moved = [(pid, name, group) for pid, name, group, sid, _s in strays if sid == own_sid]
    left = {pid for pid, _n, _g in moved}
    _kill_each(left, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        _reap_orphans(root, helpers)
        left = {pid for pid in left if _alive(pid)}
    _kill_each(left, signal.SIGKILL)
    return escaped, moved


class _Watchdog:
    """Stops the child's whole process group if phasewrap dies without a word (kill -9, the OOM killer).

    The parent-death signal reaches only the direct child; a shell script's or a launcher's own children would
    live on. This tiny shell waits on a pipe only phasewrap holds: "ok" means the run ended normally, end of
    file without it means phasewrap is gone, and the group gets SIGKILL.
    """

    SCRIPT = 'read -r word; [ "$word" = ok ] || kill -s KILL -- "-$1" 2>/dev/null'

    def __init__(self, pgid: int) -> None:
        r, self._w = os.pipe()
        try:
            self._proc: Optional[subprocess.Popen] = subprocess.Popen(
                ["/bin/sh", "-c", self.SCRIPT, "phasewrap-watchdog", str(pgid)], stdin=r,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
        except OSError:  # no /bin/sh: the parent-death signal still covers the direct child
            self._proc = None
        finally:
            os.close(r)

    def release(self) -> None:
        try:
            os.write(self._w, b"ok\n")
        except OSError:
            pass
        os.close(self._w)
        if self._proc is not None:
            self._proc.wait()


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
    signals: Optional[SignalGuard] = None,
    clock: Callable[[], int] = time.monotonic_ns,
) -> LaunchResult:
    """Run ``argv`` to completion; call ``on_chunk`` for every read, in arrival order, on this thread.

    ``on_start(pid, t0_ns, wall_t0_s)`` runs right after the spawn (start samplers there). SIGINT/SIGTERM/SIGHUP
    sent to this process are forwarded to the child's process group; the run then ends as ``interrupted``.
    ``signals``: the session's guard (several runs share one, so a signal between runs is not lost); without
    one, this call installs its own on the main thread.
    """
    if signals is None:
        with SignalGuard() as own:
            return launch(argv, on_chunk, opts, on_start=on_start, control=control, signals=own, clock=clock)
    opts = opts or LaunchOptions()
    was_subreaper = _become_subreaper()
    try:
        return _launch(argv, on_chunk, opts, on_start, control, signals, clock)
    finally:
        _restore_subreaper(was_subreaper)


def _prime_malloc() -> None:
    """glibc's malloc serves a block over its mmap threshold (128 KiB at start, then the size of the largest
    mapped block freed so far) with fresh pages, zeroed by the kernel at first touch: each read buffer of
    READ_BYTES would cost ~256 page faults (~0.6 s of CPU per GB of output, measured on a 200 MB `head -c`).
    Freeing one mapped block larger than a read buffer raises the threshold, and the read buffers come from
    the heap, reusing its pages read after read. ``bytes(n)`` is calloc'd: its pages are never touched."""
    block = bytes(2 * READ_BYTES)
    del block


def _launch(argv, on_chunk, opts: LaunchOptions, on_start, control, signals: SignalGuard, clock) -> LaunchResult:
    """``launch`` once this process is a subreaper."""
    _prime_malloc()
    out_r, out_w = os.openpty() if opts.pty else os.pipe()
    if opts.pty:
        import tty  # with termios ~1 ms of start-up that only --pty runs need

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
    watchdog = _Watchdog(proc.pid)
    foreground = _Foreground()
    foreground.give(proc.pid)
    try:
        if on_start is not None:
            on_start(proc.pid, t0_ns, wall_t0_s)
        result = _loop(proc, t0_ns, wall_t0_s, out_r, err_r, on_chunk, opts, control, signals, clock)
    finally:
        foreground.take_back()
        if proc.returncode is None:
            _kill_group(proc.pid, 0.5)
            proc.wait()
        watchdog.release()
    return result


@dataclass
class Deadlines:
    """When the read loop must act next, in monotonic ns: the --timeout, the SIGKILL that follows a SIGTERM
    after the grace period, the end of draining the child's pipes after it exited. Arithmetic only."""

    timeout_at: Optional[int]
    kill_grace_ns: int
    drain_ns: int
    kill_at: Optional[int] = None
    drain_until: Optional[int] = None

    @classmethod
    def for_run(cls, t0_ns: int, opts: LaunchOptions) -> "Deadlines":
        timeout_at = t0_ns + int(opts.timeout_s * 1e9) if opts.timeout_s else None
        return cls(timeout_at, int(opts.kill_grace_s * 1e9), int(opts.drain_s * 1e9))

    def sleep_s(self, now: int, poll: bool) -> Optional[float]:
        """How long the loop may wait for input (None: until something arrives); ``poll``: at most 50 ms."""
        wake = [t for t in (self.timeout_at, self.kill_at, self.drain_until) if t is not None]
        if poll:
            wake.append(now + 50_000_000)
        return max(0.0, (min(wake) - now) / 1e9) if wake else None

    def term_sent(self, now: int) -> None:
        """A SIGTERM (or a forwarded signal) went to the child: SIGKILL follows after the grace period."""
        at = now + self.kill_grace_ns
        self.kill_at = at if self.kill_at is None else min(self.kill_at, at)

    def exited(self, now: int) -> None:
        self.drain_until = now + self.drain_ns

    def timeout_due(self, now: int) -> bool:
        if self.timeout_at is not None and now >= self.timeout_at:
            self.timeout_at = None
            return True
        return False

    def kill_due(self, now: int) -> bool:
        if self.kill_at is not None and now >= self.kill_at:
            self.kill_at = None
            return True
        return False

    def drain_over(self, now: int) -> bool:
        return self.drain_until is not None and now >= self.drain_until


class _Streams:
    """The child's stdout/stderr: read what is there, stamp it, pass it through, hand it on."""

    def __init__(self, sel: selectors.BaseSelector, out_r: int, err_r: int, opts: LaunchOptions,
                 on_chunk: Callable[[Chunk], None], clock: Callable[[], int]) -> None:
        self._sel = sel
        self._dest = {out_r: opts.out_fd if opts.passthrough else None, err_r: opts.err_fd if opts.passthrough else None}
        self._on_chunk = on_chunk
        self._clock = clock
        self.open = 2
        self.closed_passthrough: list[str] = []
        sel.register(out_r, selectors.EVENT_READ, OUT)
        sel.register(err_r, selectors.EVENT_READ, ERR)

    def read(self, fd: int, tag: str) -> None:
        try:
            data = os.read(fd, READ_BYTES)
        except OSError as exc:
            if exc.errno != errno.EIO:  # a pty master reads EIO once the child side is closed
                raise
            data = b""
        t_ns = self._clock()
        if not data:
            self._sel.unregister(fd)
            os.close(fd)
            self.open -= 1
            return
        out = self._dest[fd]
        if out is not None:
            try:
                _write_all(out, data)
            except OSError:
                # Our reader went away (`phasewrap run … | head -1`): keep the child running, discard.
                self._dest[fd] = None
                self.closed_passthrough.append(tag)
        self._on_chunk(Chunk(t_ns, tag, data))

    def close(self) -> None:
        for fd in self._dest:
            if fd in self._sel.get_map():
                self._sel.unregister(fd)
                os.close(fd)


def _loop(proc, t0_ns, wall_t0_s, out_r, err_r, on_chunk, opts, control, signals, clock) -> LaunchResult:
    pgid = proc.pid
    sel, streams, pidfd = _selector(proc, out_r, err_r, on_chunk, opts, control, signals, clock)
    deadlines = Deadlines.for_run(t0_ns, opts)
    state = {"signal": None, "timeout": False}
    exit_ns: Optional[int] = None
    stop_reason = None
    helpers = _our_children() - {proc.pid}  # one /proc pass per run, before any orphan of the run can arrive

    def term(sig: int = signal.SIGTERM) -> None:
        _signal_group(pgid, sig)
        _signal_strays(proc.pid, pgid, helpers, sig)  # the tree outside the group: only when stopping, rare
        deadlines.term_sent(clock())

    def forward() -> None:  # the signals phasewrap received go on to the run's tree
        for sig in signals.take():
            state["signal"] = state["signal"] or sig
            term(sig)

    forward()  # a signal that came while the child was being started
    while streams.open or exit_ns is None:
        exited = pidfd is None
        for key, _ in sel.select(deadlines.sleep_s(clock(), poll=pidfd is None and exit_ns is None)):
            if key.data == "exit":
                exited = True
            elif key.data == "signal":
                forward()
            elif key.data == "control":
                _drain(key.fd)
                if stop_reason is None and exit_ns is None:
                    stop_reason = control.reason
                    term()
            else:
                streams.read(key.fd, key.data)
        now = clock()
        if exit_ns is None and exited and proc.poll() is not None:
            exit_ns = now
            if pidfd is not None:
                sel.unregister(pidfd)
                os.close(pidfd)
                pidfd = None
            deadlines.exited(exit_ns)
        if deadlines.timeout_due(now) and exit_ns is None:
            state["timeout"] = True
            term()
        if deadlines.kill_due(now) and exit_ns is None:
            _signal_group(pgid, signal.SIGKILL)
            _signal_strays(proc.pid, pgid, helpers, signal.SIGKILL)
        if deadlines.drain_over(now) and streams.open:
            break
    drain_timed_out = bool(streams.open)
    streams.close()
    sel.close()
    escaped, moved = _stop_strays(proc.pid, pgid, helpers, 1.0)
    leftover = _kill_group(pgid, 1.0)
    return LaunchResult(pid=proc.pid, t0_ns=t0_ns, wall_t0_s=wall_t0_s, exit_ns=exit_ns, returncode=proc.returncode,
                        status=_status(proc.returncode, state, stop_reason),
                        signal=-proc.returncode if proc.returncode < 0 else None, received_signal=state["signal"],
                        stop_reason=stop_reason, leftover_killed=leftover, drain_timed_out=drain_timed_out,
                        passthrough_closed=streams.closed_passthrough, escaped=escaped, moved=moved)


def _drain(fd: int) -> None:
    try:
        os.read(fd, 64)
    except OSError:
        pass  # the wake-up byte itself carries nothing; a closed pipe says the same


def _selector(proc, out_r, err_r, on_chunk, opts, control, signals, clock):
    """(selector, the child's two streams on it, the child's pidfd or None): the read loop waits on the streams,
    the child's exit, the control pipe and the signal wake-up fd at once."""
    sel = selectors.DefaultSelector()
    streams = _Streams(sel, out_r, err_r, opts, on_chunk, clock)
    try:
        pidfd = os.pidfd_open(proc.pid)
        sel.register(pidfd, selectors.EVENT_READ, "exit")
    except (AttributeError, OSError):
        pidfd = None
    if control is not None:
        sel.register(control._r, selectors.EVENT_READ, "control")
    if signals.fd is not None:
        sel.register(signals.fd, selectors.EVENT_READ, "signal")
    return sel, streams, pidfd


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
