"""The general figure reader: labelled figures from lines no family parser reads, in the few shapes logs use.

    reader = FigureReader()
    reader.feed(text, routed=False)       # text: a line without its prefixes; routed: a family was shown it
    reader.runs(family_claimed) -> list[Run]
    merge(reports, runs, claimed, framework) -> list[dict]   # folds them into a family's reports (StreamParser)
    SelfName().feed(raw_line); .name      # the name a log prints about itself (routes.SELF_NAMES) or None

Shapes read (``value`` as printed, ``unit`` normalised, ``kind`` one of ``duration``, ``rate``, ``size``,
``percent``, ``count``, ``ratio``):

* ``Label: 2760.401ms``, ``label = 12.5 tokens/s``, ``label=3.2s``, ``label="177.15ms"`` (key=value pairs, several
  per line: each is one figure);
* ``Loaded the model in 3.2 s`` / ``warmup took 850ms``: the words before ``took``/``in`` are the label;
* ``Throughput (T/s) 0.80``: a label with its unit in brackets, then the number;
* ``Prompt tokens: 24328 in 23.32s (1043.05 tokens/s)``: a count, its time and rate (labels ``… tokens``,
  ``… tokens time``, ``… tokens rate``);
* ``Prefix cache hitrate 50.00%``: words, then a number with its unit (read last: the shapes above come first);
* ``Time(s): tokenize 0.54, prefill 126.99, decode 362.44``: a group with its unit, then ``name value`` pairs
  (label ``Time prefill``);
* ``| col (ms) | col |`` tables: a header row of names, then rows of numbers; each cell is a figure labelled by its
  column (unit from the column's brackets);
* a JSON object on one line: each numeric member whose key names a time, rate, size or token count;
* CSV: a header of 3+ names, then rows of as many numbers; each cell labelled by its column (unit from its
  brackets or suffix: ``prefill_tps``, ``ttft (ms)``, ``kv_bytes``);
* a shell's ``time`` line (zsh's ``12.77s user 8.83s system 131% cpu 16.393 total``, GNU time's ``…elapsed``).
* a change from one value to another, ``Decode speed: 12.3 -> 15.6 tok/s`` (``Decode speed`` 15.6, ``Decode speed
  from`` 12.3); in a table cell with a statistic after it, ``37.9 -> 37.6 (Max 38.1)`` (``… from``, ``… max``);
* a table cell's signed change in brackets, ``1,483 (−1.1%)``, ``50.1% (−5.2pp)`` (``… change``, in % or percentage
  points), and a cell used out of a total, ``4644MiB / 32768MiB`` (``… total``).

A figure needs a unit, or a label naming tokens/requests (a count) or a ratio (``_RATIO``: concurrency,
acceptance, speed-up, utilization, …); else, in a strong shape (``label: n``, ``key=n``, a JSON member, a table's
or CSV's cell, a Prometheus sample), it is of kind ``value`` (no unit printed, a label that names none), unless its
label names a setting, flag, code or clock (``_VALUE_NOISE``). Noise never becomes a figure: labels naming threads, seeds, ids, ports,
addresses, versions, dates, sizes of batches/contexts/layers, limits of counts and sizes (``max_tokens``), and
values that are parts of dates, times of day, addresses or hex. Identical (label, value, unit) figures are kept once; at most
``MAX_FIGURES`` per log (the first ones; ``figures_dropped`` counts the lines' figures past it), and apart from
them at most ``MAX_VALUES`` of kind ``value``.

Core figures (filled only in a log no family claims; a family parser always wins, see ``merge``): a duration
labelled prefill / prompt processing / prompt eval -> ``prompt_eval_ms``, decode /
generation / eval -> ``eval_ms``, load -> ``load_ms``, total -> ``total_ms``, time to first token / TTFT ->
``ttft_ms``; rates of prefill/prompt -> ``prompt_tps``, of decode/generation/eval/output -> ``eval_tps``; counts
of input/prompt tokens -> ``prompt_tokens``, of generated/output/completion tokens -> ``eval_tokens``. A core key
seen again starts a new run (as in ``figures.Runs.put``); at most ``MAX_RUNS`` runs per log.

Which lines: every line ``GATE`` finds something in (a number with a unit, a table bar, a word naming tokens, a
JSON key with a unit) is read, and the lines after a fixed-width table's header or row (``open``). A line the
claiming family reads is read too, after the family (``hold``/``settle``): the values the family took from it
are left out (it always wins), the others are figures. Before a family claims the log, a figure from a line some
family was shown is marked with the names of the families shown it (``routed``): if one of them claims the log,
it is kept only when that family's final records do not hold its value (``Pending``); a line only another
family was shown keeps its figures. A line made noise as a whole is not read: argparse's ``Namespace(…)``, llama.cpp's ``worst-case:``
reservation, a next token's candidates with their probabilities.
"""
from __future__ import annotations

import csv
import functools
import json
import re
from typing import Callable, NamedTuple, Optional

from ...core.lazy_re import LazyPattern
from .units import duration_ms, go_duration_ms, number

MAX_FIGURES = 256
MAX_VALUES = 256  # figures of kind "value" (no unit, a label that names no kind), kept apart: they never crowd the others out
MAX_PENDING = 64  # figures a family took, kept until its final records show whether it still holds them
# A "duration" longer than this is a clock reading since 1970 (a JSON "…_start_ms": 1711754028137), not a duration.
EPOCH_MS = 1e11  # ~3 years
_TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3, "min": 6e4, "h": 3.6e6}
MAX_RUNS = 1000
MAX_LABEL_CHARS = 60
MAX_LINE_CHARS = 300

_NUM = r"[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?"  # "1.88269e+06" as ORT GenAI's benchmark prints it
_TIME_UNITS = {"ns": "ns", "us": "us", "µs": "us", "μs": "us", "ms": "ms", "msec": "ms", "msecs": "ms", "milliseconds": "ms",
               "millisecond": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
               "min": "min", "mins": "min", "minutes": "min", "h": "h", "hours": "h", "microseconds": "us",
               "microsecond": "us", "usec": "us", "nanoseconds": "ns", "nanosecond": "ns", "nsec": "ns", "\u6beb\u79d2": "ms", "\u79d2": "s"}
_RATE_UNITS = {"tokens/s": "tokens/s", "token/s": "tokens/s", "tokens/sec": "tokens/s", "tok/s": "tokens/s",
               "tok/sec": "tokens/s", "t/s": "tokens/s", "tps": "tokens/s", "tokens per second": "tokens/s",
               "it/s": "it/s", "req/s": "req/s", "requests/s": "req/s", "ms/t": "ms/token", "ms/token": "ms/token",
               "ms/tok": "ms/token", "requests/sec": "req/s", "tokens/sec/user": "tokens/s", "tokens/s/user": "tokens/s",
               "tok/s/user": "tokens/s", "toks/s/user": "tokens/s", "t/s/u": "tokens/s", "t/s/user": "tokens/s",
               "token/s/user": "tokens/s", "tok/sec/user": "tokens/s",
               "queries/s": "req/s", "s/token": "s/token", "s/tok": "s/token", "/s": "/s",
               "token / sec": "tokens/s", "tokens / sec": "tokens/s", "token / s": "tokens/s", "tokens / s": "tokens/s",
               "ms / token": "ms/token", "ms / tok": "ms/token", "fps": "fps", "toks/s": "tokens/s", "toks/sec": "tokens/s",
               "tokens/second": "tokens/s", "token/second": "tokens/s",
               "s/it": "s/it", "qps": "req/s", "rps": "req/s",
               "tokens/min": "tokens/min", "requests/min": "req/min", "req/min": "req/min",
               "reqs/s": "req/s", "req/s/replica": "req/s", "reqs/s/replica": "req/s", "req/s/user": "req/s",
               "reqs/s/user": "req/s", "req/s/gpu": "req/s", "reqs/s/gpu": "req/s"}  # Ray Serve's "reqs/s/replica"
_PER_SECOND = LazyPattern(r"/sec(?:ond)?\b")
# A bracket that remarks on a figure, left out of its label: "Average milliseconds/request (includes waiting time
# on server): 18217.93"
_REMARKS = ("includ", "exclud", "incl.", "excl.", "e.g.", "i.e.")
_PER_ITEM = LazyPattern(r"\b(milliseconds|seconds|ms|s)/[a-z_]+$", re.I)  # a label naming its unit: "milliseconds/request"
_POWER_UNITS = {"W": "W", "mW": "mW", "kW": "kW"}
_TEMPERATURE_UNITS = frozenset(("\u00b0c", "\u2103", "degc", "celsius"))  # "38.1 °C", "temp_c": a device's temperature
_SIZE_WORDS = {"bytes": "B", "kilobytes": "kB", "megabytes": "MB", "gigabytes": "GB"}
_SIZE_UNITS = frozenset(("B", "KiB", "MiB", "GiB", "TiB", "kB", "KB", "MB", "GB", "TB", "kb"))
_COUNT_UNITS = {"tokens": "tokens", "token": "tokens", "tok": "tokens", "requests": "requests", "runs": "runs",
                "cycles": "cycles", "samples": "samples", "calls": "calls", "chunks": "chunks", "iterations": "iterations",
                "queries": "queries", "token(s)": "tokens", "request(s)": "requests"}  # ollama's "18 token(s)"
_UNIT = (r"(?:tokens per second|tokens? / s(?:ec)?|ms / tok(?:en)?|tokens?/s(?:ec(?:ond)?)?(?:/user)?|toks?/s(?:ec)?(?:/user)?|[tT]/s(?:/u(?:ser)?)?|it/s|s/it|reqs?/s(?:/(?:replica|user|gpu))?|requests/s|req(?:uests)?/sec|queries/s|ms/t(?:ok(?:en)?)?|"
         r"s/tok(?:en)?|tps|TPS|RPS|rps|milliseconds?|msec|ms|microseconds?|usec|nanoseconds?|nsec|seconds?|secs?|s|µs|μs|us|ns|minutes|mins?|hours|h|"
         r"[KMGT]i?B/s|kB/s|B/s|[KMGT]i?B|[KMGT]ib|kB|kb|B|bytes|\u00b0C|\u2103|degC|%|token\(s\)|request\(s\)|tokens?|tok|requests|runs|queries|cycles|samples|calls|chunks|iterations|/s|[mk]?W|BPW|bpw|/min|\u6beb\u79d2|\u79d2|x|\u00d7)(?![\w/=])"
         r"|(?:[KMGT]i?B|kB)(?=/[\d.])")  # "(1.53GB/23.99GB)": a size used of a total

# Every number, with the unit after it if any; what stands before it (read on the reversed text before the number,
# so each regex is anchored and linear) says the shape and the label.
_VALUE = LazyPattern(r"(?<![\w.])(?P<num>" + _NUM + r")(?:\s*(?P<unit>" + _UNIT + r")|(?![\w.]))")
_BEFORE_CHARS = 96
# Go's and Rust's durations with more than one part ("1m17.112s", "2h3m0.5s"): one figure in ms, read first.
# Their parts may be separated by ", " or ":" ("0h, 0m, 3s", "006h:08m:39s": one duration, never the "0h" first).
_MULTI_DURATION = LazyPattern(r"(?<![\w.])\d+(?:\.\d+)?(?:h|m(?!s)|s)(?:(?:,\s*|:)?\d+(?:\.\d+)?(?:h|ms|m|s|\u00b5s|us|ns))+"
                              r"(?![\w.])")
