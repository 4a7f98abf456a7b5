"""text-generation-webui (oobabooga): its per-generation line and load line, plus the llama.cpp lines of its
llama.cpp loaders (llama-cpp-python's perf block, llama-server's timing block).

    Loaded the model in 12.34 seconds.                                      -> load_ms
    Output generated in 10.28 seconds (48.56 tokens/s, 499 tokens, context 3550, seed 1197861167)

The rate is output tokens over the whole generation (prompt processing included), so it is not a decode rate:
``extra`` holds ``output_generated_ms``, ``output_tps``, ``output_tokens``, ``context_tokens`` and ``seed``;
``total_ms``, ``eval_tokens`` and ``prompt_tokens`` are filled from it only where the loader printed none.
Each output line ends its run. Since 2025 the line goes through rich's log handler, which wraps it at the
terminal width (``… 24    `` / ``tokens, context 11, seed …)``): the continuation lines are joined.
"""
from __future__ import annotations

import re

from . import llama_cpp
from .base import FamilyParser
from .llama_server import RequestTimings
from .units import integer, number, seconds_to_ms

NAME = "text-generation-webui"

_OUTPUT = re.compile(r"Output generated in ([\d.,]+) seconds \(([\d.,]+) tokens/s, (\d+) tokens, context (\d+), "
                     r"seed (-?\d+)\)")
_LOADED = re.compile(r"Loaded the model in ([\d.,]+) seconds")
_MAX_WRAPPED_LINES = 4


class Parser(FamilyParser):
    NAME = NAME

    def __init__(self) -> None:
        super().__init__()
        self.server = RequestTimings(self.runs)
        self._wrapped: list[str] | None = None

    def feed(self, text: str, line: str) -> None:
        if self._wrapped is not None:
            self._wrapped.append(text.strip())
            if self._output(" ".join(self._wrapped)) or len(self._wrapped) >= _MAX_WRAPPED_LINES:
                if len(self._wrapped) >= _MAX_WRAPPED_LINES and not self._output(" ".join(self._wrapped)):
                    self.runs.unparsed(" ".join(self._wrapped))
                self._wrapped = None
                self.greedy = False
            return
        if "Output generated in" in text:
            if not self._output(text):
                self._wrapped = [text[text.index("Output generated in"):].strip()]
                self.greedy = True
            self.evidence += 1
            return
        if "Loaded the model in" in text:
            m = _LOADED.search(text)
            if m is not None:
                self.runs.put("load_ms", seconds_to_ms(m[1]))
                self.evidence += 1
                return
        if any(key in text for key in self.EVIDENCE_KEYS):
            self.evidence += 1
        (llama_cpp.feed_perf(text, self.runs) or self.server.feed(text)
         or llama_cpp.feed_load(text, line, self.runs))

    def _output(self, text: str) -> bool:
        m = _OUTPUT.search(" ".join(text.split()))
        if m is None:
            return False
        runs = self.runs
        if "output_generated_ms" in runs.current["extra"]:
            runs.close()
        extra = runs.current["extra"]
        extra["output_generated_ms"] = seconds_to_ms(m[1])
        extra["output_tps"] = number(m[2])
        extra["output_tokens"] = integer(m[3])
        extra["context_tokens"] = integer(m[4])
        extra["seed"] = integer(m[5])
        runs.fill("total_ms", extra["output_generated_ms"])
        runs.fill("eval_tokens", extra["output_tokens"])
        runs.fill("prompt_tokens", extra["context_tokens"])
        runs.close()
        return True

    def finalize(self, report: dict, notes: dict) -> None:
        llama_cpp.finalize_load(report, notes)
