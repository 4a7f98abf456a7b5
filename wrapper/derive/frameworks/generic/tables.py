"""The general reader's tables: markdown/box rows, fixed-width columns, CSV; a cell's grammar."""
from __future__ import annotations

import csv
import html
import re
from typing import Optional

from ....core.lazy_re import LazyPattern
from ..units import clock_s, go_duration_ms
from .lexicon import (
    CURRENCIES, MAX_LINE_CHARS, _ARROW_SIGN, _CELL_UNIT, _CELL_VALUE, _MEMORY, _NOT_A_DURATION, _NUM, _STAT_COLUMN,
    _SQUARE_UNIT, _UNIT, _UNITLESS_DURATION, _UNIT_WORD, _bracket_unit, _key_unit, _label, _unit_kind, _unit_word_in, _words)
from .lines import _MULTI_DURATION


# A range in a cell, its unit after both: "~15-17 tokens/sec" (the high end the cell's value, "… low" the other)
_RANGE_CELL = LazyPattern(r"[~\u2248]?\s*(?P<a>\d+(?:\.\d+)?)\s*[-\u2013]\s*(?P<b>\d+(?:\.\d+)?\s*(?:" + _UNIT + r"))")
# An interval in brackets ("[-0.44, +1.11]" under "95% CI"): its high end, and its low
_INTERVAL_CELL = LazyPattern(r"\[\s*(?P<a>[-+\u2212]?\d+(?:\.\d+)?)\s*,\s*(?P<b>[-+\u2212]?\d+(?:\.\d+)?\s*%?)\s*\]")
# A share of a processor: ollama ps's "100% GPU", "48%/52% CPU/GPU" ("95% CI" is a column's name)
_SHARE_OF_CELL = LazyPattern(r"(?P<a>\d+(?:\.\d+)?)%(?:/(?P<b>\d+(?:\.\d+)?)%)?\s+(?P<of>[CGNTX]PU|[CGNTX]PUs)(?:/(?P<of2>[CGNTX]PUs?))?")
# Three or more numbers apart by slashes, one cell ("15 / 131 / 454 / 441": a value per setting of a sweep), or two
# with decimals ("77.2 / 76.9": two runs; "12 / 32" may be a part of a whole)
_SERIES_CELL = LazyPattern(r"\d+(?:\.\d+)?(?:\s+/\s+\d+(?:\.\d+)?){2,}|\d+\.\d+\s+/\s+\d+\.\d+")


# Markup in a cell: an HTML tag ("Max Speed<sub>tokens/s", "a<br>b"), a markdown link ("[SmolLM2](https://…)")
_CELL_MARKUP = LazyPattern(r"</?[A-Za-z][A-Za-z0-9]*\s*/?>|\[([^\]]*)\]\([^)]*\)")
# A value with a named figure of its own in brackets: "249.4 (CV 0.1%)" (its coefficient of variation)
_NOTED_CELL = LazyPattern(r"(?P<value>[-+]?\d+(?:\.\d+)?\s*(?:" + _UNIT + r")?)\s*\((?:(?P<word>[A-Za-z]+)[:=]?\s*(?P<num>[-+]?\d+"
                          r"(?:\.\d+)?)\s*(?P<unit>" + _UNIT + r")?|(?P<num2>[-+]?\d+(?:\.\d+)?)\s*(?P<unit2>" + _UNIT
                          + r")?\s+(?P<word2>[A-Za-z]+))\)")  # or its figure first: "1.33x (51% acceptance)"
# A cell's figures, then a remark in brackets that opens with a word and holds a number ("129.5s (warm runs 2+3)",
# "59.27 / 59.95 / 59.74 (avg 59.65)"; not "2048 (default)", a row's name): a word and a number name a statistic
_REMARKED_CELL = LazyPattern(r"(?P<head>[^()]+?)\s+\((?P<note>[~\u2248]?[A-Za-z][^()]*\d[^()]*|[~\u2248]\s*\d[^()]*"
                             r"|\d[^()]*[A-Za-z][^()]*)\)")
# or a remark of words alone after a figure with its unit ("8 MB (CPU only)"; "2048 (default)" is a setting)
_WORDS_REMARK_CELL = LazyPattern(r"(?P<value>" + _NUM + r"\s*(?:" + _UNIT + r"))\s+\([A-Za-z][A-Za-z ,.-]{0,40}\)")
_NOTE = LazyPattern(r"(?P<word>[A-Za-z]+)[:=]?\s+(?P<num>" + _NUM + r")\s*(?P<unit>" + _UNIT + r")?")
# a remark of a figure and the words naming it ("5.4 GB (4.4 GB text-only)"), or two such figures apart by a slash
# ("8.16 GB multimodal / 5.5 GB text-only")
_NAMED_FIGURE = r"(?P<num{0}>" + _NUM + r")\s*(?P<unit{0}>" + _UNIT + r")\s+(?P<word{0}>[A-Za-z][\w-]*)"
_NOTE_NAMED = LazyPattern(_NAMED_FIGURE.format(""))
_NAMED_PAIR_CELL = LazyPattern(_NAMED_FIGURE.format("") + r"\s*/\s*" + _NAMED_FIGURE.format("2"))
# Marks beside a cell's value (emoji, their variation selector): "20.0 ⭐", "✅"
_MARKS = "\u2b50\u2705\u274c\u26a0\ufe0f\U0001f3c6\U0001f525\U0001f680\u2714\u2716 "
_FIGURE_IN_TEXT = LazyPattern(r"\d\s*(?:" + _UNIT + r")")  # a cell of text that holds a number with its unit
_ARROW_CELL = LazyPattern(r"(?P<a>" + _NUM + r")\s*(?:" + _UNIT + r")?" + _ARROW_SIGN + r"(?P<b>" + _NUM + r"\s*(?:" + _UNIT
                          + r")?)(?:\s*\((?P<stat>[A-Za-z]+)\.?\s*[:=]?\s*(?P<c>" + _NUM + r")\s*(?:" + _UNIT + r")?\))?")


# A cell of a size or power used out of a total: "4644MiB / 32768MiB", "245W / 250W"
_OF_TOTAL_CELL = LazyPattern(r"(?P<used>" + _NUM + r"\s*(?:" + _UNIT + r"))\s*/\s*(?P<total>" + _NUM + r")\s*(?:" + _UNIT + r")")


# a table cell "3247/3248": how many of how many (requests succeeded), maybe with its share ("49/696 (7.04%)")
_FRACTION = LazyPattern(r"(\d{1,3}(?:,\d{3})+|\d+)/(\d{1,3}(?:,\d{3})+|\d+)(?:\s*\((\d+(?:\.\d+)?)%\))?")  # "102/1,971"
# a figure with its unit, then words that say what it counts ("18 tokens evaluated", "~1 token evaluated")
_WORDED_CELL = LazyPattern(r"(?P<value>[~\u2248]?\s*" + _NUM + r"\s*(?:" + _UNIT + r"))\s+(?!ago$|from now$)[a-z]+(?: [a-z]+){0,2}")


_PAIR_CELL = LazyPattern(r"[A-Za-z_][=:]\s*[-+]?\d")  # a cell holding "key=value" figures of its own


_COLUMN_GAP = LazyPattern(r"\s{2,}|\t")  # tab-separated tables too (a spreadsheet's cells pasted)


MIN_SPACED_COLUMNS = 3

# A fixed-width table's last column of text, blank in some rows (line_profiler's source line, a process's command)
_TEXT_COLUMNS = frozenset(("Line Contents", "Command", "COMMAND", "Name", "NAME"))


_BARE_DIGIT_CELL = LazyPattern(r"\|\s*[-+~]?\d")  # a cell that opens with a number: a row, no header


_UNIT_NAME = LazyPattern(r"#?\s*[A-Za-z][\w .%-]{0,30}?\s*\([^()\d]{1,12}\)")  # "Bandwidth (MB/s)", "Avg Latency(us)"


_COLUMN_KEY = LazyPattern(r"[A-Za-z_][\w.%-]*")  # a column's name as a program prints it ("data_type", "FP8")


MAX_HEADER_CELL_CHARS = 40


# CSV (a benchmark's "-o csv" or its own): a header of 3+ names, then rows of as many numbers (or empty cells).
_CSV_NAME = LazyPattern(r"[A-Za-z_][\w()/%.-]*(?: [\w()\[\]/%.-]+){0,3}")




