"""ExecuTorch's LLM runners: the ``PyTorchObserver {…}`` JSON line and the stats lines after it, one run per block
(closed by its ``Sampling time over … tokens`` line).

JSON: ``prompt_tokens``, ``generated_tokens`` -> ``eval_tokens``, ``aggregate_sampling_time_ms`` ->
``extra.aggregate_sampling_time_ms`` (its other fields are epoch timestamps, not durations). Stats lines:
``Prompt Tokens: 31    Generated Tokens: 96`` (restating the JSON's counts), ``Model Load Time: 0.887000
(seconds)`` -> ``load_ms``, ``Total inference time: 1.834000 (seconds) Rate: 52.344602 (tokens/second)`` ->
``total_ms``, ``extra.total_tps``, ``Prompt evaluation: …`` -> ``prompt_eval_ms``, ``prompt_tps``, ``Generated 96
tokens: …`` -> ``eval_ms``, ``eval_tps``, ``Time to first generated token: …`` -> ``extra.ttft_ms``, ``Sampling
time over 96 tokens: 0.071000 (seconds)`` -> ``sampling_ms``, ``extra.sampling_tokens``. ``inf`` rates are null.
"""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "executorch"
_S = r"\s*(\S+) \(seconds\)"
_RATE = r"\s+Rate:\s*(\S+) \(tokens/second\)"

RULES = (
    rule("PyTorchObserver {", r'"prompt_tokens":(\d+),"generated_tokens":(\d+)', ("prompt_tokens", INT),
         ("eval_tokens", INT)),
    rule("PyTorchObserver {", r'"aggregate_sampling_time_ms":(\d+)', ("extra.aggregate_sampling_time_ms", INT)),
    rule("Generated Tokens:", r"Prompt Tokens: (\d+)\s+Generated Tokens: (\d+)", ("prompt_tokens", INT),
         ("eval_tokens", INT), mode="fill", claims=False),
    rule("(seconds)", r"Model Load Time:" + _S, ("load_ms", S_MS)),
    rule("(seconds)", r"Total inference time:" + _S + _RATE, ("total_ms", S_MS),
         ("extra.total_tps", NUM), claims=False),
    rule("(seconds)", r"Prompt evaluation:" + _S + _RATE, ("prompt_eval_ms", S_MS), ("prompt_tps", NUM),
         claims=False),
    rule("(seconds)", r"Generated (\d+) tokens:" + _S + _RATE, ("eval_tokens", INT), ("eval_ms", S_MS),
         ("eval_tps", NUM), mode="fill", claims=False),
    rule("(seconds)", r"Time to first generated token:" + _S, ("extra.ttft_ms", S_MS)),
    rule("(seconds)", r"Sampling time over (\d+) tokens:" + _S, ("extra.sampling_tokens", INT),
         ("sampling_ms", S_MS), end=True, claims=False),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
