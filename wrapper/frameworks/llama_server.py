"""llama-server: per-request timings, one dict per request (task), plus the llama.cpp load lines at startup.

Request timings come in four shapes:
  * 2026: every line prefixed ``slot print_timing: id  3 | task 0 | prompt eval time = …`` (and ``graphs reused``);
  * 2025: ``slot print_timing: id  0 | task 124 | `` then bare ``prompt eval time =`` / ``eval time =`` /
    ``total time =`` lines (also seen alone when a user trimmed the log);
  * 2024 JSON logs: ``{"function":"print_timings", "t_prompt_processing": …, "n_decoded": …, "t_total": …}``;
    the structured fields are used (full precision) rather than the rounded ``msg`` text;
  * an HTTP response body's ``timings`` object (``data: {…}`` SSE lines or a JSON body), see
    ``from_server_timings``; only the final event of a stream counts.
In-flight progress (``n_decoded = 172, tg = 12.00 t/s``; ``n_gen = …, tg = …, tg_3s = …``) is not a final
figure: the last one of a task is kept as ``extra["progress"]`` (``n_decoded``/``n_gen`` int, ``*_tps`` float).
``extra`` also holds ``slot_id``/``task_id`` and, from the timings object, ``cache_tokens`` and draft counts.
"""
from __future__ import annotations

import json
import math
import re

from . import llama_cpp
from .base import FamilyParser
from .figures import RUN_KEYS, Runs, new_report

NAME = "llama-server"
SERVER_KEYS = ("print_timing", "time =", "graphs reused", "timings", "build info")

_SLOT = re.compile(r"\s*slot print_timing: id\s+(\d+) \| task (-?\d+) \|\s*(?:([a-z][a-z ]*?)\s*=\s*)?(.*)$")
_BARE = re.compile(r"\s*(prompt eval time|eval time|total time|graphs reused)\s*=\s*(.*)")
_PROGRESS = re.compile(r"(\w+)\s*=\s*([\d.]+)")
_SERVER_LINE = re.compile(r"(?:srv|slot)\s+\w+: |main: (?:HTTP )?server is listening|HTTP server listening")

# timings object field -> (report key or "x:extra key", type)
_TIMINGS = (
    ("prompt_n", "prompt_tokens", int),
    ("prompt_ms", "prompt_eval_ms", float),
    ("prompt_per_second", "prompt_tps", float),
    ("predicted_n", "eval_tokens", int),
    ("predicted_ms", "eval_ms", float),
    ("predicted_per_second", "eval_tps", float),
    ("cache_n", "x:cache_tokens", int),
    ("prompt_per_token_ms", "x:prompt_per_token_ms", float),
    ("predicted_per_token_ms", "x:predicted_per_token_ms", float),
    ("draft_n", "x:draft_tokens", int),
    ("draft_n_accepted", "x:draft_accepted_tokens", int),
)


def _finite(value, kind):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return kind(value)


def from_server_timings(obj: dict) -> dict:
    """Map llama-server's ``timings`` object (``prompt_n``, ``prompt_ms``, ``predicted_n``, ``predicted_ms``, …)
    to a report dict with framework ``llama-server``. ``total_ms`` stays ``None``: the object prints no total."""
    report = new_report(NAME)
    for field, key, kind in _TIMINGS:
        value = _finite(obj.get(field), kind)
        if value is None:
            continue
        if key.startswith("x:"):
            report["extra"][key[2:]] = value
        else:
            report[key] = value
    return report


def _is_final_event(obj: dict) -> bool:
    if obj.get("stop") is True or "usage" in obj:
        return True
    choices = obj.get("choices")
    return isinstance(choices, list) and any(isinstance(c, dict) and c.get("finish_reason") for c in choices)


