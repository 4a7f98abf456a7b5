"""koboldcpp: its per-generation summary line, its progress lines, and the llama.cpp load lines it prints.

The summary line, four generations (fields are read one by one, so any order or subset works)::

    Time Taken - Processing:134.0s, Generation:763.6s, Total:897.6s                                    (2023)
    ContextLimit: 1389/16384, Processing:10.77s (8.1ms/T), Generation:14.15s (239.8ms/T)  Total:24.92s (2.37T/s)
    CtxLimit:235/2048, Amt:200/200, Init:0.01s, Process:0.05s (1.8ms/T = 555.56T/s),
        Generate:5.09s (25.4ms/T = 39.33T/s), Total:5.14s (38.91T/s)                                   (2024-25)
    [18:13:24] CtxLimit:1897/9216, Init:0.02s, Processed:549 in 1.26s (434.68T/s),
        Generated:139/1536 in 2.95s (47.12T/s), Total:4.23s                                           (2026)

Processing/Process/Processed -> ``prompt_eval_ms`` (+ ``prompt_tps``, ``prompt_tokens``); Generation/Generate/
Generated -> ``eval_ms`` (+ ``eval_tps``, ``eval_tokens``); Total -> ``total_ms``. ``extra``: ``ctx_tokens`` and
``ctx_limit_tokens`` (CtxLimit), ``max_new_tokens`` (the second number of Amt/Generated), ``init_ms``,
``prompt_ms_per_token``/``eval_ms_per_token``/``total_ms_per_token`` (``ms/T``), ``total_tps``, and at start-up
``auto_gpu_layers`` (``Auto Recommended GPU Layers: 31``). ``OpenCL GPU Offload Fallback...`` is a
``cpu_fallback`` warning.
Progress lines ``Processing Prompt [BLAS] (1676 / 1676 tokens)`` and ``Generating (78 / 387 tokens)`` set
``prompt_tokens`` (the second number: the prompt to process) and ``eval_tokens`` (the first: generated so far)
until a summary line states its own; the prompt's first number goes to ``extra["prompt_tokens_processed"]``
(how far the prompt got: a run that failed in prefill, out of memory, stops short of ``prompt_tokens``). The version comes from ``Welcome to KoboldCpp - Version 1.83.1``.
llama.cpp's timing block (printed in debug mode) goes to ``extra`` as ``llama_cpp_<key>`` (``llama_cpp_load_ms``,
``llama_cpp_prompt_eval_ms``, …): the summary line is koboldcpp's account of the same generation.
"""
from __future__ import annotations

import re

from . import llama_cpp, routes
from .base import FamilyParser
from .units import number, scaled

NAME = "koboldcpp"

EVIDENCE = routes.KOBOLD_EVIDENCE

_SECONDS = r"([\d.,]+)s"
_PER_TOKEN = r"(?:\s*\((?:([\d.,]+)ms/T)?(?:\s*=\s*)?(?:([\d.,]+)T/s)?\))?"
# field -> (substring that must be in the line, regex); the substring test keeps other lines cheap
_FIELDS = {
    "ctx": ("Limit:", re.compile(r"\b(?:CtxLimit|ContextLimit):\s*(\d+)/(\d+)")),
    "amt": ("Amt:", re.compile(r"\bAmt:\s*(\d+)/(\d+)")),
    "init": ("Init:", re.compile(r"\bInit:\s*" + _SECONDS)),
    "prompt": ("Process", re.compile(r"\bProcess(?:ing)?:\s*" + _SECONDS + _PER_TOKEN)),
    "prompt_n": ("Processed:", re.compile(r"\bProcessed:\s*(\d+) in " + _SECONDS + _PER_TOKEN)),
    "eval": ("Generat", re.compile(r"\bGenerat(?:e|ion):\s*" + _SECONDS + _PER_TOKEN)),
    "eval_n": ("Generated:", re.compile(r"\bGenerated:\s*(\d+)/(\d+) in " + _SECONDS + _PER_TOKEN)),
    "total": ("Total:", re.compile(r"\bTotal:\s*" + _SECONDS + _PER_TOKEN)),
}
_PROGRESS = re.compile(r"\b(Processing Prompt|Generating)\s*(?:\[\w+\]\s*)?\(\s*(\d+)\s*/\s*(\d+)\s*tokens\)")
_VERSION = re.compile(r"Welcome to KoboldCpp - Version (\S+)")
_AUTO_LAYERS = re.compile(r"Auto Recommended GPU Layers: (\d+)")
# koboldcpp's own words for running without the GPU offload it was asked for (CLBlast gone, no usable device).
_FALLBACK = routes.KOBOLD_FALLBACK


def _ms(text: str) -> float | None:
    return scaled(text, 1000)


