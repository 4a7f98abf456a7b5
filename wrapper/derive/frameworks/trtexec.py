"""TensorRT's ``trtexec``: the ``=== Performance summary ===`` block (it starts a run) and the trace averages.

``Throughput: 130.298 qps`` -> ``extra.throughput_qps``; ``Latency``, ``Enqueue Time``, ``H2D Latency``,
``GPU Compute Time``, ``D2H Latency: min = … ms, max = …, mean = …, median = …, percentile(90%) = …`` (the
percentiles printed vary) -> ``extra.<latency|enqueue|h2d|gpu_compute|d2h>_<min|max|mean|median|p90|p95|p99>_ms``;
``Total Host Walltime: 3.00082 s``, ``Total GPU Compute Time: 2.96536 s`` -> ``extra.host_walltime_ms``,
``extra.gpu_compute_total_ms``; the warning ``GPU compute time is unstable, with coefficient of variance =
2.10486%`` -> ``extra.gpu_compute_cv_pct``; each ``Average on 10 runs - GPU latency: 4.24 ms - Host latency: 4.29
ms (end to end … ms, enqueue 1.81 ms)`` -> a row of ``extra.trace_averages`` {``lines``, ``last``, ``series``:
``runs``, ``gpu_latency_ms``, ``host_latency_ms``, ``end_to_end_ms``, ``enqueue_ms``}.
"""
from __future__ import annotations

from .rules import INT, NUM, S_MS, RulesParser, rule

NAME = "trtexec"
_MS = r"([\d.]+) ms"
_STATS = (("Latency", "latency"), ("Enqueue Time", "enqueue"), ("H2D Latency", "h2d"),
          ("GPU Compute Time", "gpu_compute"), ("D2H Latency", "d2h"))


def _stats(label: str, key: str):
    pattern = (rf"(?:^|\] ){label}: min = {_MS}, max = {_MS}, mean = {_MS}, median = {_MS}"
               + "".join(rf"(?:, percentile\({q}%\) = {_MS})?" for q in (90, 95, 99)))
    names = ("min", "max", "mean", "median", "p90", "p95", "p99")
    return rule("min = ", pattern, *((f"extra.{key}_{n}_ms", NUM) for n in names))


RULES = (
    rule("Performance summary", r"=== Performance summary ===", start=True),
    rule(" qps", r"Throughput: ([\d.]+) qps", ("extra.throughput_qps", NUM)),
    *(_stats(label, key) for label, key in _STATS),
    rule("Total Host Walltime:", r"Total Host Walltime: ([\d.]+) s", ("extra.host_walltime_ms", S_MS)),
    rule("Total GPU Compute Time:", r"Total GPU Compute Time: ([\d.]+) s", ("extra.gpu_compute_total_ms", S_MS)),
    rule("coefficient of variance", r"coefficient of variance = ([\d.]+)%", ("extra.gpu_compute_cv_pct", NUM),
         claims=False),
    rule("Average on ", rf"Average on (\d+) runs - GPU latency: {_MS} - Host latency: {_MS} \((?:end to end {_MS}, )?"
         rf"enqueue {_MS}\)", ("runs", INT), ("gpu_latency_ms", NUM), ("host_latency_ms", NUM),
         ("end_to_end_ms", NUM), ("enqueue_ms", NUM), series="trace_averages"),
)


class Parser(RulesParser):
    NAME = NAME
    RULES = RULES
