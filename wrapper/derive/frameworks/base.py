"""What every family parser shares: a ``Runs`` to fill, a detection count, and the feed/results duck interface."""
from __future__ import annotations

import re
from typing import NamedTuple

from .figures import Runs
from .routes import ROUTES

# Periodic metric lines (vLLM's engine metrics, SGLang's batch lines) are kept line by line up to this many per run;
# past it only their count, maxima and last values grow, so a server log of days stays a bounded record.
SERIES_MAX = 1000

# A character of one line as ``str.splitlines`` cuts lines, in a bytes pattern (conservative: the UTF-8 bytes of
# U+0085/U+2028/U+2029 end it too, so a line holding them is not folded but fed as usual).
LINE_BYTE = rb"[^\n\r\x0b\x0c\x1c-\x1e\x85\xa8\xa9]"


class Periodic(NamedTuple):
    """A line a server prints over and over for its whole life (vLLM's engine metrics every few seconds, SGLang's
    batch lines) whose effect on a run, once its series is full, is a fold: counts and sums grow, maxima rise,
    and the last line's values replace the one before.

    ``key``: a routing key of the family every such line holds. ``figures``: the family's own regex for the
    line, on bytes (``LINE_BYTE`` for "any character of the line"), its groups the values the fold takes.
    ``fold``: the parser's method ``fold(groups: list[tuple[bytes, ...]])``, doing to the run what feeding
    those lines one by one would (``blocks.BlockFeeder`` feeds the last line of a stretch as usual, so its
    "last" values are set by the ordinary code). ``ready``: the parser's method saying whether the fold is
    exact now (the series is full: before that, every line is kept and must be fed). ``unless``: substrings
    that send a line down the family's other paths; a line holding one is fed as usual, never folded.
    """

    key: str
    figures: "re.Pattern[bytes]"
    fold: str
    ready: str
    unless: tuple[str, ...] = ()


# tqdm's elapsed field of a finished bar: "100%|██████████| 120/120 [00:05<00:00, 20.71it/s]"
_BAR_DONE = re.compile(r"100%.*?\[(?:(\d+):)?(\d+):(\d\d)<")


class FamilyParser:
    """Base of the per-family parsers.

    ``KEYS``: substrings; a line reaches ``feed`` only if it contains one (checked on the raw line).
    ``EVIDENCE_KEYS``: substrings of lines that only show whose log this is; they are routed only while the
    family is being detected (``framework=None`` and ``evidence`` still 0), which keeps the bulk of startup
    chatter away from the parsers.
    ``evidence``: how many lines looked like this family's own output (detection picks the first family in
    the table with any). ``greedy``: while True, every line is fed regardless of ``KEYS`` (inside a CSV table
    or a multi-line JSON object).
    """

    NAME = "unknown"
    KEYS: tuple[str, ...] = ()
    EVIDENCE_KEYS: tuple[str, ...] = ()
    PERIODIC: tuple[Periodic, ...] = ()  # see ``Periodic``

    def __init_subclass__(cls, **kwargs) -> None:
        """A family's ``KEYS`` and ``EVIDENCE_KEYS`` are its entry in ``routes.ROUTES`` (routing needs them
        without importing the parser), taken from there rather than written twice."""
        super().__init_subclass__(**kwargs)
        route = ROUTES.get(cls.NAME)
        if route is not None:
            cls.KEYS, cls.EVIDENCE_KEYS = route.keys, route.evidence

    def __init__(self) -> None:
        self.runs = Runs(self.NAME, self.finalize)
        self.evidence = 0
        self.greedy = False

    def feed(self, text: str, line: str) -> None:
        """``text``: the line without prefixes; ``line``: as printed (for warnings)."""

    def finalize(self, report: dict, notes: dict) -> None:
        """Last look at a finished run (derived warnings); default: nothing."""

    def warn(self, kind: str, line: str) -> None:
        self.runs.warn(kind, line)

    def results(self) -> list[dict]:
        return self.runs.results()


def bar_elapsed_ms(text: str) -> int | None:
    """Elapsed time of a finished tqdm bar in ms (whole seconds as printed), else ``None``."""
    m = _BAR_DONE.search(text)
    if m is None:
        return None
    hours, minutes, seconds = m.groups()
    return ((int(hours or 0) * 60 + int(minutes)) * 60 + int(seconds)) * 1000
