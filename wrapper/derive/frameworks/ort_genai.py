"""ONNX Runtime GenAI: ``benchmark_e2e.py``'s ``| Metric | Value |`` table. ``Batch Size`` -> ``extra.batch_size``,
``Prompt Length`` -> ``prompt_tokens``, ``Prompt Processing Throughput (tps)`` -> ``prompt_tps``, ``Token
Generation Throughput (tps)`` -> ``eval_tps``, ``Wall Clock Time (s)`` -> ``total_ms``; the latencies (ms per
token, as the script divides them) and the other rates go to ``extra`` (``tokenization_tps``,
``tokenization_latency_ms``, ``prompt_latency_ms``, ``generation_latency_ms``, ``sampling_tps``,
``sampling_latency_ms``, ``wall_clock_tps``). The examples' ``--timings`` line ``Prompt length: 21, New tokens: 85,
Time to first: 2.62s, Prompt tokens per second: 8.02 tps, New tokens per second: 5.09 tps`` -> ``prompt_tokens``,
``eval_tokens``, ``extra.ttft_ms``, ``prompt_tps``, ``eval_tps``."""
from __future__ import annotations

import re

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "onnxruntime-genai"
_ROWS = (
    ("Batch Size", "extra.batch_size", INT, False), ("Prompt Length", "prompt_tokens", INT, False),
    ("Tokenization Throughput (tps)", "extra.tokenization_tps", NUM, False),
    ("Tokenization Latency (ms)", "extra.tokenization_latency_ms", NUM, False),
    ("Prompt Processing Throughput (tps)", "prompt_tps", NUM, True),
    ("Prompt Processing Latency (ms)", "extra.prompt_latency_ms", NUM, True),
    ("Token Generation Throughput (tps)", "eval_tps", NUM, True),
    ("Token Generation Latency (ms)", "extra.generation_latency_ms", NUM, True),
    ("Sampling Throughput (tps)", "extra.sampling_tps", NUM, False),
    ("Sampling Latency (ms)", "extra.sampling_latency_ms", NUM, False),
    ("Wall Clock Throughput (tps)", "extra.wall_clock_tps", NUM, False),
    ("Wall Clock Time (s)", "total_ms", S_MS, False),
)

_TIMINGS = rule("Time to first:", r"Prompt length: (\d+), New tokens: (\d+), Time to first: ([\d.]+)s, "
                r"Prompt tokens per second: ([\d.]+) tps, New tokens per second: ([\d.]+) tps", ("prompt_tokens", INT),
                ("eval_tokens", INT), ("extra.ttft_ms", S_MS), ("prompt_tps", NUM), ("eval_tps", NUM))

RULES = (_TIMINGS,) + tuple(rule("| " + label, r"^\|\s*" + re.escape(label) + r"\s*\|\s*([\d.]+)\s*\|",
                   (key, read), claims=claims) for label, key, read, claims in _ROWS)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
