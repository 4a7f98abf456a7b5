"""ipex-llm (formerly BigDL-LLM) native models: ``bigdl-llm timings: prompt eval time = 0.00 ms / 1 tokens ( 0.00
ms per token)`` -> ``prompt_eval_ms``, ``prompt_tokens``, ``extra.prompt_ms_per_token``; ``… eval time = …`` ->
``eval_ms``, ``eval_tokens``, ``extra.eval_ms_per_token``; ``load time`` -> ``load_ms``; ``total time`` ->
``total_ms`` (llama.cpp's timing block under the binding's own name)."""
from __future__ import annotations

from .rules import INT, NUM, RulesParser, rule

NAME = "ipex-llm"
_HEAD = r"(?:bigdl|ipex)-llm timings:\s+"
_TIME = r"time =\s+([\d.]+) ms"
_RUNS = r"\s*/\s*(\d+) (?:tokens|runs)\s*\(\s*([\d.]+) ms per token"

RULES = (
    rule("-llm timings:", _HEAD + r"load " + _TIME, ("load_ms", NUM)),
    rule("-llm timings:", _HEAD + r"prompt eval " + _TIME + _RUNS, ("prompt_eval_ms", NUM), ("prompt_tokens", INT),
         ("extra.prompt_ms_per_token", NUM)),
    rule("-llm timings:", _HEAD + r"eval " + _TIME + _RUNS, ("eval_ms", NUM), ("eval_tokens", INT),
         ("extra.eval_ms_per_token", NUM)),
    rule("-llm timings:", _HEAD + r"total " + _TIME, ("total_ms", NUM)),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
