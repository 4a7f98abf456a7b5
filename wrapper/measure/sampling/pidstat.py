"""CPU, memory and disk of the child from sysstat's ``pidstat``: a live sampler and a parser for recorded output.

``LC_ALL=C pidstat -h -H -u -r -d -t -p PID 1`` prints one report a second: a header, one line per
process (TID ``-``) and one per thread (TGID ``-``), time in epoch seconds at the end of the interval the
rates cover, floored to the second (live, the arrival of a report's first line, which pidstat flushes at
once, places it more precisely). Columns are mapped from the header, so another sysstat version's column
set still parses. pidstat gives rates; the cumulative counters (``*_total``) are their integral over the
report interval, starting from zero one interval before the first report (where pidstat took its first
snapshot), which the parser emits as a sample holding only the three counters. ``-p PID`` follows that
one process and its threads, not its children.
"""
from __future__ import annotations

import shutil
import signal
import time
from typing import Callable, Iterable, Optional

from ...model.events import Sample
from .anchor import Anchor, placed_ns, seconds_to_ns, wall_to_mono_ns
from .loops import CommandSampler, parse_all

SOURCE = "pidstat"
DEVICE = "proc"


def _rate(row: dict[str, str], column: str) -> Optional[float]:
    text = row.get(column)
    if text is None:
        return None
    value = float(text)
    return None if value < 0 else value  # pidstat prints -1.00 for statistics it may not read


class PidstatParser:
    """Incremental parser of ``pidstat -h`` output; ``skipped`` counts data lines it could not use."""

    def __init__(self, anchor: tuple[int, int], *, interval_s: float = 1.0):
        self._anchor = anchor
        self._interval_s = interval_s
        self._columns: Optional[list[str]] = None
        self._report_time: Optional[str] = None
        self._report_arrival_ns: Optional[int] = None
        self._rows: list[dict[str, str]] = []
        self._totals = {"disk_read_bytes_total": 0.0, "disk_write_bytes_total": 0.0, "major_faults_total": 0.0}
        self._origin_sent = False
        self.skipped = 0

    def feed(self, line: str, arrival_ns: Optional[int] = None) -> list[Sample]:
        text = line.strip()
        if not text:
            return self._flush()
        if text.startswith("#"):
            out = self._flush()
            self._columns = text[1:].split()
            return out
        if self._columns is None:
            return []  # the "Linux ... (N CPU)" banner
        fields = text.split(None, len(self._columns) - 1)
        if len(fields) != len(self._columns) or not fields[0].isdigit():
            self.skipped += 1  # e.g. "Average:" lines, or a time without -h
            return []
        row = dict(zip(self._columns, fields))
        out = self._flush() if row["Time"] != self._report_time else []
        if not self._rows:
            self._report_arrival_ns = arrival_ns
        self._report_time = row["Time"]
        self._rows.append(row)
        return out

    def finish(self) -> list[Sample]:
        return self._flush()

    def _flush(self) -> list[Sample]:
        rows, self._rows = self._rows, []
        report_time, self._report_time = self._report_time, None
        processes = [r for r in rows if r.get("TID", "-") == "-"]
        threads = [r for r in rows if r.get("TGID") == "-"]
        if not processes:
            return []
        values: dict[str, Optional[float]] = {
            "cpu_pct": sum(float(r["%CPU"]) for r in processes),
            "busiest_thread_pct": max(float(r["%CPU"]) for r in threads) if threads else None,
            "rss_mib": sum(float(r["RSS"]) for r in processes) / 1024 if "RSS" in processes[0] else None,
            "nprocs": float(len(processes)),
        }
        for key, column, scale in (
            ("disk_read_bytes_total", "kB_rd/s", 1024),
            ("disk_write_bytes_total", "kB_wr/s", 1024),
            ("major_faults_total", "majflt/s", 1),
        ):
            rates = [_rate(r, column) for r in processes]
            if None in rates:
                values[key] = None
                continue
            self._totals[key] += sum(rates) * scale * self._interval_s
            values[key] = self._totals[key]
        t_ns = placed_ns(wall_to_mono_ns(self._anchor, seconds_to_ns(report_time)), self._report_arrival_ns)
        out = []
        if not self._origin_sent:
            self._origin_sent = True
            zeros = {key: 0.0 for key in self._totals if values[key] is not None}
            if zeros:
                out.append(Sample(t_ns - round(self._interval_s * 1e9), SOURCE, DEVICE, zeros))
        out.append(Sample(t_ns, SOURCE, DEVICE, values))
        return out


def parse_pidstat(lines: Iterable[str], anchor: tuple[int, int], *, interval_s: float = 1.0) -> list[Sample]:
    """Samples from recorded ``pidstat -h -H -u -r -d -t -p PID <interval_s>`` output.

    ``anchor`` is ``(wall_ns, mono_ns)`` read together on the machine that ran pidstat (its times are epoch
    seconds, so no time zone is involved).
    """
    return parse_all(PidstatParser(anchor, interval_s=interval_s), lines)


class PidstatSampler(CommandSampler):
    """Runs pidstat on the child's root process once a second (1 s resolution; its children are not seen)."""

    name = SOURCE
    tool = "pidstat"
    stop_signal = signal.SIGTERM

    def __init__(
        self,
        *,
        clock: Callable[[], int] = time.monotonic_ns,
        which: Callable[[str], Optional[str]] = shutil.which,
    ):
        super().__init__(clock, which)
        if self._reason is not None:
            self._reason += " (it comes with sysstat: apt-get install sysstat)"

    def _argv(self, pid: int) -> list[str]:
        return [self._exe, "-h", "-H", "-u", "-r", "-d", "-t", "-p", str(pid), "1"]

    def _parser(self, anchor: Anchor) -> PidstatParser:
        return PidstatParser(anchor)

    def info(self) -> dict:
        info = super().info()
        if info["available"]:
            info["scope"] = "the root process and its threads (pidstat -p follows one PID, not its children)"
        return info
