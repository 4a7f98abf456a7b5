"""Triton's ``perf_analyzer``: one run per ``*** Measurement Settings ***`` block; microseconds stay ``_us``.

Settings: ``Batch size: 1`` -> ``extra.batch_size``, ``Measurement window: 5000 msec`` ->
``extra.measurement_window_ms``, ``Request concurrency: 1`` -> ``extra.concurrency``. Each ``Pass [n] throughput:
221.6 infer/sec. Avg latency: 4512 usec (std 1538 usec)`` -> a row of ``extra.passes`` {``lines``, ``last``,
``series``: ``throughput_infer_s``, ``avg_latency_us``, ``std_latency_us``}. Client: ``Request count`` ->
``extra.request_count``, ``Throughput: 219.6 infer/sec`` -> ``extra.throughput_infer_s``, ``Avg latency: 4553 usec
(standard deviation 1593 usec)`` -> ``extra.avg_latency_us``, ``extra.std_latency_us``, ``p50/p90/p95/p99
latency`` -> ``extra.p50_latency_us`` …, ``Avg gRPC time: … (marshal … + response wait … + unmarshal …)`` ->
``extra.grpc_us``, ``marshal_us``, ``response_wait_us``, ``unmarshal_us``; ``Avg HTTP time: … (send/recv … +
response wait …)`` (older: ``send … + response wait … + receive …``) -> ``extra.http_us``, ``send_recv_us``
(``send_us``, ``receive_us``), ``response_wait_us``; ``Latency limit``, ``Concurrency limit`` ->
``extra.latency_limit_ms``, ``extra.concurrency_limit``; ``Cache hit count`` -> ``extra.server_cache_hit_count``;
request-rate mode: ``Request Rate: 24 inference requests per seconds`` -> ``extra.request_rate_s``, ``Delayed
Request Count``, ``Sequence count: 19 (0.19 seq/sec)`` -> ``extra.delayed_request_count``, ``sequence_count``,
``sequences_s``; gRPC's ``((un)marshal
request/response 8 usec + response wait …)`` -> ``extra.marshal_unmarshal_us``. Server: ``Inference count``,
``Execution count``, ``Successful request count`` -> ``extra.server_inference_count``,
``server_execution_count``, ``server_success_count``; ``Avg request latency: 4180 usec (overhead 2 usec + queue 30
usec + compute input 3012 usec + compute infer 1100 usec + compute output 36 usec)`` -> ``extra.
server_request_latency_us``, ``server_overhead_us``, ``server_queue_us``, ``server_compute_input_us``,
``server_compute_infer_us``, ``server_compute_output_us``. The summary ``Concurrency: 1, throughput: 219.6
infer/sec, latency 4553 usec`` -> a row of ``extra.summary`` (``concurrency``, ``throughput_infer_s``,
``latency_us``). Ensembles (early 2021): ``Avg request latency: 8348 usec`` alone, ``Total avg compute input time :
82 usec`` (… infer, output, queue) -> ``extra.server_total_compute_input_us`` …, and under ``Composing models:``
each ``dali, version: `` starts a run (``extra.composing_model``, ``composing_model_version``) holding that model's
server counts and latencies.
"""
from __future__ import annotations

from .rules import INT, NUM, TEXT, RulesParser, rule

NAME = "perf_analyzer"
_US = r"(\d+) usec"

