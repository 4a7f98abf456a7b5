"""The serving-benchmark report that vLLM's ``vllm bench serve`` / ``benchmark_serving.py`` and SGLang's
``bench_serving`` print after a load test (one shape for both)::

    ============ Serving Benchmark Result ============
    Backend:                                 sglang
    Successful requests:                     1024
    Benchmark duration (s):                  287.20
    Request throughput (req/s):              3.57
    ...
    ---------------Time to First Token----------------
    Mean TTFT (ms):                          249.49

Each ``Label (unit):   value`` line becomes one key of ``extra["serving_benchmark"]``: the label in snake case
with its unit as the suffix (``benchmark_duration_s``, ``request_throughput_req_s``, ``output_token_throughput_tok_s``,
``mean_ttft_ms``, ``p99_itl_ms``, ``successful_requests``, ``total_generated_tokens``, …); text values
(``backend``, ``traffic_request_rate``) stay strings. The numbers are aggregates over the whole test, so none of them
goes to the per-run keys.
"""
from __future__ import annotations

import re

from . import routes
from .units import integer, number

HEADER = routes.SERVING_BENCH_HEADER
_LINE = re.compile(r"([A-Z][A-Za-z0-9 .,/()-]*?):\s+(\S(?:.*\S)?)\s*$")
_UNIT = re.compile(r"\s*\(([^)]*)\)\s*$")
_WORD = re.compile(r"[^a-z0-9]+")


def key_of(label: str) -> str:
    """``"Output token throughput (tok/s)"`` -> ``"output_token_throughput_tok_s"``; ``"Mean TTFT (ms)"`` ->
    ``"mean_ttft_ms"``."""
    unit = _UNIT.search(label)
    name = label[:unit.start()] if unit else label
    key = _WORD.sub("_", name.lower()).strip("_")
    if unit:
        key += "_" + _WORD.sub("_", unit[1].lower()).strip("_")
    return key


class Block:
    """Reads the report's lines after its header; ``feed`` says whether a line belonged to it."""

    def __init__(self) -> None:
        self.active = False
        self.last_key: str | None = None  # the key of the report's line just read, if the line was one
        self._lead = ""  # what stood before the header ("# " when the report was pasted as comments)

    def feed(self, text: str, extra: dict) -> bool:
        self.last_key = None
        if HEADER in text:
            self.active = True
            self._lead = text[:text.index(HEADER)].strip().rstrip("=").strip()
            extra["serving_benchmark"] = {}
            return True
        if not self.active:
            return False
        stripped = text.strip()
        if self._lead and stripped.startswith(self._lead):
            stripped = stripped[len(self._lead):].strip()
        if not stripped or stripped.startswith("-"):
            return True  # a section rule such as ---------------Time to First Token----------------
        if stripped.startswith("="):
            self.active = False  # the closing rule
            return True
        m = _LINE.match(stripped)
        if m is None:
            self.active = False
            return False
        num = integer(m[2])
        if num is None:
            num = number(m[2])
        self.last_key = key_of(m[1])
        extra["serving_benchmark"][self.last_key] = num if num is not None else m[2]
        return True
