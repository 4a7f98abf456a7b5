"""The general reader's line shapes: ``label: 12 ms``, ``took 3 s``, lists, changes, bars, whole-line formats."""
from __future__ import annotations

import re
from typing import Optional

from ....core.lazy_re import LazyPattern
from ..units import clock_s, go_duration_ms, spoken_duration_ms
from .lexicon import (
    LIST_ITEMS, MAGNITUDES, MAX_LABEL_WORDS, _QUALITY, _ARROW_SIGN, _CELL_VALUE, _COUNT_UNITS, _NUM, _NUM_OR_BARE_FRACTION, _PLUS_MINUS, _SOURCE_FILE, _STAT_COLUMN, _UNIT,
    _UNIT_OR_MAGNITUDE,
    _UNIT_WORD, _bracket_unit, _joined_label, _key_unit, _label, _named_unit, _path_tail, _statistic, _unit_kind, _words)


# A bracket that remarks on a figure, left out of its label: "Average milliseconds/request (includes waiting time
# on server): 18217.93"
_REMARKS = ("includ", "exclud", "incl.", "excl.", "e.g.", "i.e.")


# Every number, with the unit after it if any; what stands before it (read on the reversed text before the number,
# so each regex is anchored and linear) says the shape and the label.
# (a full stop may end it: "#cached_token: 757. #new_token: 1.", SGLang's 2024 fields; "1.2.3", "10.0.0.1" stay out)
_VALUE = LazyPattern(r"(?<![\w.])(?P<num>" + _NUM_OR_BARE_FRACTION + r")(?:\s*(?P<unit>" + _UNIT_OR_MAGNITUDE + r")|(?!\w|\.\w))")


_BEFORE_CHARS = 96


# How many of how many, labelled before ("Successful requests: 98/100", "Passed: 45 / 72 tests") or a bracket after
# a figure ("Top-1 match:  62.5%  (45/72 heads)": the heads the percentage counts); never a date's or time's parts
_FRACTION_OF = LazyPattern(r"(?<![\w./:-])(?P<a>\d+)(?:\s?/\s?|\s+(?:out\s+)?of\s+)(?P<b>\d+)(?:\s?(?P<unit>[KMGT]i?B|kB))?"
                           r"(?:\s+(?P<word>[a-z]+)(?!=))?(?![\w./:-])")  # "mem=15174/16310 MiB": a size used of a total


# A count in brackets after the words saying what it counts ("the maximum number of tokens that can be stored in KV
# cache (63040)", vLLM's error): labelled from "number of" on
_NUMBER_OF = LazyPattern(r"\bnumber of (?P<what>[a-z][\w-]*)[\w -]{0,60}?\s*"
                         r"\((?P<num>\d+)\)", re.I)


_SHARE_AFTER = LazyPattern(r"\s*\(\s*(?P<pct>\d+(?:\.\d+)?)\s*%\s*\)")  # a fraction's share in brackets after it


_QUOTIENT = LazyPattern(r"(?<![\w./:-])(?P<a>\d+(?:\.\d+)?)\s*/\s*(?P<b>\d+(?:\.\d+)?)\s*=\s*(?P<c>[-+]?\d+(?:\.\d+)?)(?![\w./:-])")


# an operation's count and total time (GGML_VULKAN_PERF's "MUL_MAT m=11008 n=512 k=4096: 62 x 14361.3 ms")
_COUNT_TIMES = LazyPattern(r"(?P<label>[A-Za-z][^:]{0,80}):\s+(?P<count>\d+) x (?P<num>\d+(?:\.\d+)?) ?(?P<unit>ms|us|\u00b5s|ns|s)")
# a size of a total in decimals, its unit after both (vLLM's "Free memory on device (46.93/47.4 GiB)"), and the words
# before it (or before its bracket or colon) that name it
_SIZE_FRACTION = LazyPattern(r"(?<![\w./:-])(?P<a>\d+\.\d+|\d+)\s?/\s?(?P<b>\d+\.\d+|\d+)\s?(?P<unit>[KMGT]i?B)(?![\w/])")
_WORDS_BEFORE = LazyPattern(r"(?P<label>[A-Za-z][A-Za-z _-]{0,60}?)\s*[(:=]?\s*$")
# a phase named after a number in brackets, the figure before giving the unit ("40.2 tok/s (40.9 decode)")
_PHASE_AFTER = LazyPattern(r"\s+(decode|prefill|prompt|generation|eval|output|input)\)")
_SLOG_FIGURE = LazyPattern(r'msg="([^"=]{1,80}: [-+]?\d[\d.]*)"$')  # a Go slog message that ends in "label: number"
_TAB_PAIR = LazyPattern(r"([A-Za-z][^\t:]{0,40}?)\t+([-+]?\d[\d,]*(?:\.\d+)?)")  # a name, tabs, a bare number
# a line's name that lists its settings before the colon ("[tuning] SMs 24, NVL chunk 4, RDMA chunk 8: …"): its last one
_LEAD_SETTINGS = LazyPattern(r"\s*(?:\[[\w -]{1,20}\]\s*)?(?:[A-Za-z][\w ]{0,30}, ){1,4}(?P<label>[A-Za-z][\w ]{0,30})\s*:")
_LEAD_LABEL = LazyPattern(r"\s*(?:\[[\w -]{1,20}\]\s*)?(?:[-*>\u2022]+\s+)?(?P<label>[A-Za-z][\w /-]{0,40}?(?:\s*\([\w +-]{1,24}\))?)\s*[:=]")


# Go's and Rust's durations with more than one part ("1m17.112s", "2h3m0.5s"): one figure in ms, read first.
# Their parts may be separated by ", " or ":" ("0h, 0m, 3s", "006h:08m:39s": one duration, never the "0h" first).
_MULTI_DURATION = LazyPattern(r"(?<![\w.])\d+(?:\.\d+)?(?:h|m(?!s)|s)(?:(?:,\s*|:)?\d+(?:\.\d+)?(?:h|ms|m|s|\u00b5s|us|ns))+"
                              r"(?![\w.])")


_PART_SEPARATOR = LazyPattern(r",\s*|:")


# The same, spaced or in words ("7m 51s", "1 min 19 seconds", "2 hours and 3 minutes"): larger parts first.
_SPOKEN_DURATION = LazyPattern(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:hours?|hrs?|h|minutes?|mins?|m)(?:(?:\s+|,\s*|\s+and\s+)\d+"
                               r"(?:\.\d+)?\s?(?:minutes?|mins?|m|seconds?|secs?|s|ms)){1,2}(?![\w.])")


# (shape, reversed regex of what precedes the number): a label with the unit in brackets ("Throughput (T/s) 0.80",
# "Mean TTFT (ms): 123.2"), "… took / in / after 3.2 s", "label: 12" / "label=12" / 'label="12ms"', "label 50.00%".
_BEFORE = (
    # (an abbreviation in brackets may stand in the label: "Time to first token (TTFT) (s): 2.93")
    # (an ordinal may open it: "90th percentile latency (ns) : 19641101", MLPerf loadgen's)
    ("bracket", LazyPattern(r"[~\u2248]?\s*[:=]?\s*\)(?P<unit>[^()]{1,40})\(\s*(?P<label>(?:[\w /-]|\)[\w.-]{1,16}\()*[^\W\d_]"
                            r"(?: (?:ts|dn|dr|ht)\d{1,3})?)(?![\w.])")),
    # "Model size (MB) - 86.68": a dash after a unit's brackets, as setfit's benchmark prints it ("using device
    # Vulkan0 (AMD Radeon RX 6600M) - 8176 MiB free" names a device in its brackets: no unit, no dash shape)
    ("bracket", LazyPattern(r"\s*-(?= )\s*\)(?P<unit>[^()\s\d][^()\s]{0,11})\(\s*(?P<label>[\w /-]*[^\W\d_])(?![\w.])")),
    # "End to End Latency (ms) avg: 328.207": a statistic between the bracketed unit and the colon
    ("bracket", LazyPattern(r"\s*[:=]\s*(?P<stat>gva|naem|naidem|xam|nim|dts|(?:\d\.)?\d{1,2}p)\s+\)(?P<unit>[^()]{1,16})\("
                            r"\s*(?P<label>[\w /-]*[^\W\d_])(?![\w.])")),
    # '"duration_ms": 8687', Python's dict repr ("'completions/mean_length': 52.75": a quoted key may hold a slash)
    ("pair", LazyPattern(r"\s*:\s*([\"'])(?P<label>[\w ./-]*[A-Za-z][\w./-]*)\1")),
    ("took", LazyPattern(r"\s+(?:koot|ni|retfa|ta|KOOT|NI|RETFA|TA)\s+(?P<label>[\w -]*[^\W\d_])(?![\w.])")),
    # "10% percentile …", 'before.total="16.0 GiB"' (a dotted key: ollama's memory fields), "mean lat.: 3225.443ms"
    # (an abbreviation's full stop), "Recall@1: 75.00%" (a metric at k)
    ("pair", LazyPattern(r"(?:[~\u2248#]?\"?\s*[:=]\.?|\s*\u2248)\s*(?P<label>[\w /#%@-]*(?:(?<=\w)\.[A-Za-z_][\w-]*)*(?:[^\W\d_]|%\d{1,3}|(?:[A-Z]|ts|dn|dr|ht)\d{1,4}))(?![\w.])")),
    # "PREFILL ~66 tok/s": about so many; "torch.matmul 1.003 ms": a dotted name
    ("spaced", LazyPattern(r"~?\s+(?P<label>[\w -]*(?:(?<=\w)\.[A-Za-z_][\w-]*)*[^\W\d_])(?![\w.])")),
)


# "Prompt tokens: 24328 in 23.32s (1043.05 tokens/s)", "decoded  673 tokens in   12.132 seconds, speed: 55.47 t/s":
# a count, its time and (maybe) its rate, labelled by the words before the count.
_TRIPLE = LazyPattern(r"(?<![\w.])(?P<count>\d+)\s*(?:(?:tok(?:ens?)?|(?P<things>requests|reqs|prompts|queries|samples|docs|"
                     r"documents|pages|images|segments))\s+(?:(?P<word>[a-z]+)\s+)?)?in\s+(?P<num>" + _NUM_OR_BARE_FRACTION + r")\s*(?P<unit>" + _UNIT
                     + r")(?:[\s,(=]*(?:speed:?\s*)?(?P<rate>" + _NUM + r")\s*(?P<runit>" + _UNIT + r"))?")


# An amount of time that is what was made or read, not how long it took ("Generated 14.25 seconds of audio in
# 3.2 s", "Transcribed 30 minutes of speech"): "Generated audio", not core, then its own time "Generated audio in"
_SPAN_OF = LazyPattern(r"(?<![\w.])(?P<verb>[A-Za-z]+ed)\s+(?P<num>" + _NUM + r")\s*(?P<unit>hours?|h|minutes?|mins?|"
                       r"seconds?|secs?|s|ms)\s+of\s+(?P<what>[A-Za-z][\w-]*)(?:\s+in\s+(?P<took>" + _NUM
                       + r")\s*(?P<tunit>" + _UNIT + r"))?")


_HASH_TOKEN = LazyPattern(r"#tokens?(?=\s*[:=])")


# A time first, then the path of what it timed ("   0.1 seconds: /…/custom_nodes/ComfyUI-Manager", "0.3 seconds
# (IMPORT FAILED): /…/ComfyUI-Foo", ComfyUI's import times): labelled by the path's last part and the remark
_TIMED_PATH = LazyPattern(r"(?:-\s)?\s*(?P<num>" + _NUM + r")\s*(?P<unit>seconds?|secs?|s|ms)(?:\s*\((?P<note>[^()]{1,40})\))?:"
                          r"\s+(?P<path>(?:[A-Za-z]:)?[^\s:]*[/\\][^\s]*?)[/\\]?\s*$")


_TRIPLE_LABEL = LazyPattern(r"\s*[:=]?\s*(?P<label>[\w -]*[A-Za-z]|\][\w &/+.-]{1,24}\[)")  # reversed: "[Q&A] 185 tokens in …"


# A value whose label follows it: "9997 prompt tok, 4207.9 prefill tok/s", "18.40 decode TPS", "0.3 s first token",
# "20 generation tokens", "0 cached tokens and 118010 new tokens at …": words (and maybe the unit) up to a
# separator, "and"/"at", or the line's end (a sentence's full stop: "49.25 GiB memory is still in use.").
_AFTER = LazyPattern(r"\s+(?:of\s+)?(?P<label>[A-Za-z][A-Za-z_-]*(?: [A-Za-z_-]+){0,4}?)(?:\s+(?P<unit>" + _UNIT
                    + r"|requests|samples|queries|prompts|images|pages|docs|documents|segments|chunks|iterations))?"
                    r"\s*(?=[,;|\u2022()\]]|(?:and|at)\s|\.?$)")


# A duration as a clock after its label: "total time:      0:05:43" (``_clock_duration``)
_CLOCK_HINT = LazyPattern(r"[:=][ \t]*\d{1,3}:[0-5]\d:[0-5]\d")  # a clock after a label's colon, before the slow search
# "Total time of building all engines: 00:00:06" (TensorRT-LLM): a time of something, no moment
_CLOCK_LABEL = LazyPattern(r"^(?:total |elapsed |wall )?time (?:of|for|to|taken)\b|\b(?:took|elapsed|duration|runtime)\b", re.I)
# Python's timedelta printed: the hours without a leading zero, microseconds ("0:00:00.307460"): a duration, no moment
_TIMEDELTA = LazyPattern(r"(?<![\d:.])(?P<h>\d):(?P<m>[0-5]\d):(?P<s>[0-5]\d\.\d{6})(?![\d:.])")
_CLOCK_DURATION = LazyPattern(r"(?P<label>[A-Za-z][\w .-]{0,40}?)\s*[:=]\s*(?P<h>\d{1,3}):(?P<m>[0-5]\d):(?P<s>[0-5]\d(?:\.\d+)?)"
                              r"(?![\d:.])")


# statistics named in brackets, then their values apart by slashes: "Prompt Length (Min/Med/Max): 4 / 95 / 1024"
_SLASHED = LazyPattern(r"(?P<label>[A-Za-z][\w .-]{0,40}?)\s*\((?P<names>[A-Za-z]\w*(?:\s*/\s*[A-Za-z]\w*)+)\)\s*:\s*"
                       r"(?P<values>" + _NUM + r"(?:\s*/\s*" + _NUM + r")+)\s*(?P<unit>" + _UNIT + r")?\s*$")


