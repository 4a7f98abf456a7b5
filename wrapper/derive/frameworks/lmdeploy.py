"""LMDeploy: ``benchmark/profile_throughput.py``'s report.

``concurrency: 256`` -> ``extra.concurrency``, ``elapsed_time: 736.060s`` -> ``extra.elapsed_ms``, ``first token
latency(s)(min, max, ave): 1.400, 32.566, 9.528`` -> ``extra.first_token_latency_{min,max,ave}_ms``,
``per-token latency(s) percentile(50, 75, 95, 99): […]`` -> ``extra.per_token_latency_p{50,75,95,99}_ms``,
``number of prompt/completion tokens`` -> ``prompt_tokens``/``eval_tokens`` (the whole benchmark's),
2023 ``profile_generation.py``: ``concurrency: 64, input_tokens: 1, output_tokens: 2048`` -> ``extra.concurrency``,
``extra.input_tokens``, ``extra.output_tokens``, ``first_token latency(min, max, ave): 45.43s, …`` (the same keys),
``token latency(min, max, ave)`` -> ``extra.token_latency_{min,max,ave}_ms``, ``throughput: 22.9 token/s`` ->
``extra.throughput_tok_s``; ``token throughput (completion token)`` / ``(prompt + completion token)`` ->
``extra.completion_tok_s`` /
``extra.total_tok_s``, ``RPS``/``RPM`` -> ``extra.req_s``/``extra.req_min``.
"""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "lmdeploy"
_N = r"([\d.]+)"

RULES = (
    rule("concurrency:", r"^\s*concurrency: (\d+)\s*$", ("extra.concurrency", INT), claims=False),
    rule("elapsed_time:", rf"^\s*elapsed_time: {_N}s", ("extra.elapsed_ms", S_MS), claims=False),
    rule("first token latency(s)", rf"first token latency\(s\)\(min, max, ave\): {_N}, {_N}, {_N}",
         ("extra.first_token_latency_min_ms", S_MS), ("extra.first_token_latency_max_ms", S_MS),
         ("extra.first_token_latency_ave_ms", S_MS)),
    rule("concurrency:", r"^\s*concurrency: (\d+), input_tokens: (\d+), output_tokens: (\d+)",
         ("extra.concurrency", INT), ("extra.input_tokens", INT), ("extra.output_tokens", INT), claims=False),
    rule("first_token latency(min, max, ave)", rf"first_token latency\(min, max, ave\): {_N}s, {_N}s, {_N}s",
         ("extra.first_token_latency_min_ms", S_MS), ("extra.first_token_latency_max_ms", S_MS),
         ("extra.first_token_latency_ave_ms", S_MS)),
    rule("token latency(min, max, ave)", rf"^\s*token latency\(min, max, ave\): {_N}s, {_N}s, {_N}s",
         ("extra.token_latency_min_ms", S_MS), ("extra.token_latency_max_ms", S_MS),
         ("extra.token_latency_ave_ms", S_MS), claims=False),
    rule("throughput: ", rf"^\s*throughput: {_N} token/s", ("extra.throughput_tok_s", NUM), claims=False),
    rule("per-token latency(s)", rf"per-token latency\(s\) percentile\(50, 75, 95, 99\): \[{_N}, {_N}, {_N}, {_N}\]",
         ("extra.per_token_latency_p50_ms", S_MS), ("extra.per_token_latency_p75_ms", S_MS),
         ("extra.per_token_latency_p95_ms", S_MS), ("extra.per_token_latency_p99_ms", S_MS)),
    rule("number of prompt tokens", r"number of prompt tokens: (\d+)", ("prompt_tokens", INT), claims=False),
    rule("number of completion tokens", r"number of completion tokens: (\d+)", ("eval_tokens", INT), claims=False),
    rule("token throughput (completion token)", rf"token throughput \(completion token\): {_N} token/s",
         ("extra.completion_tok_s", NUM)),
    rule("token throughput (prompt + completion", rf"token throughput \(prompt \+ completion token\): {_N} token/s",
         ("extra.total_tok_s", NUM)),
    rule("RPS (request per second)", rf"RPS \(request per second\): {_N} req/s", ("extra.req_s", NUM)),
    rule("RPM (request per minute)", rf"RPM \(request per minute\): {_N} req/min", ("extra.req_min", NUM)),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
