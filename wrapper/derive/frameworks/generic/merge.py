"""The general reader's figures folded into a family's reports; the name a log prints about itself."""
from __future__ import annotations

from typing import Optional

from ....core.lazy_re import LazyPattern
from .reader import Run


SELF_NAME_LINES = 2000  # a banner or a logger's name shows in a log's first lines, or not at all


SELF_NAME_CHARS = 512   # ... and near the start of its line: a 4 KiB line of output is not searched whole


class SelfName:
    """The name a log prints about itself (``routes.SELF_NAMES``): the first found, searched in the log's first
    ``SELF_NAME_LINES`` lines (their first ``SELF_NAME_CHARS`` characters) until one is. Bounded, because a live
    run feeds every line it prints through here."""

    def __init__(self) -> None:
        from ..routes import SELF_NAME_WORDS, SELF_NAMES
        from ..rules import named

        self._pattern = LazyPattern("|".join(f"({rx})" for rx, _ in SELF_NAMES))  # compiled at a first hit
        self._named = named
        self._words = SELF_NAME_WORDS
        self._names = [name for _, name in SELF_NAMES]
        self._left = SELF_NAME_LINES
        self.name: Optional[str] = None

    def feed(self, line: str) -> None:
        """One raw line; once a name is found (or the first lines are past), later lines are not searched."""
        if self.name is None and self._left > 0:
            self._left -= 1
            head = line[:SELF_NAME_CHARS]
            low = head.lower()
            if not any(word in low for word in self._words):
                return
            m = self._pattern.search(head)
            if m is not None and self._named(head, m[0]):  # not one engine among a compared table's rows
                self.name = self._names[m.lastindex - 1]


def merge(reports: list[dict], runs: list[Run], claimed: bool, framework: str) -> list[dict]:
    """The family's reports with the reader's runs folded in.

    A log some family claimed keeps that family's core figures, and only those (a launcher's or a user script's
    "model loaded in 22.4s" beside vLLM's lines is not vLLM's load time): the reader adds its ``figures``, run i
    to report i when they are as many, else all to the first report. A log no family claimed gets one report
    per reader run, its core keys filled from the reader (``sources[key] = "generic"``)."""
    from ..figures import GENERIC_CORE_KEYS, new_report

    out = [dict(r) for r in reports]
    if claimed:
        paired = len(out) == len(runs)
        for i, run in enumerate(runs if paired else [joined(runs)]):
            out[i]["figures"] = out[i]["figures"] + [f.as_dict() for f, _ in run.figures]
        return out
    while len(out) < len(runs):
        out.append(new_report(framework))
    for report, run in zip(out, runs):
        report["framework"] = framework
        report["figures"] = report["figures"] + [f.as_dict() for f, _ in run.figures]
        for key, (value, _routed) in run.core.items():
            if key in GENERIC_CORE_KEYS and report.get(key) is None:
                report[key] = value
                report["sources"] = dict(report["sources"] or {}, **{key: "generic"})
    for report in out[len(runs):]:
        report["framework"] = framework
    return out


def joined(runs: list[Run]) -> Run:
    """All runs' figures as one run (for a report that takes them all)."""
    one = Run()
    for r in runs:
        one.figures += r.figures
    return one
