"""mistral.rs: the engine logger's periodic ``Throughput (T/s) 18.00, Prefix cache hitrate 50.00%, 1 running,
0 waiting`` lines -> ``extra.engine_metrics`` {``lines``, ``last``, ``series``} with ``throughput_tps``,
``prefix_cache_hit_rate_pct``, ``running_reqs``, ``waiting_reqs`` (interval figures, so not ``eval_tps``).
The author's other engines (candle-vllm, vllm.rs) print lines of the same kind, so only the logger's name
(``mistralrs_…``) claims the log."""
from __future__ import annotations

from .rules import INT, NUM, RulesParser, rule

NAME = "mistral.rs"

RULES = (
    rule("Throughput (T/s)", r"Throughput \(T/s\) ([\d.]+), Prefix cache hitrate ([\d.]+)%, (\d+) running, "
         r"(\d+) waiting", ("throughput_tps", NUM), ("prefix_cache_hit_rate_pct", NUM), ("running_reqs", INT),
         ("waiting_reqs", INT), series="engine_metrics", claims=False),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
