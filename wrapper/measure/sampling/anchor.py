"""Place wall-clock times printed by outside tools (nvidia-smi, pidstat) on the run's monotonic clock.

All arithmetic is in integer nanoseconds, so a printed time maps to one exact monotonic time.
"""
from __future__ import annotations

import calendar
import time
from typing import Callable, NamedTuple, Optional


class Anchor(NamedTuple):
    """One wall-clock reading and one monotonic reading taken together (ns).

    Any ``(wall_ns, mono_ns)`` tuple works where an anchor is expected, e.g. the record header's.
    """

    wall_ns: int
    mono_ns: int

    @classmethod
    def now(
        cls,
        clock: Callable[[], int] = time.monotonic_ns,
        wall: Callable[[], int] = time.time_ns,
    ) -> "Anchor":
        """Read both clocks back to back."""
        return cls(wall(), clock())


def wall_to_mono_ns(anchor: tuple[int, int], wall_ns: int) -> int:
    """Monotonic ns of epoch time ``wall_ns``, assuming the wall clock did not jump since ``anchor``."""
    anchor_wall_ns, anchor_mono_ns = anchor
    return anchor_mono_ns + wall_ns - anchor_wall_ns


def placed_ns(printed_ns: int, arrival_ns: Optional[int], resolution_ns: int = 1_000_000_000) -> int:
    """When a line stamped with a time floored to ``resolution_ns`` (``printed_ns``, already monotonic) was
    written: its arrival when that lies within the stamp's span (plus 0.5 s for the pipe and clock
    adjustments), i.e. the tool flushed it at once; else the printed time (a recorded file, or a tool that
    held its output back)."""
    if arrival_ns is not None and printed_ns <= arrival_ns < printed_ns + resolution_ns + 500_000_000:
        return arrival_ns
    return printed_ns


def seconds_to_ns(text: str) -> int:
    """``"21.036"`` -> 21036000000, without going through a float."""
    whole, _, frac = text.partition(".")
    return int(whole) * 1_000_000_000 + int((frac + "000000000")[:9])


def local_to_epoch_ns(
    year: int, month: int, day: int, hour: int, minute: int, second_ns: int,
    utc_offset_s: Optional[int] = None,
) -> int:
    """Epoch ns of a printed local date/time (``second_ns``: the seconds field in ns).

    ``utc_offset_s`` is the zone the printing machine was in (0 for UTC); ``None`` means this machine's
    local zone (right for a live run, where the tool runs beside us).
    """
    whole, frac_ns = divmod(second_ns, 1_000_000_000)
    fields = (year, month, day, hour, minute, whole)
    if utc_offset_s is None:
        base_s = int(time.mktime(fields + (0, 0, -1)))
    else:
        base_s = calendar.timegm(fields + (0, 0, 0)) - utc_offset_s
    return base_s * 1_000_000_000 + frac_ns
