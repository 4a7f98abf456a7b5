"""TensorRT-LLM runtime: KV cache allocation and engine figures (out-of-memory comes from warn_rules).

One dict. ``extra``: ``kv_cache_gib`` and ``kv_cache_max_tokens`` (``[MemUsageChange] Allocated 78.30 GiB for max
tokens in paged KV cache (3731744).``), ``kv_cache_bytes`` (v0.8 ``Allocate 69524783104 bytes for k/v cache.``),
``kv_cache_tokens`` (``Using 132608 tokens in paged KV cache.``), ``kv_blocks_per_seq_max``, ``tokens_per_block``,
``kv_primary_blocks``, ``kv_secondary_blocks`` (``Max KV cache blocks per sequence: …``), ``engine_mib``
(``Loaded engine size: … MiB``; each MPI rank prints its own, the first is kept). ``version`` from
``TensorRT-LLM version: …``.

``benchmark.py``'s ``[BENCHMARK] model_name … batch_size 1 … latency(ms) 4409.816 … generation_time(ms) 3751.546
total_generated_tokens 189.0 generation_tokens_per_second 50.379`` lines (name/value pairs, the unit in the name)
are one dict each: ``total_ms`` (``latency(ms)``, the batch's end-to-end latency), ``eval_ms``
(``generation_time(ms)``), ``eval_tokens`` (``total_generated_tokens``), ``eval_tps``
(``generation_tokens_per_second``) and ``extra``: ``batch_size``, ``input_length``, ``output_length``,
``tokens_per_sec`` (generated tokens over the whole latency), ``percentile95_ms``, ``percentile99_ms``,
``build_ms`` (``build_time(s)``), ``gpu_peak_mem_gb``.

``trtllm-bench``'s report (``Label (unit):   value`` lines) -> ``extra``: ``requests``, ``concurrent_requests``,
``avg_input_tokens``, ``avg_output_tokens``, ``request_throughput_rps``, ``output_tps``, ``total_tps``,
``total_latency_ms``, ``avg_request_latency_ms``, ``per_user_output_tps``, ``per_gpu_output_tps``, ``avg_ttft_ms``,
``avg_tpot_ms`` and ``latency_p50_ms`` … ``latency_min_ms``/``latency_max_ms``/``latency_avg_ms`` from the
``[Latency] P50    : …`` breakdown; ``version`` from ``TensorRT-LLM Version: 1.1.0rc1``. TP/PP/EP sizes, batch
and token limits and the KV memory percentage are settings and are not read.
"""
from __future__ import annotations

import re

from . import routes
from .base import FamilyParser
from .units import seconds_to_ms
from .rules import named
from .units import number

NAME = "tensorrt-llm"

_RULES = (
    (re.compile(r"Allocated ([\d.]+) GiB for max tokens in paged KV cache \((\d+)\)"),
     (("kv_cache_gib", float), ("kv_cache_max_tokens", int))),
    (re.compile(r"Allocate (\d+) bytes for k/v cache"), (("kv_cache_bytes", int),)),
    (re.compile(r"Using (\d+) tokens in paged KV cache"), (("kv_cache_tokens", int),)),
    (re.compile(r"Max KV cache blocks per sequence: (\d+).*?tokens per block=(\d+), primary blocks=(\d+), "
                r"secondary blocks=(\d+)"),
     (("kv_blocks_per_seq_max", int), ("tokens_per_block", int), ("kv_primary_blocks", int),
      ("kv_secondary_blocks", int))),
    (re.compile(r"Loaded engine size: (\d+) MiB"), (("engine_mib", int),)),
)
_VERSION = re.compile(r"TensorRT[- ]LLM [Vv]ersion: (\S+)")
_EVIDENCE = routes.TRTLLM_EVIDENCE
# trtllm-bench's report: "Label:   value" lines (the unit in the label). label -> extra key
_BENCH_REPORT = {
    "Number of requests": "requests",
    "Number of concurrent requests": "concurrent_requests",
    "Average Input Length (tokens)": "avg_input_tokens",
    "Average Output Length (tokens)": "avg_output_tokens",
    "Request Throughput (req/sec)": "request_throughput_rps",
    "Total Output Throughput (tokens/sec)": "output_tps",
    "Total Token Throughput (tokens/sec)": "total_tps",
    "Total Latency (ms)": "total_latency_ms",
    "Average request latency (ms)": "avg_request_latency_ms",
    "Per User Output Throughput [w/ ctx] (tps/user)": "per_user_output_tps",
    "Per GPU Output Throughput (tps/gpu)": "per_gpu_output_tps",
    "Average time-to-first-token [TTFT] (ms)": "avg_ttft_ms",
    "Average time-per-output-token [TPOT] (ms)": "avg_tpot_ms",
}
# report lines any load tester prints ("Number of requests: 5" above a script's own results): read, but no evidence
_ANY_TOOLS = frozenset(("Number of requests", "Number of concurrent requests"))
_REPORT_LINE = re.compile(r"([A-Z][\w .,/\[\]()+-]*?):\s+([-+\d.Ee]+)\s*$")
_LATENCY_LINE = re.compile(r"\[Latency\] (P\d+|MINIMUM|MAXIMUM|AVERAGE)\s*: ([\d.]+)")
_LATENCY_KEYS = {"MINIMUM": "min", "MAXIMUM": "max", "AVERAGE": "avg"}


