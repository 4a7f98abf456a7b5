"""torchchat ``generate`` (gpt-fast's report lines): ``Time to load model: 39.88 seconds`` -> ``load_ms``;
``Time for inference 1: 28.73 sec total, 50 tokens, 1.74 tokens/sec, 574.53 ms/token`` -> ``total_ms``,
``eval_tokens``, ``eval_tps``, ``extra.ms_per_token``, ``extra.inference``; ``Bandwidth achieved: 27.95 GB/s`` ->
``extra.bandwidth_gb_s``. gpt-fast prints the same lines, so only the name ``torchchat`` (its command line) claims
the log."""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "torchchat"

RULES = (
    rule("Time to load model:", r"Time to load model: ([\d.]+) seconds", ("load_ms", S_MS), claims=False),
    rule("Time for inference", r"Time for inference (\d+): ([\d.]+) sec total, (\d+) tokens, ([\d.]+) tokens/sec, "
         r"([\d.]+) ms/token", ("extra.inference", INT), ("total_ms", S_MS), ("eval_tokens", INT),
         ("eval_tps", NUM), ("extra.ms_per_token", NUM), claims=False),
    rule("Bandwidth achieved:", r"Bandwidth achieved: ([\d.]+) GB/s", ("extra.bandwidth_gb_s", NUM), claims=False),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