class RequestTimings:
    """The request-timing state machine on a ``Runs``; ollama uses it too (its 2024 runner printed the JSON shape)."""

    def __init__(self, runs: Runs):
        self.runs = runs

    def _task(self, slot, task) -> None:
        runs = self.runs
        extra = runs.current["extra"]
        if extra.get("task_id", task) != task or ("task_id" not in extra and runs.has_run_figures()):
            runs.close()
            extra = runs.current["extra"]
        extra["slot_id"] = slot
        extra["task_id"] = task

    def feed(self, text: str) -> bool:
        """True if the line was one of llama-server's own."""
        if "print_timing" in text:
            m = _SLOT.match(text)
            if m is not None:
                self._slot_line(int(m[1]), int(m[2]), m[3], m[4])
                return True
            if '"print_timings"' in text:
                return self._json_line(text)
        if "time =" in text or "graphs reused" in text:
            m = _BARE.match(text)
            if m is not None:
                return llama_cpp.apply_timing(self.runs, m[1], m[2])
        if '"timings"' in text:
            return self._timings_line(text)
        if '"build info"' in text:
            return self._json_build(text)
        return False

    def _slot_line(self, slot: int, task: int, name: str | None, rest: str) -> None:
        """``name`` and ``rest`` split ``prompt eval time = …``; a progress line has no name; an empty rest
        opens a 2025 block whose bare timing lines follow."""
        self._task(slot, task)
        if name is not None and llama_cpp.apply_timing(self.runs, name, rest):
            return
        progress = {}
        for key, value in _PROGRESS.findall(rest):
            progress[key if key.startswith("n_") else key + "_tps"] = int(value) if key.startswith("n_") \
                else float(value)
        if progress:
            self.runs.put_extra("progress", progress)

    def feed_json(self, text: str) -> bool:
        """Only the 2024 JSON ``print_timings`` shape (what ollama's runner printed)."""
        return '"print_timings"' in text and self._json_line(text)

    def _json_line(self, text: str) -> bool:
        obj = _load_json(text)
        if obj is None or obj.get("function") != "print_timings":
            return False
        self._task(obj.get("id_slot"), obj.get("id_task"))
        runs = self.runs
        if "n_prompt_tokens_processed" in obj:
            runs.put("prompt_eval_ms", _finite(obj.get("t_prompt_processing"), float))
            runs.set("prompt_tokens", _finite(obj.get("n_prompt_tokens_processed"), int))
            runs.set("prompt_tps", _finite(obj.get("n_tokens_second"), float))
        elif "t_total" in obj:
            runs.put("total_ms", _finite(obj.get("t_total"), float))
        elif "n_decoded" in obj:
            runs.put("eval_ms", _finite(obj.get("t_token_generation"), float))
            runs.set("eval_tokens", _finite(obj.get("n_decoded"), int))
            runs.set("eval_tps", _finite(obj.get("n_tokens_second"), float))
        return True

    def _json_build(self, text: str) -> bool:
        obj = _load_json(text)
        if obj is None or "build" not in obj:
            return False
        self.runs.version = f"{obj['build']} ({obj['commit']})" if obj.get("commit") else str(obj["build"])
        return True

    def _timings_line(self, text: str) -> bool:
        body = text[text.index("{"):] if "{" in text else ""
        obj = _load_json(body)
        if obj is None or not isinstance(obj.get("timings"), dict) or not _is_final_event(obj):
            return False
        report = from_server_timings(obj["timings"])
        runs = self.runs
        if runs.has_run_figures():
            runs.close()
        for key in RUN_KEYS:
            if report[key] is not None:
                runs.set(key, report[key])
        runs.current["extra"].update(report["extra"])
        runs.close()
        return True


def _load_json(text: str) -> dict | None:
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


class Parser(FamilyParser):
    NAME = NAME
    KEYS = SERVER_KEYS + llama_cpp.LOAD_KEYS
    EVIDENCE_KEYS = ("srv ", "slot ", "listening")

    def __init__(self) -> None:
        super().__init__()
        self.server = RequestTimings(self.runs)

    def feed(self, text: str, line: str) -> None:
        if self.server.feed(text) or _SERVER_LINE.match(text):
            self.evidence += 1
        else:
            llama_cpp.feed_load(text, line, self.runs)

    def finalize(self, report: dict, notes: dict) -> None:
        llama_cpp.finalize_load(report, notes)