def _whole(text: str) -> int | None:
    """``"189.0"`` -> ``189`` (benchmark.py prints counts as floats); a fraction -> ``None``."""
    value = number(text)
    return int(value) if value is not None and value == int(value) else None


# printed name -> (report key, or "x:" + extra key; converter). Values in ms stay as printed.
_BENCH_FIELDS = {
    "latency(ms)": ("total_ms", number),
    "generation_time(ms)": ("eval_ms", number),
    "total_generated_tokens": ("eval_tokens", _whole),
    "generation_tokens_per_second": ("eval_tps", number),
    "batch_size": ("x:batch_size", _whole),
    "input_length": ("x:input_length", _whole),
    "output_length": ("x:output_length", _whole),
    "tokens_per_sec": ("x:tokens_per_sec", number),
    "percentile95(ms)": ("x:percentile95_ms", number),
    "percentile99(ms)": ("x:percentile99_ms", number),
    "build_time(s)": ("x:build_ms", seconds_to_ms),
    "gpu_peak_mem(gb)": ("x:gpu_peak_mem_gb", number),
}


class Parser(FamilyParser):
    NAME = NAME

    def feed(self, text: str, line: str) -> None:
        m = _REPORT_LINE.match(text)
        if m is not None and m[1] in _BENCH_REPORT:
            key = _BENCH_REPORT[m[1]]
            self.runs.fill_extra(key, _whole(m[2]) if key == "requests" else number(m[2]))
            if m[1] not in _ANY_TOOLS:
                self.evidence += 1
            return
        m = _LATENCY_LINE.search(text)
        if m is not None:
            self.runs.fill_extra(f"latency_{_LATENCY_KEYS.get(m[1], m[1].lower())}_ms", number(m[2]))
            self.evidence += 1
            return
        start = text.find("[BENCHMARK] ")
        if start >= 0:
            self._benchmark(text[start + len("[BENCHMARK] "):])
        for rx, fields in _RULES:
            m = rx.search(text)
            if m is not None:
                for (key, kind), value in zip(fields, m.groups()):
                    self.runs.fill_extra(key, kind(value))
                break
        m = _VERSION.search(text)
        if m is not None:
            self.runs.version = m[1]
        if any(e in line and named(line, e) for e in _EVIDENCE):
            self.evidence += 1

    def _benchmark(self, body: str) -> None:
        """One ``[BENCHMARK]`` line: alternating names and values."""
        runs = self.runs
        runs.close()
        report = runs.current
        words = body.split()
        for name, value in zip(words[0::2], words[1::2]):
            target = _BENCH_FIELDS.get(name)
            if target is None:
                continue
            key, convert = target
            if key.startswith("x:"):
                report["extra"][key[2:]] = convert(value)
            else:
                runs.set(key, convert(value))
        runs.close()
