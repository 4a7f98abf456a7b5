"""CPU, memory, disk and page faults of the child's whole process tree, read in-process from Linux ``/proc``.

This is the ``psutil`` choice of CPU sampler, but it reads ``/proc`` itself: per tick one ``os.pread`` of
``/proc/PID/stat`` and one of ``/proc/PID/io`` per process, on descriptors opened once (a descriptor stays
bound to its process, so a reused PID cannot be mistaken for it). That costs a fraction of psutil's
calls and is the only cheap source of major faults; and psutil's ``children(recursive=True)`` reads every
process's stat (9 ms with 500 processes), where the tree scan here lists ``/proc`` and reads only PIDs it
has not seen.
The tree is rescanned every ``tree_refresh_s``; threads (``/proc/PID/task/*/stat``, one read per thread) every
tick while the tree has at most ``SMALL_TREE_THREADS`` threads, else every ``thread_every_s``; so
``busiest_thread_pct`` appears on those samples only and covers the span since the previous thread reading.

CPU percentages come from deltas of utime+stime between ticks (no "first call returns 0"); a process
counts from its second reading on, and a tick where a process vanished has ``cpu_pct = None`` (its last
slice is unknown). Counters of exited processes are kept at their last reading, so the ``*_total`` values
never go backwards; a process born and gone between two tree scans is missed. Linux adds a reaped child's
I/O to its parent's ``/proc/PID/io`` (not its faults to the parent's ``majflt``), so the bytes of a process
reaped by a parent in the tree are not kept twice. RSS is the sum over processes (shared pages counted
once per process).
"""
from __future__ import annotations

import os
import time
from typing import Callable, Optional

from ...model.events import Sample
from .loops import SamplerUnavailable, ThreadedSampler

DEVICE = "proc"
SMALL_TREE_THREADS = 32
BOUNDARY_THREADS = 256  # larger trees get no per-thread reading at boundaries (~8 µs a thread, at every line)

# Indices into the fields after the ")" that ends the command name in /proc/PID/stat (field N -> N - 3).
_PPID, _MAJFLT, _UTIME, _STIME, _RSS = 1, 9, 11, 12, 21


