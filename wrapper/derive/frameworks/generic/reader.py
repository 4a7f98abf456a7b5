"""The general reader itself: a line to its shape, the figures kept (bounded, deduplicated), runs."""
from __future__ import annotations

import re
from typing import Callable, NamedTuple, Optional

from ....core.lazy_re import LazyPattern
from ..units import number
from .lexicon import (
    LIST_ITEMS, MAGNITUDES, MAX_LABEL_WORDS, MAX_LINE_CHARS, _NUM, _STAT_COLUMN, _UNIT, _bracket_unit, _core_key, _core_value, _is_noise, _key_unit,
    _label, _unit_kind, _words)
from .lines import _TAB_PAIR, LineShapes, _normalized
from .tables import _RULE_CHARS, HEADER_LINES_BACK, TableShapes
from .structured import StructuredShapes
from .systools import SystemToolShapes


# A log's figures kept (the first ones; figures_dropped counts the rest): a 200-row table of three measured columns
# is 600 of them.
MAX_FIGURES = 1024


MAX_VALUES = 1024  # figures of kind "value" (no unit, a label that names no kind), kept apart: they never crowd the others out


MAX_BAR_FIGURES = 512  # a progress bar's figures (each redraw's), kept apart: a bar redrawn all run never crowds out the others


MAX_TAB_ROWS = 32  # rows looked back over for a tab-separated table's header

MAX_QUOTED_LINES = 32  # lines of a CSV row whose quoted cell spans lines


MAX_PENDING = 64  # figures a family took, kept until its final records show whether it still holds them


# A "duration" longer than this is a clock reading since 1970 (a JSON "…_start_ms": 1711754028137), not a duration.
EPOCH_MS = 1e11  # ~3 years


_TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3, "min": 6e4, "h": 3.6e6}


MAX_RUNS = 1000


# A row of values after a label and its colon, no header: "Request Throughput (req/sec): |  0.9765 | 0.9812"
_LABELLED_ROW = LazyPattern(r"[A-Za-z][^|:]*:\s*(?:\|\s*" + _NUM + r"\s*(?:" + _UNIT + r")?\s*)+\|?")


_METRIC_UNITS = {"Percent": "%", "Megabytes": "MB", "Gigabytes": "GB", "Kilobytes": "kB", "Bytes": "B",
                 "Milliseconds": "ms", "Microseconds": "us", "Seconds": "s", "Count": None}


_UNIT_METRIC = LazyPattern(r"(?P<name>[A-Za-z]\w*)\.(?P<unit>" + "|".join(_METRIC_UNITS) + r"):(?P<num>" + _NUM + r")\|#")


