"""KTransformers: the server's ``Performance(T/s): prefill …, decode …. Time(s): tokenize …, prefill …,
decode …`` line (balance_serve) -> ``prompt_tps``, ``eval_tps``, ``extra.tokenize_ms``, ``prompt_eval_ms``,
``eval_ms``; ``local_chat``'s block in ollama's shape (``prompt eval count:    14 token(s)``, ``prompt eval duration:
3.272608757019043s``, ``… rate: … tokens/s``, ``eval …``) -> the prompt/eval counts, durations and rates.

The block alone is ollama's shape, so it claims the log only where a duration has more fractional digits than a Go
duration can print (Python's ``repr`` of float seconds, ten or more); otherwise the word ``ktransformers`` does.
"""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "ktransformers"
_N = r"([\d.]+)"

RULES = (
    rule("Performance(T/s)", rf"Performance\(T/s\): prefill {_N}, decode {_N}\. Time\(s\): tokenize {_N}, "
         rf"prefill {_N}, decode {_N}", ("prompt_tps", NUM), ("eval_tps", NUM), ("extra.tokenize_ms", S_MS),
         ("prompt_eval_ms", S_MS), ("eval_ms", S_MS)),
    rule("eval count:", r"^\s*prompt eval count:\s+(\d+) token", ("prompt_tokens", INT), claims=False),
    rule("eval count:", r"^\s*eval count:\s+(\d+) token", ("eval_tokens", INT), claims=False),
    rule("eval duration:", rf"^\s*prompt eval duration:\s+{_N}s\s*$", ("prompt_eval_ms", S_MS), claims=False),
    rule("eval duration:", rf"^\s*eval duration:\s+{_N}s\s*$", ("eval_ms", S_MS), claims=False),
    rule("eval duration:", r"eval duration:\s+\d+\.\d{10,}s\s*$"),  # float seconds: not Go's Duration
    rule("eval rate:", rf"^\s*prompt eval rate:\s+{_N} tokens/s", ("prompt_tps", NUM), claims=False),
    rule("eval rate:", rf"^\s*eval rate:\s+{_N} tokens/s", ("eval_tps", NUM), claims=False),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
