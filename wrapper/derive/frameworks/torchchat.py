"""torchchat ``generate`` (gpt-fast's report lines, then its own): ``Time to load model: 39.88 seconds`` ->
``load_ms``; ``Time for inference 1: 28.73 sec total, 50 tokens, 1.74 tokens/sec, 574.53 ms/token`` (early 2024:
``…, 8.96 tokens/sec`` only; late 2024: ``… 5.0354 sec total`` alone) -> ``extra.inference``, ``total_ms``,
``eval_tokens``, ``eval_tps``, ``extra.ms_per_token``; ``Generated 49 tokens`` -> ``eval_tokens``; ``Time to first
token: 2.0772 sec with parallel prefill.`` -> ``extra.ttft_ms``; ``Total``/``First token``/``Next token throughput:
9.9296 tokens/sec, 0.1007 s/token`` -> ``extra.total_tps``/``first_token_tps``/``next_token_tps`` and the matching
``…_s_per_token``; ``Bandwidth achieved: 27.95 GB/s`` -> ``extra.bandwidth_gb_s``; ``Average tokens/sec: 1.85``,
``Memory used: 0.00 GB`` -> ``extra.average_tps``, ``extra.memory_used_gb``. gpt-fast prints the first lines too,
so only torchchat's own (``with parallel prefill``, ``Next token throughput``) or its name on the command line claim
the log."""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "torchchat"
_RATE = r"throughput:\s+([\d.]+) tokens/sec, ([\d.]+) s/token"

RULES = (
    rule("Time to load model:", r"Time to load model: ([\d.]+) seconds", ("load_ms", S_MS), claims=False),
    rule("Generated ", r"^\s*Generated (\d+) tokens\s*$", ("eval_tokens", INT), claims=False),
    rule("Time for inference", r"Time for inference (\d+): ([\d.]+) sec total(?:, (\d+) tokens)?(?:, ([\d.]+) "
         r"tokens/sec)?(?:, ([\d.]+) ms/token)?", ("extra.inference", INT), ("total_ms", S_MS),
         ("eval_tokens", INT), ("eval_tps", NUM), ("extra.ms_per_token", NUM), mode="fill", claims=False),
    rule("with parallel prefill", r"Time to first token: ([\d.]+) sec with parallel prefill", ("extra.ttft_ms", S_MS)),
    rule("Total throughput:", r"Total " + _RATE, ("extra.total_tps", NUM), ("extra.total_s_per_token", NUM),
         claims=False),
    rule("First token throughput:", r"First token " + _RATE, ("extra.first_token_tps", NUM),
         ("extra.first_token_s_per_token", NUM), claims=False),
    rule("Next token throughput:", r"Next token " + _RATE, ("extra.next_token_tps", NUM),
         ("extra.next_token_s_per_token", NUM)),
    rule("Bandwidth achieved:", r"Bandwidth achieved: ([\d.]+) GB/s", ("extra.bandwidth_gb_s", NUM), claims=False),
    rule("Average tokens/sec:", r"Average tokens/sec: ([\d.]+)", ("extra.average_tps", NUM), claims=False),
    rule("Memory used:", r"^\s*Memory used: ([\d.]+) GB", ("extra.memory_used_gb", NUM), claims=False),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
