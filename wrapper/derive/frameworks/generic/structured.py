"""The general reader's structured text: JSON objects (one line or indented) and Prometheus samples."""
from __future__ import annotations

import ast
import json
import re

from ....core.lazy_re import LazyPattern
from ..units import go_duration_ms
from .lexicon import LIST_ITEMS, _SQUARE_UNIT, _STAT_COLUMN, _UNIT, _UNITLESS_DURATION, _bracket_unit, _key_unit, _label


# JSON printed over several lines (indent=2): one member a line, its objects' names giving the labels ("request_latency"
# then "avg": 6655.52 -> "request latency avg"), a "unit" member its siblings' unit.
_MEMBER = LazyPattern(r"\"(?P<key>[^\"]{1,60})\"\s*:\s*(?P<value>\{|\[|\"[^\"]*\"|[-+]?\d[\d.eE+-]*|true|false|null)\s*,?")


# a number quoted, maybe with its unit: "tokens_per_second": "161.70", "power.draw [W]": "11.69 W" (nvidia-smi as JSON)
_QUOTED_NUMBER = LazyPattern(r'"(?P<num>[-+]?\d+(?:\.\d+)?)(?:\s*(?P<unit>' + _UNIT + r'))?"')


_ARRAY_ITEM = LazyPattern(r"([-+]?\d[\d.eE+-]*)\s*,?")  # one number of a JSON array printed one a line


_JSON_OPEN = frozenset(("{", "[", "[{", "{,"))
_JSON_CLOSE = frozenset(("}", "},", "]", "],", "}]", "}],"))


MAX_JSON_DEPTH = 16


# A sample's first label that says which series it is ("model_name", "quantile"), not where it was scraped ("id",
# "pod", "instance", "job", "hostname": a machine's name, no part of what the figure is)
_METRIC_LABEL = LazyPattern(r"(?<![\w])(?!(?:id|pod|instance|job|host|hostname|node|namespace|container)=)\w+=\"(?P<value>[^\"]*)\"")


def _flat(obj: dict, prefix: str = "", depth: int = 0):
    """(dotted key, number, unit or None) of a JSON object, two levels deep (``timings.prompt_ms``); a number quoted
    as a string, maybe with its unit, too."""
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            yield name, value, None
        elif isinstance(value, str) and len(value) <= 32 and (quoted := _QUOTED_NUMBER.fullmatch(f'"{value}"')):
            yield name, float(quoted["num"]), quoted["unit"]  # "tokens_per_second": "161.70", "latency": "12 ms"
        elif isinstance(value, str) and value[-1:] == "s" and len(value) <= 32 and value[:1].isdigit() \
                and (ms := go_duration_ms(value.replace(" ", ""))) is not None:
            yield name, ms, "ms"  # "elapsed_time": "1m 46s" (ms-swift's), "5h 9m 55s"
        elif isinstance(value, dict) and depth < 1:
            yield from _flat(value, name + ".", depth + 1)


# Prometheus' text format (a /metrics scrape pasted in a log): "name{labels} value [timestamp]"
_METRIC = LazyPattern(r"(?P<name>[A-Za-z_:][\w:]*)(?:\{(?P<labels>[^{}]*)\})?\s+(?P<num>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
                      r"(?:\s+\d+)?")


# DCGM exporter fields' units (its documented field list): "DCGM_FI_DEV_GPU_TEMP" in °C, "…_POWER_USAGE" in W, …
_DCGM_UNITS = (("_TEMP", "celsius"), ("_POWER_USAGE", "W"), ("_FB_USED", "MiB"), ("_FB_FREE", "MiB"),
               ("_FB_TOTAL", "MiB"), ("_CLOCK", "MHz"), ("_UTIL", "%"), ("_TOTAL_ENERGY_CONSUMPTION", "mJ"))
_BUCKET_BOUND = LazyPattern(r'(?<![\w])le="([^"]*)"')
_METRIC_SUFFIXES = ("_total", "_sum", "_count", "_seconds", "_bytes")  # a sample without labels: its name says so


