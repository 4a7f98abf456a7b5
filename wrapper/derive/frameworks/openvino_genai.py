"""OpenVINO GenAI: ``benchmark_genai``'s summary and ``llm_bench``'s per-prompt lines.

``benchmark_genai``: ``Load time: 18507.00 ms`` -> ``load_ms``; ``Generate time: 21.88 ± 1.20 ms`` ->
``total_ms`` (mean) and ``extra.generate_std_ms``; ``Tokenization``/``Detokenization time`` -> ``extra.
tokenization_ms``/``detokenization_ms`` (+ ``_std_ms``); ``TTFT``/``TPOT: … ± … ms`` -> ``extra.ttft_ms``/
``tpot_ms`` (+ ``_std_ms``); ``Throughput : 47.89 ± 1.07 tokens/s`` -> ``eval_tps``, ``extra.throughput_std_tps``.
``llm_bench``: ``[1] Batch_size=2, …`` starts a run (``extra.batch_size``); ``Input token size: 64, Output size:
256, Infer count: 128, Tokenization Time: 0.70ms, Detokenization Time: 0.64ms, Generation Time: 38.15s, Latency:
298.04 ms/2tokens`` -> ``prompt_tokens``, ``eval_tokens``, ``extra.infer_count``, ``extra.tokenization_ms``,
``extra.detokenization_ms``, ``total_ms``, ``extra.latency_ms``; ``First token latency: … , other tokens latency:
…`` -> ``extra.first_token_latency_ms``, ``extra.other_tokens_latency_ms``; ``First infer latency: … ms/infer,
other infers latency: … ms/infer, inference count: 128`` -> ``extra.first_infer_latency_ms``,
``extra.other_infers_latency_ms``, ``extra.inference_count``. Latencies stay per the unit printed (``ms/2tokens``
with a batch of two).
"""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "openvino-genai"
_N = r"([\d.]+)"
_PM = rf"{_N} ± {_N}"

RULES = (
    rule("Load time:", rf"^\s*Load time: {_N} ms", ("load_ms", NUM), claims=False),
    rule(" ± ", rf"^\s*Generate time: {_PM} ms", ("total_ms", NUM), ("extra.generate_std_ms", NUM)),
    rule(" ± ", rf"^\s*Tokenization time: {_PM} ms", ("extra.tokenization_ms", NUM),
         ("extra.tokenization_std_ms", NUM)),
    rule(" ± ", rf"^\s*Detokenization time: {_PM} ms", ("extra.detokenization_ms", NUM),
         ("extra.detokenization_std_ms", NUM)),
    rule(" ± ", rf"^\s*TTFT: {_PM} ms", ("extra.ttft_ms", NUM), ("extra.ttft_std_ms", NUM)),
    rule(" ± ", rf"^\s*TPOT: {_PM} ms", ("extra.tpot_ms", NUM), ("extra.tpot_std_ms", NUM)),
    rule(" ± ", rf"^\s*Throughput : {_PM} tokens/s", ("eval_tps", NUM), ("extra.throughput_std_tps", NUM)),
    rule("Batch_size=", r"\] Batch_size=(\d+), all input token size", ("extra.batch_size", INT), start=True),
    rule("Infer count:", rf"Input token size: (\d+), Output size: (\d+), Infer count: (\d+), Tokenization Time: "
         rf"{_N}ms, Detokenization Time: {_N}ms, Generation Time: {_N}s, Latency: {_N} ms/", ("prompt_tokens", INT),
         ("eval_tokens", INT), ("extra.infer_count", INT), ("extra.tokenization_ms", NUM),
         ("extra.detokenization_ms", NUM), ("total_ms", S_MS), ("extra.latency_ms", NUM)),
    rule("other tokens latency:", rf"First token latency: {_N} ms/\S+, other tokens latency: {_N} ms/",
         ("extra.first_token_latency_ms", NUM), ("extra.other_tokens_latency_ms", NUM)),
    rule("other infers latency:", rf"First infer latency: {_N} ms/infer, other infers latency: {_N} ms/infer, "
         r"inference count: (\d+)", ("extra.first_infer_latency_ms", NUM), ("extra.other_infers_latency_ms", NUM),
         ("extra.inference_count", INT)),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
