"""mlx_lm: ``mlx_lm.generate`` statistics and ``mlx_lm.benchmark`` trials.

``Prompt: 14 tokens, 53.932 tokens-per-sec`` -> ``prompt_tokens``/``prompt_tps`` (older versions print only the
rate), ``Generation: …`` -> ``eval_tokens``/``eval_tps``, ``Peak memory: 2.913 GB`` -> ``peak_memory_gb``,
``Cache memory: 4.034 GB`` (late 2024) -> ``extra["cache_memory_gb"]``.
``mlx_lm.benchmark``: each ``Trial N: prompt_tps=…, generation_tps=…, peak_memory=…`` is one dict (token counts
from the ``Timing with prompt_tokens=… and generation_tokens=…`` line, ``extra["trial"]``), and the
``Averages:`` line one more with ``extra["summary"] = "averages"``. mlx_lm prints no durations.
"""
from __future__ import annotations

import re

from .base import FamilyParser

NAME = "mlx_lm"

_PROMPT = re.compile(r"Prompt: (?:(\d+) tokens, )?([\d.]+) tokens-per-sec")
_GENERATION = re.compile(r"Generation: (?:(\d+) tokens, )?([\d.]+) tokens-per-sec")
_PEAK = re.compile(r"Peak memory: ([\d.]+) GB")
_CACHE = re.compile(r"Cache memory: ([\d.]+) GB")
_SIZES = re.compile(r"Timing with prompt_tokens=(\d+) and generation_tokens=(\d+)")
_TRIAL = re.compile(r"(?:Trial (\d+)|Averages):\s+prompt_tps=([\d.]+), generation_tps=([\d.]+), peak_memory=([\d.]+)")


class Parser(FamilyParser):
    NAME = NAME

    def __init__(self) -> None:
        super().__init__()
        self._sizes: tuple[int, int] | None = None

    def feed(self, text: str, line: str) -> None:
        runs = self.runs
        for rx, count_key, rate_key in ((_PROMPT, "prompt_tokens", "prompt_tps"),
                                        (_GENERATION, "eval_tokens", "eval_tps")):
            m = rx.search(text)
            if m is not None:
                runs.put(rate_key, float(m[2]))
                if m[1] is not None:
                    runs.set(count_key, int(m[1]))
                self.evidence += 1
                return
        m = _PEAK.search(text)
        if m is not None:
            runs.put("peak_memory_gb", float(m[1]))
            self.evidence += 1
            return
        m = _CACHE.search(text)
        if m is not None:
            runs.put_extra("cache_memory_gb", float(m[1]))
            self.evidence += 1
            return
        m = _SIZES.search(text)
        if m is not None:
            self._sizes = (int(m[1]), int(m[2]))
            self.evidence += 1
            return
        m = _TRIAL.search(text)
        if m is not None:
            self._trial(m)

    def _trial(self, m: re.Match) -> None:
        self.evidence += 1
        runs = self.runs
        runs.close()
        report = runs.current
        if self._sizes is not None:
            report["prompt_tokens"], report["eval_tokens"] = self._sizes
        report["prompt_tps"], report["eval_tps"], report["peak_memory_gb"] = float(m[2]), float(m[3]), float(m[4])
        if m[1] is not None:
            report["extra"]["trial"] = int(m[1])
        else:
            report["extra"]["summary"] = "averages"
        runs.close()
