"""How text meets the terminal: its width, prose wrapped to it, and colour where a person is looking.

Pure text in, text out; only ``width`` and ``colour_on`` look at the environment. Tables are never wrapped here
(their columns are designed to fit 100 characters); prose lines are.
"""
from __future__ import annotations

import os
import re
from typing import Optional, TextIO

from ..core.lazy_re import LazyPattern  # compiled when a summary is folded or painted, not at import
from ..model.phases import PHASES

DEFAULT_WIDTH = 80   # no terminal to ask (a pipe, a file, CI)
MIN_WIDTH = 40       # below this a wrapped line helps no one

RESET = "\033[0m"
WARNING = "\033[33m"
FAILURE = "\033[31;1m"
BOLD = "\033[1m"
DIM = "\033[2m"


def _ansi(hex_colour: str) -> str:
    """The 24-bit ANSI foreground for ``#rrggbb``: phases look the same as in the plots."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"\033[38;2;{r};{g};{b}m"


PHASE_COLOURS = {p.name: _ansi(p.colour) for p in PHASES}


def width(fd: int = 2) -> int:
    """Columns to wrap to: ``COLUMNS`` when set to a number, else the terminal's on ``fd``, else 80."""
    text = os.environ.get("COLUMNS", "")
    if text.isdigit() and int(text) > 0:
        return max(MIN_WIDTH, int(text))
    try:
        return max(MIN_WIDTH, os.get_terminal_size(fd).columns)
    except OSError:
        return DEFAULT_WIDTH


def colour_on(stream: Optional[TextIO]) -> bool:
    """Colour only for a terminal, and never with ``NO_COLOR`` set (https://no-color.org) or ``TERM=dumb``."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb" or stream is None:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


_ITEM = LazyPattern(r"^(\s*)(\d+\. |[-*] |[a-z][\w .-]{0,30}: )")


def wrap_line(line: str, columns: int) -> str:
    """One prose line folded to ``columns``; continuation lines indented under its text (after "1. ", "next: ",
    "warning: "). Words longer than a line (paths, regexes) are kept whole rather than cut."""
    if len(line) <= columns:
        return line
    import textwrap  # its wrapper compiles its own regexes at import: only a line this long needs it

    match = _ITEM.match(line)
    indent = " " * (len(match.group(0)) if match and len(match.group(0)) < columns // 2 else
                    len(line) - len(line.lstrip()))
    return "\n".join(textwrap.wrap(line, columns, subsequent_indent=indent, break_long_words=False,
                                   break_on_hyphens=False)) or line


def wrap(text: str, columns: Optional[int]) -> str:
    """Every line of ``text`` folded to ``columns`` (None: as it is)."""
    if columns is None:
        return text
    return "\n".join(wrap_line(line, columns) for line in text.split("\n"))


_COLUMN_GAPS = LazyPattern(r"\S {2,}(?=\S)")


def wrap_prose(text: str, columns: Optional[int]) -> str:
    """Like ``wrap``, but table rows (two or more gaps of 2+ spaces between cells, or tabulate's ``---`` rule)
    stay as they are: for renderers that mix a table with prose lines."""
    if columns is None:
        return text
    return "\n".join(line if len(_COLUMN_GAPS.findall(line)) >= 2 or line.startswith("---")
                     else wrap_line(line, columns) for line in text.split("\n"))


_PHASE_CELL = LazyPattern(rf"^({'|'.join(PHASE_COLOURS)})\b", re.M)
_WARNING = LazyPattern(r"(?<![\w-])(warning:|marker never seen:|outlier:)", re.M)
_FAILED = LazyPattern(r"\b(failed|timeout|interrupted|killed)\b")
_FINDING = LazyPattern(r"^(\d+\. )(\[[^\]]*\])", re.M)
_NEXT = LazyPattern(r"^(\s+next:)", re.M)


def paint(text: str, on: bool = True) -> str:
    """``text`` with ANSI colour on phase names at the start of a table row, warnings, failure words, finding
    labels and "next:"; unchanged when ``on`` is false."""
    if not on:
        return text
    text = _PHASE_CELL.sub(lambda m: f"{PHASE_COLOURS[m.group(1)]}{m.group(1)}{RESET}", text)
    text = _WARNING.sub(lambda m: f"{WARNING}{m.group(1)}{RESET}", text)
    text = _FAILED.sub(lambda m: f"{FAILURE}{m.group(1)}{RESET}", text)
    text = _FINDING.sub(lambda m: f"{m.group(1)}{BOLD}{m.group(2)}{RESET}", text)
    return _NEXT.sub(lambda m: f"{DIM}{m.group(1)}{RESET}", text)


HEADER_PADDING = 2  # tabulate's "simple" format pads each header by two


def simple_table(rows: list, headers: list) -> str:
    """``tabulate(rows, headers, disable_numparse=True)`` in its "simple" format, for plain-ASCII one-line cells
    (the run summary's): the same text without importing tabulate (~30 ms of every run's start-up, wcwidth and
    importlib.metadata with it). Anything else (wide or combining characters, multi-line cells) goes to tabulate."""
    cells = [[str(c).strip() for c in row] for row in rows]  # tabulate strips each cell
    heads = [str(h) for h in headers]  # headers are not
    text = "".join(heads) + "".join("".join(row) for row in cells)
    if not text.isascii() or "\n" in text or "\t" in text:
        from tabulate import tabulate

        return tabulate(rows, headers=headers, disable_numparse=True)
    widths = [max([len(h) + HEADER_PADDING] + [len(row[i]) for row in cells]) for i, h in enumerate(heads)]

    def line(values: list) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths)).rstrip()

    return "\n".join([line(heads), line(["-" * w for w in widths])] + [line(row) for row in cells])
