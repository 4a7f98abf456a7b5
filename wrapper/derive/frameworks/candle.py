"""Hugging Face candle's quantized examples (and the programs built from them): ``loaded 291 tensors (4.37GB) in
0.06s`` -> ``load_ms``, ``extra.weights_gb``; `` 149 prompt tokens processed: 16.83 token/s`` -> ``prompt_tokens``,
``prompt_tps``; ``  22 tokens generated: 10.47 token/s`` -> ``eval_tokens``, ``eval_tps``."""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "candle"

RULES = (
    rule("tensors (", r"loaded (\d+) tensors \(([\d.]+)GB\) in ([\d.]+)s", ("extra.tensors", INT),
         ("extra.weights_gb", NUM), ("load_ms", S_MS), claims=False),
    rule("prompt tokens processed:", r"^\s*(\d+) prompt tokens processed: ([\d.]+) token/s", ("prompt_tokens", INT),
         ("prompt_tps", NUM)),
    rule("tokens generated:", r"^\s*(\d+) tokens generated: ([\d.]+) token/s", ("eval_tokens", INT),
         ("eval_tps", NUM)),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