RULES = (
    rule("Measurement Settings", r"\*\*\* Measurement Settings \*\*\*", start=True),
    rule("  Batch size:", r"^\s*Batch size: (\d+)\s*$", ("extra.batch_size", INT), claims=False),
    rule("Measurement window:", r"Measurement window: (\d+) msec", ("extra.measurement_window_ms", INT)),
    rule("Request concurrency:", r"^\s*Request concurrency: (\d+)", ("extra.concurrency", INT), claims=False),
    rule("infer/sec", rf"Pass \[\d+\] throughput: ([\d.]+) infer/sec\. Avg latency: {_US} "
         rf"\(std {_US}\)", ("throughput_infer_s", NUM), ("avg_latency_us", INT), ("std_latency_us", INT),
         series="passes"),
    rule("Request count:", r"^\s*Request count: (\d+)", ("extra.request_count", INT), claims=False),
    rule("infer/sec", r"^\s*Throughput: ([\d.]+) infer/sec", ("extra.throughput_infer_s", NUM)),
    rule(" usec", rf"^\s*Avg latency: {_US} \(standard deviation {_US}\)", ("extra.avg_latency_us", INT),
         ("extra.std_latency_us", INT)),
    *(rule(" usec", rf"^\s*p{q} latency: {_US}", (f"extra.p{q}_latency_us", INT), claims=False)
      for q in (50, 90, 95, 99)),
    rule(" usec", rf"Avg gRPC time: {_US} \((?:marshal {_US} \+ response wait {_US} \+ unmarshal {_US}|"
         rf"\(un\)marshal request/response {_US} \+ response wait {_US})\)", ("extra.grpc_us", INT),
         ("extra.marshal_us", INT), ("extra.response_wait_us", INT), ("extra.unmarshal_us", INT),
         ("extra.marshal_unmarshal_us", INT), ("extra.response_wait_us", INT)),
    rule("Request Rate:", r"^\s*Request Rate: ([\d.]+) inference requests per seconds", ("extra.request_rate_s", NUM),
         claims=False),
    rule("Delayed Request Count:", r"Delayed Request Count: (\d+)", ("extra.delayed_request_count", INT),
         claims=False),
    rule("Sequence count:", r"Sequence count: (\d+) \(([\d.]+) seq/sec\)", ("extra.sequence_count", INT),
         ("extra.sequences_s", NUM), claims=False),
    rule(" usec", rf"Avg HTTP time: {_US} \((?:send/recv {_US}|send {_US}) \+ response wait {_US}"
         rf"(?: \+ receive {_US})?\)", ("extra.http_us", INT), ("extra.send_recv_us", INT), ("extra.send_us", INT),
         ("extra.response_wait_us", INT), ("extra.receive_us", INT)),
    rule("Latency limit:", r"Latency limit: (\d+) msec", ("extra.latency_limit_ms", INT), claims=False),
    rule("Concurrency limit:", r"Concurrency limit: (\d+) concurrent requests", ("extra.concurrency_limit", INT),
         claims=False),
    rule("Cache hit count:", r"^\s*Cache hit count: (\d+)", ("extra.server_cache_hit_count", INT), claims=False),
    rule("Inference count:", r"^\s*Inference count: (\d+)", ("extra.server_inference_count", INT), claims=False),
    rule("Execution count:", r"^\s*Execution count: (\d+)", ("extra.server_execution_count", INT), claims=False),
    rule("Successful request count:", r"Successful request count: (\d+)", ("extra.server_success_count", INT),
         claims=False),
    rule(", version:", r"^\s*(\S+), version: ?(\S*)\s*$", ("extra.composing_model", TEXT),
         ("extra.composing_model_version", TEXT), start=True, claims=False),
    *(rule(" usec", rf"Total avg {part} time : {_US}", (f"extra.server_total_{part.replace(' ', '_')}_us", INT),
           claims=False) for part in ("compute input", "compute infer", "compute output", "queue")),
    rule(" usec", rf"Avg request latency: {_US}(?: \(overhead {_US} \+ queue {_US} \+ compute input "
         rf"{_US} \+ compute infer {_US} \+ compute output {_US}\))?", ("extra.server_request_latency_us", INT),
         ("extra.server_overhead_us", INT), ("extra.server_queue_us", INT), ("extra.server_compute_input_us", INT),
         ("extra.server_compute_infer_us", INT), ("extra.server_compute_output_us", INT)),
    rule("infer/sec", rf"Concurrency: (\d+), throughput: ([\d.]+) infer/sec, latency {_US}",
         ("concurrency", INT), ("throughput_infer_s", NUM), ("latency_us", INT), series="summary"),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