_UNIT_KEYS = frozenset(("s", "ms", "us", "ns"))  # a duration's unit as its own key
_SMALL_FRACTION = LazyPattern(r"\d{1,5}\.\d+")  # under 100000, with a fraction: no clock's reading
_BARE_NUMBER = LazyPattern(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")  # a line of one number


# The name over a column of numbers, one a line (a one-column CSV: "tps", "latency (ms)", "tokens_per_second")
_COLUMN_NAME = LazyPattern(r"[A-Za-z_][\w./%-]*(?: [\w./%-]+){0,3}(?: \((?P<unit>[^()\d]{1,12})\))?")


# A YAML key, its value, and a comment that says what it is (llama.cpp's `main --logdir` dump, 2023-24:
# "t_load_us: 432872591  # total microseconds spent loading the model"): the unit is the key's or the comment's
_COMMENTED = LazyPattern(r"(?P<key>[A-Za-z_][\w.-]{0,60}):[ \t]*(?P<num>" + _NUM + r")[ \t]+#[ \t]*(?P<comment>[A-Za-z].{0,160})")
_COMMENT_UNITS = ((LazyPattern(r"^(?:ms|milliseconds?) ?(?:/|per) ?token"), "ms/token"),
                  (LazyPattern(r"^tokens? ?(?:/|per) ?s(?:ec(?:ond)?)?\b"), "tokens/s"),
                  (LazyPattern(r"\bmicroseconds\b"), "us"), (LazyPattern(r"\bmilliseconds\b"), "ms"),
                  (LazyPattern(r"\bnanoseconds\b"), "ns"), (LazyPattern(r"\bseconds\b"), "s"),
                  (LazyPattern(r"\btokens\b"), "tokens"))
# "3.4 tok/s • 23 tok", "12 tok · 0.4 s": a UI's parts apart; BenchmarkTools' columns "… ms  ┊ GC (min … max): …"
_BULLET = LazyPattern(r"\s+[\u2022\u00b7\u250a]\s+")
_LONE = LazyPattern(r"(?P<num>" + _NUM + r")\s*(?P<unit>" + _UNIT + r")")  # a line of one value and its unit


# A heading on its own line names the statistics under it ("ttft_s" then "    p25 = 0.17", "Time to First Token
# (ms):" then "  Mean: 56.46"): no number, at most MAX_LABEL_WORDS words, maybe a unit in brackets, maybe a colon.
_HEADING = LazyPattern(r"(?P<label>[A-Za-z_][\w .-]{0,60}?)\s*(?:\((?P<unit>[^()\d]{1,12})\))?\s*:?")


# a problem's shape and its figure under a heading ("FP32:" then "  1024x1024: 27.62 TFLOPS"): the shape names it
_SHAPED = LazyPattern(r"(?P<dims>\d+(?:[x\u00d7]\d+)+)\s*:\s*(?P<num>[-+]?\d+(?:\.\d+)?)\s*(?P<unit>[A-Za-z/%\u00b5]{1,12})?")


def _stat_row(s: str) -> Optional[re.Match]:
    """A row that names a statistic or a shape and gives its figure, under a heading (``_DESCRIBE``, ``_SHAPED``,
    ``_COLON_STAT``)."""
    return _DESCRIBE.fullmatch(s) or _SHAPED.fullmatch(s) or (_COLON_STAT.fullmatch(s) if ":" in s else None)


# a statistic with a colon and no unit under a heading that names the unit ("Slow Processor (PIL Image) Statistics
# (milliseconds):" then "Mean: 23.680", "Std Dev: 2.240"): read only where that heading is found above
_COLON_STAT = LazyPattern(r"(?P<colon>mean|median|std\.? ?dev|stdev|min|max|p\d{1,2}(?:\.\d)?)\s*:\s*"
                          r"(?P<num>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)", re.I)


# pandas' describe() rows ("mean  204.03"), wrk's latency distribution ("50%   12.66ms", a unit glued on)
_DESCRIBE = LazyPattern(r"(?P<stat>count|mean|std|min|max|\d{1,2}(?:\.\d+)?%)\s+(?P<num>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
                        r"(?P<unit>[mun\u00b5]?s)?")


_BARE_DIGIT = LazyPattern(r"(?<!\w)\d")  # a heading holds no number ("e2e_latency_s" may hold digits in a word)


# "http_req_duration.......: avg=1.2s" (k6's dots); "http.requests: ...... 240" (Artillery's, after the colon)
_LEADER = LazyPattern(r"\s*:?\s*\.{3,}\s*:?")


_PAREN_PERCENTILE = LazyPattern(r"\bp\((\d{1,2}(?:\.\d+)?)\)")  # "p(95)=3.9s" -> "p95=3.9s"


_NO_LABEL = frozenset(("to", "from", "by"))  # "increase the size from 0 bytes to 67462144 bytes": no label


# A count's statistic may be fractional ("Average prompt length: 28.59 tokens", "number_input_tokens mean = 570.8").
_AVERAGED = LazyPattern(r"\b(?:avg|average|mean|median|std|stddev|stdev|p\d{1,2}(?:\.\d+)?)\b", re.I)


class Figure(NamedTuple):
    """One labelled figure as printed."""

    label: str
    value: float
    unit: Optional[str]
    kind: str
    line: str

    def as_dict(self) -> dict:
        """The record's shape: ``{label, value, unit, kind, line}``."""
        return {"label": self.label, "value": self.value, "unit": self.unit, "kind": self.kind, "line": self.line}


class Pending(NamedTuple):
    """The mark of a figure whose value the claiming family took from its line when it read it: kept only if the
    family's records no longer hold that value at the end (a progress line's values, which the next replaces)."""

    num_text: str
    shown: "bool | frozenset" = True  # the families shown its line (before a family claimed the log: ``runs``)


class Run:
    """What the reader found for one run: core figures and labelled figures (each with the families shown its line)."""

    def __init__(self) -> None:
        self.core: dict = {}  # core key -> (value, routed: the names of the families shown its line, or a bool)
        self.figures: list = []  # (Figure, routed)


# The lines worth reading at all: one search per line, most log lines (timestamps, paths, prose) fail it.
GATE_CHARS = 1024  # a figure shows in a line's first KiB: a long line of output is not scanned whole


# It finds a tab-separated table's header or row (two tabs, or a tab before a digit), two numbers two spaces apart
# (a fixed-width table's row), a digit followed by a unit, "token" or "Token", a bar ("|" or a box-drawing one), a JSON key '_ms"'
# (and the like), a unit in brackets ("Mean TTFT (ms): 19.3", "Throughput (T/s) 0.80"), a "label: number" that
# ends its line ("Successful requests: 1780": the reader keeps it only if its label names a count or a ratio), or
# a CSV row of numbers or header of names ("ctx_tokens,prefill_tps,…" / "2048,370.57,…"). Written as one leading
# character class (an ASCII digit, a tab, "|", "_", "t", "T", ")", ",", ":", "=", '"', "{", "}", or any non-ASCII character, since \d also matches other
# scripts' digits; negated, so that the class compiles to a 256-bit map) with each alternative checking that
# character behind it: re then skips, at C speed, to the next position where one can start, instead of trying
# four alternatives at every character (2-3x faster on long lines of words or output).
GATE = re.compile(r"[^\x00-\x08\x0a-\x21\x23-\x28\x2a\x2b\x2d-\x2f\x3b\x3c\x3e-\x53\x55-\x5a\x5c\x5e\x60-\x73\x75-\x7a\x7e\x7f]"
                  r"(?:(?<=\d)\s{0,16}(?:[mnu\u00b5\u03bc]?s|(?:milli|micro|nano)?sec(?:ond)?s?|SEC(?:OND)?S?|[mnu]sec|millis|min(?:ute)?s?|h(?:ours?)?|toks?|tps|TPS|RPS|rps|[tT]/s|it/s|/s|req(?:uests?)?|[KMGT]i?B|[KMGT]i?(?![\w.])|k(?![\w.])|\u6beb?\u79d2|\u8bf7\u6c42/\u79d2|kB|kb|bytes|%|user|maximum resident|peak memory footprint|elapsed|[mk]?W|[mk]?J|k?Wh|[Jj]oules|[Ww]atts?|cycles|samples|calls|chunks|blocks|iterations|instances|queries|docs|documents|pages|segments|images|attempts|retries|embeddings|vectors|records|[gmt]b|\u00b0C|\u2103|degC|x(?!\w)|X(?![ \t]*\w)|[KMGTP]?FLOP[Ss]|[kmgtp]?flops|TOPS|TF|GF|fps|FPS"
                  r"|[A-Za-z]{2,12}/s(?:ec(?:ond)?)?)"
                  r"(?![A-Za-z])|(?<=[tT])oken|(?<=[|\u2502\u2503\u2551])|(?<=_)(?:ms|s|tps|per_second)\""
                  r"|(?<=[mun]s\)|/s\)|\(s\)|iB\))|(?<=[KMGTk]B\))|(?<=\(%\))"
                  r"|(?<=[\w) \t][:=])[ \t]*[-+]?[0-9][0-9.,]*(?:[eE][-+]?[0-9]+)?(?: ?/ ?[0-9][0-9.]*| of [0-9]+)*\**\"?\s*$"  # "Successful requests: 1780", "98/100", "98 of 100"
                  r"|(?<=[A-Za-z_]=)[-+]?[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?,?[ \t]"  # pairs: "total=5, p50_ms=6692.5, out=x"
                  r"|(?<=\w=)[0-9][0-9./]*,[A-Za-z_]\w*=[0-9]"  # a keyed group's items: "emits[init=2,bonus=18]"
                  r"|(?<=[A-Za-z_]:)[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?[ \t]+[A-Za-z_]\w*:[0-9]"  # glued pairs: "recon_loss:0.03 val_loss:0.04"
                  r"|(?<=\w:)[ \t]*[0-9]+ [a-z]{2,16}s, [0-9]+ [a-z]{2,16}s\b"  # counts of things: "x: 0 blobs, 0 hashes"
                  r"|(?<=[a-z]:)[ \t]+[0-9]+, done\.|(?<=Total [0-9])[0-9]* \(delta [0-9]"  # git's "Enumerating objects: 81513, done."
                  r"|(?<=[0-9])[ \t]+[A-Za-z_][\w/.:,=-]*[ \t]+#[ \t]+[0-9]"  # perf stat's "1,963  context-switches  #  20.425 /sec"
                  r"|(?<=[0-9]) rd[ \t]+\+[ \t]+[0-9]"  # cachegrind's "66,429  (54,246 rd   + 12,183 wr)"
                  r"|(?<=[0-9]{4})[ \t]?B(?![A-Za-z])"  # bytes, counted: "free: 72392160 B" ("7B" sizes a model)
                  r"|(?<=[0-9]) [a-z]{2,12} (?:samples|requests|queries|prompts|images|pages|documents|segments)\b"  # "7168 new samples"
                  r"|(?<=\w:)[ \t]*[-+]?[0-9][0-9.]*[ \t]+#"  # a YAML value and its comment: "t_load_us: 432872591  # total …"
                  r"|(?<=\.\.[ \t][0-9])"  # a value after dotted leaders: "http.requests: ........ 240" (Artillery)
                  r"|(?<=[0-9])[ \t]+<-{1,3}[ \t]"  # a note pointing back at a figure: "rate_mean: 198.06  <-- Valuable"
                  r"|(?<=\u2501)[ \t]+[(0-9]"  # the end of rich's bar: "━━━━ (1/1) [ 0:01:40 < 0:00:00 ]", "━━━━ 75%"
                  r"|(?<=\w:)[ \t]*[-+]?[0-9][0-9.]*(?:,[ \t]*[-+]?[0-9][0-9.]*){2,},?[ \t]*$"  # "Throughput values: 62.75, 63.09, …"
                  r"|(?<=':)\s*[-+]?[0-9]"  # a Python dict's members: "'n_saved': 243,"
                  r"|(?<=Int\([0-9]|ble\([0-9])"  # an OpenTelemetry attribute: "-> gen_ai.usage.prompt_tokens: Int(24)"
                  r"|(?<=[0-9])[ \t]+/[ \t]+[0-9][0-9.]*[ \t]+/[ \t]+[0-9]"  # values apart by slashes: "0.57 / 0.71 / 0.98"
                  r"|(?<=[A-Za-z][:=])[ \t]*[0-9]{1,3}:[0-5][0-9]:[0-5][0-9]"  # a clock's duration: "total time: 0:05:43"
                  r"|(?<=_)(?:ms|s|us|ns|sec|seconds|tps|per_s)\s*:?\s*$"  # a heading: "ttft_s" alone on its line
                  r"|(?<=_)(?:time|latency|duration)[ \t]*:[ \t]*$"  # a heading with no unit: "http.response_time:" (Artillery)
                  r"|(?<=[A-Za-z]  [0-9])[0-9.]*(?:[eE][-+]?[0-9]+)?[ \t]*$"  # print("time taken ", t): "time taken  2.517"
                  r"|(?<=\u00b1)[ \t]*[0-9]|(?<=[0-9] _)[ \t]+[0-9]|(?<=\+/- [0-9])"  # a spread: "10.910139 ± 0.080259" (its sign lost: "_"), "+/- 0.1"
                  r"|(?<=\])[0-9][0-9.]*,\[[0-9]"  # llama-perplexity's chunks: "[1]3.3282,[2]5.5064,"
                  r"|(?<=[0-9] [0-9])[0-9.]* [0-9][0-9.]* [0-9]"  # numbers one space apart: a collapsed table's row
                  r"|(?<=[0-9][ \t][0-9])[0-9]*\.[0-9]+[ \t]*$"  # a row ending in a number and a decimal: "0 95.3" (MLC's)
                  r"|(?<=[A-Za-z] [0-9])[0-9.]*,[ \t][A-Za-z]"  # a record of named numbers: "speech len 1.76, rtf 0.17"
                  r"|(?<=[0-9]) ?\((?:Kilo|Mega|Giga|Tera)?[Bb]ytes\)"  # a size's unit spelled out: "8.59 (GigaBytes)"
                  r"|(?<=:[0-5][0-9]:[0-5][0-9]\.[0-9])[0-9]{5}(?![0-9])"  # Python's timedelta: "0:00:00.004015"
                  r"|(?<=  [0-9])[0-9.,]*[ \t]*$"  # a fixed-width row's last cell ("Duration   usecond   272.16", ncu's)
                  r"|(?<=erplexity [0-9])|(?<=PPL [0-9])|(?<=ppl [0-9])"  # "sample 50, Perplexity 5.0264"
                  r"|(?<=[:=])[ \t]*\[[ \t]*['\"]?[-+]?[0-9]"  # a list after its label ("Latencies: [2561.47, …]")
                  r"|(?<=\":)\s*\"?[-+]?[0-9]|(?<=\" :)\s*\"?[-+]?[0-9]|(?<=unit\")\s*:"  # JSON members, one a line
                  r"|(?<=\{)\s*$|(?<=\})\s*,?\s*$|(?<=\})[ \t]+[-+]?[0-9]"  # a JSON object's ends, a metric{…} value
                  r"|(?<=_)(?:total|sum|count|seconds|bytes)[ \t]+[-+]?[0-9]"  # a Prometheus sample without labels
                  r"|(?<=[0-9]),[0-9][0-9.]*,[0-9]|(?<=[A-Za-z_)],)[A-Za-z_][\w()/%.-]*,[A-Za-z_(]"  # CSV rows, headers
                  r"|(?<=[0-9])[0-9.]*(?:,[ \t]+[-+]?[0-9][0-9.eE+-]*){2,},?[ \t]*$"  # (", " apart: its header is found above it)
                  r"|(?<=\",)\"[A-Za-z_]"  # a quoted CSV header: "config_name","n_seq_max",…
                  r"|(?<=etric,)[A-Za-z]|(?<=[A-Za-z)],)\"?[-+]?[0-9][0-9.,]*\"?\s*$"  # two columns: "Metric,Value", "Name (ms),12.5"
                  r"|(?<=bytes):[0-9]|(?<=ercent):[0-9]|(?<=econds):[0-9]|(?<=\.Count):[0-9]"
                  r"|(?<=\t[0-9])|(?<=\t)[^\t\n]{0,80}\t"  # a tab-separated table's row or header
                  r"|(?<=[0-9])[ \t]{2,}[-+]?[0-9]"  # a fixed-width row of bare numbers ("MIN:   167.0   119.0")
                  r"|(?<=\])[ \t]{2,}[-+]?[0-9]"  # values after their names' bracket ("Bytes In  [total, mean]  9686, …")
                  r"|(?<=\[)\s*$"  # a JSON array opened at the line's end ("cpu_freqs_khz": [)
                  r"|(?<=\)):\s*$"  # a heading with its unit: "First token latency(msecs):"
                  r"|(?<=iB\])|(?<=\[%\])|(?<=\[W\])"  # nvidia-smi's CSV header: "memory.used [MiB]", "utilization.gpu [%]"
                  r"|(?<=of size [0-9])"  # ggml's failed allocation, in bytes without a unit: "buffer of size 4725934080"
                  r"|(?<=float64\([0-9])|(?<=float32\([0-9])"  # NumPy 2's scalars: "'accuracy': np.float64(0.5587)"
                  r"|(?<=^[0-9])[0-9.]*\s*$"  # a number alone: a one-column CSV's cell ("tps" then "1.73", "2.44", …)
                  r"|(?<=Mem:)|(?<=Swap:)|(?<=Tasks:)|(?<=iB Mem :)|(?<=[0-9]\+[0-9]) records"  # free, top, dd
                  r"|(?<=[0-9])(?=[MG][Hh]z[ \t]*\*))")  # rocm-smi's current clock level, starred


_BLOCK_BAR_MARK = LazyPattern("\u2595|\\] \\[|\u2501")  # a bar of block elements, indicatif's, rich's (``_block_bar``)


class FigureReader(LineShapes, TableShapes, StructuredShapes, SystemToolShapes):
    """Reads labelled figures line by line; bounded in memory whatever the log's length."""

    def __init__(self) -> None:
        self._runs: list[Run] = [Run()]
        self._seen: dict = {}  # (label, value, unit) -> (run, index) of the figure kept
        self._count = 0
        self.figures_dropped = 0
        self._header: Optional[list] = None  # the open table's column names
        self._ruled = False  # a rule ("|---|", "┡━━━╇") stood under the open table's header
        self._csv: Optional[list] = None  # the open CSV's column names
        self._spaced: Optional[list] = None  # the open fixed-width table's column names
        self._spaced_starts: Optional[list] = None  # where its names start in the header line (None: tab-separated)
        self._spaced_indented = False  # its header line was indented: it may lack the corner over the rows' names
        self._heading: Optional[tuple] = None  # (label, unit) of the heading the lines below are statistics of
        self._previous: Optional[str] = None  # the label of the last figure of the line before, if it had one
        self._nest: Optional[list] = None  # open objects of JSON printed over several lines: [name, unit] each
        self._held: Optional[list] = None  # a family's line's figures, until ``settle``
        self._bar_values: dict = {}  # a progress bar's label -> how many of its rates were kept
        self._bare = 0  # figures of kind "value" kept (MAX_VALUES: they never take the others' places)
        self._bars = 0  # a progress bar's figures kept (MAX_BAR_FIGURES: neither do they)
        # the stream's line before the one being fed (StreamParser's): the header of a fixed-width table whose
        # header nothing led this reader to read (it has no number); None: unknown
        self.line_before: Optional[Callable[[int], Optional[str]]] = None
        self._pending = 0  # figures a family took from its claimed lines, kept Pending (MAX_PENDING; not MAX_FIGURES)
        self._npu = "0"  # the NPU of npu-smi's row above (its chip's row names only the chip)
        self._mlc_table = None  # Intel MLC's table row just read and its columns (the next row continues it)
        self._column: Optional[list] = None  # a one-column table's [name, unit, cells read]
        self._quoted: Optional[list] = None  # the lines so far of a CSV row whose quoted cell goes on over lines
        self._matrix: Optional[tuple] = None  # the open device matrix's (title, unit, columns)
        self._matrix_unit: Optional[str] = None  # the last device matrix's unit (its SUM line's)

    def feed(self, text: str, routed: "bool | frozenset" = False) -> None:
        """One line without prefixes; ``routed``: the families shown it too (True: some family's; empty, False: none)."""
        stripped = _normalized(text)
        if not stripped:
            return
        stripped = self._tab_pair(stripped) if "\t" in stripped else stripped
        if self._quoted is not None and not (stripped := self._quoted_row(stripped)):
            return
        if self._matrix is not None and self._matrix_row(stripped, text, routed):
            return
        if stripped[0] in "DGC0S" and self._matrix_line(stripped, text, routed):
            return
        if stripped[0].isdigit() and self._spaced is None and self._nest is None \
                and _BARE_NUMBER.fullmatch(stripped) is not None:
            self._column_cell(stripped, text, routed)  # read only under a column's name: the gate lets any number
            return                                     # alone through
        if ("it [" in stripped or "B [" in stripped) and not (stripped := self._counted_bar(stripped, text, routed)):
            return
        if _BLOCK_BAR_MARK.search(stripped) and (rest := self._block_bar(stripped, text, routed)) is not None:
            if not (stripped := rest):
                return
        if "%" in stripped and ("|" in stripped or "<" in stripped) and (rest := self._bar(stripped, text, routed)) is not None:
            stripped = rest  # its description, what its brackets hold after the rate ("est. speed input: 7.48 toks/s")
        if self._whole_line(stripped, text, routed) or self._piped(stripped, text, routed):
            return
        self._header = None
        if "," in stripped and self._csv_line(stripped, text, routed):
            return
        self._csv = None
        if self._table_row(stripped, text, routed):
            return
        if self._structured(stripped, text, routed):
            return
        heading, self._heading = self._heading, None
        previous, self._previous = self._previous, None
        if text[:1].isspace():  # an indented line may continue the figure of the line above
            self._previous = previous
        m = _HEADING.fullmatch(stripped) if _BARE_DIGIT.search(stripped) is None else None
        if m is not None and len(m["label"].split()) <= MAX_LABEL_WORDS:
            label = m["label"].strip()
            self._heading = (_label(label), m["unit"] or _key_unit(label))
            return
        if (stat := _stat_row(stripped)) is not None and (heading := heading or self._heading_above(stat)) is not None:
            self._described(heading, stat, text, routed)
            return
        if "..." in stripped:
            stripped = _LEADER.sub(": ", stripped)
        if "p(" in stripped:
            stripped = _PAREN_PERCENTILE.sub(r"p\1", stripped)
        if "|#" in stripped and (metric := _UNIT_METRIC.search(stripped)) is not None:
            # TorchServe's "MemoryUsed.Megabytes:4818.03|#Level:Host|#hostname:…": the unit is the name's suffix
            self._add(metric["name"], metric["num"], _METRIC_UNITS[metric["unit"]], text, routed)
            return
        if self._alone_or_bulleted(stripped, text, routed):
            return
        if "#" in stripped and self._commented(stripped, text, routed):
            return
        if self._pairs(stripped, text, routed, heading):
            self._heading = heading  # statistics of the heading: the next line may hold more

    def _alone_or_bulleted(self, s: str, text: str, routed: bool) -> bool:
        """A value alone with its unit ("66.23 tok/sec", LM Studio's stats: the unit says what it is), or values
        apart by bullets (``_bulleted``); whether ``s`` was one of these."""
        if ("\u2022" in s or "\u00b7" in s or "\u250a" in s) and self._bulleted(s, text, routed):
            return True
        if self._previous is None and (lone := _LONE.fullmatch(s)) is not None:
            self._add(lone["unit"], lone["num"], lone["unit"], text, routed)
            return True
        return False

    def _bulleted(self, s: str, text: str, routed: bool) -> bool:
        """A line of figures apart by bullets ("— 3.4 tok/s • 23 tok • 0.4 s first token —", a UI's footer): each
        part read as a line of its own, a value alone labelled by its unit; whether it was such a line."""
        parts = [part.strip(" -\u2013\u2014") for part in _BULLET.split(s)]
        if len(parts) < 2 or not all(parts) or "\u250a" not in s and not any(_LONE.fullmatch(part) for part in parts):
            return False  # (no part a value alone: a sentence's clauses, "· prompt capped at 512 tokens ·")
        words = None  # a part of words only names the value after it ("Model loaded · 12.5 s")
        for part in parts:
            if (lone := _LONE.fullmatch(part)) is not None:
                self._add(words or lone["unit"], lone["num"], lone["unit"], text, routed)
            else:
                self._pairs(part, text, routed)
            words = _label(part) if not any(ch.isdigit() for ch in part) else None
        return True

    def _heading_above(self, stat: re.Match) -> Optional[tuple]:
        """The heading over a problem's shape and its figure (``_SHAPED``) or a colon statistic (``_COLON_STAT``, whose
        heading must name the unit) that the gate kept from this reader ("FP32:" has no figure), found in the lines
        above past the rows under it; None for other rows or none found."""
        colon = "colon" in stat.re.groupindex
        if not ("dims" in stat.re.groupindex or colon) or self.line_before is None:
            return None
        for back in range(1, HEADER_LINES_BACK + 1):
            above = (self.line_before(back) or "").strip()
            if not above or _SHAPED.fullmatch(above) is not None or _COLON_STAT.fullmatch(above) is not None:
                continue
            if not above.endswith(":") or _BARE_DIGIT.search(above) is not None:
                return None
            m = _HEADING.fullmatch(above) or (_bracket_unit(above[:-1]) if above.endswith("):") else None)
            heading = (_label(m["label"].strip()), m["unit"]) if m is not None else None
            return heading if heading is not None and (heading[1] or not colon) else None  # (a colon's: a unit)
        return None

    def _tab_pair(self, s: str) -> str:
        """A name and its number a tab apart ("Tokens\t2,196", an app's stats panel) as "name: number", unless a
        tab-separated header stands over it; else ``s``."""
        pair = _TAB_PAIR.fullmatch(s)
        return f"{pair[1]}: {pair[2]}" if pair is not None and not self._under_tab_header() else s

    def _under_tab_header(self) -> bool:
        """Whether the name-and-number lines above this one stand under a tab-separated header ("System\tWER"): a
        table's rows, read with their column's name, not pairs."""
        for back in range(1, MAX_TAB_ROWS + 1):
            above = self.line_before(back) if self.line_before is not None else None
            if above is None or "\t" not in above:
                return False
            above = _normalized(above).strip("*")
            if _TAB_PAIR.fullmatch(above) is None:
                return not any(ch.isdigit() for ch in above)
        return False

    def _commented(self, stripped: str, text: str, routed: bool) -> bool:
        """A YAML value with its comment (``_COMMENTED``); True: read."""
        m = _COMMENTED.fullmatch(stripped)
        if m is None:
            return False
        unit = _key_unit(m["key"]) or next((u for rx, u in _COMMENT_UNITS if rx.search(m["comment"])), None)
        self._add(_label(m["key"]), m["num"], unit, text, routed, bare=True)
        return True

    def _piped(self, stripped: str, text: str, routed: bool) -> bool:
        """A line of a table with bars (markdown, a box, a labelled row, a rule without its outer bars); True: read."""
        if stripped.startswith("|") and "th=[" in stripped and self._percentiles(stripped, text, routed):
            return True  # fio's " |  1.00th=[13042],  5.00th=[14353], …": no table
        # (a new header and its rule above the row open a table of their own, though the last one's stays open: the
        # heading line between them was never fed)
        if stripped.startswith("|") or stripped.count("|") >= 2 and (self._ruled_above(stripped) or self._header is not None):
            self._table(stripped, text, routed)
            return True
        if stripped[0] == "+" and self._header is not None and set(stripped) <= _RULE_CHARS:
            self._ruled = True  # tabulate's grid: "+-----+-----+" between rows, "+=====+" under the header
            return True
        if "|" in stripped and ":" in stripped and _LABELLED_ROW.fullmatch(stripped) is not None:
            label, values = stripped.split("|", 1)  # "Total Latency (ms):   | 262159.4 | 260907.7": a row of its own
            self._table(f"| {label.rstrip()[:-1]} | {values}", text, routed)
            return True
        return "|" in stripped and "-" in stripped and "-|" in stripped.replace(" ", "") \
            and self._rule_without_pipes(stripped)

    def _column_cell(self, s: str, line: str, routed: bool) -> None:
        """A number alone on its line, as a cell of a one-column table when the line above names what it is ("tps"
        then "1.73", "2.44", …: "tps [1]", "tps [2]", a table's cells, not a list's: past LIST_ITEMS) or is the cell
        above."""
        above = self.line_before(1) if self.line_before is not None else None
        above = above.strip() if above else ""
        if self._column is None or _BARE_NUMBER.fullmatch(above) is None:
            m = _COLUMN_NAME.fullmatch(above)
            unit = m and (m["unit"] or _key_unit(above))
            self._column = [above, unit, 0] if m is not None and _unit_kind(unit, _words(above))[1] else None
        if self._column is None:  # a table's cells, bound only as any figures are (MAX_VALUES, MAX_FIGURES)
            return
        self._column[2] += 1
        name, unit, i = self._column
        self._add(f"{_label(name)} [{i}]", s, unit, line, routed, bare=True)

    def _quoted_row(self, s: str) -> str:
        """A line of a CSV row whose quoted cell spans lines (a model's answer in an eval's results): "" while the
        cell is still open, the whole row once it closes (at most MAX_QUOTED_LINES lines; past them the row is
        dropped, this line read on its own)."""
        self._quoted.append(s)
        if s.count('"') % 2 == 0:
            if len(self._quoted) > MAX_QUOTED_LINES:
                self._quoted = None
                return s
            return ""
        row, self._quoted = "\n".join(self._quoted), None
        return row

    # -- keeping ---------------------------------------------------------------------------------------------
    def _add(self, label: str, num_text: str, unit_text: Optional[str], line: str, routed: bool,
             noise_label: Optional[str] = None, bare: bool = False, core: bool = True, bar: bool = False) -> bool:
        """Keep one figure; whether it is one (kept, or already kept, or past the cap), not noise. ``noise_label``:
        the part of the label that says whether it is noise (a row's name, when its column is a statistic);
        ``core``: False for a figure that is no one measurement (an end of a range), which fills no core key;
        ``bar``: a progress bar's (kept apart, MAX_BAR_FIGURES)."""
        if not label or label in _NO_LABEL:
            return False
        words = _words(label)  # "maxNumActiveRequests" is classified as "max Num Active Requests"
        unit, kind = _unit_kind(unit_text, words)
        if kind is None and words == "time" and unit_text is None and _SMALL_FRACTION.fullmatch(num_text):
            kind = "duration"  # "'time': '2.447'" (GPTQModel's record of a module): a clock prints no such fraction
        elif kind is None and unit_text is None and words in _UNIT_KEYS:  # "s=0.00014, TFLOP/s=004.626" (Marlin's
            unit, kind = words, "duration"                                 # bench): the key is the value's unit
        if kind is None and bare and unit_text is None:
            if num_text in ("0", "1") and label.isupper() or _STAT_COLUMN.fullmatch(label) is not None:
                return False  # "AVX = 1", "NEON: 0": a build's or device's flag; "p25 = 0.17": of what, unsaid
            kind = "value"  # "Peak Batch pp: 208.4", a table's cell: labelled, its kind not printed
        value = number(num_text)
        if kind == "ratio" and unit is None and value is not None and value > 1 and words.endswith("progress"):
            return False  # "progress = 0.43" is a fraction done; "progress: 2048/15806" counts tokens (a fraction's own)
        if kind is None or value is None or _is_noise(words if noise_label is None else _words(_label(noise_label)), kind, unit):
            return False
        if kind == "duration" and abs(value) * _TO_MS.get(unit, 1.0) > EPOCH_MS:  # "model_load_start_ms": a clock
            return False
        # "2x A100", "1920x1080": a count of things, a resolution ("4倍", four times, is a ratio)
        if unit == "x" and "." not in num_text and unit_text != "\u500d":
            return False
        if unit == "B" and value != int(value):  # "0.5B" (a draft model's billions of parameters): no half byte
            return False
        if kind == "frequency" and value < 0:  # "CPU boost: -100 MHz": an offset someone set, no clock's rate
            return False
        if kind == "count" and value != int(value) and 0 < value <= 1 and words.endswith(" usage"):
            kind = "ratio"  # SGLang's "token usage: 0.96": a share of the KV pool, no count of tokens
        if kind == "count":
            if value < 0:
                return False
            if unit in MAGNITUDES:  # "75.3K" tokens: 75300 of them
                value, unit = round(value * MAGNITUDES[unit]), None
            if value == int(value):
                value = int(value)
            elif _AVERAGED.search(words) is None:
                return False
        if self._held is not None:  # a family's line: kept or not once the family has read it (``settle``)
            self._held.append((label, value, unit, kind, line, words, num_text, routed, bar, core))
            return True
        self._keep(label, value, unit, kind, line, words, routed, routed if core else None, bar)
        return True

    def _keep(self, label: str, value: float, unit: Optional[str], kind: str, line: str, words: str,
              routed, core_routed, bar: bool = False) -> None:
        """Keep one figure (and the core key its label names, unless ``core_routed`` is None); ``routed`` marks
        the figure, ``core_routed`` the core key (see ``runs``)."""
        key = _core_key(words, kind, unit) if core_routed is not None else None
        run = self._runs[-1]
        if key is not None:
            core = _core_value(key, value, unit)
            if core is not None:
                if key in run.core:
                    if len(self._runs) >= MAX_RUNS:
                        return
                    run = Run()
                    self._runs.append(run)
                run.core[key] = (core, core_routed)
        figure = Figure(label, value, unit, kind, line.strip()[:MAX_LINE_CHARS])
        ident = (label, value, unit)
        if ident in self._seen:
            if not routed:  # seen first on a line a family was shown: this line, which none was, keeps it
                kept_run, i = self._seen[ident]
                kept_run.figures[i] = (kept_run.figures[i][0], routed)
            return
        if bar:
            if self._bars >= MAX_BAR_FIGURES:
                return
            self._bars += 1
        elif kind == "value":
            if self._bare >= MAX_VALUES:
                return
            self._bare += 1
        elif self._count >= MAX_FIGURES:
            self.figures_dropped += 1
            return
        else:
            self._count += 1
        self._seen[ident] = (run, len(run.figures))
        run.figures.append((figure, routed))

    # -- a family's lines ----------------------------------------------------------------------------------
    def hold(self) -> None:
        """The next line fed is one a family is shown too: its figures wait for ``settle``."""
        self._held = []

    def settle(self, took, claimed: bool) -> bool:
        """Decide the held line's figures once the families shown it have read it; whether it gave a figure (a
        value the families left, even one kept already from an earlier line, or a new one).

        ``took(value, num_text)`` says whether one of them took that value; None: the line is not vetted
        (a family met first on its periodic line), its figures go as if never held. With ``claimed`` (the
        claiming family was shown the line) the values the family took are marked ``Pending`` (kept only if
        its final records no longer hold them: it always wins) and the others kept as from a line no family
        read, without core keys: "K (f16): 2560.00 MiB" beside the "KV self size" llama.cpp takes, a server's
        in-flight "tg = 28.52 t/s" it passes over. While no family has claimed the log, a line a family took a
        non-zero value from is one it reads as a measurement: its other values are kept unmarked; the rest are
        marked ``Pending`` with the families shown the line (``runs``: kept unless the claiming family was shown
        the line and its final records hold the value)."""
        held, self._held = self._held, None
        if not held:
            return False
        before = self._count + self._bare + self._bars + self._pending
        taken = [took is not None and took(h[1], h[6]) for h in held]
        measured = any(t and h[1] != 0 for t, h in zip(taken, held))  # a zero is in every family's run
        left = False  # a value the families left: the line's shape yields figures, even one kept already
        for h, was_taken in zip(held, taken):
            label, value, unit, kind, line, words, _num_text, routed, bar, core = h
            core_routed = routed if core else None  # (an end of a range, an amount made: no core key)
            if claimed:
                if took is not None and not was_taken:
                    left = True
                    self._keep(label, value, unit, kind, line, words, False, None, bar)
                elif took is not None:
                    self._keep_pending(Figure(label, value, unit, kind, line.strip()[:MAX_LINE_CHARS]), _num_text)
            elif measured and not was_taken:
                left = True
                self._keep(label, value, unit, kind, line, words, False, core_routed, bar)
            else:
                self._keep(label, value, unit, kind, line, words, Pending(_num_text, routed), core_routed, bar)
        return left or self._count + self._bare + self._bars + self._pending > before

    def _keep_pending(self, figure: Figure, num_text: str) -> None:
        """Keep a figure the family took, marked ``Pending`` (``runs`` decides); at most MAX_PENDING per log."""
        ident = (figure.label, figure.value, figure.unit)
        if ident in self._seen or self._pending >= MAX_PENDING:
            return
        run = self._runs[-1]
        self._seen[ident] = (run, len(run.figures))
        self._pending += 1
        run.figures.append((figure, Pending(num_text)))

    @property
    def has_pending(self) -> bool:
        """Some figure waits for the family's final records (``Pending``): asked once, at the end."""
        return any(isinstance(mark, Pending) for run in self._runs for _, mark in run.figures)

    def interrupt(self) -> None:
        """A line this reader is not shown came: a fixed-width table open before it is over."""
        self._spaced = None

    @property
    def open(self) -> bool:
        """A fixed-width table's header or row was the last line: the next may be a row of bare numbers, which
        the gate lets through only by chance, so it is to be fed whatever the gate says; or a JSON array printed
        one number a line is open (``"cpu_freqs_khz": [`` then ``2400000,`` …), or a heading whose statistics may
        follow (pandas' ``describe()`` rows: ``mean     204.032341``), or a CSV's header was read: its rows may mix
        names and numbers the gate does not know (``exp_000,3,Correct,0.316,"H, B"``), or a device matrix's
        (rows of numbers one space apart)."""
        return self._spaced is not None or (self._nest is not None and self._nest[-1][2] is not None) \
            or self._heading is not None or self._csv is not None or self._matrix is not None

    @property
    def full(self) -> bool:
        """No more figure will be kept (only core keys still are, which matter in a log no family claims)."""
        return self._count >= MAX_FIGURES and self._bare >= MAX_VALUES

    def runs(self, family_claimed: bool, family: Optional[str] = None, took=None) -> list[Run]:
        """The runs found; with ``family_claimed``, figures from lines the claiming ``family`` was shown before
        it claimed the log are left out (any family's, when None): it read those lines, and it always wins. A
        line only another family was shown ("_duration" is ollama's key, on a Triton metric) keeps its figures.
        A ``Pending`` figure is kept when ``took`` (a ``taken.Taken`` of the family's final records) says they
        do not hold its value, else left out."""
        if not family_claimed:
            return [r for r in self._runs if r.core or r.figures] or [Run()]

        def kept_figure(figure: Figure, mark) -> bool:
            if isinstance(mark, Pending) and read_by_family(mark.shown):
                return took is not None and not took(figure.value, mark.num_text)
            return not read_by_family(mark.shown if isinstance(mark, Pending) else mark)

        def read_by_family(shown) -> bool:
            return bool(shown) and (family is None or shown is True or family in shown)

        out = []
        for r in self._runs:
            kept = Run()
            kept.core = {k: v for k, v in r.core.items() if not read_by_family(v[1])}
            kept.figures = [(f, False) for f, mark in r.figures if kept_figure(f, mark)]
            out.append(kept)
        return out
