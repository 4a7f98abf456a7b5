"""MLC LLM: the chat's statistics ``prefill: 78.3 tok/s, decode: 46.8 tok/s`` alone on a line (``/stats``, ``Statistics:``) ->
``prompt_tps``, ``eval_tps``; the server's ``/metrics`` text ``decode_tokens_sum 73`` -> ``eval_tokens``,
``decode_tokens_per_s 5.658…`` -> ``extra.metrics_decode_tps``; the C++ chat's per-step ``llm_chat.cc:689: [i: 51]
decoding-time=8.44127ms tok/s: 119.053.`` -> a row of ``extra.decode_steps`` {``lines``, ``last``, ``series``:
``step``, ``decoding_ms``, ``tps``} (``tps`` is the running average the line prints)."""
from __future__ import annotations

from .rules import INT, NUM, RulesParser, rule

NAME = "mlc-llm"

RULES = (
    # the line is the statistics alone ("Statistics: " before it at most): mlx-serve's turn summary prints the same
    # pair in brackets after its own figures ("<- 23315+678 tokens (40881ms) [prefill: 813.2 tok/s, decode: …]")
    rule("tok/s, decode:", r"^\s*(?:Statistics:\s*)?prefill: ([\d.]+) tok/s, decode: ([\d.]+) tok/s\s*$",
         ("prompt_tps", NUM), ("eval_tps", NUM)),
    rule("decode_tokens_sum", r"^\s*decode_tokens_sum\s+(\d+)\s*$", ("eval_tokens", INT)),
    rule("decoding-time=", r"\[i: (\d+)\] decoding-time=([\d.]+)ms tok/s: (\d+(?:\.\d+)?)", ("step", INT),
         ("decoding_ms", NUM), ("tps", NUM), series="decode_steps"),
    rule("decode_tokens_per_s", r"^\s*decode_tokens_per_s\s+([\d.]+)\s*$", ("extra.metrics_decode_tps", NUM)),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