class StructuredShapes:
    """JSON (on one line or printed over several) and Prometheus samples."""

    def _structured(self, s: str, line: str, routed: bool) -> bool:
        """Whether the line is one of JSON printed over several lines, a JSON object on one, a Prometheus sample."""
        if (self._nest is not None or s in _JSON_OPEN or s.endswith("{")) and self._json_member(s, line, routed):
            return True
        if s.startswith("{") and s.endswith("}") and self._json(s, line, routed):
            return True
        if s.endswith("}") and (named := _NAMED_DICT.fullmatch(s)) is not None \
                and _SETTINGS_NAME.fullmatch(named["name"]) is None and self._json(named["obj"], line, routed, named["name"]):
            return True  # a result's name, then its dict: lm-eval's "gsm8k: {'alias': 'gsm8k', 'exact_match,…': 0.95}"
        if ("}" in s or "_" in s) and (metric := _METRIC.fullmatch(s)) is not None and (
                metric["labels"] is not None or ":" in metric["name"] or metric["name"].endswith(_METRIC_SUFFIXES)):
            self._metric(metric, line, routed)
            return True
        return False

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
        elif value[0].isdigit() or value[0] in "+-" or (quoted := _QUOTED_NUMBER.fullmatch(value)) is not None:
            name, unit = nest[-1][:2] if nest else (None, None)
            if value[0] == '"':
                value, unit = quoted["num"], quoted["unit"] or unit
                key = _SQUARE_UNIT.sub(r" (\1)", key)  # "memory.used [MiB]": the unit in brackets
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
        if name.endswith("_bucket"):  # a histogram's cumulative count of observations at or under its bound
            le = _BUCKET_BOUND.search(labels or "")
            label = f"{name[:-7]} le={le[1]}" if le is not None else name
            self._add(_label(label), m["num"], None, line, routed, bare=True, core=False)
            return
        base = name[:-6] if name.endswith("_total") else name
        first = _METRIC_LABEL.search(labels) if labels else None
        label = f"{base} {first['value']}" if first is not None else base
        # a histogram's _sum is in the metric's unit ("…_seconds_sum"); its _count counts observations (no unit)
        unit = None if base.endswith("_count") else _key_unit(base[:-4] if base.endswith("_sum") else base)
        if unit is None and base.endswith("_sum") and _UNITLESS_DURATION.search(base[:-4].replace("_", " ").lower()):
            unit = "s"  # "…_time_per_output_token_sum": Prometheus' base unit of time is the second
        if name.startswith("DCGM_FI_") and unit is None:  # NVIDIA's DCGM exporter: the field's unit by its name
            unit = next((u for suffix, u in _DCGM_UNITS if name.endswith(suffix)), None)
        # a counter or histogram over a server's life is no one run's figure: it fills no core key
        self._add(_label(label), m["num"], unit, line, routed, bare=True, core=False)

    def _json(self, s: str, line: str, routed: bool, name: str = "") -> bool:
        """A JSON object (or Python dict) on one line: each member a figure labelled by its key (after ``name``,
        the line's name for it)."""
        obj = _loaded(s)
        if not isinstance(obj, dict):
            return False
        members = list(_flat(obj))
        for key in _MESSAGE_KEYS if not members else ():
            # a structured log's line whose figures are all in its message (its text, read as a line is); one with
            # numbers of its own says them there too (llama-server's 2024 JSON: "msg" and "t_prompt_processing")
            message = obj.get(key)
            if isinstance(message, str) and any(ch.isdigit() for ch in message[:MAX_MESSAGE_CHARS]):
                for text in message[:MAX_MESSAGE_CHARS].splitlines()[:MAX_MESSAGE_LINES]:
                    self.feed(text, routed)
                break
        for key, value, unit in members:
            label = key
            if key.endswith(")") and (km := _bracket_unit(key)) is not None:  # "memory(GiB)": 40.38 (ms-swift's)
                label, unit = km["label"], unit or km["unit"]
            self._add(_label(f"{name} {label.replace('_', ' ')}"), repr(value), unit or _key_unit(key), line, routed, bare=True,
                      noise_label=label if name else None)  # (the key says whether it is noise: "n", "seed")
        return True


# The members a structured log (python-json-logger, structlog, Go's slog/zap/zerolog, Bunyan) puts its message
# in: {"message": "Spend Logs transactions: 0", "level": "DEBUG", …}; the first found is read as lines of text.
_MESSAGE_KEYS = ("message", "msg", "event", "text")
MAX_MESSAGE_CHARS = 4096
MAX_MESSAGE_LINES = 16

# A name, then a dict or JSON object ("gsm8k: {'alias': 'gsm8k', …}")
_NAMED_DICT = LazyPattern(r"(?P<name>[A-Za-z][\w.-]{0,40}):\s+(?P<obj>\{['\"].*\})")
# a dict of what a call was given, not what it measured ("kwargs: {'n': 1, 'max_tokens': 512, …}", "Input: {…}")
_SETTINGS_NAME = LazyPattern(r"(?i)\w*(?:kwargs|args|input|config|params|options|settings|request|payload|body)")

MAX_PY_DICT_CHARS = 20_000  # a Python dict printed on one line is parsed as a literal only up to this length


def _loaded(s: str) -> object:
    """The object a line of JSON, or of a Python dict printed whole (``{'loss': 0.97, 'memory(GiB)': 40.38}``, HF
    Trainer's and ms-swift's logs), holds; None when it is neither. ``ast.literal_eval`` evaluates literals only."""
    try:
        return json.loads(s)
    except ValueError:
        pass
    if s[:2] != "{'" or len(s) > MAX_PY_DICT_CHARS:
        return None
    try:
        return ast.literal_eval(s)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
