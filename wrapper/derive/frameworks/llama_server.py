"""llama-server: per-request timings, one dict per request (task), plus the llama.cpp load lines at startup.

Request timings come in four shapes:
  * 2026: every line prefixed ``slot print_timing: id  3 | task 0 | prompt eval time = …`` (and ``graphs reused``);
  * 2025: ``slot print_timing: id  0 | task 124 | `` then bare ``prompt eval time =`` / ``eval time =`` /
    ``total time =`` lines (also seen alone when a user trimmed the log);
  * 2024 JSON logs: ``{"function":"print_timings", "t_prompt_processing": …, "n_decoded": …, "t_total": …}``;
    the structured fields are used (full precision) rather than the rounded ``msg`` text; the text logs of
    the same months print those fields after ``|`` (``INFO [ print_timings] … | … t_prompt_processing=15.615``),
    and ``build info | … build=3091 commit="2b338967"``;
  * an HTTP response body's ``timings`` object (``data: {…}`` SSE lines or a JSON body), see
    ``from_server_timings``; only the final event of a stream counts.
In-flight progress (``n_decoded = 172, tg = 12.00 t/s``; ``n_gen = …, tg = …, tg_3s = …``) is not a final
figure: the last one of a task is kept as ``extra["progress"]`` (``n_decoded``/``n_gen`` int, ``*_tps`` float);
likewise ``prompt processing, n_tokens = …, progress = …, t = … s / … tokens per second`` as
``extra["prompt_progress"]`` (``n_tokens``, ``progress``, ``t_ms``, ``tps``). ``draft acceptance = 0.46 (55
accepted / 119 generated), mean len = 2.38`` -> ``extra`` ``draft_acceptance``, ``draft_accepted_tokens``,
``draft_generated_tokens``, ``draft_mean_len``. A ``slot print_timing`` line of any other shape is ``unparsed``.
``extra`` also holds ``slot_id``/``task_id`` and, from the timings object, ``cache_tokens`` and draft counts; the
slot pick before a request (``selected slot by LCP similarity, sim_best = 0.625 …, f_keep = 0.995``) gives it
``lcp_similarity`` and ``lcp_kept_fraction``: how much of its prompt a slot's prefix cache already held.
"""
from __future__ import annotations

import json
import math
import re

from . import llama_cpp
from .base import FamilyParser
from .figures import RUN_KEYS, Runs, new_report
from .units import number as units_number, scaled

NAME = "llama-server"

_SLOT = re.compile(r"slot print_timing: id\s+(\d+) \| task (-?\d+) \|\s*(?:([a-z][a-z ]*?)\s*=\s*)?(.*)$")
# "draft acceptance rate = 0.96855 (  154 accepted /   159 generated)": the 2025 builds' name of the line
_BARE = re.compile(r"\s*(prompt eval time|eval time|total time|graphs reused|draft acceptance)(?: rate)?\s*=\s*(.*)")
_PROGRESS = re.compile(r"(\w+)\s*=\s*([\d.]+)\s*(t/s)?")
_PROMPT_PROGRESS = re.compile(r"prompt processing, n_tokens =\s*(\d+), progress =\s*([\d.]+), t =\s*([\d.]+) s"
                              r"(?: / ([\d.]+) tokens per second)?")
