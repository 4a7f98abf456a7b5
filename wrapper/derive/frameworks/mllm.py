"""mllm (UbiquitousLearning): the demos' ``Prefill Tokens: 1022``, ``Prefill Time taken: 9.99451 seconds``,
``Prefill Speed: 102.256 tokens/s`` -> ``prompt_tokens``, ``prompt_eval_ms``, ``prompt_tps`` (``Decode …`` the
same into ``eval_tokens``, ``eval_ms``, ``eval_tps``)."""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "mllm"

RULES = tuple(
    r for phase, tokens, ms, tps in (("Prefill", "prompt_tokens", "prompt_eval_ms", "prompt_tps"),
                                     ("Decode", "eval_tokens", "eval_ms", "eval_tps"))
    for r in (rule(f"{phase} Tokens:", rf"^\s*{phase} Tokens: (\d+)\s*$", (tokens, INT), claims=False),
              rule(f"{phase} Time taken:", rf"^\s*{phase} Time taken: ([\d.]+) seconds", (ms, S_MS)),
              rule(f"{phase} Speed:", rf"^\s*{phase} Speed: ([\d.]+) tokens/s", (tps, NUM)))
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
