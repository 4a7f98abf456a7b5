"""GPU readings from ``nvidia-smi dmon``: a live sampler (1 s grid) and a parser for recorded output.

Columns are mapped from the header lines, which differ by driver and by ``-s`` (``gtemp``/``mtemp`` on
recent drivers, ``temp`` on older ones); the space-aligned and ``--format csv`` layouts both parse.
dmon's units already match the metric names (``fb`` is printed as MB but is MiB: it equals
``memory.used [MiB]`` of ``--query-gpu``). A ``-`` is a metric the device does not report: ``None``.
"""
from __future__ import annotations

import signal
import shutil
import time
from typing import Callable, Iterable, Optional

from ...model.events import Sample
from .anchor import Anchor, local_to_epoch_ns, placed_ns, seconds_to_ns, wall_to_mono_ns
from .loops import CommandSampler, parse_all

SOURCE = "dmon"

# dmon column -> values key
DMON_METRICS = {
    "sm": "gpu_util_pct",
    "mem": "mem_util_pct",
    "fb": "vram_used_mib",
    "pwr": "power_w",
    "pclk": "sm_clock_mhz",
    "mclk": "mem_clock_mhz",
    "gtemp": "temp_c",
    "temp": "temp_c",
}

# The columns of `nvidia-smi dmon -s pucvmet -o DT` on driver 580 (tests/fixtures/h200/dmon-pucvmet-DT.txt);
# used only for lines that come without any header (`--format csv,noheader`) and have exactly this many fields.
PUCVMET_DT_COLUMNS = (
    "Date", "Time", "gpu", "pwr", "gtemp", "mtemp", "sm", "mem", "enc", "dec", "jpg", "ofa", "mclk", "pclk",
    "pviol", "tviol", "fb", "bar1", "ccpm", "sbecc", "dbecc", "pci", "rxpci", "txpci",
)

DMON_ARGS = ("dmon", "-s", "pucvmet", "-o", "DT", "-d", "1")


def _split(text: str) -> list[str]:
    if "," in text:
        return [f.strip() for f in text.split(",")]
    return text.split()


def _number(text: str) -> Optional[float]:
    if text == "-":
        return None
    return float(text)


class DmonParser:
    """Incremental parser of dmon output; ``skipped`` counts data lines it could not place."""

    def __init__(
        self,
        anchor: tuple[int, int],
        *,
        utc_offset_s: Optional[int] = None,
        columns: tuple[str, ...] = PUCVMET_DT_COLUMNS,
    ):
        self._anchor = anchor
        self._utc_offset_s = utc_offset_s
        self._columns: Optional[list[str]] = None
        self._fallback_columns = list(columns)
        self.skipped = 0

    def feed(self, line: str, arrival_ns: Optional[int] = None) -> list[Sample]:
        """Parse one line. ``arrival_ns`` (live) refines the whole-second date/time when the line came at
        once, and stamps lines that carry no date/time (dmon without ``-o DT``)."""
        text = line.strip()
        if not text:
            return []
        if text.startswith("#"):
            names = _split(text[1:])
            if "gpu" in names:  # the names line; the units line that follows adds nothing
                self._columns = names
            return []
        fields = _split(text)
        columns = self._columns if self._columns is not None else self._fallback_columns
        if len(fields) != len(columns):
            self.skipped += 1
            return []
        row = dict(zip(columns, fields))
        t_ns = self._time_ns(row, arrival_ns)
        if t_ns is None:
            self.skipped += 1
            return []
        values = {key: _number(row[col]) for col, key in DMON_METRICS.items() if col in row}
        return [Sample(t_ns, SOURCE, f"gpu{row.get('gpu', '')}", values)]

    def finish(self) -> list[Sample]:
        return []

    def _time_ns(self, row: dict[str, str], arrival_ns: Optional[int]) -> Optional[int]:
        date, clock = row.get("Date"), row.get("Time")
        if date is None or clock is None:
            return arrival_ns
        hour, minute, second = clock.split(":")
        wall_ns = local_to_epoch_ns(
            int(date[:4]), int(date[4:6]), int(date[6:8]), int(hour), int(minute), seconds_to_ns(second),
            self._utc_offset_s,
        )
        return placed_ns(wall_to_mono_ns(self._anchor, wall_ns), arrival_ns)


def parse_dmon(
    lines: Iterable[str], anchor: tuple[int, int], *, utc_offset_s: Optional[int] = None
) -> list[Sample]:
    """Samples from recorded ``nvidia-smi dmon -o DT`` output (space-aligned or ``--format csv``).

    ``anchor`` is ``(wall_ns, mono_ns)`` read together on the machine that ran dmon; dmon prints that
    machine's local time, whose UTC offset ``utc_offset_s`` gives (``None``: this machine's zone).
    Lines without a date and time cannot be placed and are skipped.
    """
    return parse_all(DmonParser(anchor, utc_offset_s=utc_offset_s), lines)


class DmonSampler(CommandSampler):
    """Runs ``nvidia-smi dmon -s pucvmet -o DT -d 1`` beside the child: every GPU, once a second.

    Its times have 1 s resolution (the date/time column, refined by the arrival time of a line that came
    at once: coreutils' ``stdbuf -oL`` line-buffers it where present). ``pid`` is not used: dmon sees
    whole GPUs, not processes, so no per-process GPU memory and no energy counter come from here.
    """

    name = SOURCE
    tool = "nvidia-smi"
    stop_signal = signal.SIGINT  # dmon's documented stop is Ctrl-C

    def __init__(
        self,
        *,
        clock: Callable[[], int] = time.monotonic_ns,
        which: Callable[[str], Optional[str]] = shutil.which,
    ):
        super().__init__(clock, which)
        # How nvidia-smi buffers a pipe is not documented; line-buffer it where coreutils' stdbuf exists
        # so a stop signal cannot strand the last lines in its buffer.
        self._stdbuf = which("stdbuf")

    def _argv(self, pid: int) -> list[str]:
        prefix = [self._stdbuf, "-oL"] if self._stdbuf else []
        return prefix + [self._exe, *DMON_ARGS]

    def _parser(self, anchor: Anchor) -> DmonParser:
        return DmonParser(anchor)
