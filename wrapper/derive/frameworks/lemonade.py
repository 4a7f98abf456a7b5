"""Lemonade (turnkeyml) ``oga-bench``: ``Seconds To First Token: 0.004`` -> ``extra.ttft_ms``, ``Prefill Tokens Per
Second: 1455.340`` -> ``prompt_tps``, ``Token Generation Tokens Per Second: 273.599`` -> ``eval_tps``."""
from __future__ import annotations

from .rules import NUM, S_MS, RulesParser, rule

NAME = "lemonade"

RULES = (
    rule("Seconds To First Token:", r"Seconds To First Token:\s+([\d.]+)", ("extra.ttft_ms", S_MS), claims=False),
    rule("Prefill Tokens Per Second:", r"Prefill Tokens Per Second:\s+([\d.]+)", ("prompt_tps", NUM)),
    rule("Token Generation Tokens Per Second:", r"Token Generation Tokens Per Second:\s+([\d.]+)", ("eval_tps", NUM)),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