# The same without brackets, names and values each joined by slashes: ping's "rtt min/avg/max/mdev = 0.031/0.045/
# 0.062/0.011 ms", inxi's "speed/min/max: 3855/577/4560 MHz"
_SLASH_NAMES = LazyPattern(r"(?:(?P<label>[A-Za-z][\w.-]{0,30}) )?(?P<names>[A-Za-z]\w+(?:/[A-Za-z]\w+)+)\s*[:=]\s*"
                           r"(?P<values>" + _NUM + r"(?:/" + _NUM + r")+)\s*(?P<unit>" + _UNIT + r")?(?![\w/])")


# two statistics named in brackets apart by an ellipsis, each value with its unit (hyperfine: "Range (min … max):
# 8.337 s …  8.478 s    5 runs")
_ELLIPSIS_RANGE = LazyPattern(r"(?P<label>[A-Za-z][\w .-]{0,40}?)\s*\((?P<a>[A-Za-z]\w*)\s*(?:\u2026|\.\.\.)\s*(?P<b>[A-Za-z]\w*)\)"
                              r"\s*:\s*(?P<x>" + _NUM + r")\s*(?P<ux>" + _UNIT + r")?\s*(?:\u2026|\.\.\.)\s*(?P<y>" + _NUM
                              + r")\s*(?P<uy>" + _UNIT + r")?")


# the values alone, on the line under their heading
_SLASH_VALUES = LazyPattern(_NUM + r"(?:\s*/\s*" + _NUM + r")+\s*(?:" + _UNIT + r")?")


# A record of named numbers, comma-separated after an optional head, no colon or "=" between a name and its number
# (mlx_lm's LoRA trainer, 2024: "Iter 10: Train loss 1.958, Learning Rate 1.000e-05, It/sec 0.081, Tokens/sec
# 159.269, Trained Tokens 19678, Peak mem 20.819 GB"): every item must be one, and one at least must have a unit.
# A label, then counts of things, each a whole number and a plural: "kernels/gfx906: 0 blobs, 0 hashes"
# (or "YOLOv8n summary (fused): 168 layers, 3,151,904 parameters, 0 gradients, 8.7 GFLOPs": an item with a unit is
# read as any figure is)
_COUNTED_ITEM = LazyPattern(r"(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?P<unit>[A-Za-z\u00b5]{1,3})? (?P<word>[A-Za-z]{2,16})\b")
_COUNTED_RECORD = LazyPattern(r"(?P<label>[^:,]{0,80}?\S)(?::\s*|, )(?P<items>(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:[A-Za-z\u00b5]{1,3})? "
                              r"[A-Za-z]{2,16}(?:, (?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:[A-Za-z\u00b5]{1,3})? [A-Za-z]{2,16})+)"
                              r"(?:[,;] .*|\.)?\s*")  # (or after
# a comma, ending its line: RAGFlow's "Entities extraction of chunk 17 620/641 done, 2 nodes, 5 edges, 8250 tokens.")
_RECORD_HEAD = LazyPattern(r"(?:[^\]]{0,80}\]\s+)?(?P<head>[A-Za-z][\w ]{0,30}?\d*):\s+")  # (after a glog prefix:
# "I1128 09:42:12.221588 229060 transfer_engine_bench.cpp:296] Test completed: duration 10.01, …", Mooncake's)
_RECORD_ITEM = LazyPattern(r"(?P<label>[A-Za-z][\w /.-]{0,40}?[A-Za-z])\s+(?P<num>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
                           r"(?:\s*(?P<unit>" + _UNIT + r"))?")

# memory in use (out of a limit), in brackets after a size (llama.cpp's Metal buffers, 2024: "allocated buffer, size =
# 128.00 MiB, ( 2629.44 / 10922.67)"; whisper.cpp's: "size =    15.75 MiB, (  157.52)"): in the size's unit
_IN_USE_OF = LazyPattern(r"(?P<unit>[KMG]i?B),\s*\(\s*(?P<a>\d+(?:\.\d+)?)\s*(?:/\s*(?P<b>\d+(?:\.\d+)?)\s*)?\)")


# criterion's (Rust) estimate between the ends of its confidence interval: "time:   [946.59 µs 947.60 µs 948.65 µs]",
# "thrpt:  [1.0541 GiB/s 1.0553 GiB/s 1.0565 GiB/s]"
_CRITERION = LazyPattern(r"^(?P<name>[\w/ .-]*?)\s*(?P<what>time|thrpt):\s+\[(?P<lo>" + _NUM + r")\s*(?P<u1>" + _UNIT
                         + r")\s+(?P<est>" + _NUM + r")\s*(?P<u2>" + _UNIT + r")\s+(?P<hi>" + _NUM + r")\s*(?P<u3>"
                         + _UNIT + r")\]")


# A figure that closes a line after a sentence of its own ("[GC] Peforming periodical GC collection. 0.06 seconds.",
# torchtitan's): that sentence's words name it. Reversed, as ``head`` is: ". " then the words up to a bracket or colon.
_SENTENCE_BEFORE = LazyPattern(r"\s+\.(?P<label>[A-Za-z][A-Za-z -]{2,60}?[A-Za-z])\s*(?:[\]:]|$)")
# A value opening a bracket after words: "tokens (264.70 tok/s)", or after a name such as a kernel's
# ("xnn_x32_transposec_ukernel__4x4_rvv  (0.140 ms)", ETDump's): reversed, as _BEFORE's.
_IN_BRACKETS = LazyPattern(r"\s*\(\s*(?P<label>[A-Za-z][A-Za-z -]{0,40}?[A-Za-z](?![\w.])|[A-Za-z]\w{0,80}?[A-Za-z](?=\s|$))")


# What may stand between a figure and an unlabelled rate that belongs to it: "Token generation: 353 us, 0.46 tokens/s".
# "63.27ms @ 15.81 tok/s/user", "1046 tokens  ->  10.17 t/s": the rate of the same figure
# between a figure and the next one it names nothing of its own ("353 us, 0.46 tokens/s"): separators, maybe after
# a word that says the first is a whole ("8.27 sec total, 24.17 tokens/sec": gpt-fast's, torchchat's)
_JOINED = LazyPattern(r"(?:\s+(?:total|overall|in total|elapsed)(?=[\s,]))?(?:[\s,(=/@]|->|\u2192)*")
_CONNECTORS = frozenset(("or", "and"))  # a word before a figure that is no label of it (``_before``, ``_unlabelled``)
_NAMED_AFTER = LazyPattern(r"\s*\((?P<name>[A-Z][A-Za-z0-9]{1,11})\)(?=[,;]|\s*$)")  # "9.50 GB/s (NVL)": a path's name
_CONNECTOR = LazyPattern(r"\s*(?P<word>" + "|".join(w[::-1] for w in sorted(_CONNECTORS)) + r")(?![\w.])")  # reversed:
# "… and 267.59 MiB", "(or 509248 tokens)"


_SPREAD = LazyPattern(_PLUS_MINUS + r"(?P<num>" + _NUM + r")\s*(?P<unit>" + _UNIT + r")?")


_NUMBER_WORD = LazyPattern(_NUM)


# A range of two values and one unit ("280–390 ms", "~15-17 tokens/sec"): its high end, and "… low"
_RANGE = LazyPattern(r"(?<![\w.\-])~?(?P<a>\d+(?:\.\d+)?)\s*(?:\u2013|\u2014|-(?!>))\s*(?P<b>\d+(?:\.\d+)?)\s*(?P<unit>" + _UNIT
                     + r")")


_ARROW = LazyPattern(r"(?<![\w.])(?P<a>" + _NUM + r")\s*(?P<aunit>" + _UNIT + r")?" + _ARROW_SIGN + r"(?P<b>" + _NUM
                     + r")\s*(?P<bunit>" + _UNIT + r")?(?![\w.])")


# A change in words, both values with their units: "increase the size from 0 bytes to 33624960 bytes"
_FROM_TO = LazyPattern(r"(?<![\w.])from\s+(?P<a>" + _NUM + r")\s*(?P<aunit>" + _UNIT + r")\s+to\s+(?P<b>" + _NUM
                       + r")\s*(?P<bunit>" + _UNIT + r")(?![\w.])")


# The group shape's head ends in its bracketed unit and a colon; the regex runs only on lines that have one.
_GROUP_MARK = LazyPattern(r"\)\s*:\s*[A-Za-z]")


_GROUP = LazyPattern(r"(?P<head>[A-Za-z][\w -]*?)\s*\((?P<unit>[^()]{1,12})\)\s*:\s*")


_GROUP_ITEM = LazyPattern(r"(?P<label>[A-Za-z][\w -]*?)\s+(?P<num>" + _NUM + r")(?=[\s,;.]|$)")
# fio's "slat (usec): min=29, max=765, avg=107.25, stdev=25.59": statistics as key=value pairs after the group's unit
_GROUP_STAT = LazyPattern(r"(?<![\w])(?P<label>min|max|avg|mean|median|stdev|std|dev)\s*=\s*(?P<num>" + _NUM + r")(?=[\s,;]|$)")
# fio's percentiles under their heading ("clat percentiles (usec):" then " |  1.00th=[13042],  5.00th=[14353], …")
_PERCENTILE_ITEM = LazyPattern(r"(?P<p>\d{1,2}(?:\.\d+)?)th=\[\s*(?P<num>" + _NUM + r")\]")
_PERCENTILE_HEADING = LazyPattern(r"\s*(?P<head>[A-Za-z][\w ]*?)\s*\((?P<unit>[^()]{1,12})\)\s*:\s*")


# Fixed-width tables ("Test    TTFT(ms)    TPOT(ms)    pp TPS" then "pp1024/tg128    5123.4    58.96    199.9 tok/s"):
# columns two or more spaces apart, a header of 3+ names, then rows of as many cells, 2+ of them values.
# "Latencies: [2561.47, 2561.20]" and vegeta's "Latencies  [min, mean, 50]  232.884ms, 1.35s, 834.257ms"
_NUMBER_LIST = LazyPattern(r"(?P<label>[A-Za-z][\w .-]{0,40}?)['\"]?\s*[:=]\s*\[(?P<items>\s*(?P<q>['\"]?)[-+]?\d[\d.eE+-]*(?P=q)"
                           r"(?:\s*,\s*(?P=q)[-+]?\d[\d.eE+-]*(?P=q))+)\s*\]")  # (its items maybe quoted: "['0.803', …]")


# A list of one duration as a profile's record prints it, after the record's name ("pipeline_total   scope=<…>
# count=1 times=[22.25]", docling's): "pipeline_total times"
_ONE_TIME = LazyPattern(r"(?<![\w.])(?P<key>(?:[A-Za-z][\w.-]{0,40}?)?(?:time|latency|duration|elapsed)s?)=\[(?P<item>[-+]?\d+(?:\.\d+)?)\]")
_RECORD_NAME = LazyPattern(r"(?P<name>[A-Za-z_][\w.-]*)\s{2,}[A-Za-z_]\w*=")


# A record of keyed values in square brackets after its name ("emits[init=2,draft=60,bonus=18]", "depth[d1=37/64,
# d2=18/36]", "timing[backbone=4319.6ms mtp=111.3ms]"): "emits init", …; a fraction's whole "… out of"
_KEYED_GROUP = LazyPattern(r"(?<![\w.])(?P<head>[A-Za-z][\w.-]{0,30})\[(?P<body>[A-Za-z_]\w*=[^\[\]=]+(?:[, ]+[A-Za-z_]\w*=[^\[\]=, ]+)*)\]")
_KEYED_ITEM = LazyPattern(r"(?P<key>[A-Za-z_]\w*)=(?P<a>\d+(?:\.\d+)?)(?:/(?P<b>\d+))?(?P<unit>[A-Za-z%\u00b5/]*)")


_NAMED_LIST = LazyPattern(r"^(?P<label>[A-Za-z][\w ]{0,40}?)\s*\[(?P<names>code:count|[A-Za-z_]\w*(?: \w+)*(?:, ?\w+(?: \w+)*)*)\]"
                          r"[ \t]+(?P<values>[-+]?\d[^\[\]]*)$")


_CODE_COUNT = LazyPattern(r"(?<!\S)(\d{1,3}):(\d+)(?!\S)")  # a status code and how many responses had it


# A shell's `time`: zsh's "12.77s user 8.83s system 131% cpu 16.393 total" and GNU time's "12.77user 8.83system
# 0:16.39elapsed 131%CPU": the labels stand after the values, the wall time may be [h:]m:ss.
_SHELL_TIME = LazyPattern(r"(?P<user>\d+(?:\.\d+)?)s? ?user (?P<system>\d+(?:\.\d+)?)s? ?system "
                          r"(?:(?P<cpu>\d+)% ?cpu (?P<total>(?:\d+:){0,2}\d+(?:\.\d+)?) total"
                          r"|(?P<elapsed>(?:\d+:){1,2}\d+(?:\.\d+)?)elapsed (?P<gcpu>\d+)%CPU)")
# BSD's and macOS's /usr/bin/time: "      208.58 real       354.21 user       538.40 sys" (seconds), and with -l
# "  29059743744  maximum resident set size" (bytes), "  1327104  peak memory footprint"
_BSD_TIME = LazyPattern(r"(?P<real>\d+(?:\.\d+)?) real[\s/]+(?P<user>\d+(?:\.\d+)?) user[\s/]+"
                        r"(?P<sys>\d+(?:\.\d+)?) sys\b")
_BSD_RSS = LazyPattern(r"\s*(?P<num>\d+)\s+(?P<label>maximum resident set size|peak memory footprint)\s*")


# Box-drawing tables (rich, tabulate's fancy grid): their bars read as "|", their rules as "|---|".
# CJK text's full-width colon, brackets, comma and equals; the minus sign U+2212 of a typeset delta ("(\u22121.1%)")
_PLAIN_PUNCTUATION = str.maketrans("\uff1a\uff08\uff09\uff0c\uff1d\u2212", ":(),=-")
# a markdown link a notebook made of a log's text ("1[/5](http://…:8888/5)"): its text; Go slog's quoted key
_MARKDOWN_LINK = LazyPattern(r"\[([^\[\]]{0,80})\]\(https?://[^()\s]{1,200}\)")
_QUOTED_KEY = LazyPattern(r'(?<![\w"=])"([A-Za-z][\w .-]{0,40})"=(?=[-+\d"])')


