"""karpathy/llama2.c ``run``: ``achieved tok/s: 96.74965746530997`` (tokens over the whole run, the prompt's
included) -> ``extra.achieved_tps``."""
from __future__ import annotations

from .rules import NUM, RulesParser, rule

NAME = "llama2.c"

RULES = (rule("achieved tok/s:", r"achieved tok/s: ([\d.]+)", ("extra.achieved_tps", NUM)),)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
