"""MNN's LLM tools: ``llm_bench``'s markdown table (``| model | modelSize | backend | threads | test | t/s |``,
claimed on its ``modelSize`` header; llama-bench's table has none), one dict per row: ``extra.model``,
``extra.model_size_mib``, ``extra.backend``, ``extra.threads``, ``extra.test``, ``extra.tps_stddev``; ``ppN`` ->
``prompt_tokens`` N and ``prompt_tps``, ``tgN`` -> ``eval_tokens`` N and ``eval_tps``, ``ppN+tgM`` -> both counts
and ``extra.tps`` (a rate over the two together)."""
from __future__ import annotations

from .rules import INT, NUM, TEXT, RulesParser, rule

NAME = "mnn-llm"
_ROW = r"^\|\s*(\S+)\s*\|\s*([\d.]+) MiB\s*\|\s*(\S+)\s*\|\s*(\d+)\s*\|\s*"
_RATE = r"\s*\|\s*([\d.]+) ± ([\d.]+)\s*\|"
_LEAD = (("extra.model", TEXT), ("extra.model_size_mib", NUM), ("extra.backend", TEXT), ("extra.threads", INT))

RULES = (
    rule("modelSize", r"^\|\s*model\s*\|\s*modelSize\s*\|"),
    rule(" MiB |", _ROW + r"(pp(\d+))" + _RATE, *_LEAD, ("extra.test", TEXT), ("prompt_tokens", INT),
         ("prompt_tps", NUM), ("extra.tps_stddev", NUM), claims=False),
    rule(" MiB |", _ROW + r"(tg(\d+))" + _RATE, *_LEAD, ("extra.test", TEXT), ("eval_tokens", INT),
         ("eval_tps", NUM), ("extra.tps_stddev", NUM), claims=False),
    rule(" MiB |", _ROW + r"(pp(\d+)\+tg(\d+))" + _RATE, *_LEAD, ("extra.test", TEXT), ("prompt_tokens", INT),
         ("eval_tokens", INT), ("extra.tps", NUM), ("extra.tps_stddev", NUM), claims=False),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