def _read(path: str) -> Optional[bytes]:
    """A /proc file's content, or ``None`` when its process is gone."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        return os.read(fd, 4096) or None
    except ProcessLookupError:
        return None
    finally:
        os.close(fd)


def _pread(fd: int) -> Optional[bytes]:
    """Re-read an open /proc file; ``None`` once its process is gone (ESRCH)."""
    try:
        return os.pread(fd, 4096, 0) or None
    except ProcessLookupError:
        return None


def _stat_fields(stat: bytes) -> list[bytes]:
    return stat.rpartition(b")")[2].split()


def _sched_deltas(task_path: str, before: dict) -> Optional[tuple[int, int]]:
    """(largest on-CPU ns, largest on-CPU + runnable-waiting ns) of one thread under ``task_path`` since
    ``before`` (tid → (run_ns, wait_ns), replaced by the current readings; a thread not in it counts from 0),
    from ``/proc/PID/task/TID/schedstat``; ``None`` without schedstat."""
    try:
        tids = os.listdir(task_path)
    except FileNotFoundError:
        return 0, 0
    now: dict[str, tuple[int, int]] = {}
    run_max = demand_max = 0
    for tid in tids:
        data = _read(f"{task_path}/{tid}/schedstat")
        if data is None:
            continue
        fields = data.split()
        if len(fields) < 2:
            return None
        run, wait = int(fields[0]), int(fields[1])
        now[tid] = (run, wait)
        run0, wait0 = before.get(tid, (0, 0))
        run_max = max(run_max, run - run0)
        demand_max = max(demand_max, run - run0 + wait - wait0)
    if tids and not now:
        return None  # no schedstat here (or every thread just exited): unknown, not 0
    before.clear()
    before.update(now)
    return run_max, demand_max


class _TreeScan:
    """Finds new descendants of the tracked processes; only PIDs not seen before get their stat read."""

    def __init__(self, proc_root: str):
        self._proc_root = proc_root
        self._outside: set[int] = set()

    def new_members(self, members: set[int]) -> list[int]:
        listed = {int(name) for name in os.listdir(self._proc_root) if name.isdigit()}
        self._outside &= listed  # a PID that went away may come back as someone else
        parents: dict[int, int] = {}
        for pid in listed - self._outside - members:
            stat = _read(f"{self._proc_root}/{pid}/stat")
            if stat is not None:
                parents[pid] = int(_stat_fields(stat)[_PPID])
        members = set(members)
        added: list[int] = []
        grew = True
        while grew:  # a new child of a new child joins in the same scan
            grew = False
            for pid, ppid in list(parents.items()):
                if ppid in members:
                    members.add(pid)
                    added.append(pid)
                    del parents[pid]
                    grew = True
        self._outside.update(parents)
        return added


class _Tracked:
    """One process of the tree: its open /proc files and what we last read of it."""

    __slots__ = ("pid", "ppid", "stat_fd", "io_fd", "task_path", "cpu_ticks", "ticks_now", "sys_ticks_now", "majflt", "read_bytes",
                 "write_bytes", "thread_ticks", "boundary_sched")

    def __init__(self, proc_root: str, pid: int):
        """Raises ``FileNotFoundError`` when the process is already gone."""
        self.pid = pid
        self.ppid = 0
        self.stat_fd = os.open(f"{proc_root}/{pid}/stat", os.O_RDONLY)
        try:
            self.io_fd: Optional[int] = os.open(f"{proc_root}/{pid}/io", os.O_RDONLY)
        except OSError:  # another user's (setuid) process, or gone already
            self.io_fd = None
        self.task_path = f"{proc_root}/{pid}/task"
        self.cpu_ticks: Optional[int] = None  # at the last tick (for cpu_pct)
        self.ticks_now = 0  # at the last reading of any kind (for cpu_s_total)
        self.sys_ticks_now = 0  # its kernel part (stime)
        self.majflt = 0
        self.read_bytes: Optional[int] = None
        self.write_bytes: Optional[int] = None
        self.thread_ticks: dict[str, int] = {}
        self.boundary_sched: dict[str, tuple[int, int]] = {}  # tid → schedstat (run_ns, wait_ns)

    def close(self) -> None:
        os.close(self.stat_fd)
        if self.io_fd is not None:
            os.close(self.io_fd)


class ProcSampler(ThreadedSampler):
    """The child's process tree; values: ``cpu_pct`` (may exceed 100),
    ``busiest_thread_pct``, ``rss_mib``, ``disk_read_bytes_total``, ``disk_write_bytes_total``,
    ``major_faults_total``, ``cpu_s_total`` (CPU seconds of the tree since launch), ``cpu_sys_s_total`` (the part in the kernel), ``nprocs``; device
    ``proc``. Right after each ``notify()`` it reads the counters once more (a sample holding the five
    ``*_total`` values, ``busiest_thread_cpu_s`` and ``busiest_thread_demand_s``: the most seconds one thread
    ran, and ran or waited to run, since the previous boundary reading, from schedstat), so phases and load
    steps split them at the boundary rather than at the tick before it."""

    name = "psutil"
    wants_boundaries = True

    def __init__(
        self,
        interval_s: float = 0.1,
        *,
        clock: Callable[[], int] = time.monotonic_ns,
        proc_root: str = "/proc",
        tree_refresh_s: float = 0.5,
        thread_every_s: float = 0.5,
    ):
        super().__init__(interval_s, clock)
        self._proc_root = proc_root
        self._tree_every = max(1, round(tree_refresh_s / interval_s))
        self._thread_every = max(1, round(thread_every_s / interval_s))
        self._clk_tck = os.sysconf("SC_CLK_TCK")
        self._page_size = os.sysconf("SC_PAGE_SIZE")
        self._scan = _TreeScan(proc_root)
        self._tracked: dict[int, _Tracked] = {}
        self._gone_majflt = 0
        self._gone_ticks = 0
        self._gone_sys_ticks = 0
        self._gone_read = 0
        self._gone_write = 0
        self._last_totals: dict[str, int] = {}
        self._vanished_between_ticks = False
        self._n = 0
        self._last_ns: Optional[int] = None
        self._last_threads_ns: Optional[int] = None
        self._tree_refreshes = 0
        self._threads_seen = 0

    def _open(self, pid: int) -> None:
        try:
            self._add(pid)
        except FileNotFoundError:
            raise SamplerUnavailable(f"cannot read {self._proc_root}/{pid}/stat (needs Linux /proc; "
                                     "or the child exited before sampling began)") from None

    def _add(self, pid: int) -> None:
        tr = _Tracked(self._proc_root, pid)
        if tr.io_fd is None:
            self._errors.record("io", f"{self._proc_root}/{pid}/io is not readable; disk bytes are not available")
        self._tracked[pid] = tr

    def _refresh_tree(self) -> None:
        self._tree_refreshes += 1
        for pid in self._scan.new_members(set(self._tracked)):
            try:
                self._add(pid)
            except FileNotFoundError:
                pass  # born and gone between the scan and now

    def _tick(self) -> list[Sample]:
        if self._n % self._tree_every == 0:
            self._refresh_tree()
        # A small tree's threads are read every tick (a short load phase still gets its busiest thread);
        # a server with hundreds of threads only every thread_every_s.
        read_threads = self._n % self._thread_every == 0 or self._threads_seen <= SMALL_TREE_THREADS
        self._n += 1
        cpu_ticks, rss_pages, vanished = self._read_processes(with_cpu=True)
        vanished = vanished or self._vanished_between_ticks
        self._vanished_between_ticks = False
        busiest_ticks = 0
        if read_threads:
            for tr in self._tracked.values():
                busiest_ticks = max(busiest_ticks, self._thread_ticks_delta(tr))
            self._threads_seen = sum(len(tr.thread_ticks) for tr in self._tracked.values())
        now = self._clock()
        values: dict[str, Optional[float]] = {
            "cpu_pct": None,
            "rss_mib": rss_pages * self._page_size / 1048576,
            **self._totals(),
            "nprocs": float(len(self._tracked)),
        }
        if self._last_ns is not None and not vanished:
            values["cpu_pct"] = cpu_ticks / self._clk_tck / ((now - self._last_ns) / 1e9) * 100
        self._last_ns = now
        if read_threads:
            values["busiest_thread_pct"] = None
            if self._last_threads_ns is not None:
                span_s = (now - self._last_threads_ns) / 1e9
                values["busiest_thread_pct"] = busiest_ticks / self._clk_tck / span_s * 100
            self._last_threads_ns = now
        return [Sample(now, self.name, DEVICE, values)]

    def _on_boundaries(self, names: list[str]) -> None:
        # The counters right at the boundary, so a phase's disk bytes and faults don't wait for the next
        # tick; the CPU figures stay on the tick grid (a slice this short would be all rounding).
        _, _, vanished = self._read_processes(with_cpu=False)
        self._vanished_between_ticks = self._vanished_between_ticks or vanished
        values = self._totals()
        values["busiest_thread_cpu_s"], values["busiest_thread_demand_s"] = self._busiest_since_boundary()
        self._samples.append(Sample(self._clock(), self.name, DEVICE, values))

    def _busiest_since_boundary(self) -> tuple[Optional[float], Optional[float]]:
        """Since the previous boundary reading: the most seconds one thread ran on a CPU, and the most one
        thread ran or waited to run (CPU-bound but starved by other load counts as CPU-bound). Threads born
        since count from 0 (every thread of the tree was born after launch). ``None`` for trees too large to
        read at every boundary, or without schedstat."""
        if self._threads_seen > BOUNDARY_THREADS:
            return None, None
        run = demand = 0
        for tr in self._tracked.values():
            got = _sched_deltas(tr.task_path, tr.boundary_sched)
            if got is None:
                return None, None
            run, demand = max(run, got[0]), max(demand, got[1])
        return run / 1e9, demand / 1e9

    def _read_processes(self, with_cpu: bool) -> tuple[int, int, bool]:
        """Read every tracked process, retire the gone ones; (CPU ticks since the last tick, RSS pages, any gone)."""
        cpu_ticks = 0
        rss_pages = 0
        gone = []
        for tr in list(self._tracked.values()):
            stat = _pread(tr.stat_fd)
            if stat is None:
                gone.append(tr)
                continue
            fields = _stat_fields(stat)
            ticks = int(fields[_UTIME]) + int(fields[_STIME])
            tr.ticks_now = ticks
            tr.sys_ticks_now = int(fields[_STIME])
            if with_cpu:
                if tr.cpu_ticks is not None:
                    cpu_ticks += ticks - tr.cpu_ticks
                tr.cpu_ticks = ticks
            tr.ppid = int(fields[_PPID])
            tr.majflt = int(fields[_MAJFLT])
            rss_pages += int(fields[_RSS])
            self._read_io(tr)
        for tr in gone:
            self._retire(tr)
        return cpu_ticks, rss_pages, bool(gone)

    def _totals(self) -> dict[str, Optional[float]]:
        """The cumulative counters over live and exited processes; ``None`` where some process's are unreadable."""
        live = self._tracked.values()
        totals = {"major_faults_total": self._gone_majflt + sum(tr.majflt for tr in live),
                  "cpu_ticks_total": self._gone_ticks + sum(tr.ticks_now for tr in live),
                  "sys_ticks_total": self._gone_sys_ticks + sum(tr.sys_ticks_now for tr in live)}
        if all(tr.read_bytes is not None for tr in live):
            totals["disk_read_bytes_total"] = self._gone_read + sum(tr.read_bytes for tr in live)
            totals["disk_write_bytes_total"] = self._gone_write + sum(tr.write_bytes for tr in live)
        # A child reaped between the reads of its parent and its own is missing for one reading: hold the
        # last total rather than step back.
        for key, total in totals.items():
            self._last_totals[key] = max(total, self._last_totals.get(key, 0))
        out: dict[str, Optional[float]] = dict.fromkeys(
            ("disk_read_bytes_total", "disk_write_bytes_total", "major_faults_total"))
        out.update((key, float(self._last_totals[key])) for key in totals if not key.endswith("_ticks_total"))
        out["cpu_s_total"] = self._last_totals["cpu_ticks_total"] / self._clk_tck
        out["cpu_sys_s_total"] = self._last_totals["sys_ticks_total"] / self._clk_tck
        return out

    def _read_io(self, tr: _Tracked) -> None:
        data = _pread(tr.io_fd) if tr.io_fd is not None else None
        if data is None:
            return  # unreadable (read_bytes stays None), or gone since the stat read: keep the last values
        tokens = data.split()
        # rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled_write_bytes: "name: value" pairs
        if tokens[8] != b"read_bytes:" or tokens[10] != b"write_bytes:":
            raise ValueError(f"/proc/{tr.pid}/io: unexpected layout {data[:120]!r}")
        # max(): a zombie's counters must not pull the total back
        tr.read_bytes = max(int(tokens[9]), tr.read_bytes or 0)
        tr.write_bytes = max(int(tokens[11]), tr.write_bytes or 0)

    def _thread_ticks_delta(self, tr: _Tracked) -> int:
        """Largest CPU-tick delta of one thread of ``tr`` since the last thread reading (new threads: 0)."""
        try:
            tids = os.listdir(tr.task_path)
        except FileNotFoundError:
            return 0
        busiest = 0
        seen: dict[str, int] = {}
        for tid in tids:
            stat = _read(f"{tr.task_path}/{tid}/stat")
            if stat is None:
                continue
            fields = _stat_fields(stat)
            ticks = int(fields[_UTIME]) + int(fields[_STIME])
            seen[tid] = ticks
            before = tr.thread_ticks.get(tid)
            if before is not None and ticks - before > busiest:
                busiest = ticks - before
        tr.thread_ticks = seen
        return busiest

    def _retire(self, tr: _Tracked) -> None:
        del self._tracked[tr.pid]
        tr.close()
        self._gone_majflt += tr.majflt
        self._gone_ticks += tr.ticks_now
        self._gone_sys_ticks += tr.sys_ticks_now
        if tr.ppid not in self._tracked:  # reaped outside the tree: its bytes would be lost
            self._gone_read += tr.read_bytes or 0
            self._gone_write += tr.write_bytes or 0

    def _close(self) -> None:
        for tr in self._tracked.values():
            tr.close()
        self._tracked.clear()

    def _extra_info(self) -> dict:
        return {
            "tree_refresh_s": self._tree_every * self.interval_s,
            "thread_every_s": self._thread_every * self.interval_s,
            "tree_refreshes": self._tree_refreshes,
        }
