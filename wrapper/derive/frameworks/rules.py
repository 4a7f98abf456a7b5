"""Families whose figures are a handful of fixed lines: a table of ``Rule`` rows instead of a parser of their own.

A family module declares ``RULES`` and subclasses ``RulesParser``. Every rule whose ``gate`` (a substring, which
must also be one of the family's routing keys in routes.py) is in a line and whose ``pattern`` matches it is
applied, in table order:

* ``keys``: one ``(key, read)`` per regex group; ``key`` is a report key (``prompt_eval_ms``), ``extra.<name>``,
  or ``None`` for a group that is only matched; ``read`` turns the printed text into the value (``NUM``, ``INT``,
  ``S_MS``: seconds printed -> ms exactly, ``GO_MS``: a Go/Rust duration -> ms, ``TEXT``). A group that did not
  take part, or a value that is not a number (``inf``), is skipped: ``None`` stays ``None``.
* ``mode``: ``"put"`` (a figure the open run already has starts a new run, as two printed blocks are two runs) or
  ``"fill"`` (set only if unset: a second line restating the same figure).
* ``start``: the open run is finished before the rule applies (the first line of a printed block);
  ``end``: after the line (its last line).
* ``series``: the groups are one row of a periodic line: ``extra[series]`` = ``{lines, last, series}``, ``series``
  capped at ``base.SERIES_MAX`` rows.
* ``claims``: whether the line is evidence that the log is this family's. A line another runtime prints in the
  same shape (the ``eval count:`` block KTransformers copies from ollama) is read but claims nothing; the family
  is named only on a line of its own or on one of its route's evidence substrings.
"""
from __future__ import annotations

import re
from typing import Callable, NamedTuple

from .base import SERIES_MAX, FamilyParser
from .routes import ROUTES
from .units import go_duration_ms, integer, number, seconds_to_ms

NUM: Callable = number
INT: Callable = integer
S_MS: Callable = seconds_to_ms
GO_MS: Callable = go_duration_ms


def TEXT(text: str) -> str | None:
    """The printed text itself, stripped; ``None`` when nothing was printed there."""
    return text.strip() or None


class Rule(NamedTuple):
    """One kind of line a family prints and what its groups mean (see the module docstring)."""

    gate: str
    pattern: re.Pattern
    keys: tuple[tuple[str | None, Callable], ...] = ()
    mode: str = "put"
    start: bool = False
    end: bool = False
    series: str | None = None
    claims: bool = True


def rule(gate: str, pattern: str, *keys: tuple[str | None, Callable], **options) -> Rule:
    """A ``Rule`` with its pattern compiled."""
    return Rule(gate, re.compile(pattern), tuple(keys), **options)


# A package and its version alone on a line, as `pip list` and `pip freeze` print them
_PACKAGE_ROW = re.compile(r"\s*[A-Za-z][\w.-]*(?:[ \t]{2,}|==)v?\d+(?:\.\d+)+\S*\s*")


_COLUMN_GAP = re.compile(r"\s{2,}|\t")
MAX_COLUMN_NAME = 40


def column_name(line: str, word: str) -> bool:
    """Whether ``word`` names a column of a header aligned with spaces (a pandas frame's or tabulate's: "m  n  k
    DeepGEMM  SGLang  vLLM"): one engine among the compared, three columns or more."""
    if ":" in line or "|" in line:  # a log's line (a compose service's "vllm-1  | INFO …"), not a header
        return False
    cells = _COLUMN_GAP.split(line.strip())
    return len(cells) >= 3 and all(len(c) <= MAX_COLUMN_NAME for c in cells) \
        and any(c == word or c.startswith((word + " ", word + "-", word + "_", word + "(")) for c in cells)


def named(line: str, word: str) -> bool:
    """Whether ``word`` stands in ``line`` as a name the log prints, not inside a URL ("[GenAI-Perf](https://github.com/
    triton-inference-server/perf_analyzer)" is a link to a project, no line of its output) nor in a table's row
    ("| OpenVINO CPU | Llama-3.1-8B Q4_K_M | 3.89 |": one engine among others, compared), nor as a package in
    pip's listing ("vllm                              0.8.0", "vllm==0.8.0": installed, not running), nor quoted as a
    value ('nv_inference_count{model="tensorrt_llm"}': Triton serving a model of that name), nor as a process's name
    after its id (numastat's "for PID 2402316 (ktransformers)")."""
    if line.lstrip()[:1] == "|" or _PACKAGE_ROW.fullmatch(line) is not None:
        return False
    if "  " in line and column_name(line, word):
        return False
    at = line.find(word)
    while at >= 0:
        start = max(line.rfind(" ", 0, at), line.rfind("(", 0, at), line.rfind("\t", 0, at)) + 1
        process = line[at - 1:at] == "(" and line[at + len(word):at + len(word) + 1] == ")" \
            and line[:at - 1].rstrip()[-1:].isdigit()  # "PID 2402316 (ktransformers)": a tool naming a process
        if "://" not in line[start:at] and line[at - 1:at] not in ("\"", "'") and not process:
            return True
        at = line.find(word, at + 1)
    return False


class RulesParser(FamilyParser):
    """A family parser driven by the subclass's ``RULES``."""

    RULES: tuple[Rule, ...] = ()

    def __init__(self) -> None:
        super().__init__()
        self._evidence_words = ROUTES[self.NAME].evidence if self.NAME in ROUTES else ()

    def feed(self, text: str, line: str) -> None:
        ends = False
        for r in self.RULES:
            if r.gate not in text:
                continue
            m = r.pattern.search(text)
            if m is None:
                continue
            if r.start:
                self.runs.close()
            self._apply(r, m)
            ends = ends or r.end
            if r.claims:
                self.evidence += 1
        if any(word in line and named(line, word) for word in self._evidence_words):
            self.evidence += 1
        if ends:
            self.runs.close()

    def _apply(self, r: Rule, m: re.Match) -> None:
        values = {}
        for (key, read), text in zip(r.keys, m.groups()):
            value = None if key is None or text is None else read(text)
            if value is not None:
                values[key] = value
        if r.series is not None:
            self._row(r.series, values)
            return
        runs = self.runs
        for key, value in values.items():
            if key.startswith("extra."):
                name = key[6:]
                if r.mode == "fill":
                    runs.fill_extra(name, value)
                else:
                    if name in runs.current["extra"]:
                        runs.close()
                    runs.put_extra(name, value)
            elif r.mode == "fill":
                runs.fill(key, value)
            else:
                runs.put(key, value)

    def _row(self, name: str, values: dict) -> None:
        extra = self.runs.current["extra"]
        summary = extra.setdefault(name, {"lines": 0, "last": None, "series": []})
        summary["lines"] += 1
        summary["last"] = values
        if len(summary["series"]) < SERIES_MAX:
            summary["series"].append(dict(values))