_CSV_NUMBER = LazyPattern(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|")


# A number whose thousands a locale groups with spaces at a cell's start ("1 995,1 t/s", "22 707 jetons/s")
_SPACE_GROUPED = LazyPattern(r"[-+~]?\d{1,3}(?: \d{3})+(?=[.,]\d|\s|$)")


# Footnote marks after a cell's value ("1 995,1 t/s ²", "329,9 t/s ⁴", "12.5 ms †")
_FOOTNOTE_CHARS = frozenset("\u00b9\u00b2\u00b3\u2070\u2074\u2075\u2076\u2077\u2078\u2079\u2020\u2021*")
_FOOTNOTES = LazyPattern(r"(?:\s*[\u00b9\u00b2\u00b3\u2070\u2074-\u2079\u2020\u2021]|(?<=[\d%s])\*{1,3})+$")


# A column named only as holding the values of rows named by the first ("| Metric | Value |")
_VALUE_HEADERS = frozenset(("value", "values", "result", "results", "measured", "observed"))
_ROW_HEADERS = frozenset(("metric", "metrics", "name", "statistic", "stat", "measure", "measurement", "benchmark"))


MIN_CSV_COLUMNS = 3


# How far above a fixed-width table's first full row its header may stand (``_header_above``).
HEADER_LINES_BACK = 8


_RULE_CHARS = frozenset("-:=+ ") | frozenset(chr(c) for c in range(0x2500, 0x2580))


# A column named by a setting's value ("Batch 1", "bs=8", "ctx 4096"): its cells are measurements at that setting,
# noise or not by their row's name.
_SETTING_COLUMN = LazyPattern(r"(?:batch(?: size)?|bs|ctx|context|concurrency|conc|threads?|n)\s*[=:]?\s*\d+", re.I)


# A CSV cell that stands for a value not measured ("google/diffusiongemma-26b-a4b-it,-,-"): the row keeps its place
# among the numbers, and the header stays open for the rows under it
_NOT_MEASURED = frozenset(("-", "\u2014", "n/a", "na", "nan", "null", "none"))


_ANY_DIGIT = LazyPattern(r"\d")


# A header's name with no rule under it: words, no digit, no value's ":" or "=" ("evaluation_mode", "avg tokens")
_BARE_NAME = LazyPattern(r"[A-Za-z_][A-Za-z_ ./%()-]{0,39}")


# The column of a long-form CSV's values, one a row, named by the cells before it ("metric_name,value")
_VALUE_COLUMNS = frozenset(("value", "metric_value", "metric value", "val", "result"))


_HEX_TAIL = LazyPattern(r"_[0-9a-f]{12,}$")  # "kernel_0001_67bdb7e29d1bb4e0ca0aec954ef18af3": a hash after the name


def _contradicted(column: str, unit: str) -> bool:
    """Whether a cell's unit says another kind than its column's name ("18 token(s)" under "load duration": a
    table whose cells shifted under the wrong columns); False when the name says no kind plainly (only a name
    ending in a duration's word, "count" or "rate" does)."""
    words = _words(column).lower()
    if _UNITLESS_DURATION.search(words) is not None and _NOT_A_DURATION.search(words) is None:
        named = "duration"
    else:
        named = "count" if words.endswith(" count") else "rate" if words.endswith(" rate") else None
    printed = _unit_kind(unit, words)[1]
    return named is not None and printed is not None and named != printed


def _markup_text(m: re.Match) -> str:
    """What a cell's markup shows: a link's text, a space for a tag."""
    return m[1] if m[1] is not None else " "


def _cell_values(cells: list, ruled: bool = False) -> tuple:
    """(each cell's value match or None, each cell's (label suffix of its value, [(label suffix, number), …] of
    its other figures)) of a table row; ``ruled``: a table whose columns are drawn, where a cell may say in words
    what its figure is ("18 tokens evaluated", "984ms average": in a fixed-width row such words are the next cell's)."""
    values, extras = [], []
    for cell in cells:
        cell = cell.strip(_MARKS).rstrip()  # "20.0 ⭐", "4.59 🏆", "✅ 419.3 GB/s": a mark beside the value
        if " " in cell and (grouped := _SPACE_GROUPED.match(cell)) is not None:  # "1 995,1 t/s", "21 054": a
            cell = grouped[0].replace(" ", "") + cell[grouped.end():]  # locale's groups; a cell is one number
        value, extra = _CELL_VALUE.fullmatch(cell), _PLAIN
        if value is None and (compound := _compound(cell)) is not None:
            value, extra = compound
        if value is None and ruled and cell[-1:].isalpha() and (worded := _WORDED_CELL.fullmatch(cell)) is not None:
            value = _CELL_VALUE.fullmatch(worded["value"])
        values.append(value)
        extras.append(extra)
    return values, extras


_PLAIN = ("", ())  # a cell of one value: no suffix, no other figure


# Cells only their column says how to read: "3.5G" under "Size" or "VRAM" (ls -h's GiB), "1:21.40" under "Total
# Time" (minutes and seconds; "20:46:40" under "Start Time" is a clock)
_MAGNITUDE_CELL = LazyPattern(r"(\d+(?:\.\d+)?)([KMGT])")
_SIZE_COLUMN = LazyPattern(r"(?:(?:file|model|bundle|disk|weights?|checkpoint|engine|artifact|download)\s+)?sizes?"
                           r"|(?:max|ave)?\s*(?:rss|vm\s*size)", re.I)  # not a prompt's, a context's or a batch's size;
# sacct's "MaxRSS", "MaxVMSize" ("6040K": KiB)
_CLOCK_CELL = LazyPattern(r"(?:(\d+):)?(\d{1,2}):(\d\d(?:\.\d+)?)")
_ELAPSED_COLUMN = LazyPattern(r"time|duration|elapsed|wall|took|latency|total\s*cpu", re.I)  # (sacct's "TotalCPU")
_CLOCK_COLUMN = LazyPattern(r"start|end|stamp|begin|finish|date|clock|\bat\b|created|updated", re.I)


def _read_by_column(cell: str, name: str) -> str:
    """``cell`` as a plain cell when its column says how to read it (see above); else unchanged."""
    bare = cell.strip("* ")
    if bare[-1:] in ("K", "M", "G", "T") and (m := _MAGNITUDE_CELL.fullmatch(bare)) is not None \
            and (_SIZE_COLUMN.fullmatch(name) is not None or _MEMORY.search(name) is not None):
        return f"{m[1]} {m[2]}iB"
    if ":" in bare and (m := _CLOCK_CELL.fullmatch(bare)) is not None and _ELAPSED_COLUMN.search(name) is not None \
            and _CLOCK_COLUMN.search(name) is None:
        return f"{clock_s(m[1], m[2], m[3])!r} s"
    return cell


_ISO_STAMP = LazyPattern(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


# A column of two statistics of one figure, their cells "mean/std" ("| tok/s mean/std |" over "| 37.42/1.48 |",
# "| rate mean/std |" over "| 92.15%/1.84% |"): read as two columns, "tok/s mean" and "tok/s std"
_STAT_PAIR = LazyPattern(r"(?P<what>.*?)\s*\b(?P<a>mean|avg|average|median|min|p50)\s*/\s*"
                         r"(?P<b>std|stdev|stddev|sd|max|p9[059]|p99\.9)", re.I)


def _paired_names(header: list) -> list:
    """``header`` with each column of a statistics pair (``_STAT_PAIR``) made two."""
    names = []
    for name in header:
        m = _STAT_PAIR.fullmatch(name)
        names += [name] if m is None else [f"{m['what']} {m['a']}".strip(), f"{m['what']} {m['b']}".strip()]
    return names


def _split_pairs(header: list, cells: list) -> list:
    """A row's cells with each one under a statistics pair's column split at its "/" (an empty second cell when
    it holds none: "-", "n/a" stays the first)."""
    out = []
    for name, cell in zip(header, cells):
        if _STAT_PAIR.fullmatch(name) is None:
            out.append(cell)
        elif cell.count("/") == 1:
            out += [part.strip() for part in cell.split("/")]
        else:
            out += [cell, ""]
    return out


def _compound(cell: str) -> Optional[tuple]:
    """A table cell holding more than one figure, or one with a word: (its value, as ``_CELL_VALUE`` reads a plain
    cell, (its label suffix, [(label suffix, number), …] of the others)), or None. "37.9 -> 37.6 (Max 38.1)" is
    37.6, "from" 37.9 and "max" 38.1; "4644MiB / 32768MiB" is 4644 and "total" 32768; "~15-17 tokens/sec" is 17 and
    "low" 15; ollama ps's "100% GPU" is 100 % "GPU", its "48%/52% CPU/GPU" 48 % "CPU" and 52 "GPU"; "1238 / 1693 /
    1837" is 1238 "[1]", 1693 "[2]" and 1837 "[3]"."""
    if "->" in cell or "\u2192" in cell or "=>" in cell:
        m = _ARROW_CELL.fullmatch(cell)
        if m is not None:
            return _CELL_VALUE.fullmatch(m["b"]), ("", [("from", m["a"])] + ([(m["stat"].lower(), m["c"])] if m["c"] else []))
    if cell[:1] == "[" and (m := _INTERVAL_CELL.fullmatch(cell)) is not None:  # "[-0.44, +1.11]": an interval
        return _CELL_VALUE.fullmatch(m["b"]), ("high", [("low", m["a"])])
    if "-" in cell or "\u2013" in cell:
        m = _RANGE_CELL.fullmatch(cell)
        if m is not None:
            return _CELL_VALUE.fullmatch(m["b"]), ("", [("low", m["a"])])
    if "%" in cell:
        m = _SHARE_OF_CELL.fullmatch(cell)
        if m is not None:
            return _CELL_VALUE.fullmatch(m["a"] + "%"), (m["of"], [(m["of2"], m["b"])] if m["b"] else [])
    if cell.endswith("s") and _MULTI_DURATION.fullmatch(cell) is not None:  # "2m23s": Go's duration, in ms
        return _CELL_VALUE.fullmatch(f"{go_duration_ms(cell)!r} ms"), _PLAIN
    if cell.endswith(")") and (m := _NOTED_CELL.fullmatch(cell)) is not None:  # "249.4 (CV 0.1%)"
        return _CELL_VALUE.fullmatch(m["value"]), ("", [(m["word"] or m["word2"], m["num"] or m["num2"],
                                                         m["unit"] if m["word"] else m["unit2"])])
    if " / " in cell and _SERIES_CELL.fullmatch(cell) is not None:  # "1238 / 1693 / 1837": one value per setting
        items = [item.strip() for item in cell.split("/")]
        return _CELL_VALUE.fullmatch(items[0]), ("[1]", [(f"[{i}]", item) for i, item in enumerate(items[1:], 2)])
    if "/" in cell:
        m = _OF_TOTAL_CELL.fullmatch(cell)
        if m is not None:
            return _CELL_VALUE.fullmatch(m["used"]), ("", [("total", m["total"])])
        if (m := _NAMED_PAIR_CELL.fullmatch(cell)) is not None:
            return _CELL_VALUE.fullmatch(f"{m['num']} {m['unit']}"), (m["word"], [(m["word2"], m["num2"], m["unit2"])])
    if cell[:1] in CURRENCIES and (m := _CELL_VALUE.fullmatch(f"{cell[1:]} {CURRENCIES[cell[:1]]}")) is not None:
        return m, _PLAIN  # "$0.0124", "₹0.6943": a cost
    if cell.endswith(")") and (m := _REMARKED_CELL.fullmatch(cell)) is not None:
        return _remarked(m)
    if cell.endswith(")") and (m := _WORDS_REMARK_CELL.fullmatch(cell)) is not None:
        return _CELL_VALUE.fullmatch(m["value"]), _PLAIN
    return None


def _remarked(m: re.Match) -> Optional[tuple]:
    """A cell's figures with a remark in brackets after them: "129.5s (warm runs 2+3)" is 129.5 s; "59.27 / 59.95
    (avg 59.65)" is the series and its "avg"; None when what stands before the remark is no figure."""
    head = m["head"].strip()
    plain = _CELL_VALUE.fullmatch(head)
    inner = (plain, _PLAIN) if plain is not None else _compound(head)
    if inner is None or inner[0] is None:
        return None
    value, (suffix, others) = inner
    if m["note"][:1].isdigit():  # "5.4 GB (4.4 GB text-only)": a figure named after it; "(62% of 24GB)" is no remark
        named = _NOTE_NAMED.fullmatch(m["note"].strip())
        return (value, (suffix, list(others) + [(named["word"], named["num"], named["unit"])])) if named else None
    note = _NOTE.fullmatch(m["note"].strip())
    if note is not None:
        word = note["word"].lower()  # a statistic of the cell's values is in their unit ("avg 59.65")
        others = list(others) + [(word, note["num"]) if _STAT_COLUMN.fullmatch(word) and not note["unit"] else
                                 (word, note["num"], note["unit"])]
    return value, (suffix, others)


def _csv_with_unit(cell: str) -> Optional[re.Match]:
    """A CSV cell that prints its unit after its number ("18604 MiB", "35.2 %"), or None."""
    value = _CELL_VALUE.fullmatch(cell) if cell[-1:].isalpha() or cell[-1:] == "%" else None
    return value if value is not None and value["unit"] else None


_BARE_CELL = LazyPattern(r"[-+]?\d+(?:\.\d+)?")


# A column naming two things and a cell of two numbers under it ("OK / Failed" over "1319 / 0")
_TWO_NAMES = LazyPattern(r"([A-Za-z][\w .-]*?)\s+/\s+([A-Za-z][\w .-]*)")
_TWO_NUMBERS = LazyPattern(r"(\d+(?:\.\d+)?)\s+/\s+(\d+(?:\.\d+)?)")


def _row_cells(s: str) -> list:
    """A barred row's cells, stripped of what is no part of their text: code spans ("| `ap-osaka-1` | `1.171s` |")
    and footnote marks after a value ("1 995,1 t/s ²", "312,3 t/s ³ ⁴", "44.08*"; "**ollama**" is bold)."""
    cells = [c.strip() for c in s.strip("|").split("|")]
    if "`" in s:
        cells = [c[1:-1].strip() if len(c) > 1 and c[0] == "`" == c[-1] else c for c in cells]
    if _FOOTNOTE_CHARS.intersection(s):
        cells = [_FOOTNOTES.sub("", c) if c[:1] != "*" else c for c in cells]
    return cells


def _blank_text_cell(header: list, cells: list) -> Optional[list]:
    """A row of numbers one cell short of its header whose last column is text, that cell added blank (line_profiler's
    row of a blank source line under "Line Contents"), or None."""
    if len(cells) == len(header) - 1 and header[-1] in _TEXT_COLUMNS and all(map(_number_cell, cells)):
        return cells + [""]
    return None


def _number_cell(cell: str) -> bool:
    """Whether a cell is a number, not a name: a digit and no letter ("1/(1-Percentile)" is a name)."""
    return any(ch.isdigit() for ch in cell) and not any(ch.isalpha() for ch in cell)


def _row_name(cells: list, values: list, fractions: list, headed: bool) -> Optional[str]:
    """The name of a table's row: its first text cell; with no header every name it holds ("mrs q4k │ Prefill (128
    tokens) ┆ 161.6 ± 0.2 ┆ …": the build and the test), marks and dashes left out; None when it holds none."""
    names = [c for c, v, f in zip(cells, values, fractions) if c and v is None and f is None]
    if names and not headed:
        names = [c for c in names if any(ch.isalnum() for ch in c)] or names
    return (names[0] if headed else " ".join(names)) if names else None


_PERCENTILE_NAME = LazyPattern(r"\d{1,2}(?:\.\d+)?%")  # a column named by a percentile ("25%", "99.9%")


def _unless_names(header: Optional[list], cells: list, values: list) -> list:
    """A barred row's values, or none where no header is open and the row is one whose names include percentiles
    ("count | mean | 25% | 50% | max": every cell a name or a percentile, two names at least)."""
    if header is not None or not any(values):
        return values
    names = sum(1 for c, v in zip(cells, values) if c and v is None and _BARE_NAME.fullmatch(c))
    if names >= 2 and all(not c or (v is None and _BARE_NAME.fullmatch(c)) or _PERCENTILE_NAME.fullmatch(c)
                          for c, v in zip(cells, values)):
        return [None] * len(cells)
    return values


def _named_row(cells: list, values: list) -> bool:
    """A headerless fixed-width row of a name, then values, at least one with its unit, and maybe counts of how many
    (``7/8``) and a mark that is no word (``✅``): each value with a unit is a figure of the name."""
    unit = False
    for cell, value in zip(cells[1:], values[1:]):
        if value is not None:
            unit = unit or bool(value["unit"])
        elif not all(c > "\x7f" for c in cell) and not all(_FRACTION.fullmatch(p) or _BARE_CELL.fullmatch(p)
                                                            for p in cell.split()):
            return False
    return unit


MIN_RUN_NUMBERS = 3  # a headerless row's numbers, at least, for rows of its shape to be a table's


def _run_cells(text: str) -> tuple:
    """A line's cells apart by ``_COLUMN_GAP`` and their values (a headerless run's row, ``_run_shape``)."""
    cells = _columns(text.strip())[1]
    return cells, _cell_values(cells)[0]


def _run_shape(cells: list, values: list) -> Optional[tuple]:
    """The shape of a headerless table's row, or None: a name (a letter in it), then numbers alone, at least
    ``MIN_RUN_NUMBERS`` of them; the shape is how many cells and which print a unit ("%", "x")."""
    if len(cells) < MIN_RUN_NUMBERS + 1 or (values[0] is not None or not any(ch.isalpha() for ch in cells[0])) \
            and not cells[0].isdigit():  # (or a whole number naming the row: OSU's message size, "1  50.89  18.27 …")
        return None
    if any(v is None for v in values[1:]):
        return None
    nums = [v["num"] for v in values[1:]]
    if all(n.isdigit() for n in nums) and (cells[0].isdigit() or [int(n) for n in nums] == list(
            range(int(nums[0]), int(nums[0]) + len(nums)))):
        return None  # devices numbered over a matrix ("D\\D  0  1  2"), or flags under them ("0  1  1  1"): no table's row
    return len(cells), tuple(bool(v["unit"] or v["sunit"]) for v in values[1:])


# A matrix of one figure per pair of devices, under its title (CUDA's p2pBandwidthLatencyTest: "Bidirectional
# P2P=Enabled Bandwidth Matrix (GB/s)", then "   D\\D     0      1 …" and a row per device, its number first)
_MATRIX_HEADER = LazyPattern(r"(?:(?:D\\D|Dir\\D|GPU|CPU)\s+)?\d{1,3}(?:\s+\d{1,3}){1,63}")  # (nvbandwidth's: no corner;
# DCGM diag's busgrind: "Dir\D", its rows a direction: "D2H", "H2D", "BiDir")
# (a title may hold brackets of its own: "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)",
# nvbandwidth's "memcpy local GPU(column) bandwidth (GB/s)")
_MATRIX_TITLE = LazyPattern(r"(?P<title>[^:]{0,120}?\b(?:Matrix|[Bb]andwidth|[Ll]atency)\b[^:]{0,60}?)\s*"
                            r"\((?P<unit>[^()]{1,12})\)\s*:?(?:\s*,\s*[\w.-]+=[\w.-]+)*")  # ", memory=Pinned": a setting
_MATRIX_CELL = LazyPattern(r"[-+]?\d+(?:\.\d+)?|N/A")  # "N/A": a device and itself (nvbandwidth's diagonal)
_MATRIX_ROW_NAME = LazyPattern(r"\d{1,3}|[A-Za-z][A-Za-z0-9]{0,7}")  # a device, or a direction ("D2H", "BiDir")
# nvbandwidth's total over its matrix: "SUM device_to_device_memcpy_read_ce 715.53", in the matrix's unit
_MATRIX_SUM = LazyPattern(r"SUM (?P<name>[a-z][a-z0-9_]{2,80}) (?P<num>\d+(?:\.\d+)?)")


CONTINUATION_INDENT = 24  # a line under a fixed-width table indented this deep continues a row's cell


_SPREAD_GAP = LazyPattern(r"[ \t]*\u00b1[ \t]*")
_DASHES = LazyPattern(r"-+")


# Nsight Compute's units, as its "Metric Unit" column prints them
_METRIC_UNITS = {"nsecond": "ns", "usecond": "us", "msecond": "ms", "second": "s", "byte": "B", "Kbyte": "KB",
                 "Mbyte": "MB", "Gbyte": "GB", "Tbyte": "TB", "cycle/nsecond": "GHz", "cycle/usecond": "MHz",
                 "cycle": "cycles", "%": "%"}


def _by_rule(header: str, rule: str, columns: int) -> Optional[list]:
    """``header`` cut where the dashes of the rule under it run ("Metric Name   Metric Unit Metric Value" over
    "------------- ------------- ------------", Nsight Compute's names set flush right), when the rule has
    ``columns`` runs and the names one space apart would not tell them; else None."""
    runs = [m.span() for m in _DASHES.finditer(rule)]
    if len(runs) != columns or len(_COLUMN_GAP.split(header.strip())) == columns:
        return None
    cells = [header[a:b].strip() for a, b in runs]
    whole = all(cells) and "".join("".join(c.split()) for c in cells) == "".join(header.split())
    return cells if whole else None  # (a name the dashes cut in two is no such header)


def _unit_column(header: list) -> Optional[int]:
    """Where a fixed-width table's column of units is ("Metric Unit", "Unit"), or None."""
    return next((i for i, name in enumerate(header) if name == "Unit" or name.lower().endswith(" unit")), None)


def _fixed_row_name(header: list, cells: list, values: list) -> tuple:
    """(name, unit) of a fixed-width row: its cells that hold no value, and the unit its values are in when a
    column says it ("Metric Unit": Nsight Compute's "DRAM Frequency  cycle/nsecond  10.24") or brackets end the
    name ("TTFT (ms)   44.3   32.8")."""
    at = _unit_column(header)
    row = " ".join(c for i, (c, v) in enumerate(zip(cells, values)) if v is None and c and i != at).rstrip(":")
    if at is not None and values[at] is None:
        unit = cells[at].strip()
        per = unit.endswith("/second") and unit != "cycle/second"
        return row, (_METRIC_UNITS.get(unit[:-len("/second")], unit) + "/s") if per else _METRIC_UNITS.get(unit, unit)
    if not row and header[0] == "Line #" and cells[0].isdigit():
        row = f"L{cells[0]}"  # line_profiler's row of a blank source line: "L42", its number ("line" is noise)
    rm = _bracket_unit(row)
    return (rm["label"], rm["unit"]) if rm is not None else (row, None)


_PER_SECOND_SUFFIX = LazyPattern(r"(?:[kKMG]i?B)?/s$")  # iostat's "rkB/s", "r/s": kB, or things, a second


def _column_unit(name: str) -> Optional[str]:
    """The unit a column's name gives its cells: "%util" a percentage, "rkB/s" kB/s, "r/s" a rate, "Prefill t/s",
    "…_ms" (``_unit_word_in``, ``_key_unit``)."""
    if name.startswith("%"):
        return "%"
    if (per := _PER_SECOND_SUFFIX.search(name)) is not None and per.start() > 0:
        return per[0].replace("KB", "kB") if per[0] != "/s" else "/s"
    return _unit_word_in(name) or _key_unit(name)


def _clocks_read(header: Optional[list], cells: list, values: list, extras: list) -> tuple:
    """(cells, values, extras) with a clock under a time column read as its duration ("01:11" under fastai's
    "time"), a size with a magnitude under a size column as binary multiples ("6040K" under sacct's "MaxRSS");
    unchanged where the row has none."""
    if header is None or len(cells) != len(header) or not any(":" in c or c[-1:] in "KMGT" for c in cells):
        return cells, values, extras
    read = [_read_by_column(c, n) if c else c for c, n in zip(cells, header)]
    return (read, *_cell_values(read)) if read != cells else (cells, values, extras)


def _columns(s: str) -> tuple[str, list]:
    """``s`` with each value and its spread made one cell ("-0.00651 ±    0.01162", llama-perplexity's KLD rows),
    and its cells, apart by ``_COLUMN_GAP``."""
    if "\u00b1" in s:
        s = _SPREAD_GAP.sub(" \u00b1 ", s)
    return s, _COLUMN_GAP.split(s)


class TableShapes:
    """The shapes of tables: markdown and box tables, fixed-width columns, CSV."""

    def _keeps_open(self, cells: list) -> bool:
        """Whether a short line leaves a fixed-width table open: a row with empty cells (line_profiler's "58
        @profile"), the name of a pandas frame's index under its header ("task_id")."""
        return cells[0].isdigit() or (self._spaced_indented and len(cells) == 1 and cells[0].strip().isidentifier())

    def _spaced_line(self, s: str, line: str, routed: bool) -> bool:
        """A fixed-width table's row under its header (each value cell a figure labelled by the row's names and
        its column, the unit from the column's brackets or the cell); a header is kept. True: a row was read."""
        s, cells = _columns(s)
        header = original = self._spaced
        self._spaced = None
        if self._note_under_row(header, cells, line):
            return False
        if header is not None:
            cells = self._fit_header(header, cells, s)
        if len(cells) == 2:  # "System<TAB>WER", "Faster-Whisper<TAB>3.097"; a pandas frame's "data_type   FP8"
            header = original = self._two_columns(cells, s, header)
        pair = len(cells) == 2 and ("\t" in s or header is not None and len(header) == 2)
        if len(cells) == 2 and not pair and self._named_amount(cells, line, routed):
            return True
        if len(cells) < MIN_SPACED_COLUMNS and not pair:
            self._spaced = original if self._keeps_open(cells) else None
            return False
        values, extras = _cell_values(cells)
        indented = self._spaced_indented
        least = 1 if pair or len(cells) > MIN_SPACED_COLUMNS else 2  # under a header of 4+ names one value is a row
        if header is None and any(values) and self.line_before is not None:  # (or of 3 when it names the unit's
            header, cells, values, extras = self._header_for_row(s, cells, values, extras)  # column: ncu's)
            original, indented = header, self._spaced_indented
        cells, values, extras = _clocks_read(header, cells, values, extras)
        least = 1 if header is not None and _unit_column(header) is not None else least
        if header is None and not pair and (values[0] is None or cells[0].isdigit()) \
                and self._headerless(cells, values, extras, line, routed):
            return True
        trailing = None
        if header is not None and len(cells) == len(header) + 1 and cells[0].isdigit() and (values[1] is None or indented):
            # pandas' row index ("0  EXTEND  18538.56 …"): neither a figure nor a name
            header, cells, values, extras = [""] + header, [""] + cells[1:], [None] + values[1:], [_PLAIN] + extras[1:]
        elif header is not None and len(cells) == len(header) + 1 and values[0] is None:
            if indented or "\t" in s:  # or tab-separated: a spreadsheet's header has no corner either
                header = [""] + header  # a header without the corner above the rows' names ("MIN:  167.0  119.0")
            elif values[-1] is None:  # a last cell no column names (Google Benchmark's "items_per_second=34.4/s")
                trailing, cells, values, extras = cells[-1], cells[:-1], values[:-1], extras[:-1]
        if header is not None and len(cells) == len(header) and sum(v is not None for v in values) >= least:
            if trailing is None and values[-1] is None and _PAIR_CELL.search(cells[-1]) is not None:
                trailing = cells[-1]  # "items_per_second=34.412/s": a cell of its own labelled figures
                values = values[:-1] + [None]
                cells = cells[:-1] + [""]
            row, row_unit = _fixed_row_name(header, cells, values)
            stat = _STAT_COLUMN.fullmatch(row.strip()) is not None  # "P50:", "AVG": the row is a statistic
            for name, value, extra in zip(header, values, extras):
                if value is not None:
                    m = _CELL_UNIT.match(name)
                    label, unit = (m["label"], m["unit"]) if m else (name, value["unit"] or value["sunit"] or row_unit or _unit_word_in(name) or _key_unit(name))
                    noise = label if stat else row if row and _SETTING_COLUMN.fullmatch(label) else None
                    self._cell(f"{row} {label}".removesuffix(" Metric Value"), value, extra, unit, noise, line, routed)
            if trailing is not None:
                self._pairs(f"{row} {trailing}", line, routed)
            self._spaced = original
            return True
        if not any(values) and all(len(c) <= MAX_HEADER_CELL_CHARS for c in cells):
            self._spaced_header(cells, s, line)  # a header: read as any line too (it holds no number)
        return False

    def _fit_header(self, header: list, cells: list, s: str) -> list:
        """A row's cells made as many as its open header's names where the paste or the printer merged or dropped
        one: cut where the names start, a blank last text cell, a last value's unit apart from it."""
        if len(cells) < len(header) and "\t" not in s:
            cells = self._at_header_columns(s) or cells  # "llama3:8b-instruct-fp16 c666fe422df7": one space apart
            cells = _blank_text_cell(header, cells) or cells
        if len(cells) == len(header) + 1 and len(cells[-1]) <= 4 and _unit_kind(cells[-1], "")[1] is not None \
                and cells[-2][-1:].isdigit():
            cells = cells[:-2] + [f"{cells[-2]} {cells[-1]}"]  # "1.75        x": a last value's unit apart from it
        return cells

    def _headerless(self, cells: list, values: list, extras: list, line: str, routed: bool) -> bool:
        """A row under no header: one of a run of rows of its shape (``_headerless_run``), or a name and values with
        their units (``_named_values``); True: read."""
        if self._headerless_run(cells, values, extras, line, routed):
            return True
        return values[0] is None and _named_row(cells, values) and self._named_values(cells, values, line, routed)

    def _headerless_run(self, cells: list, values: list, extras: list, line: str, routed: bool) -> bool:
        """Rows of a fixed-width table whose header the log does not hold (cut above it): a name, then
        ``MIN_RUN_NUMBERS``+ numbers, the line above of the same shape. A value with its unit is the name's figure
        (``_named_values``); a bare number is labelled by the name and its column's place ("topp_partial column 5":
        what the column measures is unsaid). The run's first row is read when the second shows the run."""
        shape = _run_shape(cells, values)
        if shape is None or self.line_before is None:
            return False
        above = self.line_before(1)
        if not above or _run_shape(*_run_cells(above)) != shape:
            return False
        before = self.line_before(2)
        if not before or _run_shape(*_run_cells(before)) != shape:  # the run's first row: its bare numbers now
            first, first_values = _run_cells(above)
            self._bare_columns(first, first_values, _cell_values(first)[1], self.line_before(1, raw=True) or above,
                               routed)
        if _named_row(cells, values):
            self._named_values(cells, values, line, routed)
        self._bare_columns(cells, values, extras, line, routed)
        return True

    def _bare_columns(self, cells: list, values: list, extras: list, line: str, routed: bool) -> None:
        """A headerless row's numbers that print no unit, each labelled by the row's name and its column's place."""
        for column, (value, extra) in enumerate(zip(values, extras)):
            if column and value is not None and not value["unit"] and not value["sunit"]:
                self._cell(f"{cells[0]} column {column + 1}", value, extra, None, None, line, routed)

    def _named_amount(self, cells: list, line: str, routed: bool) -> bool:
        """A name of one word, then far apart an amount with its unit, as a list of files or models prints one a
        line ("  qwen3.5-0.8b.mq4        0.5GB"): the amount labelled by the whole name (digits and all); True: read."""
        name = cells[0].strip()
        value = _CELL_VALUE.fullmatch(cells[1].strip())
        if value is None or not value["unit"] or " " in name or not any(ch.isalpha() for ch in name) \
                or _unit_kind(value["unit"], "")[1] not in ("size", "duration"):
            return False
        return self._add(_label(name), value["num"], value["unit"], line, routed)

    def _named_values(self, cells: list, values: list, line: str, routed: bool) -> bool:
        """A row with no header: a name, then values with their units ("v0.28.0 stock   987s  121 req/min"; in
        "coding  100.0  12/12  53040ms  ✅" a score and a count print no unit: unsaid what they are)."""
        for value in values[1:]:
            if value is not None and value["unit"]:
                self._add(_label(cells[0]), value["num"], value["unit"], line, routed)
        return True

    def _table_row(self, s: str, line: str, routed: bool) -> bool:
        """A row of a table whose columns are apart by spaces (``_whitespace_row``, ``_spaced_line``); True: read."""
        if s[-1:].isdigit() and s.count(" ") >= MIN_SPACED_COLUMNS - 1 and self._whitespace_row(s, line, routed):
            return True
        return ("  " in s or "\t" in s) and self._spaced_line(s, line, routed)

    def _whitespace_row(self, s: str, line: str, routed: bool) -> bool:
        """A row of numbers (maybe after its name) under names apart by single spaces as often as by more, each
        name over one number (vmstat's " r  b   swpd   free …", iostat's "avg-cpu:  %user   %nice %system …" and
        "Device  r/s  rkB/s …", or their columns collapsed to one space by a paste): each cell a figure labelled by
        the row's name and its column's; rows of numbers between it and its header are passed over. True: read."""
        tokens = s.split()
        if len(tokens) < MIN_SPACED_COLUMNS or self.line_before is None or not all(map(_number_cell, tokens[1:])):
            return False
        header = None
        for back in range(1, HEADER_LINES_BACK):
            above = self.line_before(back)
            names = above.split() if above else []
            if names[:1] and names[0].endswith(":") and len(names) == len(tokens) + 1:
                names = names[1:]  # iostat's "avg-cpu:" names the rows below, not a column
            if len(names) != len(tokens) or any(map(_number_cell, names)):
                if above and all(map(_number_cell, names[1:])) and len(names) == len(tokens):
                    continue  # a row above, under the same header
                return False
            if _COLUMN_GAP.split(above.strip()) != names or _COLUMN_GAP.split(s) != tokens:
                header = names  # (a table whose gaps are all wide is a fixed-width table's, read as such)
            break
        if header is None:
            return False
        named = not _number_cell(tokens[0])
        values, extras = _cell_values(tokens)
        for name, value, extra in list(zip(header, values, extras))[named:]:
            if value is not None:
                unit = value["unit"] or _column_unit(name)
                self._cell(f"{tokens[0]} {name}" if named else name, value, extra, unit, None, line, routed)
        return True

    def _note_under_row(self, header: Optional[list], cells: list, line: str) -> bool:
        """Whether a short line indented deep under a fixed-width table is a note under a row's last cell
        (ETDump's "      xnn_…_rvv  (0.829 ms)"): the table stays open, the line is read on its own."""
        if header is None or len(cells) >= len(header) or len(line) - len(line.lstrip(" ")) < CONTINUATION_INDENT:
            return False
        self._spaced = header
        return True

    def _spaced_header(self, cells: list, s: str, line: str) -> None:
        """A fixed-width table's header: kept with where its columns start (read as any line too: no number)."""
        self._spaced = cells
        self._spaced_starts = None if "\t" in s else [0] + [m.end() for m in _COLUMN_GAP.finditer(s.rstrip())]
        self._spaced_indented = line.lstrip(">")[:1].isspace()

    def _matrix_line(self, s: str, line: str, routed: bool) -> bool:
        """A device matrix's header (``_matrix_header``) or the SUM line under it (``_matrix_sum``); True: read."""
        if s[0] == "S":
            return s.startswith("SUM ") and self._matrix_sum(s, line, routed)
        return _MATRIX_HEADER.fullmatch(s) is not None and self._matrix_header(s)

    def _matrix_header(self, s: str) -> bool:
        """A device matrix's header ("D\\D  0  1  2", devices numbered from 0) under its title, which names the
        figure and its unit; True: it opens the matrix."""
        columns = s.split()
        columns = columns if columns[0].isdigit() else columns[1:]
        if columns != [str(i) for i in range(len(columns))] or self.line_before is None:
            return False
        above = self.line_before(1)
        title = _MATRIX_TITLE.fullmatch(above.strip()) if above else None
        if title is None:
            return False
        self._matrix = (_label(title["title"]), title["unit"], len(columns))
        return True

    def _matrix_row(self, s: str, line: str, routed: bool) -> bool:
        """A row of the open device matrix: its device, then one figure per device ("source to destination");
        any other line closes the matrix (False)."""
        title, unit, columns = self._matrix
        cells = s.split()
        if len(cells) != columns + 1 or not _MATRIX_ROW_NAME.fullmatch(cells[0]) \
                or not all(map(_MATRIX_CELL.fullmatch, cells[1:])):
            self._matrix = None
            self._matrix_unit = unit  # a SUM line below names no unit of its own (``_matrix_sum``)
            return False
        row = f"{cells[0]} to" if cells[0].isdigit() else f"{cells[0]} device"  # "BiDir device 3"
        for column, cell in enumerate(cells[1:]):
            if cell != "N/A":
                self._add(f"{title} {row} {column}", cell, unit, line, routed)
        return True

    def _matrix_sum(self, s: str, line: str, routed: bool) -> bool:
        """nvbandwidth's "SUM <test> <total>" under its matrix: the total, in the matrix's unit; True: read."""
        m = _MATRIX_SUM.fullmatch(s)
        if m is None:
            return False
        self._add(f"{m['name']} sum", m["num"], self._matrix_unit, line, routed, bare=True)  # the test's name as printed
        return True

    def _at_header_columns(self, s: str) -> Optional[list]:
        """A fixed-width row cut where its header's names start, when a cell filled its column to one space
        (``ollama list``'s long names): each cut falls after a space and leaves no cell empty; else None."""
        starts = self._spaced_starts
        if not starts or len(s) <= starts[-1] or any(s[p - 1] != " " or s[p] == " " for p in starts[1:]):
            return None
        cells = [s[a:b].strip() for a, b in zip(starts, starts[1:] + [len(s)])]
        return cells if all(cells) else None

    def _two_columns(self, cells: list, s: str, header: Optional[list]) -> Optional[list]:
        """The header over a line of two cells: the open one, or two names above it as pandas prints them; a line
        of two names is kept as a header."""
        if header is None and "\t" not in s and self.line_before is not None and _CELL_VALUE.fullmatch(cells[1]):
            return self._frame_header()
        if (header is None or len(header) != 2) and "\t" not in s and all(_COLUMN_KEY.fullmatch(c) for c in cells):
            self._spaced, self._spaced_indented, self._spaced_starts = cells, False, None
        return header

    def _frame_header(self) -> Optional[list]:
        """The two names over a row of a name and a value, as pandas prints a frame of one column: its header
        ("data_type          FP8"), maybe then its index's name alone ("gpu_info"); None when the lines above are
        not that."""
        for back in (1, 2):
            above = self.line_before(back)
            cells = [c.lstrip("# ") for c in _COLUMN_GAP.split(above.strip())] if above else []
            if len(cells) == 2 and all(_COLUMN_KEY.fullmatch(c) or _UNIT_NAME.fullmatch(c) for c in cells):
                return cells  # (or a name and its unit, commented: OSU's "# Size      Bandwidth (MB/s)")
            if back == 2 or len(cells) != 1 or _COLUMN_KEY.fullmatch(cells[0]) is None and not above.startswith("# "):
                return None  # (its index's name, or a comment: OSU's "# Datatype: MPI_CHAR.")
        return None

    def _header_for_row(self, s: str, cells: list, values: list, extras: list) -> tuple:
        """(header, cells, values, extras): the header above a row no header is open for, and the row cut where
        the header's names start when one of its cells ran into the next one space apart (``ollama ps``'s
        "42%/58% CPU/GPU 4 minutes from now" under "PROCESSOR       UNTIL")."""
        header = self._header_above(len(cells), named=values[0] is None, row=s)
        if header is not None and (blanked := _blank_text_cell(header, cells)) is not None:
            return header, blanked, values + [None], extras + [_PLAIN]
        if header is not None and len(cells) < len(header):
            cut = self._at_header_columns(s) if "\t" not in s else None
            if cut is None or len(cut) != len(header):
                return None, cells, values, extras
            cells = cut
            values, extras = _cell_values(cells)
        return header, cells, values, extras

    def _header_above(self, columns: int, named: bool = True, row: Optional[str] = None) -> Optional[list]:
        """The line above a fixed-width row, as its table's header when it is one: as many names as the row has
        cells (or one fewer: no corner above the rows' names), none of them a value ("Benchmark  Time  CPU"); a
        rule between the two ("-----") is passed over."""
        back = 1
        above = self.line_before(1)
        if above and set(above.strip()) <= _RULE_CHARS:
            back, above = 2, self.line_before(2)
        skipped = back
        while columns >= MIN_SPACED_COLUMNS and above is not None and back < HEADER_LINES_BACK and (
                not above.strip() or above.lstrip()[:1].isdigit() or set(above.strip()) <= _RULE_CHARS
                or above.strip().isidentifier()):
            # a double-spaced paste ("Line #  Hits  Time …", "", "=====", "", "58  @profile", "", "60  1  …"):
            # blank lines, rules and rows with empty cells between the header and the first full row; a pandas
            # frame's index name ("task_id") under its header
            back += 1
            above = self.line_before(back)
        if not above or len(above) > MAX_LINE_CHARS or back > skipped and any(
                map(_number_cell, _COLUMN_GAP.split(above.strip()))):
            return None  # a header met past blank lines is names only (wrk2's "1/(1-Percentile)" is one)
        indented = above.lstrip(">")[:1].isspace()
        ruled = _by_rule(above, self.line_before(1), columns) if skipped == 2 else None
        above = above.strip()
        if above[:1] == ">":
            above = above.lstrip("> ")
        cells = ruled or _COLUMN_GAP.split(above)
        if not named and len(cells) < columns == len(above.split()):  # a row of values only under names one space
            cells = above.split()  # apart ("TotalCount 1/(1-Percentile)", wrk2); "MIN:" names its row: no corner
        if not columns - 1 <= len(cells) <= columns + (row is not None) or len(cells) < MIN_SPACED_COLUMNS - 1:
            return None  # one name more than the row's cells: a row whose cells ran together (``_header_for_row``)
        self._spaced_indented = indented
        if any(_cell_values(cells)[0]) or any(len(c) > MAX_HEADER_CELL_CHARS for c in cells):
            return None
        self._spaced_starts = None if "\t" in above else [0] + [m.end() for m in _COLUMN_GAP.finditer(above)]
        return cells

    def _csv_line(self, s: str, line: str, routed: bool) -> bool:
        """A CSV header (kept, nothing to read) or a row under one: each cell a figure labelled by its column, the
        unit from the column's brackets or suffix (``prefill_tps``, ``ttft (ms)``, ``kv_bytes``)."""
        header = self._csv
        if header is not None and s.count('"') % 2 == 1:  # a quoted cell that goes on over the next lines
            self._quoted = [s]
            return True
        cells = next(csv.reader([s])) if '"' in s else s.split(",")  # '"1,146.31"': a quoted cell keeps its comma
        if len(cells) > MIN_CSV_COLUMNS and not cells[-1].strip() and (header is None or len(cells) == len(header) + 1):
            cells = cells[:-1]  # a comma ending every line (lc0's backendbench: "size, mean nps, …, min nps,")
        if header is None and ", " in s and all(_CSV_NUMBER.fullmatch(c.strip()) for c in cells):
            header = self._csv = self._csv_header_above(len(cells))  # (a row of numbers alone)
        by_row = header is not None and header[0].lower() in _ROW_HEADERS  # "Metric,avg,min,…": rows named first
        if len(cells) < MIN_CSV_COLUMNS and not (len(cells) == 2 and (by_row or cells[0].strip().lower() in _ROW_HEADERS)):
            return False
        valued = [_CSV_NUMBER.fullmatch(c.strip()) or _csv_with_unit(c.strip()) for c in cells]
        numeric = [v is not None or c.strip().lower() in _NOT_MEASURED for v, c in zip(valued, cells)]
        if header is not None and len(cells) == len(header) >= MIN_CSV_COLUMNS and header[-1].strip().lower() in \
                _VALUE_COLUMNS and numeric[-1] and not any(numeric[:-1]):
            self._long_row(header, cells, line, routed)  # "kernel_id,section,metric_name,value": one figure a row
            return True
        if header is not None and (all(numeric) and len(cells) == len(header) or (
                len(header) - 2 <= len(cells) <= len(header) and 2 * sum(numeric) >= len(cells)
                or len(cells) == len(header) >= MIN_CSV_COLUMNS + 2 and sum(numeric) >= 2)  # names, flags, a path
                or by_row and len(cells) == len(header) and not numeric[0] and all(numeric[1:])):
            # a row of numbers, or of numbers beside names and times (koboldcpp's benchmark CSV: Timestamp, Model, …);
            # the trailing columns may be missing; under a "Metric" column, each row's name labels its cells
            row = cells[0].strip() if by_row and not numeric[0] else None
            rm = _CELL_UNIT.match(row) if row else None  # "Time To First Token (ms)": the row's unit
            for name, cell, value in zip(header, cells, valued):
                if cell.strip() and value is not None:
                    m = _CELL_UNIT.match(name)
                    label, unit = (m["label"], m["unit"]) if m else (name, _key_unit(name))
                    if "unit" in value.re.groupindex:  # "18604 MiB": its own unit, its number alone
                        cell, unit = value["num"], value["unit"]
                    noise = None
                    if row:
                        subject = rm["label"] if rm else row
                        noise = f"{subject} avg" if _STAT_COLUMN.fullmatch(label) else None  # "min" is the statistic
                        label = subject + ("" if len(header) == 2 else f" {label}")
                        unit = (rm["unit"] if rm and _unit_kind(rm["unit"], rm["label"])[1] else None) or unit
                    self._add(_label(label), cell.strip(), unit, line, routed, noise_label=noise, bare=True)
            return True
        if all(_CSV_NAME.fullmatch(c.strip()) for c in cells):
            self._csv = [_SQUARE_UNIT.sub(r" (\1)", c.strip()) for c in cells]
            return True
        if header is None and all(numeric) and sum(1 for v in valued if v is not None and "unit" in v.re.groupindex) >= 2:
            self._unnamed_row(cells, valued, line, routed)
            return True
        return False

    def _csv_header_above(self, columns: int) -> Optional[list]:
        """The line above a CSV row whose cells stand ", " apart, as its header when it is one: as many names (a
        header of words with spaces is no line the gate lets through, so it was never fed: lc0's "size, mean nps,")."""
        above = self.line_before(1) if self.line_before is not None else None
        if not above or "," not in above or len(above) > MAX_LINE_CHARS:
            return None
        names = above.split(",")
        if len(names) > MIN_CSV_COLUMNS and not names[-1].strip():
            names = names[:-1]
        if len(names) != columns or not all(_CSV_NAME.fullmatch(n.strip()) for n in names):
            return None
        return [_SQUARE_UNIT.sub(r" (\1)", n.strip()) for n in names]

    def _unnamed_row(self, cells: list, valued: list, line: str, routed: bool) -> None:
        """A CSV row with no header whose cells print their units (nvidia-smi --query-gpu=… --format=csv,noheader:
        "0, 100 %, 21846 MiB, 24576 MiB, 337.28 W, 67"): each cell with a unit a figure, labelled by its column
        and, when the first cell is a bare number, by that ("row 0 column 3"); cells without a unit are unsaid."""
        first = cells[0].strip()
        row = f"row {first} " if first.isdigit() else ""
        for i, (cell, value) in enumerate(zip(cells, valued), 1):
            if value is not None and "unit" in value.re.groupindex:
                self._add(f"{row}column {i}", value["num"], value["unit"], line, routed)

    def _long_row(self, header: list, cells: list, line: str, routed: bool) -> None:
        """A row of a CSV in long form (Nsight Compute's "kernel_0001_67bd…,SpeedOfLight,DRAM Throughput,19.66"):
        its value labelled by its names (an id's hex tail left out), its unit from a unit column when there is one."""
        names, unit = [], None
        for name, cell in zip(header[:-1], cells[:-1]):
            if name.strip().lower() in ("unit", "units", "metric_unit"):
                unit = cell.strip() or None
            elif cell.strip():
                names.append(_HEX_TAIL.sub("", cell.strip()))
        self._add(_label(" ".join(names)), cells[-1].strip(), unit, line, routed, bare=True)

    def _ruled_above(self, row: str) -> bool:
        """Whether the row being read is the first under a header of names apart by bars but no outer ones, with a
        rule of dashes alone under it ("instances | parallel | throughput_tps" then "------" then "2.0 | 64.0 |
        359.4", a script's own table) or as many bars as the row's straight above it; the header is then open."""
        if self.line_before is None:
            return False
        rule = self.line_before(1)
        rule = rule.strip() if rule else ""
        back = 2  # or no rule, the names straight above, as many ("evaluation_mode | num_entries | …", NeMo-Skills)
        if len(rule) < 3 or set(rule) - _RULE_CHARS or "-" not in rule:
            if not 0 <= row.count("|") - rule.count("|") <= 1 or _ANY_DIGIT.search(rule) or not _ANY_DIGIT.search(row):
                return False  # names hold no digit; a rule ("--- | --- | ---") or a header itself is no row
            back = 1
        above = self.line_before(back)
        if above and above.count("|") == row.count("|") - 1:  # its first name taken for a compose service's
            above = self.line_before(back, raw=True) or above     # ("instances | …", "prompt_tokens | max_tokens | …")
        if not above or above.count("|") < 2 or len(above) > MAX_LINE_CHARS or _BARE_DIGIT_CELL.search(above):
            return False
        names = [c.strip() for c in above.strip().strip("|").split("|")]
        if back == 1 and (above.count("|") != row.count("|") or not all(_BARE_NAME.fullmatch(n) for n in names)):
            return False  # (names only: "slot update_slots: id  0 | task 0 | …" above its like is no header)
        self._header, self._ruled = names, back == 2
        return True

    def _rule_without_pipes(self, s: str) -> bool:
        """A markdown rule pasted without its outer pipes ("----- | ---- | -----"): the line above is the header
        of the rows below ("Context | prompt tok/s pre | …", "4096 | 199.149 | …")."""
        if set(s) - _RULE_CHARS != {"|"} or s.count("|") < 2 or self.line_before is None:
            return False
        above = self.line_before(1)
        if not above or not 0 <= s.count("|") - above.count("|") <= 1 or len(above) > MAX_LINE_CHARS:
            return False
        header = [c.strip() for c in above.strip().strip("|").split("|")]
        # one bar fewer: the header's first cell was taken for a compose prefix ("Context | …"); it names the rows
        self._header, self._ruled = [""] * (s.count("|") - above.count("|")) + header, True
        return True

    def _table(self, s: str, line: str, routed: bool) -> None:
        """A table row: cells under a column whose name has a unit are labelled by the column; others by the row's
        first text cell ("| Time to First Token (ms) | 49.26 |", "│ Duration │ 17.83s │"); text boxed (``_text_box``)."""
        s = _CELL_MARKUP.sub(_markup_text, s) if "<" in s or "](" in s else s  # "<sub>", "[name](url)"
        s = html.unescape(s).replace("\xa0", " ") if "&" in s else s  # "Percent&nbsp;of<br>proposed<br>solutions"
        cells = self._cells(s)
        if all(set(c) <= _RULE_CHARS for c in cells) and any(cells):  # ("| | |" is a header of no names)
            self._ruled = self._header is not None
            return  # the |---|---| rule under a header
        if self._header is None and self._text_box(cells, line, routed):
            return
        values, extras = _cell_values(cells, ruled=True)
        values = _unless_names(self._header, cells, values)  # pandas' describe() header: "| | count | … | 25% | max |"
        fractions = [_FRACTION.fullmatch(c) if v is None and "/" in c else None for c, v in zip(cells, values)]
        row = _row_name(cells, values, fractions, self._header is not None)
        if not any(values) or (self._header is None and row is None):
            self._text_row(cells, line, routed)
            return
        # A box table's header ("┃ Metric ┃ Value ┃") holds no figure and is not fed: its rows are read by row.
        header = self._row_header(cells, values)
        several = sum(v is not None or f is not None for v, f in zip(values, fractions)) > 1
        # "| metric | value | unit |": a column of units names the unit of the row's values
        row_unit = next((c for h, c in zip(header, cells) if h.lower() in ("unit", "units")), None)
        self._row_fractions(header, fractions, row, line, routed)
        if " / " in s and row is not None:
            self._named_pairs(header, cells, values, row, line, routed)
        shifted = row is None and any(v is not None and v["unit"] and _contradicted(n, v["unit"])
                                      for n, v in zip(header, values))
        for column, (name, value) in enumerate(zip(header, values)):
            if value is None:
                continue
            m = _bracket_unit(name)  # "Memory (VRAM)" over "5.48 GB (23.16%)", "cold (mean)": no unit
            label, unit = (m["label"], m["unit"]) if m else (name, value["unit"] or value["sunit"] or row_unit
                                                              or _unit_word_in(name) or _key_unit(name))
            by_column = m is not None  # the column's name says the unit: no row label needed
            um = _UNIT_WORD.match(name) if m is None and value["unit"] is None and value["sunit"] is None \
                and _STAT_COLUMN.fullmatch(name) is None else None  # a "min" column is the least, no minutes
            if um is not None and (um.end() == len(name) or name[um.end()] == " "):
                # "| test | t/s |", "| t/s master | t/s a3cec6ab6 |": the column names the unit (and maybe what)
                row_names = " ".join(c for c, v in zip(cells[:column], values) if c and v is None)  # those before it
                label, unit = f"{row_names} {name}".strip() if um.end() < len(name) else (row_names or name), um[0]
                by_column = measured = True  # its cells are measurements whatever setup the row names
            else:
                measured = False
            stat = False
            if not by_column and row is not None:
                rm = _bracket_unit(row)  # "ROCm (patched)": the brackets qualify the row's name
                # the unit printed beside the number wins over the row's brackets ("Decode (token)" over "13.83 ms":
                # they say what the row is, a latency per token)
                label, unit = (rm["label"], rm["unit"]) if rm and not value["unit"] else \
                    (row, value["unit"] or value["sunit"] or row_unit or _key_unit(row) or _unit_word_in(name)
                     or _key_unit(name))  # "| Tokens/Sec |": the column's name ends in its unit
                stat = several and _STAT_COLUMN.fullmatch(name) is not None
                label = f"{label} {name}" if several else label
            elif shifted:  # a row some of whose cells contradict their columns: no cell says what its column says
                label = f"{_unit_kind(unit, name)[1] or 'value'} under {name}"
            noise = f"{label[:-len(name)]}avg" if stat else row if row and _SETTING_COLUMN.fullmatch(name) else \
                name if (several and name and row is not None and not by_column) or measured else None  # "| `rocm-7.14` | 298.30 |":
            # a row of several values under named columns: each column says what its cells are, the row which setup
            self._cell(label, value, extras[column], unit, noise, line, routed)

    def _text_box(self, cells: list, line: str, routed: bool) -> bool:
        """A box around text ("│ [14:08:32] 100% concurrent (0.12 req/sec avg) │", GuideLLM's progress), or a log line
        a viewer boxed beside empty cells ("|   | 2025-04-28T19:09:46.823Z - … TTFB: 0.104  - |"): read as a line."""
        texts = [c for c in cells if c] if len(cells) > 1 else cells
        if len(texts) != 1 or len(cells) > 1 and _ISO_STAMP.match(texts[0]) is None:
            return False
        self._pairs(texts[0].rstrip(" -"), line, routed)
        return True

    def _row_header(self, cells: list, values: list) -> list:
        """The names over a row's cells: the open header (or none), a corner added when it has one cell fewer and
        the row opens with its name ("                | Inference time (1x128) | …", torch.utils.benchmark's Compare)."""
        header = self._header or [""] * len(cells)
        if len(header) < len(cells) and any("/" in name for name in header):
            header = _paired_names(header)  # "tok/s mean/std" over "37.42/1.48": two columns (``_split_pairs``)
        return [""] + header if len(header) == len(cells) - 1 and values[0] is None else header

    def _cells(self, s: str) -> list:
        """A table row's cells, each read as its column says (``_read_by_column``)."""
        cells = _row_cells(s)
        if self._header and not self._header[0] and len(cells) == len(self._header) - 1 and not s.startswith("|"):
            cells = [""] + cells  # a pipe-less row whose first cell was taken for a compose prefix ("fp16 | 494.7 | …")
        if self._header is not None and len(self._header) == len(cells):
            cells = [_read_by_column(c, n) if c else c for c, n in zip(cells, self._header)]
            if any("/" in name for name in self._header):
                cells = _split_pairs(self._header, cells)
        return cells

    def _row_fractions(self, header: list, fractions: list, row: Optional[str], line: str, routed: bool) -> None:
        """A row's cells of how many of how many: "3247/3248" under "Successful Requests"."""
        for name, fraction in zip(header, fractions):
            if fraction is not None and name and row is not None:
                # the row's name says which variant ("FP16"), the column what is counted: noise is the column's
                self._add(_label(f"{row} {name}"), fraction[1].replace(",", ""), None, line, routed, noise_label=name,
                          bare=True)
                self._add(_label(f"{row} {name} out of"), fraction[2].replace(",", ""), None, line, routed,
                          noise_label=name, bare=True)
                if fraction[3] is not None:
                    self._add(_label(f"{row} {name} share"), fraction[3], "%", line, routed, noise_label=name)

    def _named_pairs(self, header: list, cells: list, values: list, row: str, line: str, routed: bool) -> None:
        """A cell of two numbers under a column naming two things ("1319 / 0" under "OK / Failed"): each its own."""
        for name, cell, value in zip(header, cells, values):
            if value is None and (names := _TWO_NAMES.fullmatch(name)) and (nums := _TWO_NUMBERS.fullmatch(cell)):
                for label, num in ((names[1], nums[1]), (names[2], nums[2])):
                    self._add(_label(f"{row} {label}"), num, None, line, routed, noise_label=label, bare=True)

    def _text_row(self, cells: list, line: str, routed: bool) -> None:
        """A row of no value: a header, or a row of text under a ruled one ("│ API Base │ http://localhost:8000/v1 │"),
        whose cells may be prose with figures ("decode 425 tokens, 10.1 t/s" under "legacy"): each read as a line."""
        if self._header is not None and len(cells) == len(self._header) and not any(cells[1:]):
            return  # the rest of the row above's name ("│ (tokens/sec/user) │ │ │", AIPerf's wrapped unit): no header
        if not (self._ruled and self._header is not None and len(cells) == len(self._header)):
            self._header, self._ruled = [_SQUARE_UNIT.sub(r" (\1)", c) for c in cells], False  # "File Size [GiB]"
            return
        for column, (name, cell) in enumerate(zip(self._header, cells)):
            if _FIGURE_IN_TEXT.search(cell) is not None:
                if column and (not name or name.lower() in _VALUE_HEADERS):  # "| | |" or "| Metric | Value |" over
                    name = f"{cells[0]}:"  # "| Checkpoint | `…-NVFP4`, 123.6 GiB |": the row names its figure
                self._pairs(f"{name} {cell}", line, routed)

    def _cell(self, name: str, value: re.Match, extra: tuple, unit: Optional[str], noise: Optional[str], line: str,
              routed: bool) -> None:
        """A table cell's value, labelled by ``name`` and the suffix ``extra`` gives it, and what the cell holds beside
        it: a spread ("13.12 ± 0.85", bare as the value it qualifies), a share or a signed change in brackets, a
        compound cell's other figures (``extra``: ``_compound``'s suffix and others)."""
        suffix, others = extra
        label = _label(f"{name} {suffix}")
        if not self._add(label, value["num"], unit, line, routed, noise_label=noise, bare=True):
            # "312.9±149.4" under "Total Tokens": a value with its spread is a mean, whole things or not
            if not value["spread"] or not self._add(label := f"{label} mean", value["num"], unit, line, routed,
                                                    noise_label=noise, bare=True):
                return
        if value["spread"]:
            self._add(label + " \u00b1", value["spread"], unit, line, routed, noise_label=noise, bare=True)
        elif value["share"] and value["shunit"] in ("x", "\u00d7"):  # "~87 ms (1.25×)": its ratio to another
            self._add(label + " ratio", value["share"], "x", line, routed, noise_label=noise)
        elif value["share"]:
            change = value["share"][0] in "+-" or value["shunit"] == "pp"
            self._add(label + (" change" if change else ""), value["share"], value["shunit"], line, routed,
                      noise_label=noise)
        for other, num, *own in others:  # (suffix, number[, its own unit])
            self._add(_label(f"{name} {other}"), num, own[0] if own else unit, line, routed, noise_label=noise, bare=True)