# A progress bar: its description, its percentage, maybe tqdm's bar, "n/total", and in brackets its times and rate
# (the bar's closing pipe maybe lost, "100%|██ 19/19 ["; the closing bracket where a terminal cut the line)
_BAR = LazyPattern(r"(?:(?P<desc>[A-Za-z.(\[][^|%]*?)[:\s]\s*)?(?P<pct>\d{1,3})%\s*(?:Completed\s*)?(?:\|(?:[^|\d]*\|?)?\s*|(?=\d+(?:\.\d+)?[kMGT]?/\S+\s*\[[^\]<]*<))"
                   r"(?P<done>\d+(?:\.\d+)?(?P<mag>[kMGT])?)/(?P<total>\d+(?:\.\d+)?[kMGT]?)\s*\[(?P<inner>[^\]]*)(?:\]|$)")


# A list without brackets, bare numbers to the line's end ("Throughput values: 62.75, 63.09, 62.81, …", a wrapper
# script's repeats): "Throughput values [1]", …
_BARE_LIST = LazyPattern(r"(?P<label>[A-Za-z][\w .-]{0,40}?):\s*(?P<items>[-+]?\d+(?:\.\d+)?(?:\s*,\s*[-+]?\d+(?:\.\d+)?){2,}),?\s*$")
_THOUSANDS = LazyPattern(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # "1,234,567": one number, its thousands grouped


def _listed(items: str) -> bool:
    """Whether a list's items (``_BARE_LIST``) are a list: spaced after their commas, or not one number's
    thousands ("Accepted tokens: 1,5,5,1,…", a list printed without spaces)."""
    return ", " in items or _THOUSANDS.fullmatch(items) is None


# a number a Python dict quotes as a string ("'fwd_time': '0.896'"): read as the number
_QUOTED_PY_NUMBER = LazyPattern(r"(':\s*)'([-+]?\d+(?:\.\d+)?)'(?=\s*[,}])")


# a bar's "[00:48<00:07, …": the time so far and tqdm's estimate of the time left
_BAR_ELAPSED = LazyPattern(r"\s*(?:(?P<h>\d+):)?(?P<m>\d+):(?P<s>\d\d)<(?:(?:(?P<rh>\d+):)?(?P<rm>\d+):(?P<rs>\d\d))?")


# a list of numbers after its label ("All times:  [32.33035635948181, 25.40013289451599, …]"), maybe cut
_LISTED = LazyPattern(r"(?P<label>[A-Za-z][\w ()./-]{0,60}?):\s*\[(?P<items>\s*[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
                      r"(?:\s*,\s*[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?){2,}\s*,?)\s*\]?")


# stable-diffusion.cpp's bar: "  |=================>          | 7/20 - 925.00s/it"
_STEP_BAR = LazyPattern(r"\|[=>#\- ]*\|\s*(?P<done>\d+)/(?P<total>\d+)\s*-\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>s/it|it/s)\s*$")


# pytest --durations: "203.98s call     tests/models/t5/t5_test.py::T5EncoderIreeTest::testV1_1Compare…"
_PYTEST_DURATION = LazyPattern(r"(?P<num>\d+(?:\.\d+)?)s (?P<phase>call|setup|teardown)\s+(?P<test>\S+::\S+)")
# rocm-smi's concise row (ROCm 6: "15  17  0x74a1,   48427  42.0°C  131.0W  NPS1, CPX, 7  145Mhz  900Mhz  0%  auto
# 750.0W  0%  0%"; ROCm 5: "0  33.0c  34.0W  800Mhz  1600Mhz  0%  auto  300.0W  0%  0%"); the power cap is a setting
_ROCM_SMI_ROW = LazyPattern(r"(?P<dev>\d+)\s+(?:\d+\s+)?(?:0x[0-9a-fA-F]+,\s+\d+\s+)?(?P<temp>\d+(?:\.\d+)?)\s?(?:\u00b0C|c)\s+"
                            r"(?P<power>\d+(?:\.\d+)?)W\s+(?:[A-Z0-9]+,\s*[A-Z0-9]+,\s*\d+\s+)?(?P<sclk>\d+)Mhz\s+(?P<mclk>\d+)Mhz\s+"
                            r"(?P<fan>\d+(?:\.\d+)?)%\s+\S+\s+\d+(?:\.\d+)?W\s+(?P<vram>\d+(?:\.\d+)?)%\s+(?P<gpu>\d+(?:\.\d+)?)%")
_ROCM_SMI_FIGURES = (("temperature", "temp", "\u00b0C"), ("power", "power", "W"), ("SCLK", "sclk", "MHz"),
                     ("MCLK", "mclk", "MHz"), ("fan", "fan", "%"), ("VRAM use", "vram", "%"), ("use", "gpu", "%"))
# a size in use out of a size, alone on its line (nvidia-smi's memory cell grepped out: "23490MiB /  24576MiB")
_SIZE_OF_SIZE = LazyPattern(r"(?P<a>\d+(?:\.\d+)?)\s?(?P<ua>[KMGT]i?B)\s*/\s*(?P<b>\d+(?:\.\d+)?)\s?(?P<ub>[KMGT]i?B)")
# du -h: a size with its binary multiple's letter alone, then the file or folder ("2.3G    /data/models/x.safetensors")
_DU_LINE = LazyPattern(r"(?P<num>\d+(?:\.\d+)?)(?P<mag>[KMGT])\s+(?P<path>\.?/\S*|\S+/\S*)")
# TensorRT's memory line at each builder/runtime step: the change, then what is in use ("now"), in the unit closing it
_MEM_USAGE_CHANGE = LazyPattern(r"\[MemUsageChange\]\s*(?P<step>[^:\[\]]{1,60}?):\s*CPU\s*(?P<cpu>[-+]\d+(?:\.\d+)?),\s*GPU\s*"
                                r"(?P<gpu>[-+]\d+(?:\.\d+)?)(?:,\s*now:\s*CPU\s*(?P<cpu_now>\d+(?:\.\d+)?),\s*GPU\s*"
                                r"(?P<gpu_now>\d+(?:\.\d+)?))?\s*\((?P<unit>[KMG]iB)\)")
# ggml's allocation that failed, its size in bytes without a unit (its "%zu"): "failed to allocate CUDA0 buffer
# of size 38654705664", "Device memory allocation of size 4757131264 failed."
_GGML_ALLOCATION = LazyPattern(r"(?P<label>(?:[A-Za-z_]\w*: )?[A-Za-z][\w ]{0,60}?(?:buffer|allocation)) of size (?P<num>\d+)"
                               r"(?: failed)?\.?")
# gin's access line: "[GIN] 2025/10/30 - 00:11:38 | 200 |    1.865926ms |       127.0.0.1 | HEAD     \"/\""
_GIN_ACCESS = LazyPattern(r'\[GIN\][^|]*\|\s*\d{3}\s*\|\s*(?P<latency>[\d.]+[^\s|]*)\s*\|[^|]*\|\s*(?P<method>[A-Z]+)\s+"(?P<path>[^"]*)"')


_GO_ONE_UNIT = LazyPattern(r"(?P<num>\d+(?:\.\d+)?)(?P<unit>ns|us|\u00b5s|\u03bcs|ms|s)")


_SMI_ROW = LazyPattern(r"\|\s*(?:(?P<fan>\d+)%|N/A)\s+(?:(?P<temp>\d+)C|N/A)\s+P\d+\s+(?:(?P<power>\d+(?:\.\d+)?)W|N/A)\s*/\s*"
                       r"(?:(?P<cap>\d+(?:\.\d+)?)W|N/A)\s*\|\s*(?P<used>\d+)MiB\s*/\s*(?P<total>\d+)MiB\s*\|\s*(?:(?P<util>\d+)%|N/A)")


# gpustat's GPU line: "[0] NVIDIA H100 80GB HBM3 | 50°C,  18 % | 36147 / 81559 MB | user(36138M) python/5204(512M)"
# (the index may have gone with the line's prefixes; older versions print "50'C"; -F adds the fan's percentage before the utilisation, -P the power "130 / 250 W")
_GPUSTAT_ROW = LazyPattern(r"(?:\[(?P<gpu>\d+)\]\s+)?[A-Za-z][^|]{2,60}?\|\s*(?P<temp>\d+)\s*(?:\u00b0C|'C)\s*,\s*(?:(?P<fan>\d+)\s*%\s*,\s*)?"
                           r"(?P<util>\d+)\s*%(?:\s*,\s*(?P<power>\d+)\s*/\s*(?P<cap>\d+)\s*W)?\s*\|\s*(?P<used>\d+)\s*/\s*"
                           r"(?P<total>\d+)\s*MB\s*\|(?P<procs>.*)")
_GPUSTAT_PROC = LazyPattern(r"(?P<name>[^\s(|]+)\((?P<mem>\d+)M\)")
_GPUSTAT_FIGURES = (("temperature", "temp", "\u00b0C"), ("fan", "fan", "%"), ("util", "util", "%"), ("power", "power", "W"),
                    ("power cap", "cap", "W"), ("memory used", "used", "MB"), ("memory total", "total", "MB"))


# an attribute in the OpenTelemetry collector's debug exporter: "     -> gen_ai.usage.prompt_tokens: Int(24)"
_OTEL_ATTRIBUTE = LazyPattern(r"->\s*(?P<key>[\w.-]{1,80}):\s*(?:Int|Double)\((?P<num>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\)")


# htop's CPU meters, several a line: "0[100]  9[100] … 72[2.0] 77[11.]" (narrow: its value cut to fit) or with their
# bars, "1  [||||||||   45.3%]   2  [|   3.1%]"
_HTOP_METER = r"(?P<cpu>\d{1,4})\s*\[[|#*\s]*?(?P<pct>\d{1,3}(?:\.\d*)?)%?\]"
_HTOP_METERS = LazyPattern(r"(?:\s*" + _HTOP_METER + r"){2,}\s*")
_HTOP_ONE = LazyPattern(_HTOP_METER)


# an access log's line in the combined format, maybe with the request's time last (llama-swap, nginx's
# $request_time): '… "GET /v1/models HTTP/1.1" 200 2389 "Python/3.11 aiohttp/3.13.5" 180.049µs'
_ACCESS_LINE = LazyPattern(r'.*?"(?P<method>[A-Z]{3,7}) (?P<path>\S{1,200}) HTTP/[\d.]+" \d{3} (?P<bytes>\d+)'
                           r'(?:.*?\s(?P<num>\d+(?:\.\d+)?)(?P<unit>ns|\u00b5s|\u03bcs|us|ms|s))?\s*$')


# a load tester's response-time histogram (oha, hey): "  0.105 min [14385] |■■■■" (the bucket's bound, its count)
_HISTOGRAM_ROW = LazyPattern(r"(?P<bound>\d+(?:\.\d+)?)\s*(?P<unit>ns|us|\u00b5s|ms|s|sec|min)?\s*\[(?P<count>\d+)\]\s*\|[^|]*")


# Ascend's npu-smi table, two rows an NPU: "| 0     910B2  | OK  | 96.5   36   0    / 0  |" (power W, temperature °C,
# hugepages used / total, in pages; "-" or "NA" where none is read) then "| 0   | 0000:C1:00.0  | 0   0    / 0   29954/ 65536  |"
# (AICore %, memory and HBM MB; the chip's cell may add its physical id: "| 0     0   | 0000:9D:00.0 | …")
_NPU_ROW = LazyPattern(r"\|\s*(?P<npu>\d+)\s+[\w.-]+\s*\|\s*[A-Za-z]+\s*\|\s*(?:(?P<power>\d+(?:\.\d+)?)|NA|-)\s+(?:(?P<temp>\d+)|NA|-)"
                       r"\s+(?P<hp_used>\d+)\s*/\s*(?P<hp_total>\d+)\s*\|")
_NPU_CHIP_ROW = LazyPattern(r"\|\s*\d+(?:\s+\d+)?\s*\|\s*[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d\s*\|\s*(?P<aicore>\d+)\s+(?P<mem_used>\d+)"
                            r"\s*/\s*(?P<mem_total>\d+)\s+(?P<hbm_used>\d+)\s*/\s*(?P<hbm_total>\d+)\s*\|")
_NPU_FIGURES = (("power", "W"), ("temperature", "\u00b0C"), ("hugepages used", "pages"), ("hugepages total", "pages"),
                ("AICore", "%"), ("memory used", "MB"), ("memory total", "MB"), ("HBM used", "MB"), ("HBM total", "MB"))


# llama.cpp's device list: "  - Vulkan0 : AMD Radeon RX 6600 (RADV NAVI23) (8192 MiB, 8169 MiB free)"
# llama-server's "- CUDA0 : NVIDIA … (24080 MiB, 23654 MiB free)", --list-devices' "RPC[10.0.0.2:50052]: RPC[…] (…)"
_DEVICE_MEMORY = LazyPattern(r"(?:-\s*)?(?P<dev>[A-Za-z][\w.-]*(?:\[[^\]]*\])?)\s*:\s.*\((?P<total>\d+(?:\.\d+)?) MiB, (?P<free>\d+(?:\.\d+)?) MiB free\)$")


_SMI_FIGURES = (("GPU fan", "fan", "%"), ("GPU temperature", "temp", "\u00b0C"), ("GPU power", "power", "W"), ("GPU power cap", "cap", "W"),
                ("GPU memory used", "used", "MiB"),
                ("GPU memory total", "total", "MiB"), ("GPU util", "util", "%"))


# a bar of block elements (ollama's pull: "pulling 8eeb52dfb3bb...  45% ▕███     ▏ 2.1 GB/4.7 GB   42 MB/s   1m2s"):
# its percentage, the size done (of the total), its rate and the time left
_BLOCK_BAR = LazyPattern(r"(?P<desc>[A-Za-z][^%\u2595]*?)[.:\s]*\s(?P<pct>\d{1,3})%\s*\u2595[^\u258f]*\u258f\s*"
                         r"(?:(?P<done>\d+(?:\.\d+)?)\s*(?P<unit>[KMGT]?i?B)(?:\s*/\s*(?P<total>\d+(?:\.\d+)?)\s*"
                         r"(?P<tunit>[KMGT]?i?B))?(?:\s+(?P<rate>\d+(?:\.\d+)?)\s*(?P<runit>[KMGT]?i?B/s))?"
                         r"(?:\s+(?P<left>(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?s))?)?")
# Rust's indicatif bar, as hf-hub draws a download (mistral.rs, candle, TEI): "tokenizer.json [00:00:00] [████…]
# 1.76 MiB/1.76 MiB 2.44 MiB/s (0s)": its time so far, size, total, rate and the time it says is left
# rich's progress bar (GuideLLM, vLLM's and others' CLIs): "Generating report... ━━━━━━━━━━ (1/1) [ 0:01:40 < 0:00:00 ]",
# its columns as the program chose them: a percentage, how many of how many, the time so far and the time left
_RICH_BAR = LazyPattern(r"(?P<desc>[A-Za-z][^\u2501\u2578\u257a]{0,80}?)[.:\s]*[\u2501\u2578\u257a]+\s*"
                        r"(?:(?P<pct>\d{1,3}(?:\.\d+)?)%\s*)?(?:\(?(?P<done>\d+)/(?P<total>\d+)\)?\s*)?"
                        r"(?:\[?\s*(?P<elapsed>\d+:\d\d(?::\d\d)?)\s*<\s*(?P<left>\d+:\d\d(?::\d\d)?)\s*\]?\s*"
                        r"|(?P<only>\d+:\d\d(?::\d\d)?)\s*)?$")  # rich's default: the time left alone
_INDICATIF_BAR = LazyPattern(r"(?P<desc>[\w.-][^\[\]]{0,80}?)\s*\[(?P<elapsed>\d{1,2}(?::\d\d){1,2})\]\s*\[[^\]]*\]\s*"
                             r"(?P<pct>)(?P<done>\d+(?:\.\d+)?)\s*(?P<unit>[KMGT]?i?B)\s*/\s*(?P<total>\d+(?:\.\d+)?)\s*"
                             r"(?P<tunit>[KMGT]?i?B)(?:\s+(?P<rate>\d+(?:\.\d+)?)\s*(?P<runit>[KMGT]?i?B/s))?"
                             r"(?:\s+\((?P<left>(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?s)\))?")
# ... or of bytes (a download: "config.json: 2.09kB [00:00, 15.8MB/s]", its size so far and its rate)
_BAR_COUNTED = LazyPattern(r"(?:(?P<desc>[A-Za-z][^|%\[:]*?):?\s+)?(?:(?P<count>\d+)it|(?P<size>\d+(?:\.\d+)?)(?P<sunit>[kMGT]?B)) "
                           r"\[(?P<elapsed>(?:\d+:)?\d+:\d\d),\s*(?P<num>\d+(?:\.\d+)?)(?P<unit>it/s|s/it|[kMGT]?B/s)\]")


BAR_LABEL = "progress bar"  # the label of a bar that prints no description



_BAR_RATE = LazyPattern(r"(?<![\w.])(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[A-Za-z]+/s|s/it|s/(?:sample|prompt|image|step|request|batch|query))\b")


BAR_VALUES = 64


MAX_BARS = 256


# "(MiB)" closing a line of bare values; each item "name value", maybe after its group's "head:".
_UNIT_AT_END = LazyPattern(r"\s\((?P<unit>[KMGT]i?B|[KMGT]B|ms|us|s)\)$")


_UNIT_ITEM = LazyPattern(r"(?:(?P<head>[^:]*[A-Za-z][^:]*):\s*)?(?P<label>[A-Za-z][\w -]*?)\s+(?P<num>[-+]?\d+(?:\.\d+)?)")


_BOX_BARS = str.maketrans("\u2502\u2503\u2551\u2506", "||||")  # "│", "┃", "║"; comfy-table's (Rust) "┆" between cells


_CANDIDATES = LazyPattern(r"(?:\(\s*\S*\s+\d+(?:\.\d+)?%\)\s*){3}")


# llama.cpp's system_info ("AVX = 1 | AVX2 = 1 | FMA = 1 | …") and the like: flags, no figures.
_CONFIG_REPR = LazyPattern(r"[A-Za-z]Config\([a-z_]+=")  # a dataclass's repr: every number in it is a setting


_FLAGS = LazyPattern(r"(?:\w+ = [01] \| ){3}")


# a word or "/" right after a number (some unit), or a date's or time's next part ("time=2024-11-19T11:57:03"); a
# word that labels the next value ("ttft=0.2174 latency=0.5485") is no unit
_UNIT_AFTER = LazyPattern(r"[ \t]?(?!(?:for|at|in|on|with|after|from|to|and|of|by|over|across)\b)(?![^\W\d]\w*[=:])[^\W\d_/]"
                          r"|/|[-:.T]\d")


_UNITLESS_KINDS = frozenset(("duration", "rate"))
_RECORD_KINDS = _UNITLESS_KINDS | {"ratio"}  # a record's item that says its kind ("…, rtf 0.1667")


# What may follow a labelled number printed without a unit for it to be one of no stated kind: the line's end, a
# separator, a bracket, or the next "label:"/"key=" ("pred= 192 draft=   0"); a word after it is a unit this reader
# does not know ("12 files"), and then it is no figure.
_BARE_END = LazyPattern(r"\s*(?:$|[,;|)\]}(]|[A-Za-z_#][\w .#()/-]{0,40}?\s*[:=])")


# times, dates, addresses ("0x7f3a", not "5.0x": a ratio), a bar's %
_BAD_VALUE_AROUND = LazyPattern(r"\d[:/]\d|\d-\d\d-|(?<![\w.])0x[0-9a-fA-F]|\d\.\d+\.\d|\d%\||(?<=[0-9A-Fa-f]{4}:)[0-9A-Fa-f]{2}:\d\d\.\d")  # (a PCI
# address: "00000000:DE:00.0")


def _list_value(text: str) -> Optional[tuple]:
    """(number as printed, unit) of one value of a list, a Go duration of several parts in ms ("2m55s", vegeta's),
    or None."""
    cell = _CELL_VALUE.fullmatch(text)
    if cell is not None:
        return cell["num"], cell["unit"]
    if _MULTI_DURATION.fullmatch(text) is not None:
        return repr(go_duration_ms(text)), "ms"
    return None


def _beside_noise(s: str, start: int, end: int) -> bool:
    """Whether what stands around the number at ``s[start:end]`` makes it no value: a part of a time, date, address
    or version, a bar's percentage, a source file's line ("[stats.h:100]", "llama.cpp:1234")."""
    if _BAD_VALUE_AROUND.search(s, max(0, start - 3), end + 3):
        return True
    return start > 2 and s[start - 1] == ":" and _SOURCE_FILE.search(s, max(0, start - 41), start - 1) is not None


# What a duration alone in brackets after its words is of: "Loading model... [0m 02s elapsed]", "Still
# loading... (1m 14s)" (a spinner's and a status line's time so far)
_BRACKETED_HEAD = LazyPattern(r"(?P<label>[A-Za-z][\w ]{0,60}?)[.\u2026:]*\s*[\[(]$")
_BRACKETED_TAIL = LazyPattern(r"\s*(?P<elapsed>elapsed)?[\])]")


# print("time taken ", t): a label, two spaces (print's own and the label's) and a number, alone on the line
_PRINTED_PAIR = LazyPattern(r"[A-Za-z][\w -]{0,40}[A-Za-z](?:  |\t)[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _overlaps(m: re.Match, taken: list) -> bool:
    """Whether ``m`` overlaps a span a shape already read (``taken``)."""
    return any(a < m.end() and m.start() < b for a, b in taken)


def _bar_seconds(clock: str) -> str:
    """The whole seconds a bar's clock says ("01:12", "0:01:40"), as text."""
    return str(int(clock_s(*clock.split(":"))))


def _clock_seconds(m: re.Match) -> str:
    """The seconds a clock's ``h``, ``m``, ``s`` groups say, as text ("0:05:43" -> "343.0")."""
    return repr(round(clock_s(m["h"], m["m"], m["s"]), 6))


def _bare_end(s: str, start: int, end: int) -> bool:
    """Whether a number with no unit after "key:" ends its pair (``_BARE_END``), or is glued to its key in a record
    of such pairs ("… norm:0.01479192 max memory_allocated 6822.48"): it is then the key's value, whatever follows."""
    if _BARE_END.match(s, end) is not None:
        return True
    return s[start - 1:start] == ":" and s[start - 2:start - 1].isalnum() and len(_GLUED_PAIR.findall(s)) >= 2


def _printed_pair(s: str, label: Optional[str], end: int) -> bool:
    """Whether ``s`` is ``_PRINTED_PAIR`` and its label names a duration or a rate, whose unit is often not printed
    ("time taken  2.5174171924591064"), or the number ending ``s`` at ``end`` is a quality measure ("sample 50,
    Perplexity 5.0264153480529785"): other unitless numbers after a label need its colon."""
    if not label:
        return False
    if _PRINTED_PAIR.fullmatch(s) is not None:
        return _unit_kind(None, _words(label))[1] in _UNITLESS_KINDS
    return not s[end:].strip() and _QUALITY.search(label) is not None


_GLUED_PAIR = LazyPattern(r"[A-Za-z_]\w*:[-+]?\d[\d.eE+-]*(?=\s|$)")  # "recon_loss:0.0335": a key glued to its value

_PIPED_CELL_HEAD = LazyPattern(r"(?:[A-Za-z][\w/-]{0,24} )?[A-Za-z][\w/-]{0,24} ")  # a word or two before a
# cell's number: "tokens 44", "running loss 0.041"


def _piped_word(s: str, start: int, end: int) -> Optional[str]:
    """The one word naming the number at ``s[start:end]`` when it fills a cell of a record of " | "-separated cells
    ("mel 0.007s | enc 0.379s | … | tokens 44 | tps 22.2"): the word names it as a pair's key does; else None."""
    if s.count(" | ") < 2 or s[end:end + 3] != " | " and s[end:].strip():
        return None
    head = s[:start].rpartition(" | ")[2]
    return head.strip() if _PIPED_CELL_HEAD.fullmatch(head) is not None else None


def _piped_key(s: str, start: int, m: re.Match) -> Optional[tuple]:
    """("pair", word, None) for a number with no unit filling a piped cell after a word that names its unit or
    says it counts ("tps 22.2", "tokens 44"), as a key before a colon would; else None."""
    word = _piped_word(s, start, m.end()) if m["unit"] is None else None
    if word is None:
        return None
    return ("pair", word, None) if _key_unit(word) or _unit_kind(None, _words(word))[1] in ("count", "value") else None


def _in_brackets(s: str, m: re.Match) -> Optional[tuple]:
    """("in brackets", label) for a duration that fills its brackets after the words naming it, or None; not a
    list of durations ("clamped to [900s, 3600s]"), nor a duration said again after a number and its unit ("984
    seconds (16 min 24 sec)")."""
    tail = _BRACKETED_TAIL.match(s, m.end()) if "," not in m[0] else None
    head = _BRACKETED_HEAD.search(s, max(0, m.start() - _BEFORE_CHARS), m.start()) if tail is not None else None
    if head is None or s[max(0, head.start() - 2):head.start()].strip()[-1:].isdigit():
        return None
    return "in brackets", head["label"].strip() + (" elapsed" if tail["elapsed"] else "")


# nccl-tests' (and rccl-tests') row under "size count type redop root | time algbw busbw #wrong" twice (out of place,
# in place; us, GB/s): "1073741824  268435456  float  sum  -1   9306.7  115.37  115.37  0   9291.5  115.56  115.56  0",
# maybe after srun's rank label (" 0:        65536  …", srun --label)
_NCCL_ROW = LazyPattern(r"(?:\d{1,5}:\s+)?(?P<size>\d+)\s+\d+\s+[a-z][a-z0-9_]*\s+(?:sum|prod|max|min|avg|none|mulsum|premulsum)\s+"
                        r"(?:-?\d+\s+)?(?P<t1>\d+(?:\.\d+)?)\s+(?P<a1>\d+(?:\.\d+)?)\s+(?P<b1>\d+(?:\.\d+)?)\s+(?P<w1>\d+|N/A)"
                        r"\s+(?P<t2>\d+(?:\.\d+)?)\s+(?P<a2>\d+(?:\.\d+)?)\s+(?P<b2>\d+(?:\.\d+)?)\s+(?P<w2>\d+|N/A)")


# llama-perplexity's and llama-imatrix's running perplexity after each chunk: "[1]3.3282,[2]5.5064,[3]5.7696,"
_CHUNK = LazyPattern(r"\[(?P<n>\d+)\](?P<num>\d+(?:\.\d+)?|nan|inf)")
_CHUNKS = LazyPattern(r"(?:\[\d+\](?:\d+(?:\.\d+)?|nan|inf),?\s*)+")


# All a line holds before its first colon and the number after it, when no shape above names a label: a label with
# brackets inside brackets ("Cor(ln(PPL(Q)), ln(PPL(base))):  99.20%", llama-perplexity's statistics)
_WHOLE_HEAD = LazyPattern(r"\s*(?:>\s*)*(?P<label>[A-Za-z][^:\d]{0,60}?[\w)]|[A-Za-z][^:\d(]{0,60}?\([^()]{0,120}\))\s*:\s*")  # (its
# brackets may hold digits: "Perf (num_groups=2, expected_m_per_group=  16, n=4096):   35 us")


def _whole_head(s: str, start: int) -> Optional[tuple]:
    """("pair", label, None) for ``_WHOLE_HEAD`` before the number at ``start``, or None."""
    m = _WHOLE_HEAD.fullmatch(s, 0, start) if "(" in s[:start] else None
    return ("pair", m["label"], None) if m is not None else None


# things counted, whose "(s)" glued on is their plural ("16 core(s)", "1 socket(s)", "2 thread(s)/core")
_PLURAL_NOUN = LazyPattern(r"(?:^|[\s_])(?:core|socket|thread|device|gpu|node|file|request|token|item|process|worker"
                           r"|layer|slot|block|step|sample|prompt|image|chunk|instance|replica|shard|expert|user|page"
                           r"|connection|sequence|seq|tensor|kernel|stream|job|task|card|rank|iteration)$", re.I)


def _before(reversed_head: str) -> Optional[tuple]:
    """(shape, label, unit in brackets or None) from the reversed text before a number, or None."""
    for shape, rx in _BEFORE:
        m = rx.match(reversed_head)
        if m is not None:
            unit = m["unit"][::-1] if shape == "bracket" else None
            label = m["label"][::-1]
            if unit == "s" and _PLURAL_NOUN.search(label) is not None and _unit_kind(None, label)[1] != "duration":
                # "core(s) = 16": a plural glued to its noun, no seconds ("Time to First Token(s): 0.11" is in them)
                shape, label, unit = "pair", f"{label}(s)", None
            if shape == "bracket" and m.groupdict().get("stat"):
                label = f"{label} {m['stat'][::-1]}"
            if reversed_head[m.end():m.end() + 1] in ("=", ":") and " " in label.strip():
                # "reason=length prefill_tokens=": "length" is a value; after "key=" the words of its value, then
                # a key glued to its own "=" ("desc=NVIDIA GeForce RTX 5060 Ti mem=15174"): that key alone
                label = label.strip().rsplit(" ", 1)[1] if reversed_head[:1] == "=" else label.strip().split(" ", 1)[1]
            elif shape == "pair" and reversed_head[:1] == "=" and " " in label.strip() \
                    and sum(_NUMBER_WORD.fullmatch(w) is not None for w in label.split()) >= 2:  # "97536589 ns  7 OPS=1.3G/s":
                label = label.strip().rsplit(" ", 1)[1]  # a row's values, then the key glued to "=" ("Head 0 Accuracy=")
            elif shape == "pair" and reversed_head[:1] == ":" and "_" in (words := label.split() or [""])[-1] \
                    and any(_NUMBER_WORD.fullmatch(w) for w in words[:-1]):  # "blocks 27 epoch 0 recon_loss:0.03":
                label = words[-1]  # an identifier glued to its colon and value names it alone, after a record's counters
            if shape == "pair" and reversed_head[m.end():m.end() + 1] == "/" and " " in label.strip() \
                    and reversed_head[m.end() + 1:m.end() + 2].isdigit():
                label = label.strip().split(" ", 1)[1]  # "rate= 24.3/min  sent=  25": "min" is the rate's unit
            if shape in ("spaced", "took"):  # "vocab_size 32000 decoding-time 5894.14 ms": a number ends a label
                words = label.split()
                if "." in words[0] and reversed_head[m.end():m.end() + 1] == "/":  # "https://aihorde.net for 150
                    words = words[1:]                                           # tokens": no host names it
                    if not words:
                        return None
                cut = max((i + 1 for i, w in enumerate(words) if _NUMBER_WORD.fullmatch(w)), default=0)
                if 0 < cut < len(words) and _UNIT_WORD.fullmatch(words[cut]):  # "G 559 ms I 499 ms": "I", not "ms I"
                    cut += 1
                label = " ".join(words[cut:])
                if not label or (shape == "spaced" and _UNIT_WORD.fullmatch(label)):  # "63 kB  2.1 kB/s"
                    return None
                if label.lower() in _CONNECTORS:  # "1.2 GiB (or 509248 tokens)": the figure before, said again
                    return None
            return shape, label, unit
    return None


def _words_after(s: str, start: int, end: int, unit: Optional[str], last: Optional[tuple]) -> Optional[tuple]:
    """(label, unit, "after", end) of a number named by the words after it, or None: "0.3 s first token" ("token"
    is no unit there), "0 cached tokens", "3.56 ms per token" (its end past the words), "40.2 tok/s (40.9 decode)"
    (a phase in brackets: the unit of the figure before it)."""
    after = _AFTER.match(s, end)
    if after is not None and (after["unit"] or unit):
        label, unit = (after[0][after.start("label") - after.start():].strip(), unit) if unit \
            else (after["label"], after["unit"])
        counted = _COUNT_UNITS.get(after["unit"])
        if counted is not None and counted.rstrip("s") not in label.lower():
            label = f"{label} {counted}"  # "0 cached tokens and 118010 new tokens": "cached tokens"; "new samples"
        return label, unit, "after", after.end() if label.startswith("per ") else end
    if last is not None and s[start - 1:start] == "(" and (phase := _PHASE_AFTER.match(s, end)) is not None:
        return phase[1], last[2], "after", end
    return None


def _bracketed(label: str, words: str) -> str:
    """The label of a figure whose brackets hold words, no unit: "Latency (per token): 0.41 ms" and "Total generated
    tokens (retokenized): 9876" keep them or not (``_REMARKS``); "minicpm4 (prefill)  min = 122.64": the statistic
    stays last."""
    if words.startswith(_REMARKS):
        return label
    of, _, stat = label.rpartition(" ")
    return f"{of} ({words}) {stat}" if of and _STAT_COLUMN.fullmatch(stat) else f"{label} ({words})"


_NUMPY_SCALAR = LazyPattern(r"\bnp\.(?:float|u?int)(?:16|32|64)\(([-+]?\d[\d.]*(?:[eE][-+]?\d+)?)\)")


_POINTED_NOTE = LazyPattern(r"(?<=\d)\s+<-{1,3}\s+[^\d<>]*$")


_SPELLED_SIZE = LazyPattern(r"(?<=\d) ?\((Kilo|Mega|Giga|Tera)?[Bb]ytes\)")
_SPELLED_PREFIX = {"Kilo": "kB", "Mega": "MB", "Giga": "GB", "Tera": "TB", None: "B"}


def _spelled_size(m: re.Match) -> str:
    return " " + _SPELLED_PREFIX[m[1]]


def _normalized(text: str) -> str:
    """A line as the shapes read it (quoting, box bars and full-width punctuation made plain), or "" for a line
    that is noise as a whole."""
    stripped = text.strip()
    if not stripped or "Namespace(" in stripped or "worst-case:" in stripped:
        return ""  # a tool's arguments echoed back (argparse), llama.cpp's "worst-case: n_tokens = 512": settings
    if "Config(" in stripped and _CONFIG_REPR.search(stripped) is not None:
        return ""  # a configuration object printed whole: "OfflineRecognizerConfig(feat_config=…(sampling_rate=16000"
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
    elif "\u2506" in stripped and "\u2502" in stripped:  # a comfy-table row after a prefix ("mrs q4k │ Prefill ┆ …")
        stripped = "| " + stripped.translate(_BOX_BARS)
    elif stripped[-1] == "|" and stripped[0] != "|" and stripped.count(" | ") >= 2 and stripped.count(": ") < 2:
        # a markdown row after a prefix ("lcp q4k | qwen3 4B Q4_K - Medium | 2.32 GiB | …", grep's or a script's);
        # cells that name their own values are a record (Megatron's "| consumed samples: 9088 | lm loss: 1.8 |")
        stripped = "| " + stripped
    if not stripped.isascii():  # "显存占用：14881MiB", "1,483 (−1.1%)"
        stripped = stripped.translate(_PLAIN_PUNCTUATION)
    if "': '" in stripped:  # a Python dict printed whole, its numbers as strings: "{'time': '1.011', …}"
        stripped = _QUOTED_PY_NUMBER.sub(r"\1\2", stripped)
    if "np." in stripped:  # NumPy 2's scalars in a printed dict: "'accuracy': np.float64(0.5587)"
        stripped = _NUMPY_SCALAR.sub(r"\1", stripped)
    if "](http" in stripped:  # a notebook's paste that made links of a log's text: "| 1[/5](http://…:8888/5) ["
        stripped = _MARKDOWN_LINK.sub(r"\1", stripped)
    if stripped[-1] == '"' and 'msg="' in stripped:  # ollama's slog message ending in its figure: the message read
        stripped = _SLOG_FIGURE.sub(r"\1", stripped)  # as text ('msg="total blobs: 36"')
    if '"=' in stripped:  # a logfmt key with spaces, quoted (Go's slog, ollama: "attention MiB"=1024): one word
        stripped = _QUOTED_KEY.sub(lambda m: m[1].replace(" ", "_") + "=", stripped)
    if "ytes)" in stripped:  # a size's unit spelled out in brackets: DeepSpeed's "Free memory : 8.592285 (GigaBytes)"
        stripped = _SPELLED_SIZE.sub(_spelled_size, stripped)
    if stripped[0] == '"' and stripped[-1] == '"' and stripped.count('"') == 2 and len(stripped) > 2:
        stripped = stripped[1:-1]  # a message its logger quoted (Triton's glog: '… logging.cc:46] "[MemUsageChange] …"')
    if "#token" in stripped:  # SGLang's "#token: 958017" counts tokens ("token: 29871" alone is a token's id)
        stripped = _HASH_TOKEN.sub("token count", stripped)
    if " <-" in stripped:  # a note pointing back at the figure ("prompt_eval_rate_mean: 198.06  <-- Valuable")
        stripped = _POINTED_NOTE.sub("", stripped)
    return stripped


class LineShapes:
    """The shapes of one line of text: labelled values, lists, bars, a shell's time, whole-line formats."""

    # -- shapes ----------------------------------------------------------------------------------------------
    def _whole_line(self, s: str, line: str, routed: bool) -> bool:
        """The shapes a whole line is one of: common tools' lines (``_tool_line``), values before a unit closing
        it, sd.cpp's step bar, gin's access line, nvidia-smi's and gpustat's GPU rows, npu-smi's, an OpenTelemetry
        attribute, htop's CPU meters, an access log's line, a load tester's histogram row; free's, df's and top's
        rows and dd's summary (``SystemToolShapes``), an operation's count and time (``ADD: 64 x 263.644 ms``)."""
        if self._system_tool(s, line, routed):
            return True
        if " x " in s and s[-1] == "s" and (op := _COUNT_TIMES.fullmatch(s)) is not None:
            label = _label(op["label"])
            self._add(f"{label} count", op["count"], "calls", line, routed)
            self._add(f"{label} time", op["num"], op["unit"], line, routed)
            return True
        if (" of size " in s or "[MemUsageChange]" in s or s[0].isdigit() and ("/" in s or "s call " in s or s[-1] in "%0A"
                                                                     or "  -1  " in s)) \
                and self._tool_line(s, line, routed):
            return True
        if s.endswith(")") and self._unit_at_end(s, line, routed):
            return True
        if s.startswith("|") and "/" in s and (bar := _STEP_BAR.match(s)) is not None:
            self._step_bar(bar, line, routed)
            return True
        if (s[0] == "[" or s[-1] in "],") and self._item_list(s, line, routed):
            return True
        if s.startswith("[GIN]") and (gin := _GIN_ACCESS.match(s)) is not None:
            self._gin(gin, line, routed)
            return True
        if s.endswith("MiB free)") and (device := _DEVICE_MEMORY.match(s)) is not None:
            self._add(f"{device['dev']} memory total", device["total"], "MiB", line, routed)
            self._add(f"{device['dev']} memory free", device["free"], "MiB", line, routed)
            return True
        if s.startswith("|") and "/" in s and self._npu_smi(s, line, routed):
            return True
        if s[0].isdigit() and " / " in s and _SLASH_VALUES.fullmatch(s) is not None and self._slashed_below(s, line, routed):
            return True
        if " HTTP/" in s and (access := _ACCESS_LINE.match(s)) is not None:
            label = f"{access['method']} {access['path'][:40]}"
            self._add(f"{label} response size", access["bytes"], "B", line, routed)
            if access["num"] is not None:
                self._add(f"{label} latency", access["num"], access["unit"], line, routed)
            return True
        if s[0].isdigit() and "] " in s and "|" in s and (bucket := _HISTOGRAM_ROW.fullmatch(s)) is not None:
            unit = f" {bucket['unit']}" if bucket["unit"] else ""
            self._add(f"requests in bucket {bucket['bound']}{unit}", bucket["count"], "requests", line, routed,
                      noise_label="requests in bucket")  # its bound's unit ("min") names no limit
            return True
        if s.startswith("->") and (otel := _OTEL_ATTRIBUTE.fullmatch(s)) is not None:
            key = otel["key"]  # its unit from its name's suffix ("…duration_ms"), else its kind from its words
            self._add(_label(key), otel["num"], _key_unit(key.rpartition(".")[2]), line, routed, bare=True)
            return True
        if " MB |" in s and "C," in s and (gpustat := _GPUSTAT_ROW.match(s)) is not None:
            self._gpustat(gpustat, line, routed)
            return True
        if s.startswith("|") and "MiB /" in s and (smi := _SMI_ROW.match(s)) is not None:
            # nvidia-smi's GPU row: "|  0%   38C    P8    16W / 350W |    114MiB / 24576MiB |      0%      Default |"
            for label, group, unit in _SMI_FIGURES:
                if smi[group] is not None:
                    self._add(label, smi[group], unit, line, routed)
            return True
        return False

    def _item_list(self, s: str, line: str, routed: bool) -> bool:
        """A line that lists one figure an item: llama-perplexity's running perplexity ("[1]3.3282,[2]5.5064,"),
        htop's CPU meters, a Python list after its label; True: read."""
        if s.startswith("[") and s[1:2].isdigit() and _CHUNKS.fullmatch(s) is not None:
            for chunk in _CHUNK.finditer(s):  # llama-perplexity's and llama-imatrix's running perplexity
                self._add(f"[{chunk['n']}] perplexity", chunk["num"], None, line, routed, bare=True)
            return True
        if s[0].isdigit() and s[-1] == "]" and _HTOP_METERS.fullmatch(s) is not None:
            for meter in _HTOP_ONE.finditer(s):
                self._add(f"CPU {meter['cpu']} usage", meter["pct"].rstrip("."), "%", line, routed)
            return True
        if s.endswith(("]", ",")) and ": [" in s and (listed := _LISTED.fullmatch(s)) is not None:
            # "All times:  [32.33, 25.40, …]": a Python list printed after its label, one figure an item
            label, unit = _label(listed["label"]), _key_unit(listed["label"].replace(" ", "_"))
            for i, item in enumerate(listed["items"].split(",")[:LIST_ITEMS], 1):
                if item.strip():
                    self._add(f"{label} [{i}]", item.strip(), unit, line, routed, bare=True)
            return True
        return False

    def _tool_line(self, s: str, line: str, routed: bool) -> bool:
        """ggml's failed allocation (its size in bytes), TensorRT's memory change at a step (the CPU's and GPU's
        change, then what each has in use), pytest's ``--durations`` rows (a test's call, setup or teardown time,
        named by the test), a size in use out of a size alone on its line, ``du -h``'s size of a file ("2.3G    /models/…/model-00001-of-00007.
        safetensors": binary multiples); True: the line was one."""
        if s[0].isdigit():
            if (row := _NCCL_ROW.fullmatch(s)) is not None:  # nccl-tests' and rccl-tests' row, its header or not
                for place, n in (("out-of-place", "1"), ("in-place", "2")):
                    for column, unit in (("time", "us"), ("algbw", "GB/s"), ("busbw", "GB/s")):
                        self._add(f"{row['size']} B {place} {column}", row[column[0] + n], unit, line, routed)
                    if row["w" + n] != "N/A":  # results found wrong by the check ("-c 1"): a count, most often 0
                        self._add(f"{row['size']} B {place} wrong", row["w" + n], None, line, routed, bare=True)
                return True
            if (test := _PYTEST_DURATION.fullmatch(s)) is not None:  # "203.98s call     tests/x.py::T::test_a"
                name = test["test"].rpartition("::")[2] or test["test"]
                self._add(f"{name[:60]} {test['phase']}", test["num"], "s", line, routed)
                return True
            if s[-1] == "%" and (rocm := _ROCM_SMI_ROW.fullmatch(s)) is not None:
                for label, group, unit in _ROCM_SMI_FIGURES:
                    self._add(f"GPU {rocm['dev']} {label}", rocm[group], unit, line, routed)
                return True
            if (used := _SIZE_OF_SIZE.fullmatch(s)) is not None:  # nvidia-smi's memory cell grepped out alone
                self._add("used", used["a"], used["ua"], line, routed)  # ("23490MiB /  24576MiB")
                self._add("used out of", used["b"], used["ub"], line, routed)
                return True
            du = _DU_LINE.fullmatch(s)
            if du is None:
                return False
            name = du["path"].rstrip("/").rpartition("/")[2] or du["path"]
            self._add(f"{name[:60]} size", du["num"], f"{du['mag']}iB", line, routed)
            return True
        if (s[-1].isdigit() or s.endswith("failed.")) and (alloc := _GGML_ALLOCATION.search(s)) is not None \
                and alloc.end() == len(s):
            self._add(f"{alloc['label'].rpartition(': ')[2]} size", alloc["num"], "B", line, routed)
            return True
        if s.endswith("iB)") and (mem := _MEM_USAGE_CHANGE.search(s)) is not None:
            step = mem["step"].strip()
            for label, group in (("CPU change", "cpu"), ("GPU change", "gpu"), ("CPU in use", "cpu_now"),
                                 ("GPU in use", "gpu_now")):
                if mem[group] is not None:
                    self._add(f"{step} {label}", mem[group], mem["unit"], line, routed)
            return True
        return False

    def _gpustat(self, m: re.Match, line: str, routed: bool) -> None:
        """gpustat's line for one GPU: its temperature, utilisation, memory used and total ("GPU 0 memory used"),
        and each process's memory ("GPU 0 process python/5204 memory", MiB: gpustat's "M"); "GPU …" alone where
        the index went with the line's prefixes (a "[0]" reads as a process id)."""
        gpu = f"GPU {m['gpu']}" if m["gpu"] else "GPU"
        for label, group, unit in _GPUSTAT_FIGURES:
            if m[group] is not None:
                self._add(f"{gpu} {label}", m[group], unit, line, routed)
        for proc in _GPUSTAT_PROC.finditer(m["procs"]):
            self._add(f"{gpu} process {proc['name'][:40]} memory", proc["mem"], "MiB", line, routed)

    def _npu_smi(self, s: str, line: str, routed: bool) -> bool:
        """A row of Ascend's npu-smi table: an NPU's power and temperature, then its chip's AICore use, memory and
        HBM, labelled by the NPU ("NPU 0 power"); True: it was one."""
        m = _NPU_ROW.match(s)
        if m is not None:
            self._npu = m["npu"]
            values = (m["power"], m["temp"], m["hp_used"], m["hp_total"])
        elif (m := _NPU_CHIP_ROW.match(s)) is not None:
            values = (None, None, None, None, m["aicore"], m["mem_used"], m["mem_total"], m["hbm_used"], m["hbm_total"])
        else:
            return False
        for (what, unit), value in zip(_NPU_FIGURES, values):
            if value is not None:
                self._add(f"NPU {self._npu} {what}", value, unit, line, routed)
        return True

    def _described(self, heading: tuple, stat: re.Match, line: str, routed: bool) -> None:
        """One row of pandas' describe() under its heading ("First token latency(msecs):" then "mean  204.03"), or a
        problem's shape and its figure ("FP32:" then "1024x1024: 27.62 TFLOPS")."""
        if "dims" in stat.re.groupindex:
            self._add(f"{heading[0]} {stat['dims']}", stat["num"], stat["unit"] or heading[1], line, routed, bare=True)
            self._heading = heading
            return
        if "colon" in stat.re.groupindex:  # "Mean: 23.680" under "… Statistics (milliseconds):"
            self._add(f"{heading[0]} {stat['colon']}", stat["num"], heading[1], line, routed, bare=True,
                      noise_label=f"{heading[0]} avg")
            self._heading = heading
            return
        unit = None if stat["stat"] == "count" else stat["unit"] or heading[1]
        name = f"p{stat['stat'][:-1]}" if stat["stat"].endswith("%") else stat["stat"]  # "50%": the median, p50
        self._add(f"{heading[0]} {name}", stat["num"], unit, line, routed, bare=True, noise_label=f"{heading[0]} avg")
        self._heading = heading

    def _bar(self, s: str, line: str, routed: bool) -> Optional[str]:
        """A progress bar's rate ("Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:00<00:01,
        2.32it/s]", tqdm's "Requests sent 100%|██████| 1000/1000 [ 6.49it/s 02:34/00:00 ]"), labelled by the bar's
        description, and its times: a finished bar's elapsed time, one still going its time so far and tqdm's
        estimate of the time left ("… elapsed so far", "… remaining"); its percentage done ("… progress") and its
        count done ("… done", iterations; a download's "1.52k/1.52k [… ?B/s]": "… size", kB), which fill no core
        key; at most BAR_VALUES of each per bar (a redrawn bar prints new ones each time). The rest of its
        description and of its brackets after the rate, to be read as any text; None when ``s`` is no bar. Redraws
        glued on one line (a paste that lost its carriage returns: "…1.14s/it]Loading checkpoint shards:  67%|…")
        are each read."""
        m = _BAR.match(s)
        if m is None:
            return None
        while (after := _BAR.match(s, m.end())) is not None:
            self._one_bar(m, line, routed)
            m = after
        return self._one_bar(m, line, routed)

    def _one_bar(self, m: re.Match, line: str, routed: bool) -> str:
        """One bar's figures (``_bar``); what is left of it to be read as any text."""
        inner = m["inner"]
        label = _label(m["desc"]) if m["desc"] else BAR_LABEL
        self._bar_rate(f"{label} progress", m["pct"], "%", line, routed, core=False, own=True)
        done = m["done"].rstrip("kMGT")
        if "B/s" in inner or "byte" in inner:  # bytes ("?B/s", "245Mbyte/s"): tqdm's unit_scale, "1.52k" is 1.52 kB
            self._bar_rate(f"{label} size", done, f"{m['mag'] or ''}B", line, routed, core=False, own=True)
        else:  # "12.5k/100k [… it/s]": thousands of iterations, of so many ("… out of", once: a bar's redraws repeat it)
            count = repr(round(float(done) * MAGNITUDES[m["mag"].upper()])) if m["mag"] else done
            self._bar_rate(f"{label} done", count, "iterations", line, routed, core=False, own=True)
            if m["total"].isdigit() and m["total"] != m["done"]:  # (a finished bar's total is its count done)
                self._bar_rate(f"{label} out of", m["total"], "iterations", line, routed, core=False, own=True)
        if (elapsed := _BAR_ELAPSED.match(inner)) is not None:  # a finished bar's time; one still going: so far, left
            seconds = int(clock_s(elapsed["h"], elapsed["m"], elapsed["s"]))
            finished = m["done"] == m["total"]
            self._bar_rate(f"{label} elapsed" if finished else f"{label} elapsed so far", str(seconds), "s", line, routed)
            if elapsed["rm"] is not None:  # (a finished bar's "<00:00" too: printed, its estimate come true)
                left = int(clock_s(elapsed["rh"], elapsed["rm"], elapsed["rs"]))
                self._bar_rate(f"{label} remaining", str(left), "s", line, routed)
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

    def _block_bar(self, s: str, line: str, routed: bool) -> Optional[str]:
        """A bar of block elements (``_BLOCK_BAR``): "… progress" in %, "… size" done (and "… size out of" the total),
        its rate and the time it says is left ("… remaining"), labelled by its description; what follows it, or None
        when ``s`` is no such bar (rich's bar, ``_rich_bar``, is read whole: "")."""
        if "\u2501" in s and self._rich_bar(s, line, routed):
            return ""
        m = _BLOCK_BAR.match(s) if "\u2595" in s else None
        if m is None:
            m = _INDICATIF_BAR.match(s) if "] [" in s else None
            if m is None:
                return None
            self._bar_rate(f"{_label(m['desc'])} elapsed so far", _bar_seconds(m["elapsed"]), "s", line, routed,
                           core=False)
        label = _label(m["desc"])
        if m["pct"]:  # (an indicatif bar prints none)
            self._bar_rate(f"{label} progress", m["pct"], "%", line, routed, core=False, own=True)
        if m["done"] is not None:
            self._bar_rate(f"{label} size", m["done"], m["unit"], line, routed, core=False, own=True)
        if m["total"] is not None:
            self._bar_rate(f"{label} size out of", m["total"], m["tunit"], line, routed, core=False, own=True)
        if m["rate"] is not None:
            self._bar_rate(label, m["rate"], m["runit"], line, routed)
        if m["left"] is not None:
            self._bar_rate(f"{label} remaining", repr(go_duration_ms(m["left"])), "ms", line, routed, core=False)
        return s[m.end():].strip()

    def _rich_bar(self, s: str, line: str, routed: bool) -> bool:
        """rich's progress bar (``_RICH_BAR``): "… progress" in %, "… done" and "… out of" its count, "… elapsed" and
        "… remaining" in s, labelled by its description; whether ``s`` is one."""
        m = _RICH_BAR.match(s)
        if m is None or (m["done"] is None and m["elapsed"] is None and m["pct"] is None and m["only"] is None):
            return False
        label = _label(m["desc"])
        if m["pct"]:
            self._bar_rate(f"{label} progress", m["pct"], "%", line, routed, core=False, own=True)
        if m["done"] is not None:
            self._bar_rate(f"{label} done", m["done"], "iterations", line, routed, core=False, own=True)
            self._bar_rate(f"{label} out of", m["total"], "iterations", line, routed, core=False, own=True)
        for name, said in (("elapsed", "elapsed"), ("left", "remaining"), ("only", "remaining")):
            if m[name] is not None:
                self._bar_rate(f"{label} {said}", _bar_seconds(m[name]), "s", line, routed, core=False)
        return True

    def _counted_bar(self, s: str, line: str, routed: bool) -> str:
        """tqdm's bar of no known total ("Processing: 471it [06:15,  1.28it/s]", a download's "2.09kB [00:00,
        15.8MB/s]"): its rate (and count or size); what follows it."""
        counted = _BAR_COUNTED.match(s)
        if counted is None:
            return s
        label = _label(counted["desc"]) if counted["desc"] else BAR_LABEL
        if counted["size"] is not None:
            self._bar_rate(f"{label} size", counted["size"], counted["sunit"], line, routed)
        else:  # "884it [04:44, …]": how many iterations so far
            self._bar_rate(f"{label} done", counted["count"], "iterations", line, routed, core=False, own=True)
        self._bar_rate(label, counted["num"], counted["unit"], line, routed)
        # no total: it may go on, its time so far
        self._bar_rate(f"{label} elapsed so far", _bar_seconds(counted["elapsed"]), "s", line, routed)
        return s[counted.end():].strip()

    def _bar_rate(self, label: str, num_text: str, unit: str, line: str, routed: bool, core: bool = True,
                  own: bool = False) -> None:
        """One figure of a bar, at most BAR_VALUES per bar's label (and MAX_BAR_FIGURES per log). ``own``: the bar's
        progress, count or size, never noise whatever its description names ("Loading checkpoint shards done":
        shards loaded, no shard's index)."""
        seen = self._bar_values.get(label, 0)
        if label and seen < BAR_VALUES and len(self._bar_values) < MAX_BARS:
            self._bar_values[label] = seen + 1
            noise_label = label.rpartition(" ")[2] if own else None
            self._add(label, num_text, unit, line, routed, noise_label=noise_label, core=core, bar=True)

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

    def _groups(self, s: str, line: str, routed: bool, taken: list) -> None:
        """Groups of named values under a label with the unit in brackets ("Time(s): tokenize 0.54, prefill
        126.99"; "Mean TTFT (ms): 123.2" is one figure, read as any)."""
        heads = list(_GROUP.finditer(s))
        for m, after in zip(heads, heads[1:] + [None]):
            end = len(s) if after is None else after.start()
            items = list(_GROUP_ITEM.finditer(s, m.end(), end)) or list(_GROUP_STAT.finditer(s, m.end(), end))
            head, read = _label(m["head"]), False
            for item in items:
                read = self._add(f"{head} {_label(item['label'])}", item["num"], m["unit"].strip(), line, routed) or read
            if read:  # ("Best dispatch (FP8): SMs 24, …": no unit in the brackets, the line is read as any)
                taken.append((m.start(), end))

    def _pairs(self, s: str, line: str, routed: bool, heading: Optional[tuple] = None) -> bool:
        """Every shape but tables, CSV and JSON; whether a statistic of ``heading`` was read."""
        taken: list = []  # spans already read, so one number is one figure
        if ", " in s:
            self._counted(s, line, routed, taken)
        if "[" in s and ("," in s or "] " in s or s.endswith("]")) or "):" in s and ("/" in s or "\u2026" in s):
            self._lists(s, line, routed, taken)
        if _GROUP_MARK.search(s):
            self._groups(s, line, routed, taken)
        if "->" in s or "\u2192" in s or "=>" in s or " from " in s and " to " in s:
            self._arrows(s, line, routed, taken)
        if ":" in s and _CLOCK_HINT.search(s) is not None and (clock := _CLOCK_DURATION.search(s)) is not None:
            self._clock_duration(clock, line, routed, taken)
        elif "." in s and ":" in s and (delta := _TIMEDELTA.search(s)) is not None:
            self._timedelta(s, delta, line, routed, taken)
        if "-" in s or "\u2013" in s or "\u2014" in s:
            self._ranges(s, line, routed, taken)
        if ", (" in s:
            self._in_use(s, line, routed, taken)
        if ": " in s or " of " in s:
            self._phrases(s, line, routed, taken)
        if "/" in s and (slashed := _SLASH_NAMES.search(s)) is not None:
            self._slashed_names(slashed, line, routed, taken)
        if "/" in s or " of " in s:
            self._fractions(s, line, routed, taken)
        if " in " in s:
            self._triples(s, line, routed, taken)
        if "," in s and not taken and s.rstrip(",")[-1:].isdigit() and "=" not in s \
                and (bare := _BARE_LIST.search(s)) is not None and _listed(bare["items"]):
            if bare.start() == 0:  # the line is the list; after other text ("[Gemm2] Tuning sequence: 8, 16, …"),
                head = _label(bare["label"])  # a tool's settings, most likely: left unread
                for i, item in enumerate(bare["items"].split(",")[:LIST_ITEMS]):
                    self._add(f"{head} [{i + 1}]", item.strip(), None, line, routed, bare=True)
            return False
        if ", " in s and not taken and "=" not in s and "|" not in s:  # (no item of a record holds either)
            self._record(s, line, routed, taken)
        if "user " in s:
            self._shell_time(s, line, routed, taken)
        elif " resident set size" in s or " memory footprint" in s:
            if (m := _BSD_RSS.fullmatch(s)) is not None:
                # its peak, not a limit ("maximum" in a label is one, ``_is_noise``)
                label = "peak resident set size" if m["label"].startswith("max") else m["label"]
                self._add(label, m["num"], "B", line, routed)
                taken.append(m.span())
        self._durations(s, line, routed, taken)
        return self._values(s, line, routed, taken, heading)

    def _triples(self, s: str, line: str, routed: bool, taken: list) -> None:
        """How many things in how long, maybe at what rate ("1934 tokens generated in 504.75 seconds (3.83 t/s)")."""
        for m in _TRIPLE.finditer(s):
            head = _TRIPLE_LABEL.match(s[max(0, m.start() - _BEFORE_CHARS):m.start()][::-1])
            if head is None and m["word"] is None:
                continue
            label = _label(head["label"][::-1]) if head is not None else ""
            things = m["things"] or "tokens"  # "Processed 12 pages in 3.1 s": of pages; "12 in 3.1 s": tokens
            if things.rstrip("s") not in label.lower():
                label = f"{label} {things}".strip()
            if m["word"] is not None:  # "1934 tokens generated in 504.75 seconds"
                label = f"{label} {m['word']}"
            self._add(label, m["count"], m["things"], line, routed)
            self._add(f"{label} time", m["num"], m["unit"], line, routed)
            if m["rate"] is not None and _unit_kind(m["runit"], "")[1] == "rate":
                self._add(f"{label} rate", m["rate"], m["runit"], line, routed)
                taken.append(m.span())
            else:  # "10 tokens in 2.5 s (3.2 ms per token, 4.0 tokens per second)": the bracket is read as values
                taken.append((m.start(), m.end("unit")))

    def _counted(self, s: str, line: str, routed: bool, taken: list) -> None:
        """A label's counts of things ("kernels/gfx1201: 48 blobs, 48 hashes"), each labelled by its thing; an item
        whose word is a unit ("8.7 GFLOPs") is left to ``_values``; none read unless two are counts of things."""
        counted = _COUNTED_RECORD.fullmatch(s)
        if counted is None:
            return
        found = list(_COUNTED_ITEM.finditer(counted["items"]))
        if self._stat_record(counted, found, line, routed, taken):
            return
        items = [m for m in found if m["unit"] is None
                 and _unit_kind(m["word"], "")[1] in (None, "count") and m["word"][-1] == "s" and "." not in m["num"]]
        if len(items) < 2:
            return
        start = counted.start("items")
        for m in items:
            unit = m["word"] if _unit_kind(m["word"], "")[1] == "count" else None  # "8250 tokens": counted in a unit
            self._add(_label(f"{counted['label']} {m['word']}"), m["num"].replace(",", ""), unit, line, routed, bare=True,
                      noise_label=m["word"])  # (the thing counted says whether it is noise, not the words before)
            taken.append((start + m.start(), start + m.end()))

    def _stat_record(self, counted: re.Match, items: list, line: str, routed: bool, taken: list) -> bool:
        """A label's statistics, each a number and the statistic's name ("Peak heap memory usage (MiB): 407.04 min,
        683.52 max, 527 mean", Ray Data's stats): labelled by the statistic, the unit from the label's brackets; read
        when every item names a statistic and one is no "min" (a minute's abbreviation alone); True: read."""
        if not all(_STAT_COLUMN.fullmatch(m["word"]) or m["word"] == "total" for m in items) \
                or all(m["word"] == "min" for m in items):
            return False
        label, unit = counted["label"].lstrip("*\u2022- "), None  # (a bullet before it: Ray Data's "* UDF time: …")
        if (bm := _bracket_unit(label)) is not None and _unit_kind(bm["unit"], "")[1] is not None:
            label, unit = bm["label"], bm["unit"]
        start = counted.start("items")
        for m in items:  # a unit glued to each number ("92.49ms min, 2.92s max") or the label's
            self._add(_label(f"{label} {m['word']}"), m["num"].replace(",", ""), m["unit"] or unit, line, routed,
                      bare=(m["unit"] or unit) is None, core=False, noise_label=label)  # ("max" is the statistic here)
            taken.append((start + m.start(), start + m.end()))
        return True

    def _step_bar(self, bar: re.Match, line: str, routed: bool) -> None:
        """stable-diffusion.cpp's step bar (``_STEP_BAR``): its rate, steps done and (while going) of how many."""
        self._bar_rate(BAR_LABEL, bar["num"], bar["unit"], line, routed)
        self._bar_rate(f"{BAR_LABEL} done", bar["done"], "iterations", line, routed, core=False, own=True)
        if bar["total"] != bar["done"]:  # ("… out of", as tqdm's: a finished bar's total is its count done)
            self._bar_rate(f"{BAR_LABEL} out of", bar["total"], "iterations", line, routed, core=False, own=True)

    def _phrases(self, s: str, line: str, routed: bool, taken: list) -> None:
        """A time before the path of what it timed (``_TIMED_PATH``), an amount of time made (``_SPAN_OF``), a count
        in brackets after "number of …" (``_NUMBER_OF``: its "maximum …" a capacity measured, no limit set)."""
        if "umber of " in s and (counted := _NUMBER_OF.search(s)) is not None:
            if self._add(f"number of {counted['what']}", counted["num"], None, line, routed, bare=True, core=False):
                taken.append(counted.span())
        if ": " in s and (timed := _TIMED_PATH.match(s)) is not None:
            name = _path_tail(timed["path"])
            note = f" ({timed['note'].strip()})" if timed["note"] else ""
            self._add(f"{name}{note} time", timed["num"], timed["unit"], line, routed, core=False)
            taken.append(timed.span())
        if " of " in s and (span := _SPAN_OF.search(s)) is not None:
            label = f"{span['verb']} {span['what']}"
            self._add(label, span["num"], span["unit"], line, routed, core=False)
            if span["took"] is not None:
                self._add(f"{label} in", span["took"], span["tunit"], line, routed)
            taken.append(span.span())

    def _record(self, s: str, line: str, routed: bool, taken: list) -> None:
        """A record of named numbers (``_RECORD_ITEM``): its items with no unit printed, each labelled by its name
        (the unit a name ends in, "It/sec", is the item's); those with a unit are left to ``_values``."""
        head = _RECORD_HEAD.match(s)
        start = 0 if head is None else head.end()
        items, at = [], start
        for part in s[start:].split(", "):
            item = _RECORD_ITEM.fullmatch(part.strip())
            if item is None:
                return
            items.append((item, at + len(part) - len(part.lstrip())))
            at += len(part) + 2
        if len(items) < 2 or not any(item["unit"] or _key_unit(item["label"])
                                     or _unit_kind(None, _words(item["label"]))[1] in _RECORD_KINDS for item, _ in items):
            return  # (Mooncake's "duration 10.01, batch count 4895, throughput 0.26": names that say their kinds)
        for item, offset in items:
            if item["unit"] is None:
                self._add(_label(item["label"]), item["num"], _key_unit(item["label"]), line, routed, bare=True)
                taken.append((offset, offset + item.end()))

    def _durations(self, s: str, line: str, routed: bool, taken: list) -> None:
        """Durations of several parts after their label ("took 1m2s", "wall time: 7m 51s", "took 1 min 19 seconds")
        or alone in brackets after the words they time ("Loading model... [0m 02s elapsed]"), in ms."""
        for m in _MULTI_DURATION.finditer(s) if "m" in s else ():
            found = _before(s[max(0, m.start() - _BEFORE_CHARS):m.start()][::-1])
            if found is None or found[0] == "bracket":
                found = _in_brackets(s, m)
            if found is not None:  # "took 1m2s", "real\t0m16.393s", "elapsed=1m2s", "Loading model… (1m14s)"
                self._add(_label(found[1]), repr(go_duration_ms(_PART_SEPARATOR.sub("", m[0]))), "ms", line, routed)
            taken.append(m.span())
        for m in _SPOKEN_DURATION.finditer(s) if " " in s else ():
            ms = spoken_duration_ms(m[0])
            if ms is None or _overlaps(m, taken):
                continue
            found = _before(s[max(0, m.start() - _BEFORE_CHARS):m.start()][::-1])
            if found is None or found[0] == "bracket":
                found = _in_brackets(s, m)
            if found is not None:  # "wall time: 7m 51s", "took 1 min 19 seconds", "[0m 02s elapsed]"
                self._add(_label(found[1]), repr(ms), "ms", line, routed)
            taken.append(m.span())

    def _timedelta(self, s: str, m: re.Match, line: str, routed: bool, taken: list) -> None:
        """A duration as Python prints a timedelta ("Loaded safetensors 0:00:00.004015"), labelled by the words
        before it, in seconds."""
        found = _before(s[max(0, m.start() - _BEFORE_CHARS):m.start()][::-1])
        if found is not None:
            self._add(_label(found[1]), _clock_seconds(m), "s", line, routed)
        taken.append(m.span())

    def _clock_duration(self, m: re.Match, line: str, routed: bool, taken: list) -> None:
        """A duration printed as a clock after its label ("total time:   0:05:43", "Elapsed = 01:02:03.5"), in
        seconds; a label that names a moment ("start time: 12:03:44") is a clock reading, none."""
        label = _label(m["label"])
        if _unit_kind(None, _words(label))[1] == "duration" or _CLOCK_LABEL.search(label) is not None:
            self._add(label, _clock_seconds(m), "s", line, routed)
            taken.append(m.span())

    def _percentiles(self, s: str, line: str, routed: bool) -> bool:
        """fio's percentiles, a few a line under their heading ("clat percentiles (usec):"): "clat percentiles p50"
        in the heading's unit; whether the line was one of them."""
        items = list(_PERCENTILE_ITEM.finditer(s))
        heading = None
        for back in range(1, 8):  # the heading stands above the lines of percentiles before this one
            above = self.line_before(back) if self.line_before is not None else None
            if above is None or not above.strip().startswith("|"):
                heading = _PERCENTILE_HEADING.fullmatch(above) if above else None
                break
        if not items or heading is None:
            return False
        head = _label(heading["head"])
        for item in items:
            self._add(f"{head} p{item['p'].rstrip('0').rstrip('.')}", item["num"], heading["unit"].strip(), line, routed)
        return True

    def _ranges(self, s: str, line: str, routed: bool, taken: list) -> None:
        """A range after its label ("TTFT: 280–390 ms", "Decode: ~15-17 tokens/sec"): the high end labelled by the
        words before it, the low end "… low" (as a table's cell gives them); a date or a span that falls is none."""
        for m in _RANGE.finditer(s):
            if any(a <= m.start() < b for a, b in taken) or float(m["a"]) >= float(m["b"]):
                continue
            found = _before(s[max(0, m.start() - _BEFORE_CHARS):m.start()][::-1])
            if found is None or found[0] == "bracket":
                continue
            label = _label(found[1])
            if self._add(label, m["b"], m["unit"], line, routed, core=False):  # a span, no one measurement
                self._add(f"{label} low", m["a"], m["unit"], line, routed, core=False)
                taken.append(m.span())

    def _arrows(self, s: str, line: str, routed: bool, taken: list) -> None:
        """A change from one value to another ("Decode speed: 12.3 -> 15.6 tok/s", "increase the size from 0 bytes
        to 33624960 bytes"): the value it came to, labelled by the words before the first ("Decode speed"), and the
        one it came from ("Decode speed from")."""
        for m in (_ARROW.finditer(s) if " from " not in s else [*_ARROW.finditer(s), *_FROM_TO.finditer(s)]):
            if m["aunit"] and m["bunit"] and _unit_kind(m["aunit"], "")[1] != _unit_kind(m["bunit"], "")[1]:
                continue  # "1046 tokens  ->  10.17 t/s": a count, then the rate it gives, no change of one value
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

    def _in_use(self, s: str, line: str, routed: bool, taken: list) -> None:
        """Memory in use out of a limit, in brackets after a size (``_IN_USE_OF``)."""
        used = _IN_USE_OF.search(s)
        if used is not None:
            self._add("memory in use", used["a"], used["unit"], line, routed)
            if used["b"] is not None:
                self._add("memory in use out of", used["b"], used["unit"], line, routed, core=False)
            taken.append((used.end("unit"), used.end()))

    def _fractions(self, s: str, line: str, routed: bool, taken: list) -> None:
        """How many of how many: "Successful requests: 98/100" is 98 and "… out of" 100; a bracket after a line's
        figure ("Top-1 match:  62.5%  (45/72 heads)") counts "Top-1 match heads"."""
        if "=" in s and (q := _QUOTIENT.search(s)) is not None and (said := _before(s[max(0, q.start() - _BEFORE_CHARS):q.start()][::-1])) \
                and said[0] in ("pair", "bracket"):  # "Real Time Factor (RTF): 1.778 / 5.841 = 0.304": the quotient
            label = _label(said[1] if said[0] == "pair" else f"{said[1]} ({said[2]})")  # is the figure
            if self._add(label, q["c"], None, line, routed, bare=True):
                self._add(f"{label} numerator", q["a"], None, line, routed, bare=True, core=False)
                self._add(f"{label} denominator", q["b"], None, line, routed, bare=True, core=False)
            taken.append(q.span())
        for m in _FRACTION_OF.finditer(s):
            if any(a <= m.start() < b for a, b in taken):
                continue
            counted = None
            found = _before(s[max(0, m.start() - _BEFORE_CHARS):m.start()][::-1])
            if found is not None and found[0] == "pair" and m["word"] == "bytes":  # curl's "sent off: 33 out of 33
                label, counted = _label(found[1]), "B"                               # bytes": sizes
            elif found is not None and found[0] == "pair":
                label = _label(found[1] if not m["word"] else f"{found[1]} {m['word']}")
            elif m["word"] and s[:m.start()].rstrip().endswith("(") and (lead := _LEAD_LABEL.match(s)) is not None:
                label = _label(f"{lead['label']} {m['word']}")
            elif found is not None and found[0] == "spaced" and m["word"] in _COUNT_UNITS \
                    and not any(ch.isdigit() for ch in found[1]):  # (no request's id: "request 3dd4… re-prefills")
                label = _label(f"{found[1]} {m['word']}")  # "Finished reading 431/446 chunks from file …": so
                counted = _COUNT_UNITS[m["word"]]          # many of them
            else:
                continue
            if int(m["a"]) > int(m["b"]):  # "1024/512": a ratio or a path, no part of a whole
                continue
            unit = m["unit"] or counted  # (so many done so far, as a bar's count: no core key)
            if self._add(label, m["a"], unit, line, routed, bare=unit is None, core=counted is None):
                self._add(f"{label} out of", m["b"], unit, line, routed, bare=unit is None, core=counted is None)
            end = m.end()
            if m["unit"] is None and (share := _SHARE_AFTER.match(s, end)) is not None:  # "accept=60/109 (55.0%)"
                self._add(label, share["pct"], "%", line, routed, core=False)
                end = share.end()
            taken.append((m.start(), end))
        for m in _SIZE_FRACTION.finditer(s) if "." in s else ():  # "Free memory on device (46.93/47.4 GiB)"
            if any(a <= m.start() < b for a, b in taken) or float(m["a"]) > float(m["b"]) \
                    or (said := _WORDS_BEFORE.search(s, 0, m.start())) is None:
                continue  # ("219721119039 / 204.63 GB": one size in two units, no part of a whole)
            label = _label(said["label"])
            if self._add(label, m["a"], m["unit"], line, routed):
                self._add(f"{label} out of", m["b"], m["unit"], line, routed)
            taken.append(m.span())

    def _slashed(self, m: re.Match, line: str, routed: bool) -> bool:
        """Statistics named in brackets and their values apart by slashes (``_SLASHED``); whether as many of each."""
        names, values = m["names"].split("/"), m["values"].split("/")
        if len(names) != len(values):
            return False
        for name, value in zip(names, values):
            head = m["label"] or ""
            self._add(_label(f"{head} {name.strip()}"), value.strip(), m["unit"], line, routed, bare=True,
                      noise_label=f"{head} avg")  # "Min", "Max": statistics, no limit
        return True

    def _slashed_names(self, m: re.Match, line: str, routed: bool, taken: list) -> None:
        """``_SLASH_NAMES``, unless already read, its names a unit ("tokens/s: 3/4") or its values flags
        ("basic/vote/ballot/shuffle=1/1/1/1", a device's features)."""
        if not _overlaps(m, taken) and _unit_kind(m["names"], "")[1] is None \
                and not set(m["values"].split("/")) <= {"0", "1"} and self._slashed(m, line, routed):
            taken.append(m.span())

    def _slashed_below(self, s: str, line: str, routed: bool) -> bool:
        """The values of a heading of statistics named in brackets, on the line under it ("util ratio (min / p99 /
        max):" then "0.569 / 0.712 / 0.976"); whether they were that."""
        above = self.line_before(1) if self.line_before is not None else None
        if not above or not above.rstrip().endswith("):"):
            return False
        m = _SLASHED.match(f"{_normalized(above)} {s}")
        return m is not None and self._slashed(m, line, routed)

    def _lists(self, s: str, line: str, routed: bool, taken: list) -> None:
        """Numbers in brackets: a list after its label ("Latencies: [2561.47, 2561.20, …]": "Latencies [1]", …, at
        most LIST_ITEMS), or a bracket of names, then as many values ("Latencies  [min, mean, 50, max]  232.884ms,
        1.35s, 834.257ms, 2.899s", vegeta's report: "Latencies min", …)."""
        if "):" in s and (m := _SLASHED.match(s)) is not None and self._slashed(m, line, routed):
            taken.append(m.span())  # "Prompt Length (Min/Med/Max): 4 / 95 / 1024"
            return
        if "):" in s and (m := _ELLIPSIS_RANGE.match(s)) is not None:  # hyperfine's "Range (min … max): 8.3 s … 8.5 s"
            for name, num, unit in ((m["a"], m["x"], m["ux"] or m["uy"]), (m["b"], m["y"], m["uy"] or m["ux"])):
                self._add(_label(f"{m['label']} {name}"), num, unit, line, routed, noise_label=f"{m['label']} avg")
            taken.append(m.span())
            return
        if (m := _CRITERION.search(s)) is not None:  # Rust's criterion: "time:   [946.59 µs 947.60 µs 948.65 µs]"
            self._criterion(m, line, routed)
            taken.append(m.span())
            return
        if "=" in s and self._keyed_groups(s, line, routed, taken):
            return
        m = _NAMED_LIST.search(s)
        if m is not None and m["names"] == "code:count":  # vegeta's "Status Codes  [code:count]  0:14  200:236"
            for code, count in _CODE_COUNT.findall(m["values"]):
                self._add(f"{_label(m['label'])} {code}", count, "requests", line, routed)
            taken.append(m.span())
            return
        if m is not None:
            names = [n.strip() for n in m["names"].split(",")]
            cells = [_list_value(v.strip()) for v in m["values"].rstrip().split(",")]
            if len(names) == len(cells) and all(cells):
                head = _label(m["label"])
                for name, (num, unit) in zip(names, cells):
                    self._add(_label(f"{head} {name}"), num, unit, line, routed, bare=True)
                taken.append(m.span())
                return
        for m in _NUMBER_LIST.finditer(s):
            head = _label(m["label"])
            for i, item in enumerate(m["items"].split(",")[:LIST_ITEMS]):
                self._add(f"{head} [{i + 1}]", item.strip(" '\""), _key_unit(m["label"].strip().replace(" ", "_").removesuffix("_list")),
                          line, routed, bare=True)
            taken.append(m.span())
        if "=[" in s and not taken:
            record = _RECORD_NAME.match(s)
            for m in _ONE_TIME.finditer(s):
                self._add(_label(f"{record['name']} {m['key']}" if record else m["key"]), m["item"], _key_unit(m["key"]),
                          line, routed, bare=True)  # ("times": no unit printed, its kind unsaid)
                taken.append(m.span())

    def _keyed_groups(self, s: str, line: str, routed: bool, taken: list) -> bool:
        """Every ``_KEYED_GROUP`` of ``s`` whose items are all ``_KEYED_ITEM``s; whether one was read."""
        read = False
        for m in _KEYED_GROUP.finditer(s):
            items = [_KEYED_ITEM.fullmatch(part) for part in re.split(r"[, ]+", m["body"].strip(", "))]
            if not all(items):
                continue
            for item in items:
                label, unit = _label(f"{m['head']} {item['key']}"), item["unit"] or None
                if self._add(label, item["a"], unit, line, routed, bare=unit is None) and item["b"] is not None:
                    self._add(f"{label} out of", item["b"], unit, line, routed, bare=unit is None, core=False)
            taken.append(m.span())
            read = True
        return read

    def _criterion(self, m: re.Match, line: str, routed: bool) -> None:
        """criterion's estimate and its confidence interval: "sampling_strategy_sample  time: [lo est hi]" gives
        "sampling_strategy_sample time" (the estimate), "… low" and "… high"; the benchmark's name is on the line
        above when it is too long to share one."""
        name = m["name"].strip()
        if not name and self.line_before is not None:  # its name alone above, or above its "time:" (for "thrpt:")
            name = (self.line_before(1) or "").split("time:")[0].strip()
            name = "" if "[" in name or ":" in name else name
        label = _label(f"{name} {m['what']}".strip())
        for suffix, num, unit in (("", m["est"], m["u2"]), (" low", m["lo"], m["u1"]), (" high", m["hi"], m["u3"])):
            # (the benchmark's name is a name: "… with varying seeds" sets no seed)
            self._add(label + suffix, num, unit, line, routed, core=not suffix, noise_label=m["what"])

    def _shell_time(self, s: str, line: str, routed: bool, taken: list) -> None:
        m = _SHELL_TIME.search(s)
        if m is None:
            if (m := _BSD_TIME.search(s)) is not None:
                self._add("user time", m["user"], "s", line, routed)
                self._add("system time", m["sys"], "s", line, routed)
                self._add("total time", m["real"], "s", line, routed)
                taken.append(m.span())
            return
        wall = m["total"] or m["elapsed"]
        parts = wall.split(":")
        wall_s = sum(float(p) * 60 ** i for i, p in enumerate(reversed(parts)))
        self._add("user time", m["user"], "s", line, routed)
        self._add("system time", m["system"], "s", line, routed)
        self._add("cpu", m["cpu"] or m["gcpu"], "%", line, routed)
        self._add("total time", wall if len(parts) == 1 else repr(round(wall_s, 6)), "s", line, routed)
        taken.append(m.span())

    def _unlabelled(self, s: str, head: str, start: int, end: int, unit: str, last: Optional[tuple]) -> tuple:
        """(label, shape) of a figure with a unit but no words of its own before it, or (None, None)."""
        kind = _unit_kind(unit, "")[1]
        if (named := _NAMED_AFTER.match(s, end)) is not None and (lead := _LEAD_LABEL.match(s) or _LEAD_SETTINGS.match(s)):
            # DeepEP's "Best combine: SMs 24, …: 4.71 GB/s (RDMA), 9.50 GB/s (NVL)": the line's name, then the bracket's
            return f"{lead['label']} {named['name']}", "spaced"
        if last is not None and _JOINED.fullmatch(s, last[1], start):
            return _joined_label(last[0], kind, unit), "joined"
        if last is None and self._previous and not s[:start].strip():
            # "Prompt : 726.74 sec" then "            704.52 token / sec": the figure above, continued
            return _joined_label(self._previous, kind), "joined"
        if (paren := _IN_BRACKETS.match(head)) is not None:
            # "Processed 2048/8831 tokens (264.70 tok/s)": the words before the bracket
            return _joined_label(paren["label"][::-1], kind, unit), "spaced"
        if (joined := _CONNECTOR.match(head)) is not None:  # "15.44 GiB is allocated by PyTorch, and 267.59 MiB is
            # reserved …": the figure before it names it, or none does (the connector alone, as before)
            return (_joined_label(last[0], kind, unit) if last is not None else joined["word"][::-1]), "spaced"
        if head[:2] == " ." and s[end:].strip() in ("", ".") and (said := _SENTENCE_BEFORE.match(head)) is not None \
                and len(said["label"].split()) <= MAX_LABEL_WORDS:
            return said["label"][::-1], "spaced"
        if head[:2] == " |" and s.count(" | ") >= 2 and (s[end:end + 3] == " | " or not s[end:].strip()) and kind == "rate":
            return "rate", "spaced"  # a rate alone in a piped cell ("… | 7381480 pos/sec | …"): its unit says of what
        opening = head.lstrip()[:2]  # "(" before it, or "[" after a space ("bpw: 4.00  proxy_err: 0.0017  [1.77 s]")
        if (opening[:1] == "(" or opening[:1] == "[" and opening[1:].isspace()) and (lead := _LEAD_LABEL.match(s)) is not None:
            # 'baseline (full KV) : "OK."  (3 tokens, peak KV = 3,584 KB)': what opens the bracket is the line's
            return (f"{lead['label']} {_unit_kind(unit, '')[0]}" if kind == "count" else lead["label"]), "spaced"
        return None, None

    def _values(self, s: str, line: str, routed: bool, taken: list, heading: Optional[tuple]) -> bool:
        """Every number not read by a shape above, labelled by the words before it (or after it), or by the
        figure it follows ("Token generation: 353 us, 0.46 tokens/s": the rate is the generation's); a bare
        statistic ("p90", "mean") by what it is of. Whether a statistic of ``heading`` was read."""
        last = None  # (label, end) of the figure read last on this line
        lead = None  # the label of the last figure read here that is not a "per token" cost
        of_heading = False
        spreads = "\u00b1" in s or "+/-" in s or " _ " in s
        for m in _VALUE.finditer(s):
            start = m.start()
            if any(a <= start < b for a, b in taken):
                continue
            if _beside_noise(s, start, m.end()):
                continue
            if m["unit"] == "B" and s[m.end("num"):m.end("num") + 1] == "B":
                continue  # "llama 7B Q4_0": a model's billions of parameters, no size in bytes
            head = s[max(0, start - _BEFORE_CHARS):start][::-1]  # what stands before it, reversed
            found = _piped_key(s, start, m) or _before(head) or _whole_head(s, start)
            shape, label, unit = found if found is not None else (None, None, None)
            if shape == "bracket" and _unit_kind(unit, label)[1] is None:
                label, unit = _bracketed(label, unit), m["unit"]
            unit = unit if shape == "bracket" else m["unit"]
            spread = _SPREAD.match(s, m.end()) if spreads else None
            if spread is not None:
                unit = unit or spread["unit"]
                taken.append((spread.start("num"), spread.end()))
            if unit is None:
                unit = _named_unit(shape, label)
            end = m.end()
            if (unit is None or shape is None) and (words := _words_after(s, start, end, unit, last)) is not None:
                label, unit, shape, end = words
            if shape is None and unit is not None:
                label, shape = self._unlabelled(s, head, start, m.end(), unit, last)
            if shape is None or (unit is None and shape in ("took", "spaced") and not _printed_pair(s, label, m.end())):
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
                         bare=shape in ("pair", "bracket") and unit is None and _bare_end(s, start, m.end())):
                per = shape == "after" and label.startswith("per ")  # "(3.56 ms per token, 280.95 tokens per
                # second)": the rate joins the figure before the bracket, not the words "per token"
                last, self._previous = (lead if per and lead is not None else label, end, unit), label
                if not per:
                    lead = label
                if spread is not None:
                    self._add(f"{label} \u00b1", spread["num"], unit, line, routed)
        return of_heading