_PART_SEPARATOR = LazyPattern(r",\s*|:")
# (shape, reversed regex of what precedes the number): a label with the unit in brackets ("Throughput (T/s) 0.80",
# "Mean TTFT (ms): 123.2"), "… took / in / after 3.2 s", "label: 12" / "label=12" / 'label="12ms"', "label 50.00%".
_BEFORE = (
    ("bracket", LazyPattern(r"[~\u2248]?\s*[:=]?\s*\)(?P<unit>[^()]{1,40})\(\s*(?P<label>[\w /-]*[^\W\d_])(?![\w.])")),
    # "End to End Latency (ms) avg: 328.207": a statistic between the bracketed unit and the colon
    ("bracket", LazyPattern(r"\s*[:=]\s*(?P<stat>gva|naem|naidem|xam|nim|dts|(?:\d\.)?\d{1,2}p)\s+\)(?P<unit>[^()]{1,16})\("
                            r"\s*(?P<label>[\w /-]*[^\W\d_])(?![\w.])")),
    ("pair", LazyPattern(r"\s*:\s*([\"'])(?P<label>[\w .-]*[A-Za-z][\w.-]*)\1")),  # '"duration_ms": 8687', Python's dict repr
    ("took", LazyPattern(r"\s+(?:koot|ni|retfa|ta)\s+(?P<label>[\w -]*[^\W\d_])(?![\w.])")),
    # "10% percentile …", 'before.total="16.0 GiB"' (a dotted key: ollama's memory fields)
    ("pair", LazyPattern(r"[~\u2248#]?\"?\s*[:=]\s*(?P<label>[\w /#%-]*(?:(?<=\w)\.[A-Za-z_][\w-]*)*(?:[^\W\d_]|%\d{1,3}|(?:[A-Z]|ts|dn|dr|ht)\d{1,4}))(?![\w.])")),
    ("spaced", LazyPattern(r"\s+(?P<label>[\w -]*[^\W\d_])(?![\w.])")),
)
# "Prompt tokens: 24328 in 23.32s (1043.05 tokens/s)", "decoded  673 tokens in   12.132 seconds, speed: 55.47 t/s":
# a count, its time and (maybe) its rate, labelled by the words before the count.
_TRIPLE = LazyPattern(r"(?<![\w.])(?P<count>\d+)\s*(?:tok(?:ens?)?\s+(?:(?P<word>[a-z]+)\s+)?)?in\s+(?P<num>" + _NUM + r")\s*(?P<unit>" + _UNIT
                     + r")(?:[\s,(=]*(?:speed:?\s*)?(?P<rate>" + _NUM + r")\s*(?P<runit>" + _UNIT + r"))?")
_TRIPLE_LABEL = LazyPattern(r"\s*[:=]?\s*(?P<label>[\w -]*[A-Za-z])")
# A value whose label follows it: "9997 prompt tok, 4207.9 prefill tok/s", "18.40 decode TPS", "0.3 s first token",
# "20 generation tokens", "0 cached tokens and 118010 new tokens at …": words (and maybe the unit) up to a
# separator, "and"/"at", or the line's end.
_AFTER = LazyPattern(r"\s+(?:of\s+)?(?P<label>[A-Za-z][A-Za-z_-]*(?: [A-Za-z_-]+){0,3}?)(?:\s+(?P<unit>" + _UNIT
                    + r"))?\s*(?=[,;|\u2022()\]]|(?:and|at)\s|$)")
# A value opening a bracket after words: "tokens (264.70 tok/s)" (reversed, as _BEFORE's).
_IN_BRACKETS = LazyPattern(r"\s*\(\s*(?P<label>[A-Za-z][A-Za-z -]{0,40}?[A-Za-z])(?![\w.])")
# What may stand between a figure and an unlabelled rate that belongs to it: "Token generation: 353 us, 0.46 tokens/s".
_JOINED = LazyPattern(r"[\s,(=/@]*")  # "63.27ms @ 15.81 tok/s/user": the rate of the same figure
# "85.41 +/- 2.67 ms / token", "1287.54 ± 66.23": the spread after a value, in the unit printed after both.
_PLUS_MINUS = r"\s*(?:\u00b1|\+/-)\s*"
_SPREAD = LazyPattern(_PLUS_MINUS + r"(?P<num>" + _NUM + r")\s*(?P<unit>" + _UNIT + r")?")
_NUMBER_WORD = LazyPattern(_NUM)
# A row of values after a label and its colon, no header: "Request Throughput (req/sec): |  0.9765 | 0.9812"
_LABELLED_ROW = LazyPattern(r"[A-Za-z][^|:]*:\s*(?:\|\s*" + _NUM + r"\s*(?:" + _UNIT + r")?\s*)+\|?")
# A change from one value to another: "Decode: 12.3 -> 15.6 tok/s", a cell "37.9 -> 37.6 (Max 38.1)" (its last bracket
# a statistic of the same quantity)
_ARROW_SIGN = r"\s*(?:->|\u2192|=>)\s*"
_ARROW = LazyPattern(r"(?<![\w.])(?P<a>" + _NUM + r")\s*(?P<aunit>" + _UNIT + r")?" + _ARROW_SIGN + r"(?P<b>" + _NUM
                     + r")\s*(?P<bunit>" + _UNIT + r")?(?![\w.])")
_ARROW_CELL = LazyPattern(r"(?P<a>" + _NUM + r")\s*(?:" + _UNIT + r")?" + _ARROW_SIGN + r"(?P<b>" + _NUM + r"\s*(?:" + _UNIT
                          + r")?)(?:\s*\((?P<stat>[A-Za-z]+)\.?\s*[:=]?\s*(?P<c>" + _NUM + r")\s*(?:" + _UNIT + r")?\))?")
# A cell of a size or power used out of a total: "4644MiB / 32768MiB", "245W / 250W"
_OF_TOTAL_CELL = LazyPattern(r"(?P<used>" + _NUM + r"\s*(?:" + _UNIT + r"))\s*/\s*(?P<total>" + _NUM + r")\s*(?:" + _UNIT + r")")
_METRIC_UNITS = {"Percent": "%", "Megabytes": "MB", "Gigabytes": "GB", "Kilobytes": "kB", "Bytes": "B",
                 "Milliseconds": "ms", "Microseconds": "us", "Seconds": "s", "Count": None}
_UNIT_METRIC = LazyPattern(r"(?P<name>[A-Za-z]\w*)\.(?P<unit>" + "|".join(_METRIC_UNITS) + r"):(?P<num>" + _NUM + r")\|#")
_LONE = LazyPattern(r"(?P<num>" + _NUM + r")\s*(?P<unit>" + _UNIT + r")")  # a line of one value and its unit
_UNIT_WORD = LazyPattern(_UNIT)
# The group shape's head ends in its bracketed unit and a colon; the regex runs only on lines that have one.
_GROUP_MARK = LazyPattern(r"\)\s*:\s*[A-Za-z]")
_GROUP = LazyPattern(r"(?P<head>[A-Za-z][\w -]*?)\s*\((?P<unit>[^()]{1,12})\)\s*:\s*")
_GROUP_ITEM = LazyPattern(r"(?P<label>[A-Za-z][\w -]*?)\s+(?P<num>" + _NUM + r")(?=[\s,;.]|$)")
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
                  r"(?:(?<=\d)\s{0,16}(?:[mnu\u00b5\u03bc]?s|(?:milli|micro|nano)?sec(?:ond)?s?|[mnu]sec|mins?|h|toks?|tps|TPS|RPS|rps|[tT]/s|it/s|/s|req(?:uests?)?|[KMGT]i?B|kB|kb|bytes|%|user|elapsed|[mk]?W|cycles|samples|calls|chunks|iterations|\u00b0C|\u2103|degC|x(?!\w))"
                  r"(?![A-Za-z])|(?<=[tT])oken|(?<=[|\u2502\u2503\u2551])|(?<=_)(?:ms|s|tps|per_second)\""
                  r"|(?<=[mun]s\)|/s\)|\(s\)|iB\))|(?<=[KMGTk]B\))|(?<=\(%\))"
                  r"|(?<=[\w) \t][:=])[ \t]*[-+]?[0-9][0-9.,]*(?:[eE][-+]?[0-9]+)?\s*$"  # "Successful requests: 1780"
                  r"|(?<=_)(?:ms|s|us|ns|sec|seconds|tps|per_s)\s*:?\s*$"  # a heading: "ttft_s" alone on its line
                  r"|(?<=\":)\s*\"?[-+]?[0-9]|(?<=\" :)\s*\"?[-+]?[0-9]|(?<=unit\")\s*:"  # JSON members, one a line
                  r"|(?<=\{)\s*$|(?<=\})\s*,?\s*$|(?<=\})[ \t]+[-+]?[0-9]"  # a JSON object's ends, a metric{…} value
                  r"|(?<=_)(?:total|sum|count|seconds|bytes)[ \t]+[-+]?[0-9]"  # a Prometheus sample without labels
                  r"|(?<=[0-9]),[0-9][0-9.]*,[0-9]|(?<=[A-Za-z_)],)[A-Za-z_][\w()/%.-]*,[A-Za-z_(]"  # CSV rows, headers
                  r"|(?<=etric,)[A-Za-z]|(?<=[A-Za-z)],)\"?[-+]?[0-9][0-9.,]*\"?\s*$"  # two columns: "Metric,Value", "Name (ms),12.5"
                  r"|(?<=bytes):[0-9]|(?<=ercent):[0-9]|(?<=econds):[0-9]|(?<=\.Count):[0-9]"
                  r"|(?<=\t[0-9])|(?<=\t)[^\t\n]{0,80}\t"  # a tab-separated table's row or header
                  r"|(?<=[0-9])[ \t]{2,}[-+]?[0-9]"  # a fixed-width row of bare numbers ("MIN:   167.0   119.0")
                  r"|(?<=[:=]\[[0-9])|(?<=[:=] \[[0-9])"  # a list after its label ("Latencies: [2561.47, …]")
                  r"|(?<=\])[ \t]{2,}[-+]?[0-9]"  # values after their names' bracket ("Bytes In  [total, mean]  9686, …")
                  r"|(?<=\[)\s*$"  # a JSON array opened at the line's end ("cpu_freqs_khz": [)
                  r"|(?<=\)):\s*$)")  # a heading with its unit: "First token latency(msecs):"
# Columns of a statistics table ("┃ Metric ┃ avg ┃ min ┃ max ┃ p99 ┃ std ┃"): "min"/"max" there are a row's
# statistics, not the limits _NOISE leaves out ("max tokens 512").
_STAT_COLUMN = LazyPattern(r"avg|mean|median|med|min|max|std|stdev|stddev|p\d{1,2}(?:\.\d+)?", re.I)
# A heading on its own line names the statistics under it ("ttft_s" then "    p25 = 0.17", "Time to First Token
# (ms):" then "  Mean: 56.46"): no number, at most MAX_LABEL_WORDS words, maybe a unit in brackets, maybe a colon.
_HEADING = LazyPattern(r"(?P<label>[A-Za-z_][\w .-]{0,60}?)\s*(?:\((?P<unit>[^()\d]{1,12})\))?\s*:?")
_DESCRIBE = LazyPattern(r"(?P<stat>count|mean|std|min|max|\d{1,2}%)\s+(?P<num>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")
_BARE_DIGIT = LazyPattern(r"(?<!\w)\d")  # a heading holds no number ("e2e_latency_s" may hold digits in a word)
_LEADER = LazyPattern(r"\s*\.{3,}\s*:?")  # "http_req_duration.......: avg=1.2s" (k6's dots)
_PAREN_PERCENTILE = LazyPattern(r"\bp\((\d{1,2}(?:\.\d+)?)\)")  # "p(95)=3.9s" -> "p95=3.9s"
_LINE_HEAD = LazyPattern(r"\s*(?P<head>[A-Za-z_][\w ./-]{0,60}?)\s*[:=]")
_CELL_UNIT = LazyPattern(r"^(?P<label>.*?)\s*\((?P<unit>[^()]+)\)\s*$")
# a cell's value, maybe its spread ("1287.54 ± 66.23"), its share in brackets ("100 (100.0%)") or its change against
# another column, signed ("74.22 (-9.3%)", "50.1% (-5.2pp)": percentage points)
_CELL_VALUE = LazyPattern(r"(?P<num>" + _NUM + r")\s*(?P<unit>" + _UNIT + r")?(?:" + _PLUS_MINUS + r"(?P<spread>" + _NUM
                          + r")\s*(?P<sunit>" + _UNIT + r")?|\s*\((?P<share>" + _NUM + r")\s*(?P<shunit>%|pp)\))?")  # "1900.72 ± 33.74 t/s"
