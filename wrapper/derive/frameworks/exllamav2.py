"""ExLlamaV2's ``test_inference.py``: ``Prompt processed in 0.05 seconds, 100 tokens, 2000.00 tokens/second`` ->
``prompt_eval_ms``, ``prompt_tokens``, ``prompt_tps``; ``Response generated in 8.56 seconds, 1024 tokens, 119.64
tokens/second`` -> ``eval_ms``, ``eval_tokens``, ``eval_tps``."""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "exllamav2"

RULES = (
    rule("Prompt processed in", r"Prompt processed in ([\d.]+) seconds, (\d+) tokens, ([\d.]+) tokens/second",
         ("prompt_eval_ms", S_MS), ("prompt_tokens", INT), ("prompt_tps", NUM)),
    rule("Response generated in", r"Response generated in ([\d.]+) seconds, (\d+) tokens, ([\d.]+) tokens/second",
         ("eval_ms", S_MS), ("eval_tokens", INT), ("eval_tps", NUM)),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
