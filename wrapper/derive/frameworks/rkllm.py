"""Rockchip RKLLM runtime (``RKLLM_LOG_LEVEL=1``): the ``I rkllm:`` performance table. ``Init 1528.08 / / /`` ->
``load_ms``; ``Prefill 373.42 21 17.78 56.24`` -> ``prompt_eval_ms``, ``prompt_tokens``,
``extra.prompt_ms_per_token``, ``prompt_tps``; ``Generate …`` -> ``eval_ms``, ``eval_tokens``,
``extra.eval_ms_per_token``, ``eval_tps``. Claimed on the table's ``Stage  Total Time (ms)`` header."""
from __future__ import annotations

from .rules import INT, NUM, RulesParser, rule

NAME = "rkllm"
_N = r"\s+([\d.]+)"

RULES = (
    rule("Total Time (ms)", r"Stage\s+Total Time \(ms\)\s+Tokens\s+Time per Token \(ms\)\s+Tokens per Second",
         start=True),
    rule("rkllm:", r"I rkllm:\s+Init" + _N + r"\s+/", ("load_ms", NUM), claims=False),
    rule("rkllm:", r"I rkllm:\s+Prefill" + _N + r"\s+(\d+)" + _N + _N + r"\s*$", ("prompt_eval_ms", NUM),
         ("prompt_tokens", INT), ("extra.prompt_ms_per_token", NUM), ("prompt_tps", NUM), claims=False),
    rule("rkllm:", r"I rkllm:\s+Generate" + _N + r"\s+(\d+)" + _N + _N + r"\s*$", ("eval_ms", NUM),
         ("eval_tokens", INT), ("extra.eval_ms_per_token", NUM), ("eval_tps", NUM), claims=False),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