# JSON printed over several lines (indent=2): one member a line, its objects' names giving the labels ("request_latency"
# then "avg": 6655.52 -> "request latency avg"), a "unit" member its siblings' unit.
_MEMBER = LazyPattern(r"\"(?P<key>[^\"]{1,60})\"\s*:\s*(?P<value>\{|\[|\"[^\"]*\"|[-+]?\d[\d.eE+-]*|true|false|null)\s*,?")
_QUOTED_NUMBER = LazyPattern(r'"[-+]?\d+(?:\.\d+)?"')
_PER_MINUTE = LazyPattern(r"(?:^|[ _])(tokens?|requests?|req)/min$")
_ARRAY_ITEM = LazyPattern(r"([-+]?\d[\d.eE+-]*)\s*,?")  # one number of a JSON array printed one a line
_JSON_OPEN = frozenset(("{", "[", "[{", "{,"))
_JSON_CLOSE = frozenset(("}", "},", "]", "],", "}]", "}],"))
MAX_JSON_DEPTH = 16
# Prometheus' text format (a /metrics scrape pasted in a log): "name{labels} value [timestamp]"; buckets left out.
_METRIC = LazyPattern(r"(?P<name>[A-Za-z_:][\w:]*)(?:\{(?P<labels>[^{}]*)\})?\s+(?P<num>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
                      r"(?:\s+\d+)?")
_METRIC_SUFFIXES = ("_total", "_sum", "_count", "_seconds", "_bytes")  # a sample without labels: its name says so
_METRIC_LABEL = LazyPattern(r"\w+=\"(?P<value>[^\"]*)\"")
# Fixed-width tables ("Test    TTFT(ms)    TPOT(ms)    pp TPS" then "pp1024/tg128    5123.4    58.96    199.9 tok/s"):
# columns two or more spaces apart, a header of 3+ names, then rows of as many cells, 2+ of them values.
# "Latencies: [2561.47, 2561.20]" and vegeta's "Latencies  [min, mean, 50]  232.884ms, 1.35s, 834.257ms"
_NUMBER_LIST = LazyPattern(r"(?P<label>[A-Za-z][\w .-]{0,40}?)\s*[:=]\s*\[(?P<items>\s*[-+]?\d[\d.eE+-]*"
                           r"(?:\s*,\s*[-+]?\d[\d.eE+-]*)+)\s*\]")
_NAMED_LIST = LazyPattern(r"^(?P<label>[A-Za-z][\w ]{0,40}?)\s*\[(?P<names>code:count|[A-Za-z_]\w*(?: \w+)*(?:, ?\w+(?: \w+)*)*)\]"
                          r"[ \t]+(?P<values>[-+]?\d[^\[\]]*)$")
