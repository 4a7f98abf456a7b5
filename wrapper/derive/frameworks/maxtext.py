"""MaxText's inference tests: ``prefill: stream=0, #tokens=4/16, time=7906.16 ms`` -> ``extra.stream``,
``prompt_tokens`` (the true length), ``extra.padded_prompt_tokens``, ``prompt_eval_ms``; each ``generate:
token=#17, time=8804.44 ms`` -> a row of ``extra.generate_steps`` {``lines``, ``last``, ``series``: ``token``,
``time_ms``} (the first steps include compilation, so no total is derived from them)."""
from __future__ import annotations

from .rules import INT, NUM, RulesParser, rule

NAME = "maxtext"

RULES = (
    rule("prefill: stream=", r"prefill: stream=(\d+), #tokens=(\d+)/(\d+), time=([\d.]+) ms", ("extra.stream", INT),
         ("prompt_tokens", INT), ("extra.padded_prompt_tokens", INT), ("prompt_eval_ms", NUM)),
    rule("generate: token=#", r"generate: token=#(\d+), time=([\d.]+) ms", ("token", INT), ("time_ms", NUM),
         series="generate_steps"),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