_FIELD = re.compile(r'(\w+)=("[^"]*"|\S+)')
# the slot a request gets, by its prompt's longest common prefix with a slot's cache: "selected slot by LCP
# similarity, sim_best = 0.625 (> 0.100 thold), f_keep = 0.995" ("f_sim_best" in some 2026 builds)
_LCP_PICK = re.compile(r"selected slot by LCP similarity, f?_?sim_best = (-?[\d.]+) \(> [\d.]+ thold\), f_keep = (-?[\d.]+)")
_DRAFT = re.compile(r"([\d.]+)\s*\(\s*(\d+) accepted /\s*(\d+) generated\)(?:, mean len =\s*([\d.]+))?")
# (its SRV_/SLT_ macros print the function's name right-aligned in 12 characters, "srv    load_model: ": llama-box's
# 20, "srv                load_model: ", "srv       log_server_response: ", are a fork's lines, not llama-server's)
_SERVER_LINE = re.compile(r"(?:srv|slot)(?=[ \w]{2,14}: )\s+\w{1,12}: |main: (?:HTTP )?server is listening|HTTP server listening"
                          r"|(?:INFO|WARN|ERR|VERB) \[ +\w+\] ")

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
            m = _SLOT.search(text)  # searched: a terminal UI may frame the line ("│ [pid] … slot print_timing")
            if m is not None:
                self._slot_line(int(m[1]), int(m[2]), m[3], m[4], text)
                return True
            if '"print_timings"' in text:
                return self._json_line(text)
            if "print_timings]" in text and " | " in text:
                return self._fields_line(text, "print_timings")
        if "time =" in text or "graphs reused" in text or "draft acceptance" in text:
            m = _BARE.match(text)
            if m is not None:
                if m[1] == "draft acceptance":
                    return self._draft(m[2])
                return llama_cpp.apply_timing(self.runs, m[1], m[2])
        if "selected slot by LCP" in text:
            return self._slot_pick(text)
        if '"timings"' in text:
            return self._timings_line(text)
        if '"build info"' in text:
            return self._json_build(text)
        if "build info |" in text:
            return self._fields_line(text, "build info")
        return False

    def _slot_line(self, slot: int, task: int, name: str | None, rest: str, text: str) -> None:
        """``name`` and ``rest`` split ``prompt eval time = …``; a progress line has no name; an empty rest
        opens a 2025 block whose bare timing lines follow."""
        self._task(slot, task)
        if name is not None and llama_cpp.apply_timing(self.runs, name, rest):
            return
        if name in ("draft acceptance", "draft acceptance rate"):
            if self._draft(rest):
                return
        elif name is None and rest.startswith("prompt processing"):
            m = _PROMPT_PROGRESS.match(rest)
            if m is not None:
                progress = {"n_tokens": int(m[1]), "progress": float(m[2]), "t_ms": scaled(m[3], 1000)}
                if m[4] is not None:
                    progress["tps"] = float(m[4])
                self.runs.put_extra("prompt_progress", progress)
                return
        elif name is None:
            progress = {}
            for key, value, per_s in _PROGRESS.findall(rest):
                if key.startswith("n_"):
                    progress[key] = int(float(value))
                elif per_s:
                    progress[key + "_tps"] = float(value)
            if progress:
                self.runs.put_extra("progress", progress)
                return
        if rest.strip():
            self.runs.unparsed(text)

    def _slot_pick(self, text: str) -> bool:
        """The slot picked for the next request by prompt-prefix similarity: a new request, so the one timed
        before it is finished; ``extra`` ``lcp_similarity`` and ``lcp_kept_fraction`` (of the slot's cache)."""
        m = _LCP_PICK.search(text)
        if m is None:
            return False
        if "task_id" in self.runs.current["extra"]:
            self.runs.close()
        extra = self.runs.current["extra"]
        extra["lcp_similarity"], extra["lcp_kept_fraction"] = float(m[1]), float(m[2])
        return True

    def _draft(self, rest: str) -> bool:
        """``0.46218 (   55 accepted /   119 generated), mean len =  2.38`` (the mean length since 2026)."""
        m = _DRAFT.match(rest)
        if m is None:
            return False
        extra = self.runs.current["extra"]
        extra["draft_acceptance"] = float(m[1])
        extra["draft_accepted_tokens"], extra["draft_generated_tokens"] = int(m[2]), int(m[3])
        if m[4] is not None:
            extra["draft_mean_len"] = float(m[4])
        return True

    def feed_json(self, text: str) -> bool:
        """Only the 2024 JSON ``print_timings`` shape (what ollama's runner printed)."""
        return '"print_timings"' in text and self._json_line(text)

    def _fields_line(self, text: str, kind: str) -> bool:
        """Mid-2024 text logs: ``INFO [           print_timings] prompt eval time = … | tid="…" timestamp=…
        id_slot=0 id_task=0 t_prompt_processing=15.615 n_prompt_tokens_processed=12 …``; the fields after ``|``
        are those of the JSON logs."""
        obj = {}
        for key, value in _FIELD.findall(text[text.index(" | ") + 3:]):
            if value.startswith('"'):
                obj[key] = value.strip('"')
            else:
                number_ = units_number(value)
                obj[key] = value if number_ is None else int(number_) if number_.is_integer() and "." not in value \
                    else number_
        if kind == "build info":
            if "build" not in obj:
                return False
            self.runs.version = f"{obj['build']} ({obj['commit']})" if obj.get("commit") else str(obj["build"])
            return True
        return self._timings_obj(dict(obj, function="print_timings"))

    def _json_line(self, text: str) -> bool:
        obj = _load_json(text)
        if obj is None or obj.get("function") != "print_timings":
            return False
        return self._timings_obj(obj)

    def _timings_obj(self, obj: dict) -> bool:
        self._task(obj.get("id_slot"), obj.get("id_task"))
        runs = self.runs
        if "n_prompt_tokens_processed" in obj:
            runs.put("prompt_eval_ms", _finite(obj.get("t_prompt_processing"), float))
            runs.set("prompt_tokens", _finite(obj.get("n_prompt_tokens_processed"), int))
            runs.set("prompt_tps", _finite(obj.get("n_tokens_second"), float))
            _per_token(runs, obj, "prompt_ms_per_token")
        elif "t_total" in obj:
            runs.put("total_ms", _finite(obj.get("t_total"), float))
        elif "n_decoded" in obj:
            runs.put("eval_ms", _finite(obj.get("t_token_generation"), float))
            runs.set("eval_tokens", _finite(obj.get("n_decoded"), int))
            runs.set("eval_tps", _finite(obj.get("n_tokens_second"), float))
            _per_token(runs, obj, "eval_ms_per_token")
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

    def __init__(self) -> None:
        super().__init__()
        self.server = RequestTimings(self.runs)

    def feed(self, text: str, line: str) -> None:
        if self.server.feed(text) or _SERVER_LINE.match(text):
            self.evidence += 1
        elif ("time =" in text or "graphs reused" in text) and llama_cpp.perf_line(text) is not None:
            # llama.cpp's context-wide timing block (at exit, or on demand): its own run, not the last request's
            if "task_id" in self.runs.current["extra"]:
                self.runs.close()
            llama_cpp.feed_perf(text, self.runs)
        else:
            llama_cpp.feed_load(text, line, self.runs)

    def finalize(self, report: dict, notes: dict) -> None:
        llama_cpp.finalize_load(report, notes)


def _per_token(runs, obj: dict, key: str) -> None:
    """The line's ``t_token`` (ms per token, as llama.cpp's timing lines print it) as ``extra[key]``."""
    value = _finite(obj.get("t_token"), float)
    if value is not None:
        runs.current["extra"][key] = value