_CODE_COUNT = LazyPattern(r"(?<!\S)(\d{1,3}):(\d+)(?!\S)")  # a status code and how many responses had it
LIST_ITEMS = 64
_FRACTION = LazyPattern(r"(\d+)/(\d+)")  # a table cell "3247/3248": how many of how many (requests succeeded)
_PAIR_CELL = LazyPattern(r"[A-Za-z_][=:]\s*[-+]?\d")  # a cell holding "key=value" figures of its own
_COLUMN_GAP = LazyPattern(r"\s{2,}|\t")  # tab-separated tables too (a spreadsheet's cells pasted)
MIN_SPACED_COLUMNS = 3
MAX_HEADER_CELL_CHARS = 40
# CSV (a benchmark's "-o csv" or its own): a header of 3+ names, then rows of as many numbers (or empty cells).
_CSV_NAME = LazyPattern(r"[A-Za-z_][\w()/%.-]*(?: [\w()/%.-]+){0,3}")
_CSV_NUMBER = LazyPattern(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|")
_ROW_HEADERS = frozenset(("metric", "metrics", "name", "statistic", "stat", "measure", "measurement", "benchmark"))
MIN_CSV_COLUMNS = 3
# A shell's `time`: zsh's "12.77s user 8.83s system 131% cpu 16.393 total" and GNU time's "12.77user 8.83system
# 0:16.39elapsed 131%CPU": the labels stand after the values, the wall time may be [h:]m:ss.
_SHELL_TIME = LazyPattern(r"(?P<user>\d+(?:\.\d+)?)s? ?user (?P<system>\d+(?:\.\d+)?)s? ?system "
                          r"(?:(?P<cpu>\d+)% ?cpu (?P<total>(?:\d+:){0,2}\d+(?:\.\d+)?) total"
                          r"|(?P<elapsed>(?:\d+:){1,2}\d+(?:\.\d+)?)elapsed (?P<gcpu>\d+)%CPU)")
# Box-drawing tables (rich, tabulate's fancy grid): their bars read as "|", their rules as "|---|".
# CJK text's full-width colon, brackets, comma and equals; the minus sign U+2212 of a typeset delta ("(\u22121.1%)")
_PLAIN_PUNCTUATION = str.maketrans("\uff1a\uff08\uff09\uff0c\uff1d\u2212", ":(),=-")
# A progress bar: its description, its percentage, maybe tqdm's bar, "n/total", and in brackets its times and rate.
_BAR = LazyPattern(r"(?:(?P<desc>[A-Za-z][^|%]*?)[:\s]\s*)?\d{1,3}%\s*(?:Completed\s*)?\|(?:[^|]*\|)?\s*(?P<done>\d+)/(?P<total>\d+)\s*"
                   r"\[(?P<inner>[^\]]*)\]")
_BAR_ELAPSED = LazyPattern(r"\s*(?:(?P<h>\d+):)?(?P<m>\d+):(?P<s>\d\d)<")  # a bar's "[00:48<00:00, …": time so far
# stable-diffusion.cpp's bar: "  |=================>          | 7/20 - 925.00s/it"
_STEP_BAR = LazyPattern(r"\|[=>#\- ]*\|\s*\d+/\d+\s*-\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>s/it|it/s)\s*$")
# gin's access line: "[GIN] 2025/10/30 - 00:11:38 | 200 |    1.865926ms |       127.0.0.1 | HEAD     \"/\""
_GIN_ACCESS = LazyPattern(r'\[GIN\][^|]*\|\s*\d{3}\s*\|\s*(?P<latency>[\d.]+[^\s|]*)\s*\|[^|]*\|\s*(?P<method>[A-Z]+)\s+"(?P<path>[^"]*)"')
_GO_ONE_UNIT = LazyPattern(r"(?P<num>\d+(?:\.\d+)?)(?P<unit>ns|us|\u00b5s|\u03bcs|ms|s)")
_SMI_ROW = LazyPattern(r"\|\s*(?:(?P<fan>\d+)%|N/A)\s+(?:(?P<temp>\d+)C|N/A)\s+P\d+\s+(?:(?P<power>\d+(?:\.\d+)?)W|N/A)\s*/\s*"
                       r"(?:\d+(?:\.\d+)?W|N/A)\s*\|\s*(?P<used>\d+)MiB\s*/\s*(?P<total>\d+)MiB\s*\|\s*(?:(?P<util>\d+)%|N/A)")
# llama.cpp's device list: "  - Vulkan0 : AMD Radeon RX 6600 (RADV NAVI23) (8192 MiB, 8169 MiB free)"
_DEVICE_MEMORY = LazyPattern(r"-\s*(?P<dev>[A-Za-z][\w.-]*)\s+:.*\((?P<total>\d+(?:\.\d+)?) MiB, (?P<free>\d+(?:\.\d+)?) MiB free\)$")
_SMI_FIGURES = (("GPU fan", "fan", "%"), ("GPU temperature", "temp", "\u00b0C"), ("GPU power", "power", "W"), ("GPU memory used", "used", "MiB"),
                ("GPU memory total", "total", "MiB"), ("GPU util", "util", "%"))
# ... or of bytes (a download: "config.json: 2.09kB [00:00, 15.8MB/s]", its size so far and its rate)
_BAR_COUNTED = LazyPattern(r"(?:(?P<desc>[A-Za-z][^|%\[:]*?):?\s+)?(?:\d+it|(?P<size>\d+(?:\.\d+)?)(?P<sunit>[kMGT]?B)) "
                           r"\[(?:\d+:)?\d+:\d\d,\s*(?P<num>\d+(?:\.\d+)?)(?P<unit>it/s|s/it|[kMGT]?B/s)\]")
BAR_LABEL = "progress bar"  # the label of a bar that prints no description
_BAR_RATE = LazyPattern(r"(?<![\w.])(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[A-Za-z]+/s|s/it)\b")
BAR_VALUES = 3
MAX_BARS = 256
# "(MiB)" closing a line of bare values; each item "name value", maybe after its group's "head:".
_UNIT_AT_END = LazyPattern(r"\s\((?P<unit>[KMGT]i?B|[KMGT]B|ms|us|s)\)$")
_UNIT_ITEM = LazyPattern(r"(?:(?P<head>[^:]*[A-Za-z][^:]*):\s*)?(?P<label>[A-Za-z][\w -]*?)\s+(?P<num>[-+]?\d+(?:\.\d+)?)")
_BOX_BARS = str.maketrans("\u2502\u2503\u2551", "|||")
_RULE_CHARS = frozenset("-:= ") | frozenset(chr(c) for c in range(0x2500, 0x2580))

_NOISE = LazyPattern(r"thread|seed|\bpid\b|\bids?\b|_id\b|\bport\b|addr|address|version|\bdate\b|year|month|"
                    r"\bday\b|hour\b|\bbuild\b|commit|(?<!ggml[ _])ctx|context[ _-]?(?:len|length|window|shift|size)\b|\bn_(?!tokens\b|decoded\b|gen\b|prompt_tokens\b)|"
                    r"(?<![a-z])line\b|"
                    r"temperature|top_?[kp]|penalty|\bpos\b|\bpercent(?!ile)|^n\b(?! (?:tokens|decoded|gen|prompt tokens)$)|budget|"
                    r"per block|units per", re.I)
# What a count or size labelled by a part of the work is: which part ("layer 12", "step 3", "rank 0", "8 workers"),
# noise; that part's time or rate is a figure ("DecodeStep 104.636 seconds", "EncodeLayer 68.09 seconds").
_INDEX_NOISE = LazyPattern(r"layer|rank|\bworkers?\b|\bcores?\b(?!\s*ml)|\bshard|\bslot|\btask\b(?!\.)|\bstep\b|epoch|index|\bidx",
                           re.I)
_TIMED_KINDS = frozenset(("duration", "rate"))
# Limits ("max tokens 512", "max_num_seqs: 256", "memory limit 80 GiB") and token ids ("EOS token = 50256"): noise
# in counts, sizes and ratios; a duration, rate or percentage labelled max/min is a statistic ("Max ITL (ms): 123.4"),
# one labelled "… per token" a cost ("Average time per token: 0.0295 seconds").
_LIMIT = LazyPattern(r"\bmax\b|\bmin\b|limit|(?<!first )(?<!second )(?<!per )(?<!output )(?<!input )(?<!prompt )(?<!generated )\btoken$", re.I)  # "EOS token = 50256"
_LIMIT_KINDS = frozenset(("count", "size", "ratio", "value"))
# A batch's size or a limit spelled out ("batch 512 tokens", "Maximum concurrency for 29000 tokens per request"):
# noise in counts and sizes; a batch's time or rate is a figure ("batchd time = 727.40 ms"), and a ratio
# labelled maximum/minimum is the computed capacity ("Minimum concurrency: 3.31x").
_SETTING = LazyPattern(r"batch(?!\.n[ _]|d\b|ed\b)|\bmaximum\b|\bminimum\b", re.I)
# A column named by a setting's value ("Batch 1", "bs=8", "ctx 4096"): its cells are measurements at that setting,
# noise or not by their row's name.
_SETTING_COLUMN = LazyPattern(r"(?:batch(?: size)?|bs|ctx|context|concurrency|conc|threads?|n)\s*[=:]?\s*\d+", re.I)
_SETTING_KINDS = frozenset(("count", "size", "percent", "value"))
# A size labelled max/min that names memory in use is a measured peak ("max_allocated 5856 MB"), not a limit.
_MEASURED = LazyPattern(r"\b(?:ram|vram|rss|allocated|reserved|used|usage|peak|inflight|in-flight|queued)\b", re.I)
_SIZE_NOISE = LazyPattern(r"(?<!model )\bsize\b", re.I)  # "batch size 8", "page size by 0.99%": settings, adjustments
_SIZE_NOISE_KINDS = frozenset(("count", "ratio", "percent", "value"))
_CANDIDATES = LazyPattern(r"(?:\(\s*\S*\s+\d+(?:\.\d+)?%\)\s*){3}")
# A labelled number of no stated kind is a setting, a code or a clock when its label says so ("status 200",
# "timestamp 1711754028", "temp 0.7", "n_gpu_layers = 99").
_VALUE_NOISE = LazyPattern(r"stamp|\btime$|created|\bcode$|status|\blevel\b|\bgpu[ _]?layers|\bngl\b|\btemp\b(?![ _]c$)|\bnum\b$"
                           r"|\bpriority|\bverbos|\bdebug|\blog|\bwidth|\bheight|\bdim\b|\bheads?\b|\bvocab|\bembd?\b"
                           r"|\bexpert|quant|\bbits?\b|\bgroup|\bub?atch|\bparallel|chunk|\bpoll|\bprogress$"
                           # sampling and RoPE settings ("mirostat = 0", "freq_base = 10000.0", "f_keep = -1.000")
                           r"|mirostat|typical|repeat|\bdry\b|\bxtc\b|\btfs\b|rep pen|\btop[ _]?[an]\b|sigma|\bfreq(?!s?[ _]?[kmg]?hz)|rope|\bmin[ _]?p\b"
                           r"|\bf[ _]keep|\bsim\b|\bt[ _]last|\bp0\b|\bga[ _]"
                           # flags, modes, types and devices ("flash_attn = 1", "uma: 0", "Device: cuda:0", "u32 = 15")
                           r"|\bis\b|\bhas\b|\buse\b|enable|\bflag|\bmode\b|\btype\b|thinking|causal|flash|\buma\b|\bfp16\b|\bint dot"
                           r"|\bclients?\b|\busers?\b|\bseq$|\bcuda\b|\brocm\b|\bvulkan\b|\bmetal\b|\bdevice\b|(?<![+\w])[uif](?:8|16|32|64)$|caller|knearest|truncat"
                           # a model's hyper-parameters and a loader's switches ("f_norm_rms_eps", "ssm_d_conv", "add_bos")
                           r"|\beps\b|\bssm\b|\battn\b|param|\bno[ _](?:alloc|mmap|kv|warmup|perf|display|cnv|host)|\badd\b|adaptive|disable|\bo[ _]direct|^\w$", re.I)
# A source file's name: a number glued after it and its colon is a line ("[metrics.py:536]", "source=server.go:686"),
# a label that is a path to one is noise; a project named like one is neither ("| mistral.rs | 37.39 |", "llama.cpp")
_SOURCE_FILE = LazyPattern(r"\.(?:py|go|rs|cpp|cc|cxx|c|h|hpp|cu|js|ts|java|kt|swift|mm?|zig)$")
# llama.cpp's system_info ("AVX = 1 | AVX2 = 1 | FMA = 1 | …") and the like: flags, no figures.
_FLAGS = LazyPattern(r"(?:\w+ = [01] \| ){3}")
_PARAMS = LazyPattern(r"\bparam(?:eter)?s?\b", re.I)
_NO_LABEL = frozenset(("to", "from", "by"))  # "increase the size from 0 bytes to 67462144 bytes": no label
# Unitless figures that are counts by their label, besides tokens and requests.
_COUNTED = LazyPattern(r"faults\b|switches\b|errors\b|failures\b|preemptions\b|retries\b|evictions\b|queries\b"
                       r"|blocks\b|^number of\b|^# ?[a-z]+ blocks|hits\b|misses\b"
                       r"|\b(?:eval|prompt|input|output|generated|completion)\b.*\bcount$")  # ollama's "prompt_eval_count"
# Unitless figures that are rates by their label (the unit left unprinted: null).
_UNITLESS_RATE = LazyPattern(r"throughput|per (?:second|minute|sec|min)\b|speed$|\bqps$|\brequests? rate$")
# a word or "/" right after a number (some unit), or a date's or time's next part ("time=2024-11-19T11:57:03")
_UNIT_AFTER = LazyPattern(r"[ \t]?(?!(?:for|at|in|on|with|after|from|to|and|of|by|over|across)\b)[^\W\d_/]|/|[-:.T]\d")
_UNITLESS_KINDS = frozenset(("duration", "rate"))
# What may follow a labelled number printed without a unit for it to be one of no stated kind: the line's end, a
# separator, a bracket, or the next "label:"/"key=" ("pred= 192 draft=   0"); a word after it is a unit this reader
# does not know ("12 files"), and then it is no figure.
_BARE_END = LazyPattern(r"\s*(?:$|[,;|)\]}(]|[A-Za-z_#][\w .#()/-]{0,40}?\s*[:=])")
_UNITLESS_DURATION = LazyPattern(r"(?:\btime|duration|latency|elapsed|\bttft|\btpot|\bitl)(?: (?:to|per) (?:first |output )?token)?"
                                 r"(?: (?:mean|avg|median|min|max|std|stddev|p\d{1,2}(?:\.\d+)?))?$")
_NOT_A_DURATION = LazyPattern(r"stamp|start|\bend|epoch|date|clock|\bat\b|since|until|timeout|wall ?time$|^time$")
# A count's statistic may be fractional ("Average prompt length: 28.59 tokens", "number_input_tokens mean = 570.8").
_AVERAGED = LazyPattern(r"\b(?:avg|average|mean|median|std|stddev|stdev|p\d{1,2}(?:\.\d+)?)\b", re.I)
# Unitless figures that are ratios by their label ("Concurrency: 48.06", "Mean acceptance length: 2.63").
_RATIO = LazyPattern(r"acceptance|concurrency|ratio\b|speed-?up|utili[sz]ation|efficiency|occupancy|\bmfu\b|\bmbu\b",
                     re.I)
_BAD_VALUE_AROUND = LazyPattern(r"\d[:/]\d|\d-\d\d-|0x|\d\.\d+\.\d|\d%\|")  # times, dates, addresses, a bar's %
_LEVEL = LazyPattern(r"^(?:(?:INFO|DEBUG|WARN(?:ING)?|ERROR|TRACE|[IWED])\b\s*)+")
MAX_LABEL_WORDS = 6
_SEP = LazyPattern(r"[\s_]+")
# Words that make a label a step beside the core figure, not the figure ("prompt cache update took 0.01 ms").
_NOT_CORE = LazyPattern(r"cache|update|tokeniz|template|queue|wait|sav|restor|check|per token|/token|sampl|encod|"
                       r"validat|schedul|compil|graph|warm|download|fetch|lookup|mean|median|p\d\d|std|avg|max|min|\u00b1|step|layer|"
                       r" from $| under ")  # "Decode speed from": the value a change came from (``_arrows``), not the
# run's; "duration under prompt eval count": a cell of a row whose cells contradict their columns (``_contradicted``)


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


@functools.lru_cache(maxsize=4096)
def _unit_kind(unit: Optional[str], label: str) -> tuple[Optional[str], Optional[str]]:
    """(normalised unit, kind), or (None, None) when the pair is not a figure; labels and units recur line after
    line, hence the cache."""
    if unit is None:
        low = label.lower()
        if _UNITLESS_DURATION.search(low) is not None and _NOT_A_DURATION.search(low) is None:
            return None, "duration"  # "TotalTime=95.67", "Time To First Token: 5.71": a duration, its unit not printed
        if _UNITLESS_RATE.search(low) is not None:  # "Overall Output Throughput: 68.25": a rate, its unit not printed
            return None, "rate"  # ("Output token throughput (per sec): 26.37" too: no count of tokens)
        if "token" in low or "request" in low or low.rsplit(" ", 1)[-1] in ("tok", "toks"):  # "toks= 954"
            return None, "count"
        if _COUNTED.search(low) is not None:  # "page faults 238571", "context switches 38"
            return None, "count"
        if _RATIO.search(low) is not None:
            return None, "ratio"
        return None, None
    if unit == "%":
        return "%", "percent"
    if unit == "pp":  # "(-5.2pp)" beside a percentage in a table cell: its change in percentage points
        return "pp", "percent"
    low = unit.lower().strip()
    if low not in _RATE_UNITS and "/sec" in low:  # "req/sec", "tokens/second": per second however spelled
        low = _PER_SECOND.sub("/s", low)
    if low in _TIME_UNITS:
        return _TIME_UNITS[low], "duration"
    if low in _RATE_UNITS:
        return _RATE_UNITS[low], "rate"
    if low in _COUNT_UNITS:
        return _COUNT_UNITS[low], "count"
    if unit.strip() in _SIZE_UNITS:
        return unit.strip(), "size"
    if unit in ("Kib", "Mib", "Gib", "Tib"):  # vLLM 0.6's "memory_usage_post_profile=7.89Gib": its GiB misspelt
        return unit[:-1] + "B", "size"
    if low in _SIZE_WORDS:  # "Loaded 6323781632 bytes", "Peak working set size (megabytes): 3051"
        return _SIZE_WORDS[low], "size"
    if unit.endswith("/s"):  # "1466.57 GB/s": a bandwidth; "embeddings/sec: 0.74" (the unit as the label)
        return unit, "rate"
    if unit.strip() in _POWER_UNITS:  # "Power in streaming mode (average) = 3.19395 W"
        return unit.strip(), "power"
    if low in _TEMPERATURE_UNITS:  # "GPU temperature: 61 °C", "| 0%   38C   P8 …" (nvidia-smi's row)
        return "\u00b0C", "temperature"
    if low == "/min":  # "rate= 24.3/min": a load generator's requests a minute
        return "/min", "rate"
    if low == "bpw":  # "file size = 60.85 GiB (4.85 BPW)": bits per weight, a quantization's density
        return "BPW", "ratio"
    if unit in ("x", "\u00d7"):  # "Speedup: 1.12x", "Minimum concurrency: 3.31x", "**1.27×**"
        return "x", "ratio"
    return None, None


def _bracket_unit(text: str) -> Optional[re.Match]:
    """``text``'s brackets at its end when they hold a unit ("TTFT (ms)"), else None ("ROCm (patched)")."""
    m = _CELL_UNIT.match(text)
    return m if m is not None and _unit_kind(m["unit"], m["label"])[1] is not None else None


def _unit_word_in(name: str) -> Optional[str]:
    """The unit a column's name holds as one of its words ("Prefill t/s", "prompt tok/s pre", "memory GB post")."""
    words = name.split()
    if len(words) < 2:
        return None
    return next((w for w in reversed(words) if _UNIT_WORD.fullmatch(w) and _unit_kind(w, name)[1] is not None), None)


def _words(label: str) -> str:
    """A label with its camelCase humps as words, for telling what it names (the label itself stays as printed)."""
    return _HUMP.sub(" ", label) if not label.islower() and not label.isupper() else label


def _statistic(stat: str, unit: Optional[str], s: str, heading: Optional[tuple]) -> tuple:
    """(label, unit, whether ``heading`` named it) of a bare statistic: labelled by the line's head ("TTFT
    p50=120ms p90=180ms" -> "TTFT p90"; "latency: avg 12.3ms" -> "latency avg"), else by the heading above it,
    whose unit it takes when it prints none ("ttft_s" then "p25 = 0.17" -> "ttft s p25", s)."""
    if " " in stat:  # "wall_TPS  mean= 177.29": the statistic of what the words before it name
        of, stat = stat.rsplit(" ", 1)
        return f"{of} {stat}", unit or _key_unit(of.replace(" ", "_")), False
    m = _LINE_HEAD.match(s)
    if m is not None:
        words = _label(m["head"]).split(" ")
        while words and _STAT_COLUMN.fullmatch(words[-1]):
            words.pop()
        if words and len(words) <= MAX_LABEL_WORDS:
            return f"{' '.join(words)} {stat}", unit or _key_unit("_".join(words)), False
    if heading is not None:
        return f"{heading[0]} {stat}", unit or heading[1], True
    return stat, unit, False


def _joined_label(last: str, kind: Optional[str], unit: Optional[str] = None) -> str:
    """The label of an unlabelled figure that follows one: "prompt time: 15761 ms / 17 tokens (927.1 ms/token)"
    gives "prompt time tokens" and "prompt time tokens rate"; "total 9.55 ms, 104.73 tok/s, 1466.57 GB/s" gives
    "total rate" twice (the values and units tell them apart)."""
    if kind == "rate":
        return last if last.endswith(" rate") else f"{last} rate"
    if kind == "count" and "token" not in last.lower():
        return f"{last} tokens"
    if kind == "ratio" and unit == "BPW":  # "file size = 60.85 GiB (4.85 BPW)": the model's, whatever its label
        return "bits per weight"
    return last


def _label(text: str) -> str:
    """A label as printed, separators made spaces, its log level dropped, its last MAX_LABEL_WORDS words."""
    spaced = _SEP.sub(" ", text.strip(" .-:#")).strip()
    words = (_LEVEL.sub("", spaced) or spaced).split(" ")  # "I 499 ms" (dllama's inference time): "I" is the label
    words = words[-MAX_LABEL_WORDS:]
    while len(words) > 1 and sum(map(len, words)) + len(words) - 1 > MAX_LABEL_CHARS:
        del words[0]  # the last words name the figure ("… IExecutionContext creation GPU"): the first go
    return " ".join(words)[:MAX_LABEL_CHARS]


@functools.lru_cache(maxsize=4096)
def _is_noise(label: str, kind: Optional[str] = None, unit: Optional[str] = None) -> bool:
    """Whether a label names noise (threads, seeds, ids, …; a limit for a count, size or ratio); labels recur line
    after line, hence the cache."""
    if kind in _LIMIT_KINDS and _LIMIT.search(label) is not None and not (kind in ("size", "count")
                                                                           and _MEASURED.search(label)):
        return True
    if kind in _SIZE_NOISE_KINDS and _SIZE_NOISE.search(label) is not None:
        return True
    if kind in _SETTING_KINDS and _SETTING.search(label) is not None and _MEASURED.search(label) is None:
        return True  # "batch 512 tokens"; "Peak Batch pp: 208.4" is measured
    if kind == "value" and _VALUE_NOISE.search(label) is not None:
        return True  # a setting, a code, a clock
    if _SOURCE_FILE.search(label) is not None and ("/" in label or "\\" in label or ":" in label):
        return True  # "server/api.go": a path; "llama.cpp", "mistral.rs" name projects whose figures these are
    if kind == "temperature":  # degrees are a device's reading: "temperature" names a sampling setting elsewhere
        return False
    if kind == "percent" and label.endswith("percentile"):  # trtexec's "percentile(99%)": which one, a setting
        return True
    if unit == "B" and _PARAMS.search(label) is not None:  # "params 6.74 B": billions of parameters, no size
        return True
    if kind not in _TIMED_KINDS and _INDEX_NOISE.search(label) is not None:
        return True
    return _NOISE.search(label) is not None or _NOISE.search(label.replace(" ", "_")) is not None


@functools.lru_cache(maxsize=4096)
def _core_key(label: str, kind: str, unit: Optional[str]) -> Optional[str]:
    """The core ``reported`` key a label clearly means, or None."""
    low = " " + _SEP.sub(" ", label.lower()).replace(".", " ") + " "  # "usage.prompt tokens": a JSON object's member
    if _NOT_CORE.search(low):
        return None
    if kind == "duration":
        if "ttft" in low or "first token" in low:
            return "ttft_ms"
        if any(w in low for w in (" prefill", "prompt processing", "prompt eval", " prompt ", "process ")):
            return "prompt_eval_ms"
        if any(w in low for w in (" decode", "generation", " generate", " eval ", " predicted ")):
            return None if "prompt" in low else "eval_ms"
        if " load" in low or "loading" in low:
            return "load_ms"
        if " total " in low or low.strip() in ("total time", "total"):
            return "total_ms"
        return None
    if kind == "rate" and unit == "tokens/s":
        if " prefill" in low or " prompt" in low:
            return "prompt_tps"
        if any(w in low for w in (" decode", "generation", " eval", " output", " generate")):
            return "eval_tps"
        return None
    if kind == "count" and "token" in low:
        if any(w in low for w in (" input", " prompt", " prefill")):
            return "prompt_tokens"
        if any(w in low for w in (" generated", " output", " completion", " decode", " eval")):
            return "eval_tokens"
    return None


def _core_value(key: str, value: float, unit: Optional[str]) -> Optional[float]:
    if key.endswith("_ms"):
        if unit is None:
            return None  # a duration printed without its unit: kept as a figure, never a core time
        return duration_ms(f"{value!r} {unit}")
    if key.endswith("_tokens"):
        return int(value) if value == int(value) and value >= 0 else None
    return value


def _before(reversed_head: str) -> Optional[tuple]:
    """(shape, label, unit in brackets or None) from the reversed text before a number, or None."""
    for shape, rx in _BEFORE:
        m = rx.match(reversed_head)
        if m is not None:
            unit = m["unit"][::-1] if shape == "bracket" else None
            label = m["label"][::-1]
            if shape == "bracket" and m.groupdict().get("stat"):
                label = f"{label} {m['stat'][::-1]}"
            if reversed_head[m.end():m.end() + 1] in ("=", ":") and " " in label.strip():
                label = label.strip().split(" ", 1)[1]  # "reason=length prefill_tokens=": "length" is a value
            if shape == "pair" and reversed_head[m.end():m.end() + 1] == "/" and " " in label.strip() \
                    and reversed_head[m.end() + 1:m.end() + 2].isdigit():
                label = label.strip().split(" ", 1)[1]  # "rate= 24.3/min  sent=  25": "min" is the rate's unit
            if shape in ("spaced", "took"):  # "vocab_size 32000 decoding-time 5894.14 ms": a number ends a label
                words = label.split()
                cut = max((i + 1 for i, w in enumerate(words) if _NUMBER_WORD.fullmatch(w)), default=0)
                if 0 < cut < len(words) and _UNIT_WORD.fullmatch(words[cut]):  # "G 559 ms I 499 ms": "I", not "ms I"
                    cut += 1
                label = " ".join(words[cut:])
                if not label or (shape == "spaced" and _UNIT_WORD.fullmatch(label)):  # "63 kB  2.1 kB/s"
                    return None
            return shape, label, unit
    return None


def _normalized(text: str) -> str:
    """A line as the shapes read it (quoting, box bars and full-width punctuation made plain), or "" for a line
    that is noise as a whole."""
    stripped = text.strip()
    if not stripped or "Namespace(" in stripped or "worst-case:" in stripped:
        return ""  # a tool's arguments echoed back (argparse), llama.cpp's "worst-case: n_tokens = 512": settings
    if " = 1 |" in stripped and _FLAGS.search(stripped) is not None:
        return ""  # llama.cpp's system_info: which instruction sets and features the build has
    if "%)" in stripped and _CANDIDATES.search(stripped) is not None:
        return ""  # the next token's candidates and their probabilities ("[( then 83.75%) ( feeling 4.20%) …]")
    if stripped[0] == ">":  # a post's quoted block ("> Prefill\t12.3…"), a shell's ">>" continuation prompt
        stripped = stripped.lstrip("> ")
        if not stripped:
            return ""
    if stripped[0] in "\u2502\u2503\u2551":
        stripped = stripped.translate(_BOX_BARS)
    if not stripped.isascii():  # "显存占用：14881MiB", "1,483 (−1.1%)"
        stripped = stripped.translate(_PLAIN_PUNCTUATION)
    return stripped


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


def _cell_values(cells: list) -> tuple:
    """(each cell's value match or None, each cell's other figures [(label suffix, number), …]) of a table row."""
    values, others = [], []
    for cell in cells:
        value, more = _CELL_VALUE.fullmatch(cell), []
        if value is None and (compound := _compound(cell)) is not None:
            value, more = compound
        values.append(value)
        others.append(more)
    return values, others


def _compound(cell: str) -> Optional[tuple]:
    """A table cell holding more than one figure: (its value, as ``_CELL_VALUE`` reads a plain cell, [(label suffix,
    number), …] of the others), or None: "37.9 -> 37.6 (Max 38.1)" is 37.6, "from" 37.9 and "max" 38.1; "4644MiB /
    32768MiB" is 4644 and "total" 32768."""
    if "->" in cell or "\u2192" in cell or "=>" in cell:
        m = _ARROW_CELL.fullmatch(cell)
        if m is not None:
            return _CELL_VALUE.fullmatch(m["b"]), [("from", m["a"])] + ([(m["stat"].lower(), m["c"])] if m["c"] else [])
    if "/" in cell:
        m = _OF_TOTAL_CELL.fullmatch(cell)
        if m is not None:
            return _CELL_VALUE.fullmatch(m["used"]), [("total", m["total"])]
    return None


def _named_unit(shape: Optional[str], label: Optional[str]) -> Optional[str]:
    """The unit a label's key names when none is printed: prefill_elapsed_ms=12, decode_tps=5.38, "FPS (hw)",
    "tokensPerSec 49.97"."""
    if shape in ("pair", "bracket"):
        return _key_unit(label.split(" (", 1)[0].strip())
    if shape == "spaced" and label and ("_" in label or not label.islower()):
        return _key_unit(label.rsplit(" ", 1)[-1])
    return None


class FigureReader:
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
        self._spaced_indented = False  # its header line was indented: it may lack the corner over the rows' names
        self._heading: Optional[tuple] = None  # (label, unit) of the heading the lines below are statistics of
        self._previous: Optional[str] = None  # the label of the last figure of the line before, if it had one
        self._nest: Optional[list] = None  # open objects of JSON printed over several lines: [name, unit] each
        self._held: Optional[list] = None  # a family's line's figures, until ``settle``
        self._bar_values: dict = {}  # a progress bar's label -> how many of its rates were kept
        self._bare = 0  # figures of kind "value" kept (MAX_VALUES: they never take the others' places)
        # the stream's line before the one being fed (StreamParser's): the header of a fixed-width table whose
        # header nothing led this reader to read (it has no number); None: unknown
        self.line_before: Optional[Callable[[int], Optional[str]]] = None
        self._pending = 0  # figures a family took from its claimed lines, kept Pending (MAX_PENDING; not MAX_FIGURES)

    def feed(self, text: str, routed: "bool | frozenset" = False) -> None:
        """One line without prefixes. ``routed``: the names of the families shown this line too (True: some
        family's; empty or False: none)."""
        stripped = _normalized(text)
        if not stripped:
            return
        if ("it [" in stripped or "B [" in stripped) and not (stripped := self._counted_bar(stripped, text, routed)):
            return
        if "%" in stripped and "|" in stripped and (rest := self._bar(stripped, text, routed)) is not None:
            stripped = rest  # its description, what its brackets hold after the rate ("est. speed input: 7.48 toks/s")
        if self._whole_line(stripped, text, routed):
            return
        if stripped.startswith("|") or (self._header is not None and stripped.count("|") >= 2):
            self._table(stripped, text, routed)
            return
        if "|" in stripped and ":" in stripped and _LABELLED_ROW.fullmatch(stripped) is not None:
            label, values = stripped.split("|", 1)  # "Total Latency (ms):   | 262159.4 | 260907.7": a row of its own
            self._table(f"| {label.rstrip()[:-1]} | {values}", text, routed)
            return
        if "|" in stripped and "-" in stripped and "-|" in stripped.replace(" ", "") \
                and self._rule_without_pipes(stripped):
            return
        self._header = None
        if "," in stripped and self._csv_line(stripped, text, routed):
            return
        self._csv = None
        if ("  " in stripped or "\t" in stripped) and self._spaced_line(stripped, text, routed):
            return
        if (self._nest is not None or stripped in _JSON_OPEN or stripped.endswith("{")) \
                and self._json_member(stripped, text, routed):
            return
        if stripped.startswith("{") and stripped.endswith("}"):
            if self._json(stripped, text, routed):
                return
        if ("}" in stripped or "_" in stripped) and (metric := _METRIC.fullmatch(stripped)) is not None and (
                metric["labels"] is not None or ":" in metric["name"] or metric["name"].endswith(_METRIC_SUFFIXES)):
            self._metric(metric, text, routed)
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
        if heading is not None and (stat := _DESCRIBE.fullmatch(stripped)) is not None:
            self._described(heading, stat, text, routed)
            return
        if "..." in stripped:
            stripped = _LEADER.sub(":", stripped)
        if "p(" in stripped:
            stripped = _PAREN_PERCENTILE.sub(r"p\1", stripped)
        if "|#" in stripped and (metric := _UNIT_METRIC.search(stripped)) is not None:
            # TorchServe's "MemoryUsed.Megabytes:4818.03|#Level:Host|#hostname:…": the unit is the name's suffix
            self._add(metric["name"], metric["num"], _METRIC_UNITS[metric["unit"]], text, routed)
            return
        if self._previous is None and (lone := _LONE.fullmatch(stripped)) is not None:  # "66.23 tok/sec" alone (LM Studio's stats): the unit
            self._add(lone["unit"], lone["num"], lone["unit"], text, routed)  # says what it is
            return
        if self._pairs(stripped, text, routed, heading):
            self._heading = heading  # statistics of the heading: the next line may hold more

    # -- shapes ----------------------------------------------------------------------------------------------
    def _whole_line(self, s: str, line: str, routed: bool) -> bool:
        """The shapes a whole line is one of: values before a unit closing it, sd.cpp's step bar, gin's access line,
        nvidia-smi's GPU row."""
        if s.endswith(")") and self._unit_at_end(s, line, routed):
            return True
        if s.startswith("|") and "/" in s and (bar := _STEP_BAR.match(s)) is not None:
            self._bar_rate(BAR_LABEL, bar["num"], bar["unit"], line, routed)
            return True
        if s.startswith("[GIN]") and (gin := _GIN_ACCESS.match(s)) is not None:
            self._gin(gin, line, routed)
            return True
        if s.endswith("MiB free)") and (device := _DEVICE_MEMORY.match(s)) is not None:
            self._add(f"{device['dev']} memory total", device["total"], "MiB", line, routed)
            self._add(f"{device['dev']} memory free", device["free"], "MiB", line, routed)
            return True
        if s.startswith("|") and "MiB /" in s and (smi := _SMI_ROW.match(s)) is not None:
            # nvidia-smi's GPU row: "|  0%   38C    P8    16W / 350W |    114MiB / 24576MiB |      0%      Default |"
            for label, group, unit in _SMI_FIGURES:
                if smi[group] is not None:
                    self._add(label, smi[group], unit, line, routed)
            return True
        return False

    def _described(self, heading: tuple, stat: re.Match, line: str, routed: bool) -> None:
        """One row of pandas' describe() under its heading ("First token latency(msecs):" then "mean  204.03")."""
        unit = None if stat["stat"] == "count" else heading[1]
        self._add(f"{heading[0]} {stat['stat']}", stat["num"], unit, line, routed, bare=True,
                  noise_label=f"{heading[0]} avg")
        self._heading = heading

    def _bar(self, s: str, line: str, routed: bool) -> Optional[str]:
        """A progress bar's rate ("Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:00<00:01,
        2.32it/s]", tqdm's "Requests sent 100%|██████| 1000/1000 [ 6.49it/s 02:34/00:00 ]"), labelled by the bar's
        description; at most BAR_VALUES values per bar (a redrawn bar prints a new one each time). The rest of
        its description and of its brackets after the rate, to be read as any text; None when ``s`` is no bar (its percentage done, its
        count and times are progress, never figures)."""
        m = _BAR.match(s)
        if m is None:
            return None
        inner = m["inner"]
        label = _label(m["desc"]) if m["desc"] else BAR_LABEL
        if m["done"] == m["total"] and (elapsed := _BAR_ELAPSED.match(inner)) is not None:  # a finished bar: its time
            seconds = int(elapsed["h"] or 0) * 3600 + int(elapsed["m"]) * 60 + int(elapsed["s"])
            self._bar_rate(f"{label} elapsed", str(seconds), "s", line, routed)
        rate = _BAR_RATE.search(inner)
        desc = (m["desc"] or "") + ", "  # its own figures ("Capturing batches (bs=1 avail_mem=38.07 GB)")
        if rate is None:
            return desc + inner[inner.rfind(",") + 1:] if "," in inner else desc
        self._bar_rate(label, rate["num"], rate["unit"], line, routed)
        return desc + inner[rate.end():].strip(" ,")

    def _gin(self, m: re.Match, line: str, routed: bool) -> None:
        """An access line of Go's gin (ollama's server): the request's latency, labelled by method and path."""
        label = f"GIN {m['method']} {m['path'][:40]} latency"
        one = _GO_ONE_UNIT.fullmatch(m["latency"])
        if one is not None:
            self._add(label, one["num"], one["unit"], line, routed)  # "23.585µs": _unit_kind makes it "us"
        elif (ms := go_duration_ms(m["latency"])) is not None:
            self._add(label, repr(ms), "ms", line, routed)

    def _counted_bar(self, s: str, line: str, routed: bool) -> str:
        """tqdm's bar of no known total ("Processing: 471it [06:15,  1.28it/s]", a download's "2.09kB [00:00,
        15.8MB/s]"): its rate (and size); what follows it."""
        counted = _BAR_COUNTED.match(s)
        if counted is None:
            return s
        label = _label(counted["desc"]) if counted["desc"] else BAR_LABEL
        if counted["size"] is not None:
            self._bar_rate(f"{label} size", counted["size"], counted["sunit"], line, routed)
        self._bar_rate(label, counted["num"], counted["unit"], line, routed)
        return s[counted.end():].strip()

    def _bar_rate(self, label: str, num_text: str, unit: str, line: str, routed: bool) -> None:
        """One rate of a bar, at most BAR_VALUES per bar's label."""
        seen = self._bar_values.get(label, 0)
        if label and seen < BAR_VALUES and len(self._bar_values) < MAX_BARS:
            self._bar_values[label] = seen + 1
            self._add(label, num_text, unit, line, routed)

    def _unit_at_end(self, s: str, line: str, routed: bool) -> bool:
        """Values whose unit closes the line: "… creation: CPU +0, GPU +0, now: CPU 0, GPU 10184 (MiB)"
        (TensorRT's memory lines); each "name value" item, labelled by the words before its group's colon."""
        m = _UNIT_AT_END.search(s)
        if m is None:
            return False
        head, found = None, False
        for part in s[:m.start()].split(","):
            item = _UNIT_ITEM.fullmatch(part.strip())
            if item is None:
                continue
            if item["head"]:
                head = item["head"]
            label = _label(f"{head} {item['label']}" if head else item["label"])
            found = self._add(label, item["num"].lstrip("+"), m["unit"], line, routed) or found
        return found

    def _pairs(self, s: str, line: str, routed: bool, heading: Optional[tuple] = None) -> bool:
        """Every shape but tables, CSV and JSON; whether a statistic of ``heading`` was read."""
        taken: list = []  # spans already read, so one number is one figure
        if "[" in s and ("," in s or "] " in s):
            self._lists(s, line, routed, taken)
        heads = list(_GROUP.finditer(s)) if _GROUP_MARK.search(s) else []
        for m, after in zip(heads, heads[1:] + [None]):
            end = len(s) if after is None else after.start()
            items = list(_GROUP_ITEM.finditer(s, m.end(), end))
            if items:  # "Time(s): tokenize 0.54, prefill 126.99": a group; "Mean TTFT (ms): 123.2" is one figure
                head = _label(m["head"])
                for item in items:
                    self._add(f"{head} {_label(item['label'])}", item["num"], m["unit"], line, routed)
                taken.append((m.start(), end))
        if "->" in s or "\u2192" in s or "=>" in s:
            self._arrows(s, line, routed, taken)
        for m in _TRIPLE.finditer(s) if " in " in s else ():
            head = _TRIPLE_LABEL.match(s[max(0, m.start() - _BEFORE_CHARS):m.start()][::-1])
            if head is None and m["word"] is None:
                continue
            label = _label(head["label"][::-1]) if head is not None else ""
            if "token" not in label.lower():
                label = f"{label} tokens".strip()
            if m["word"] is not None:  # "1934 tokens generated in 504.75 seconds"
                label = f"{label} {m['word']}"
            self._add(label, m["count"], None, line, routed)
            self._add(f"{label} time", m["num"], m["unit"], line, routed)
            if m["rate"] is not None:
                self._add(f"{label} rate", m["rate"], m["runit"], line, routed)
            taken.append(m.span())
        if "user " in s:
            self._shell_time(s, line, routed, taken)
        for m in _MULTI_DURATION.finditer(s) if "m" in s else ():
            found = _before(s[max(0, m.start() - _BEFORE_CHARS):m.start()][::-1])
            if found is not None and found[0] != "bracket":  # "took 1m2s", "real\t0m16.393s", "elapsed=1m2s"
                self._add(_label(found[1]), repr(go_duration_ms(_PART_SEPARATOR.sub("", m[0]))), "ms", line, routed)
            taken.append(m.span())
        return self._values(s, line, routed, taken, heading)

    def _arrows(self, s: str, line: str, routed: bool, taken: list) -> None:
        """A change from one value to another ("Decode speed: 12.3 -> 15.6 tok/s"): the value it came to, labelled
        by the words before the first ("Decode speed"), and the one it came from ("Decode speed from")."""
        for m in _ARROW.finditer(s):
            found = _before(s[max(0, m.start() - _BEFORE_CHARS):m.start()][::-1])
            if found is None:
                continue
            shape, label, unit = found
            unit = (unit if shape == "bracket" and _unit_kind(unit, label)[1] else None) or m["bunit"] or m["aunit"]
            bare = shape in ("pair", "bracket") and unit is None
            label = _label(label)
            if self._add(label, m["b"], unit, line, routed, bare=bare):
                self._add(f"{label} from", m["a"], unit, line, routed, bare=bare)
            taken.append(m.span())

    def _lists(self, s: str, line: str, routed: bool, taken: list) -> None:
        """Numbers in brackets: a list after its label ("Latencies: [2561.47, 2561.20, …]": "Latencies [1]", …, at
        most LIST_ITEMS), or a bracket of names, then as many values ("Latencies  [min, mean, 50, max]  232.884ms,
        1.35s, 834.257ms, 2.899s", vegeta's report: "Latencies min", …)."""
        m = _NAMED_LIST.search(s)
        if m is not None and m["names"] == "code:count":  # vegeta's "Status Codes  [code:count]  0:14  200:236"
            for code, count in _CODE_COUNT.findall(m["values"]):
                self._add(f"{_label(m['label'])} {code}", count, "requests", line, routed)
            taken.append(m.span())
            return
        if m is not None:
            names = [n.strip() for n in m["names"].split(",")]
            cells = [_CELL_VALUE.fullmatch(v.strip()) for v in m["values"].rstrip().split(",")]
            if len(names) == len(cells) and all(cells):
                head = _label(m["label"])
                for name, cell in zip(names, cells):
                    self._add(_label(f"{head} {name}"), cell["num"], cell["unit"], line, routed, bare=True)
                taken.append(m.span())
                return
        for m in _NUMBER_LIST.finditer(s):
            head = _label(m["label"])
            for i, item in enumerate(m["items"].split(",")[:LIST_ITEMS]):
                self._add(f"{head} [{i + 1}]", item.strip(), _key_unit(m["label"].strip().replace(" ", "_")),
                          line, routed, bare=True)
            taken.append(m.span())

    def _shell_time(self, s: str, line: str, routed: bool, taken: list) -> None:
        m = _SHELL_TIME.search(s)
        if m is None:
            return
        wall = m["total"] or m["elapsed"]
        parts = wall.split(":")
        wall_s = sum(float(p) * 60 ** i for i, p in enumerate(reversed(parts)))
        self._add("user time", m["user"], "s", line, routed)
        self._add("system time", m["system"], "s", line, routed)
        self._add("cpu", m["cpu"] or m["gcpu"], "%", line, routed)
        self._add("total time", wall if len(parts) == 1 else repr(round(wall_s, 6)), "s", line, routed)
        taken.append(m.span())

    def _values(self, s: str, line: str, routed: bool, taken: list, heading: Optional[tuple]) -> bool:
        """Every number not read by a shape above, labelled by the words before it (or after it), or by the
        figure it follows ("Token generation: 353 us, 0.46 tokens/s": the rate is the generation's); a bare
        statistic ("p90", "mean") by what it is of. Whether a statistic of ``heading`` was read."""
        last = None  # (label, end) of the figure read last on this line
        of_heading = False
        spreads = "\u00b1" in s or "+/-" in s
        for m in _VALUE.finditer(s):
            start = m.start()
            if any(a <= start < b for a, b in taken):
                continue
            if _BAD_VALUE_AROUND.search(s, max(0, start - 3), m.end() + 3):
                continue
            if start > 2 and s[start - 1] == ":" and _SOURCE_FILE.search(s, max(0, start - 41), start - 1) is not None:
                continue  # "[stats.h:100]", "llama.cpp:1234": a source file's line
            if m["unit"] == "B" and s[m.end("num"):m.end("num") + 1] == "B":
                continue  # "llama 7B Q4_0": a model's billions of parameters, no size in bytes
            head = s[max(0, start - _BEFORE_CHARS):start][::-1]  # what stands before it, reversed
            found = _before(head)
            shape, label, unit = found if found is not None else (None, None, None)
            if shape == "bracket" and _unit_kind(unit, label)[1] is None:
                # "Latency (per token): 0.41 ms", "Total generated tokens (retokenized): 9876": no unit in brackets
                label, unit = (label if unit.startswith(_REMARKS) else f"{label} ({unit})"), m["unit"]
            unit = unit if shape == "bracket" else m["unit"]
            spread = _SPREAD.match(s, m.end()) if spreads else None
            if spread is not None:
                unit = unit or spread["unit"]
                taken.append((spread.start("num"), spread.end()))
            if unit is None:
                unit = _named_unit(shape, label)
            if unit is None or shape is None:
                after = _AFTER.match(s, m.end())
                if after is not None and (after["unit"] or unit):  # "0.3 s first token": "token" is no unit
                    label, unit = (after[0][after.start("label") - after.start():].strip(), unit) if unit \
                        else (after["label"], after["unit"])
                    if after["unit"] in _COUNT_UNITS and "token" not in label.lower():
                        label = f"{label} tokens"  # "0 cached tokens and 118010 new tokens": "cached tokens"
                    shape = "after"
            if shape is None and unit is not None and last is not None and _JOINED.fullmatch(s, last[1], start):
                label, shape = _joined_label(last[0], _unit_kind(unit, "")[1], unit), "joined"
            elif shape is None and unit is not None and last is None and self._previous and not s[:start].strip():
                # "Prompt : 726.74 sec" then "            704.52 token / sec": the figure above, continued
                label, shape = _joined_label(self._previous, _unit_kind(unit, "")[1]), "joined"
            elif shape is None and unit is not None and (paren := _IN_BRACKETS.match(head)):
                # "Processed 2048/8831 tokens (264.70 tok/s)": the words before the bracket
                label, shape = _joined_label(paren["label"][::-1], _unit_kind(unit, "")[1]), "spaced"
            if shape is None or (unit is None and shape in ("took", "spaced")):
                continue  # "… in 3 files", "Seq 3": a number without a unit needs a "label:" before it
            label = _label(label)
            noise = None
            if _STAT_COLUMN.fullmatch(label.rsplit(" ", 1)[-1]) is not None:
                label, unit, used = _statistic(label, unit, s, heading)
                of_heading = of_heading or used
                noise = label.rsplit(" ", 1)[0] + " avg"  # its subject says if it is noise: "max" is the statistic
            if unit is None and _UNIT_AFTER.match(s, m.end()) and _unit_kind(None, _words(label))[1] in _UNITLESS_KINDS:
                continue  # "1st token latency: 0.36 ms/16tokens": a unit this reader does not know, not "none printed"
            if self._add(label, m["num"], unit, line, routed, noise_label=noise,
                         bare=shape in ("pair", "bracket") and unit is None and _BARE_END.match(s, m.end()) is not None):
                last, self._previous = (label, m.end()), label
                if spread is not None:
                    self._add(f"{label} \u00b1", spread["num"], unit, line, routed)
        return of_heading

    def _json_member(self, s: str, line: str, routed: bool) -> bool:
        """One line of JSON printed over several: an object opened or closed, its "unit", or a numeric member (a
        figure labelled by its object's name and its key). False: not such a line (the JSON is over)."""
        nest = self._nest if self._nest is not None else []
        if s in _JSON_OPEN or s in _JSON_CLOSE:
            if s in _JSON_CLOSE:
                nest = nest[:-1]
            else:
                nest = nest + [[None, None, 0 if s[0] == "[" else None]]
            self._nest = nest or None
            return True
        m = _MEMBER.fullmatch(s)
        if m is None and not nest and s.endswith(" {"):  # "… - evalscope - INFO - {": an object printed after a log's text
            self._nest = [[None, None, None]]
            return True
        if m is None and nest and nest[-1][2] is not None and (item := _ARRAY_ITEM.fullmatch(s)) is not None:
            name = nest[-1][0] or (nest[-2][0] if len(nest) > 1 else None)  # "cpu_freqs_khz": [ 2400000, … ]
            nest[-1][2] += 1
            if name and nest[-1][2] <= LIST_ITEMS:
                self._add(f"{_label(name)} [{nest[-1][2]}]", item[1], _key_unit(name), line, routed, bare=True)
            return True
        if m is None or len(nest) >= MAX_JSON_DEPTH:
            self._nest = None
            return False
        key, value = m["key"], m["value"]
        if value in ("{", "["):
            nest = nest + [[key, None, 0 if value == "[" else None]]
        elif key == "unit" and value.startswith('"') and nest:
            nest[-1][1] = value.strip('"')
        elif value[0].isdigit() or value[0] in "+-" or _QUOTED_NUMBER.fullmatch(value) is not None:
            value = value.strip('"')  # "tokens_per_second": "161.70"
            name, unit = nest[-1][:2] if nest else (None, None)
            label = f"{name} {key}" if name else key
            km = _bracket_unit(key) if key.endswith(")") else None  # "Time taken for tests (s)": 375.537
            if km is not None:
                label, unit = (f"{name} {km['label']}" if name else km["label"]), unit or km["unit"]
            unit = unit or _key_unit(key) or (_key_unit(name) if name else None)
            if unit == "%" and label.lower().endswith(("_percent", "_pct")):  # "avg_gpu_load_percent": 0.0
                label = label.rsplit("_", 1)[0]
            stat = name is not None and _STAT_COLUMN.fullmatch(key) is not None  # "schedule_delay": {"min": …}
            self._add(_label(label), value, unit, line, routed, bare=True, noise_label=f"{name} avg" if stat else None)
        self._nest = nest or None
        return True

    def _metric(self, m: re.Match, line: str, routed: bool) -> None:
        """A Prometheus sample: labelled by the metric's name and its first label's value; its unit from the
        name's suffix (``_us``, ``_seconds``, ``_bytes``; ``_total`` and ``_count`` are counts)."""
        name, labels = m["name"], m["labels"]
        if name.endswith("_bucket"):
            return  # one sample per bucket: the _sum and _count say it in two
        base = name[:-6] if name.endswith("_total") else name
        first = _METRIC_LABEL.search(labels) if labels else None
        label = f"{base} {first['value']}" if first is not None else base
        # a histogram's _sum is in the metric's unit ("…_seconds_sum"); its _count counts observations (no unit)
        unit = None if base.endswith("_count") else _key_unit(base[:-4] if base.endswith("_sum") else base)
        self._add(_label(label), m["num"], unit, line, routed, bare=True)

    def _spaced_line(self, s: str, line: str, routed: bool) -> bool:
        """A fixed-width table's row under its header (each value cell a figure labelled by the row's names and
        its column, the unit from the column's brackets or the cell); a header is kept. True: a row was read."""
        cells = _COLUMN_GAP.split(s)
        header = original = self._spaced
        self._spaced = None
        pair = len(cells) == 2 and "\t" in s  # "System<TAB>WER" then "Faster-Whisper<TAB>3.097": a tab makes it a table
        if len(cells) < MIN_SPACED_COLUMNS and not pair:
            return False
        values, others = _cell_values(cells)
        indented = self._spaced_indented
        if header is None and sum(v is not None for v in values) >= 2 - pair and self.line_before is not None:
            header = original = self._header_above(len(cells))
            indented = self._spaced_indented
        trailing = None
        if header is not None and len(cells) == len(header) + 1 and cells[0].isdigit() and values[1] is None:
            # pandas' row index ("0  EXTEND  18538.56 …"): neither a figure nor a name
            header, cells, values, others = [""] + header, [""] + cells[1:], [None] + values[1:], [[]] + others[1:]
        elif header is not None and len(cells) == len(header) + 1 and values[0] is None:
            if indented:
                header = [""] + header  # a header without the corner above the rows' names ("MIN:  167.0  119.0")
            elif values[-1] is None:  # a last cell no column names (Google Benchmark's "items_per_second=34.4/s")
                trailing, cells, values, others = cells[-1], cells[:-1], values[:-1], others[:-1]
        if header is not None and len(cells) == len(header) and sum(v is not None for v in values) >= 2 - pair:
            if trailing is None and values[-1] is None and _PAIR_CELL.search(cells[-1]) is not None:
                trailing = cells[-1]  # "items_per_second=34.412/s": a cell of its own labelled figures
                values = values[:-1] + [None]
                cells = cells[:-1] + [""]
            row = " ".join(c for c, v in zip(cells, values) if v is None and c).rstrip(":")
            stat = _STAT_COLUMN.fullmatch(row.strip()) is not None  # "P50:", "AVG": the row is a statistic
            rm = _bracket_unit(row)
            row_unit = None
            if rm is not None:
                row, row_unit = rm["label"], rm["unit"]  # "TTFT (ms)   44.3   32.8": the row's name says the unit
            for name, value, more in zip(header, values, others):
                if value is not None:
                    m = _CELL_UNIT.match(name)
                    label, unit = (m["label"], m["unit"]) if m else (name, value["unit"] or value["sunit"] or row_unit or _unit_word_in(name))
                    noise = label if stat else row if row and _SETTING_COLUMN.fullmatch(label) else None
                    if self._add(_label(f"{row} {label}"), value["num"], unit, line, routed, noise_label=noise, bare=True):
                        for suffix, num in more:  # "4644MiB / 32768MiB": the total beside the size used
                            self._add(_label(f"{row} {label} {suffix}"), num, unit, line, routed, noise_label=noise,
                                      bare=True)
            if trailing is not None:
                self._pairs(f"{row} {trailing}", line, routed)
            self._spaced = original
            return True
        if not any(values) and all(len(c) <= MAX_HEADER_CELL_CHARS for c in cells):
            self._spaced = cells  # a header: read as any line too (it holds no number)
            self._spaced_indented = line.lstrip(">")[:1].isspace()
        return False

    def _header_above(self, columns: int) -> Optional[list]:
        """The line above a fixed-width row, as its table's header when it is one: as many names as the row has
        cells (or one fewer: no corner above the rows' names), none of them a value ("Benchmark  Time  CPU"); a
        rule between the two ("-----") is passed over."""
        above = self.line_before(1)
        if above and set(above.strip()) <= _RULE_CHARS:
            above = self.line_before(2)
        if not above or len(above) > MAX_LINE_CHARS:
            return None
        indented = above.lstrip(">")[:1].isspace()
        above = above.strip()
        if above[:1] == ">":
            above = above.lstrip("> ")
        cells = _COLUMN_GAP.split(above)
        if not columns - 1 <= len(cells) <= columns or len(cells) < MIN_SPACED_COLUMNS - 1:
            return None
        self._spaced_indented = indented
        if any(_CELL_VALUE.fullmatch(c) or len(c) > MAX_HEADER_CELL_CHARS for c in cells):
            return None
        return cells

    def _csv_line(self, s: str, line: str, routed: bool) -> bool:
        """A CSV header (kept, nothing to read) or a row under one: each cell a figure labelled by its column, the
        unit from the column's brackets or suffix (``prefill_tps``, ``ttft (ms)``, ``kv_bytes``)."""
        cells = next(csv.reader([s])) if '"' in s else s.split(",")  # '"1,146.31"': a quoted cell keeps its comma
        header = self._csv
        by_row = header is not None and header[0].lower() in _ROW_HEADERS  # "Metric,avg,min,…": rows named first
        if len(cells) < MIN_CSV_COLUMNS and not (len(cells) == 2 and (by_row or cells[0].strip().lower() in _ROW_HEADERS)):
            return False
        numeric = [_CSV_NUMBER.fullmatch(c.strip()) is not None for c in cells]
        if header is not None and (all(numeric) and len(cells) == len(header) or (
                len(header) - 2 <= len(cells) <= len(header) and 2 * sum(numeric) >= len(cells))
                or by_row and len(cells) == len(header) and not numeric[0] and all(numeric[1:])):
            # a row of numbers, or of numbers beside names and times (koboldcpp's benchmark CSV: Timestamp, Model, …);
            # the trailing columns may be missing; under a "Metric" column, each row's name labels its cells
            row = cells[0].strip() if by_row and not numeric[0] else None
            rm = _CELL_UNIT.match(row) if row else None  # "Time To First Token (ms)": the row's unit
            for name, cell, is_number in zip(header, cells, numeric):
                if cell.strip() and is_number:
                    m = _CELL_UNIT.match(name)
                    label, unit = (m["label"], m["unit"]) if m else (name, _key_unit(name))
                    noise = None
                    if row:
                        subject = rm["label"] if rm else row
                        noise = f"{subject} avg" if _STAT_COLUMN.fullmatch(label) else None  # "min" is the statistic
                        label = subject + ("" if len(header) == 2 else f" {label}")
                        unit = (rm["unit"] if rm and _unit_kind(rm["unit"], rm["label"])[1] else None) or unit
                    self._add(_label(label), cell.strip(), unit, line, routed, noise_label=noise, bare=True)
            return True
        if all(_CSV_NAME.fullmatch(c.strip()) for c in cells):
            self._csv = [c.strip() for c in cells]
            return True
        return False

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
        first text cell ("| Time to First Token (ms) | 49.26 |", "│ Duration │ 17.83s │")."""
        cells = [c.strip() for c in s.strip("|").split("|")]
        if self._header and not self._header[0] and len(cells) == len(self._header) - 1 and not s.startswith("|"):
            cells = [""] + cells  # a pipe-less row whose first cell was taken for a compose prefix ("fp16 | 494.7 | …")
        if all(set(c) <= _RULE_CHARS for c in cells):
            self._ruled = self._header is not None
            return  # the |---|---| rule under a header
        if len(cells) == 1 and self._header is None:  # a box around text ("│ [14:08:32] 100% concurrent (0.12
            self._pairs(cells[0], line, routed)      # req/sec avg) │", GuideLLM's progress): read as a line
            return
        values, others = _cell_values(cells)
        fractions = [_FRACTION.fullmatch(c) if v is None and "/" in c else None for c, v in zip(cells, values)]
        row = next((c for c, v, f in zip(cells, values, fractions) if c and v is None and f is None), None)
        if not any(values) or (self._header is None and row is None):
            if not (self._ruled and self._header is not None and len(cells) == len(self._header)):
                self._header, self._ruled = cells, False
            return  # a header, or a row of text under a ruled one ("│ API Base │ http://localhost:8000/v1 │")
        # A box table's header ("┃ Metric ┃ Value ┃") holds no figure and is not fed: its rows are read by row.
        header = self._header or [""] * len(cells)
        several = sum(v is not None or f is not None for v, f in zip(values, fractions)) > 1
        # "| metric | value | unit |": a column of units names the unit of the row's values
        row_unit = next((c for h, c in zip(header, cells) if h.lower() in ("unit", "units")), None)
        for name, fraction in zip(header, fractions):
            if fraction is not None and name and row is not None:  # "Successful Requests" over "3247/3248"
                self._add(_label(f"{row} {name}"), fraction[1], None, line, routed, bare=True)
                self._add(_label(f"{row} {name} out of"), fraction[2], None, line, routed, bare=True)
        shifted = row is None and any(v is not None and v["unit"] and _contradicted(n, v["unit"])
                                      for n, v in zip(header, values))
        for column, (name, value) in enumerate(zip(header, values)):
            if value is None:
                continue
            m = _bracket_unit(name)  # "Memory (VRAM)" over "5.48 GB (23.16%)", "cold (mean)": no unit
            label, unit = (m["label"], m["unit"]) if m else (name, value["unit"] or value["sunit"] or row_unit or _unit_word_in(name))
            by_column = m is not None  # the column's name says the unit: no row label needed
            um = _UNIT_WORD.match(name) if m is None and value["unit"] is None and value["sunit"] is None else None
            if um is not None and (um.end() == len(name) or name[um.end()] == " "):
                # "| test | t/s |", "| t/s master | t/s a3cec6ab6 |": the column names the unit (and maybe what)
                row_names = " ".join(c for c, v in zip(cells[:column], values) if c and v is None)  # those before it
                label, unit = f"{row_names} {name}".strip() if um.end() < len(name) else (row_names or name), um[0]
                by_column = True
            stat = False
            if not by_column and row is not None:
                rm = _bracket_unit(row)  # "ROCm (patched)": the brackets qualify the row's name
                label, unit = (rm["label"], rm["unit"]) if rm else (row, value["unit"] or value["sunit"] or row_unit or _key_unit(row) or _unit_word_in(name))
                stat = several and _STAT_COLUMN.fullmatch(name) is not None
                label = f"{label} {name}" if several else label
            elif shifted:  # a row some of whose cells contradict their columns: no cell says what its column says
                label = f"{_unit_kind(unit, name)[1] or 'value'} under {name}"
            noise = f"{label[:-len(name)]}avg" if stat else row if row and _SETTING_COLUMN.fullmatch(name) else \
                name if several and name and row is not None and not by_column else None  # "| `rocm-7.14` | 298.30 |":
            # a row of several values under named columns: each column says what its cells are, the row which setup
            if self._add(_label(label), value["num"], unit, line, routed, noise_label=noise, bare=True):
                if value["spread"]:  # "13.12 ± 0.85": bare as the value it qualifies
                    self._add(_label(label) + " \u00b1", value["spread"], unit, line, routed, noise_label=noise, bare=True)
                elif value["share"]:
                    change = value["share"][0] in "+-" or value["shunit"] == "pp"
                    self._add(_label(label) + (" change" if change else ""), value["share"], value["shunit"], line,
                              routed, noise_label=noise)
                for suffix, num in others[column]:
                    self._add(_label(f"{label} {suffix}"), num, unit, line, routed, noise_label=noise, bare=True)

    def _json(self, s: str, line: str, routed: bool) -> bool:
        try:
            obj = json.loads(s)
        except ValueError:
            return False
        if not isinstance(obj, dict):
            return False
        for key, value in _flat(obj):
            self._add(_label(key.replace("_", " ")), repr(value), _key_unit(key), line, routed, bare=True)
        return True

    # -- keeping ---------------------------------------------------------------------------------------------
    def _add(self, label: str, num_text: str, unit_text: Optional[str], line: str, routed: bool,
             noise_label: Optional[str] = None, bare: bool = False) -> bool:
        """Keep one figure; whether it is one (kept, or already kept, or past the cap), not noise. ``noise_label``:
        the part of the label that says whether it is noise (a row's name, when its column is a statistic)."""
        if not label or label in _NO_LABEL:
            return False
        words = _words(label)  # "maxNumActiveRequests" is classified as "max Num Active Requests"
        unit, kind = _unit_kind(unit_text, words)
        if kind is None and bare and unit_text is None:
            if num_text in ("0", "1") and label.isupper() or _STAT_COLUMN.fullmatch(label) is not None:
                return False  # "AVX = 1", "NEON: 0": a build's or device's flag; "p25 = 0.17": of what, unsaid
            kind = "value"  # "Peak Batch pp: 208.4", a table's cell: labelled, its kind not printed
        value = number(num_text)
        if kind is None or value is None or _is_noise(words if noise_label is None else _words(_label(noise_label)), kind, unit):
            return False
        if kind == "duration" and abs(value) * _TO_MS.get(unit, 1.0) > EPOCH_MS:  # "model_load_start_ms": a clock
            return False
        if unit == "x" and "." not in num_text:  # "2x A100", "1920x1080": a count of things, a resolution
            return False
        if kind == "count":
            if value < 0:
                return False
            if value == int(value):
                value = int(value)
            elif _AVERAGED.search(words) is None:
                return False
        if self._held is not None:  # a family's line: kept or not once the family has read it (``settle``)
            self._held.append((label, value, unit, kind, line, words, num_text, routed))
            return True
        self._keep(label, value, unit, kind, line, words, routed, routed)
        return True

    def _keep(self, label: str, value: float, unit: Optional[str], kind: str, line: str, words: str,
              routed, core_routed) -> None:
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
        if kind == "value":
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
        """Decide the held line's figures once the families shown it have read it; whether any was kept.

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
        before = self._count + self._bare + self._pending
        taken = [took is not None and took(h[1], h[6]) for h in held]
        measured = any(t and h[1] != 0 for t, h in zip(taken, held))  # a zero is in every family's run
        for h, was_taken in zip(held, taken):
            label, value, unit, kind, line, words, _num_text, routed = h
            if claimed:
                if took is not None and not was_taken:
                    self._keep(label, value, unit, kind, line, words, False, None)
                elif took is not None:
                    self._keep_pending(Figure(label, value, unit, kind, line.strip()[:MAX_LINE_CHARS]), _num_text)
            elif measured and not was_taken:
                self._keep(label, value, unit, kind, line, words, False, routed)
            else:
                self._keep(label, value, unit, kind, line, words, Pending(_num_text, routed), routed)
        return self._count + self._bare + self._pending > before

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
        follow (pandas' ``describe()`` rows: ``mean     204.032341``)."""
        return self._spaced is not None or (self._nest is not None and self._nest[-1][2] is not None) \
            or self._heading is not None

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


_CAMEL = LazyPattern(r"(?<=[a-z0-9])(?=[A-Z])")
_HUMP = LazyPattern(r"(?<=[a-z0-9]{2})(?=[A-Z])")  # "nTokens" stays one word (n_tokens, not the noise "n")
_KEY_UNITS = (("_ms", "ms"), ("_us", "us"), ("_ns", "ns"), ("_sec", "s"), ("_seconds", "s"), ("_s", "s"),
              ("_tps", "tokens/s"), ("_mib", "MiB"), ("_gib", "GiB"), ("_mb", "MB"), ("_gb", "GB"), ("_bytes", "B"),
              ("_percent", "%"), ("_pct", "%"))


@functools.lru_cache(maxsize=4096)
def _key_unit(key: str) -> Optional[str]:
    """The unit a key's or label's end names (``prompt_ms``, ``load_time_s``, ``milliseconds/request``); None when it
    names none."""
    low = _CAMEL.sub("_", key).lower() if not key.islower() else key  # "ttftMs", "memoryUsedGB", "promptTPS"
    if "/" in low and (per := _PER_ITEM.search(low)) is not None:  # "Average milliseconds/request: 18217.93"
        return _TIME_UNITS[per[1]]
    if low.endswith(("_per_s", " per s", "per_sec", "/sec", "/s", "/second")) and not low.endswith(("s/s",)):
        if "token" in low or "tok" in low:
            return "tokens/s"
        if "request" in low or "req" in low:
            return "req/s"
    if low.endswith(("temp_c", "temperature_c", "celsius")):  # "gpu_temp_c": degrees, not the "_c" of a count
        return "celsius"
    for suffix, unit in _KEY_UNITS:
        if low.endswith(suffix):
            return unit
    if low.endswith(("per_second", " per second")) and ("token" in low or "tok" in low):
        return "tokens/s"
    if low.endswith("/min") and (per := _PER_MINUTE.search(low)) is not None:
        return "tokens/min" if per[1].startswith("tok") else "req/min"  # "Requests/min: 62.30", "Output_tokens/min: …"
    if low.endswith(("fps", "/sec", "/s")):  # "FPS (hw_only) = 1328.83", "embeddings/sec: 0.74"
        return "fps" if low.endswith("fps") else low.rsplit(" ", 1)[-1].replace("/sec", "/s")
    if low.endswith("per_second") or low.endswith("tokens_per_sec") or low in ("tps", "tok/s", "t/s", "tokens/s", "tokens/sec"):
        return "tokens/s"
    return None


def _flat(obj: dict, prefix: str = "", depth: int = 0):
    """(dotted key, number) pairs of a JSON object, two levels deep (``timings.prompt_ms``)."""
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            yield name, value
        elif isinstance(value, dict) and depth < 1:
            yield from _flat(value, name + ".", depth + 1)


SELF_NAME_LINES = 2000  # a banner or a logger's name shows in a log's first lines, or not at all
SELF_NAME_CHARS = 512   # ... and near the start of its line: a 4 KiB line of output is not searched whole


class SelfName:
    """The name a log prints about itself (``routes.SELF_NAMES``): the first found, searched in the log's first
    ``SELF_NAME_LINES`` lines (their first ``SELF_NAME_CHARS`` characters) until one is. Bounded, because a live
    run feeds every line it prints through here."""

    def __init__(self) -> None:
        from .routes import SELF_NAME_WORDS, SELF_NAMES

        self._pattern = LazyPattern("|".join(f"({rx})" for rx, _ in SELF_NAMES))  # compiled at a first hit
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
            if m is not None:
                self.name = self._names[m.lastindex - 1]


def merge(reports: list[dict], runs: list[Run], claimed: bool, framework: str) -> list[dict]:
    """The family's reports with the reader's runs folded in.

    A log some family claimed keeps that family's core figures, and only those (a launcher's or a user script's
    "model loaded in 22.4s" beside vLLM's lines is not vLLM's load time): the reader adds its ``figures``, run i
    to report i when they are as many, else all to the first report. A log no family claimed gets one report
    per reader run, its core keys filled from the reader (``sources[key] = "generic"``)."""
    from .figures import GENERIC_CORE_KEYS, new_report

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