class Parser(FamilyParser):
    NAME = NAME

    def feed(self, text: str, line: str) -> None:
        if "Total:" in text or "Limit:" in text or "Process" in text:
            if self._summary(text):
                self.evidence += 1
                return
        if "Processing Prompt" in text or "Generating (" in text:
            m = _PROGRESS.search(text)
            if m is not None:
                self._progress(m[1], int(m[2]), int(m[3]))
                self.evidence += 1
                return
        m = _VERSION.search(text)
        if m is not None:
            self.runs.version = m[1]
            self.evidence += 1
            return
        if "Auto Recommended" in text:
            m = _AUTO_LAYERS.search(text)
            if m is not None:
                self.runs.startup()["extra"]["auto_gpu_layers"] = int(m[1])
                self.evidence += 1
                return
        if _FALLBACK in text:
            self.runs.warn("cpu_fallback", line)
            self.evidence += 1
            return
        if any(key in text for key in EVIDENCE):
            self.evidence += 1
        perf = llama_cpp.perf_line(text) if "time =" in text or "graphs reused" in text else None
        if perf is not None:
            self._perf(*perf, text)
            return
        llama_cpp.feed_load(text, line, self.runs)

    def _perf(self, name: str, rest: str, text: str) -> None:
        """llama.cpp's own timing block (debug mode): kept beside the summary as ``extra["llama_cpp_…"]``."""
        fields = llama_cpp.timing_fields(name, rest)
        if fields is None:
            self.runs.unparsed(text)
            return
        extra = self.runs.current["extra"]
        for key, value in fields:
            extra["llama_cpp_" + key.removeprefix("x:")] = value

    def _progress(self, kind: str, done: int, of: int) -> None:
        runs = self.runs
        notes = runs.notes
        if kind == "Processing Prompt":
            # A new generation, unless this run has no summary yet (its summary was flushed before its progress
            # lines, as 2023 builds did) or is still in its own prompt progress (BLAS batches).
            if notes.get("summary") and notes.get("prompt_progress"):
                runs.close()
                notes = runs.notes
            notes["prompt_progress"] = True
            runs.set("prompt_tokens", of)
            runs.current["extra"]["prompt_tokens_processed"] = done
        else:
            runs.set("eval_tokens", done)
            runs.current["extra"]["max_new_tokens"] = of

    def _summary(self, text: str) -> bool:
        found = {name: rx.search(text) if key in text else None for name, (key, rx) in _FIELDS.items()}
        matched = sum(1 for m in found.values() if m is not None)
        # One field alone ("Total: 4.5s") is too common to be evidence; a summary has two or a context limit.
        if matched == 0 or (matched == 1 and not found["ctx"] and not self.evidence):
            return False
        runs, notes = self.runs, self.runs.notes
        ctx, amt, init = found["ctx"], found["amt"], found["init"]
        prompt = found["prompt_n"] or found["prompt"]
        gen = found["eval_n"] or found["eval"]
        total = found["total"]
        # A summary's fields can span two lines ("ContextLimit: …, Generation:…" then "Total:…"): only a field
        # this run already has starts the next generation.
        if ((ctx and "ctx_tokens" in runs.current["extra"]) or (prompt and runs.current["prompt_eval_ms"] is not None)
                or (total and runs.current["total_ms"] is not None)):
            runs.close()
            notes = runs.notes
        notes["summary"] = True
        extra = runs.current["extra"]
        if ctx:
            extra["ctx_tokens"], extra["ctx_limit_tokens"] = int(ctx[1]), int(ctx[2])
        if amt:
            runs.set("eval_tokens", int(amt[1]))
            extra["max_new_tokens"] = int(amt[2])
        if init:
            extra["init_ms"] = _ms(init[1])
        if prompt:
            if prompt is found["prompt_n"]:
                runs.set("prompt_tokens", int(prompt[1]))
                seconds, per_token, tps = prompt[2], prompt[3], prompt[4]
            else:
                seconds, per_token, tps = prompt[1], prompt[2], prompt[3]
            runs.set("prompt_eval_ms", _ms(seconds))
            self._rates("prompt", per_token, tps)
        if gen:
            if gen is found["eval_n"]:
                runs.set("eval_tokens", int(gen[1]))
                extra["max_new_tokens"] = int(gen[2])
                seconds, per_token, tps = gen[3], gen[4], gen[5]
            else:
                seconds, per_token, tps = gen[1], gen[2], gen[3]
            runs.set("eval_ms", _ms(seconds))
            self._rates("eval", per_token, tps)
        if total:
            runs.set("total_ms", _ms(total[1]))
            if total[2] is not None:
                extra["total_ms_per_token"] = number(total[2])
            if total[3] is not None:
                extra["total_tps"] = number(total[3])
        return True

    def _rates(self, phase: str, per_token: str | None, tps: str | None) -> None:
        if per_token is not None:
            self.runs.current["extra"][f"{phase}_ms_per_token"] = number(per_token)
        if tps is not None:
            self.runs.set(f"{phase}_tps", number(tps))

    def finalize(self, report: dict, notes: dict) -> None:
        llama_cpp.finalize_load(report, notes)
