"""Which values a family took from the line it was just fed: the general reader keeps the others (``generic.settle``).

    took = Taken.of(parsers)        # after the families shown a line have read it
    took(value, num_text)           # -> whether one of them holds that value now

A family keeps what it reads in its open run, the run it just finished, and its private notes (``Runs.recent``),
normalised (seconds as ms, GiB as MiB, a percentage as a fraction, ...). So a printed value counts as taken when
some number there equals it as printed, to half a unit of its last printed digit (a family may keep the value it
computed, "9.8430", where the log printed "9.84"), or near-exactly after one of those plain changes of unit (which
a family computes from the printed digits); a zero only as a zero.
"""
from __future__ import annotations

import bisect
from typing import Iterable

from .units import decimal_text

# printed value * factor = the family's number: the unit changes families make (time, binary and decimal sizes,
# percentages, thousands)
_COMPUTED_FACTORS = (1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9, 60e3, 3.6e6,  # s as ms, MB as GB, ...
                     1e-2, 1e2,  # a percentage as a fraction and back
                     1024.0, 1 / 1024, 1024.0 ** 2, 1 / 1024 ** 2, 1024.0 ** 3, 1 / 1024 ** 3, 1e6 / 1024 ** 2,
                     1024 ** 2 / 1e6, 1e9 / 1024 ** 2, 1e9 / 1024 ** 3, 1e3 / 1024, 1024 / 1e3)
# (factor, computed): the value as printed, to half a unit of its last digit (a family's own computation of it may
# hold more digits); a change of unit is computed from the printed digits, so it is held near-exactly
# (_COMPUTED_TOLERANCE, relative), that a small number is not taken for a nearby one ("35" s is no 37 requests by
# way of MB -> MiB; a bar's "[00:33<" is no 3273 prompts by way of a percentage; "0.04GiB" is no 39.38 GiB by way
# of s -> ms)
_FACTORS = ((1.0, False),) + tuple((f, True) for f in _COMPUTED_FACTORS)
_COMPUTED_TOLERANCE = 1e-4
MAX_DEPTH = 6  # a report's numbers sit at most this deep (buffers.CUDA0.model_mib, extra.decode.series.0.x)
MAX_NUMBERS = 4096  # a run's numbers looked at (a long series is a handful of keys repeated)
MAX_REPORT_NUMBERS = 1 << 18  # the numbers of a log's final records looked at (``of_reports``)


def _numbers(node, out: list, depth: int = 0, most: int = MAX_NUMBERS, whole: bool = False) -> None:
    """The numbers in ``node`` (dicts and lists, MAX_DEPTH deep, at most ``most``); of a list only its last item
    unless ``whole``: a line just fed appends to a series, so a run's long series are not walked line after line."""
    if len(out) >= most or isinstance(node, bool):
        return
    if isinstance(node, (int, float)):
        out.append(float(node))
    elif depth < MAX_DEPTH and isinstance(node, dict):
        for v in node.values():
            if not isinstance(v, str) and v is not None:
                _numbers(v, out, depth + 1, most, whole)
    elif depth < MAX_DEPTH and isinstance(node, (list, tuple)) and node:
        for v in (node if whole else node[-1:]):
            _numbers(v, out, depth + 1, most, whole)


def _half_digit(num_text: str) -> float:
    """Half a unit of the last digit printed ("9.84" -> 0.005, "2,560" and "2560" -> 0.5)."""
    mantissa = num_text.lower().split("e", 1)[0]
    if "." in mantissa:
        step = 10.0 ** -len(mantissa.rsplit(".", 1)[1])
    else:
        step = 1.0
    if "e" in num_text.lower():
        try:
            step *= 10.0 ** int(num_text.lower().split("e", 1)[1])
        except ValueError:
            pass
    return step / 2


class Taken:
    """The numbers the families shown a line hold once they have read it, sorted for lookups."""

    def __init__(self, numbers: list):
        self._sorted = sorted(numbers)

    @classmethod
    def of(cls, parsers: Iterable) -> "Taken":
        """From each parser's ``runs.recent()`` (parsers without runs hold nothing), at most MAX_NUMBERS from each:
        a cap shared by all would make what one holds depend on the order they come in."""
        out: list = []
        for p in parsers:
            runs = getattr(p, "runs", None)
            if runs is not None:
                own: list = []
                for part in runs.recent():
                    if part is not None:
                        _numbers(part, own)
                out += own
        return cls(out)

    @classmethod
    def of_reports(cls, reports: list) -> "Taken":
        """From a family's final records (what a log's ``Pending`` figures are held against)."""
        out: list = []
        for report in reports:
            _numbers({k: v for k, v in report.items() if k != "figures"}, out, 0, MAX_REPORT_NUMBERS, True)
        return cls(out)

    def __call__(self, value: float, num_text: str) -> bool:
        """Whether some number held equals ``value`` (as printed in ``num_text``) after a change of unit."""
        nums = self._sorted
        if not nums:
            return False
        # the digits as the value was read from them: "34,00" (a locale's decimal comma) ends in hundredths
        printed = max(_half_digit(decimal_text(num_text) or num_text.replace(",", "")), abs(value) * 1e-6)
        for f, computed in (_FACTORS if value else _FACTORS[:1]):  # zero is zero in any unit
            tol = min(printed, abs(value) * _COMPUTED_TOLERANCE) if computed else printed
            lo = (value - tol) * f
            hi = (value + tol) * f
            if lo > hi:
                lo, hi = hi, lo
            i = bisect.bisect_left(nums, lo)
            if i < len(nums) and nums[i] <= hi:
                return True
        return False
