"""SGLang server: startup memory, KV cache and CUDA graph figures, and a summary of the scheduler's batch lines.

One dict for the server's life (SGLang prints no per-request timings). ``extra`` (units in the names):
``avail_mem_before_weights_gb`` (``Load weight begin. avail mem=44.00 GB``), ``weights_mem_gb`` and ``avail_mem_after_weights_gb`` (``Load weight end. … avail mem=28.91 GB, mem usage=15.09
GB``), ``weights_progress_elapsed_ms`` (the finished ``Loading safetensors checkpoint shards`` bar, whole seconds),
``kv_cache_tokens``, ``kv_k_gb``, ``kv_v_gb`` (``KV Cache is allocated. #tokens: …, K size: …, V size: …``),
``avail_mem_after_kv_pool_gb`` (``Memory pool end. avail mem=5.51 GB``), ``cuda_graph_ms``/``cuda_graph_mem_gb``/
``avail_mem_after_cuda_graph_gb`` (the first rank's ``Capture cuda graph end. …``), ``max_total_num_tokens``,
``max_running_requests``, ``context_len``, ``available_gpu_mem_gb`` (``max_total_num_tokens=2261377, …``), (``Capture cuda graph end. Time elapsed: 5.37 s. mem usage=1.44 GB``),
``prefill`` (``batches``, ``new_seqs``, ``new_tokens``, ``cached_tokens`` summed over ``Prefill batch.`` /
``Prefill batch,`` lines; ``last_input_tps``/``max_input_tps`` where the line prints ``input throughput
(token/s)``) and ``decode`` (``batches``, ``last_gen_tps``, ``max_gen_tps`` over ``Decode batch. … gen
throughput``, either separator); both keep ``series``, every line's fields in snake case (``running_req``,
``token``, ``token_usage``, ``gen_throughput_token_s``, ``new_seq``, ``cached_token``, ``cuda_graph`` …) up to
base.SERIES_MAX lines.
``load_ms`` stays None: SGLang prints the begin and end of weight loading, not a duration.

``bench_one_batch`` (one dict per ``Prefill.`` line, so the warm-up and the benchmark are two): ``prompt_eval_ms``/
``prompt_tps`` (``Prefill. latency: 0.01014 s, throughput: 5916.43 token/s``), ``extra.decode_median_latency_ms``/
``decode_median_tps`` (``Decode.  median latency: …``), ``total_ms``/``extra.total_tps`` (``Total. latency: …``).
``bench_serving``'s report -> ``extra["serving_benchmark"]`` (see serving_bench.py).
"""
from __future__ import annotations

import re

from . import routes, serving_bench
from .base import LINE_BYTE, SERIES_MAX, FamilyParser, Periodic, bar_elapsed_ms
from .units import scaled, seconds_to_ms
from .rules import column_name

NAME = "sglang"

_WEIGHTS = re.compile(r"Load weight end\..*?avail mem=([\d.]+) GB, mem usage=([\d.]+) GB")
_WEIGHTS_BEGIN = re.compile(r"Load weight begin\. avail mem=([\d.]+) GB")
_POOL_END = re.compile(r"Memory pool end\. avail mem=([\d.]+) GB")
_KV = re.compile(r"KV Cache is allocated\. #tokens: (\d+), K size: ([\d.]+) GB, V size: ([\d.]+) GB")
_GRAPH = re.compile(r"Capture cuda graph end\. Time elapsed: ([\d.]+) s\. mem usage=([\d.]+) GB"
                    r"(?:\. avail mem=([\d.]+) GB)?")
# Printed once the scheduler is set up; chunked_prefill_size/max_prefill_tokens there are settings, not read.
_CAPACITY = re.compile(r"max_total_num_tokens=(\d+).*?max_running_requests=(\d+).*?context_len=(\d+)"
                       r"(?:.*?available_gpu_mem=([\d.]+) GB)?")
# "Prefill batch." until 2025, "Prefill batch," since; the throughput field moved to the end of the line in 2026.
_PREFILL = re.compile(r"Prefill batch[.,] #new-seq: (\d+), #new-token: (\d+), #cached-token: (\d+)")
_INPUT_TPS = re.compile(r"input throughput \(token/s\): ([\d.]+)")
_DECODE = re.compile(r"Decode batch[.,].*?gen throughput \(token/s\): ([\d.]+)")
# bench_one_batch: "Prefill. latency: 0.01014 s, throughput:   5916.43 token/s", "Decode.  median latency: …",
# "Total. latency:  0.062 s, throughput:   1122.76 token/s"
_ONE_BATCH = re.compile(r"(Prefill|Total)\.\s+latency:\s+([\d.]+) (s|ms), throughput:\s+([\d.]+) token/s")
_ONE_BATCH_DECODE = re.compile(r"Decode\.\s+median latency:\s+([\d.]+) (s|ms), median throughput:\s+([\d.]+) token/s")
_TO_MS = {"s": 1000, "ms": 1}
# "#running-req: 509", "token usage: 0.43", "gen throughput (token/s): 7897.87", "cuda graph: True"
_BATCH_FIELD = re.compile(r"(#?[A-Za-z][A-Za-z _-]*(?:\(token/s\))?): (-?[\d.]+|True|False)(%?)")
_FIELD_KEY = re.compile(r"[^a-z0-9]+")


def _batch_fields(text: str) -> dict:
    """Every ``name: value`` field of a batch line, names in snake case (``gen_throughput_token_s``)."""
    start = text.find("batch")
    out = {}
    for name, value, pct in _BATCH_FIELD.findall(text, start):
        key = _FIELD_KEY.sub("_", name.lower()).strip("_") + ("_pct" if pct else "")
        out[key] = value == "True" if value in ("True", "False") else (int(value) if value.isdigit() else float(value))
    return out
# SGLang's name as its package or logger (`sglang.srt.…`, `sglang/srt/…`, `[sglang]`), not as part of a word: a
# client script named `sglang-cache.py` is no SGLang log.
_OWN_NAME = re.compile(r"\bsglang(?=[./:\]])|\bSGLang\b")
_EVIDENCE = tuple(e for e in routes.SGLANG_EVIDENCE if e.lower() != "sglang")
# Lines only SGLang's ``bench_serving`` report prints (vLLM's report has the same header and common lines).
_OWN_REPORT = ("(retokenized)", "Total input text tokens", "Traffic request rate:")


def _series_append(into: dict, text: str) -> None:
    series = into.setdefault("series", [])
    if len(series) < SERIES_MAX:
        series.append(_batch_fields(text))


def _batch(text: str, extra: dict) -> bool:
    """A ``Decode batch`` / ``Prefill batch`` line, summed into ``extra["decode"]`` / ``extra["prefill"]``."""
    if (m := _DECODE.search(text)) is not None:
        gen_tps = float(m[1])
        decode = extra.setdefault("decode", {"batches": 0, "last_gen_tps": None, "max_gen_tps": gen_tps})
        decode["batches"] += 1
        decode["last_gen_tps"] = gen_tps
        decode["max_gen_tps"] = max(decode["max_gen_tps"], gen_tps)
        _series_append(decode, text)
        return True
    if (m := _PREFILL.search(text)) is None:
        return False
    prefill = extra.setdefault("prefill", {"batches": 0, "new_seqs": 0, "new_tokens": 0, "cached_tokens": 0})
    prefill["batches"] += 1
    prefill["new_seqs"] += int(m[1])
    prefill["new_tokens"] += int(m[2])
    prefill["cached_tokens"] += int(m[3])
    if (t := _INPUT_TPS.search(text)) is not None:
        input_tps = float(t[1])
        prefill["last_input_tps"] = input_tps
        prefill["max_input_tps"] = max(prefill.get("max_input_tps", input_tps), input_tps)
    _series_append(prefill, text)
    return True


# start-up lines: (regex, [(extra key, group, convert)]); a group that didn't match is left out
_STARTUP = (
    (_WEIGHTS, (("avail_mem_after_weights_gb", 1, float), ("weights_mem_gb", 2, float))),
    (_WEIGHTS_BEGIN, (("avail_mem_before_weights_gb", 1, float),)),
    (_POOL_END, (("avail_mem_after_kv_pool_gb", 1, float),)),
    (_KV, (("kv_cache_tokens", 1, int), ("kv_k_gb", 2, float), ("kv_v_gb", 3, float))),
    (_GRAPH, (("cuda_graph_ms", 1, seconds_to_ms), ("cuda_graph_mem_gb", 2, float),
              ("avail_mem_after_cuda_graph_gb", 3, float))),
    (_CAPACITY, (("max_total_num_tokens", 1, int), ("max_running_requests", 2, int), ("context_len", 3, int),
                 ("available_gpu_mem_gb", 4, float))),
)


def _startup(text: str, extra: dict) -> bool:
    """A start-up figure (the first one printed stays); the weights' progress bar is read but is no evidence."""
    for regex, fields in _STARTUP:
        if (m := regex.search(text)) is not None:
            for key, group, convert in fields:
                if m[group] is not None:
                    extra.setdefault(key, convert(m[group]))
            return True
    if "checkpoint shards" in text and (ms := bar_elapsed_ms(text)) is not None:
        extra["weights_progress_elapsed_ms"] = ms
    return False


# The decode batch line, printed every few dozen decode steps for the server's life (see base.Periodic); a line
# with "latency" may be bench_one_batch's, read before the batch lines. (Prefill lines are fed one by one: their
# input throughput may be anywhere on the line.)
_PERIODIC = (Periodic("Decode batch", re.compile(_DECODE.pattern.encode().replace(b".*?", LINE_BYTE + b"*?")),
                      "_fold_decode", "_decode_full", unless=("latency",)),)


class Parser(FamilyParser):
    NAME = NAME
    PERIODIC = _PERIODIC

    def __init__(self) -> None:
        super().__init__()
        self._bench = serving_bench.Block()

    def feed(self, text: str, line: str) -> None:
        if self._bench.active or serving_bench.HEADER in text:
            # the report is SGLang's only if it names the backend (evidence below); vLLM's looks the same
            taken = self._bench.feed(text, self.runs.current["extra"])
            self.greedy = self._bench.active
            if taken:
                if "sglang" in line or any(k in text for k in _OWN_REPORT):
                    self.evidence += 1
                return
        if "latency" in text and self._one_batch(text):
            self.evidence += 1
            return
        extra = self.runs.current["extra"]
        hit = _batch(text, extra) or _startup(text, extra)
        if hit or any(e in line for e in _EVIDENCE) or (own := _OWN_NAME.search(line)) is not None \
                and not ("  " in line and column_name(line, own[0])):
            self.evidence += 1  # (not a table's column among other engines': "m  n  k  DeepGEMM  SGLang  vLLM")

    def _decode_full(self) -> bool:
        decode = self.runs.current["extra"].get("decode")
        return decode is not None and len(decode.get("series", ())) >= SERIES_MAX

    def _fold_decode(self, groups: list) -> None:
        """``_batch`` of these decode lines past the series cap: their count and maximum (the last line is fed)."""
        decode = self.runs.current["extra"]["decode"]
        decode["batches"] += len(groups)
        decode["max_gen_tps"] = max(decode["max_gen_tps"], *(float(g) for g in groups))
        self.evidence += len(groups)

    def _one_batch(self, text: str) -> bool:
        """A ``bench_one_batch`` line; each ``Prefill.`` line starts a run (warm-up, then the benchmark)."""
        runs = self.runs
        m = _ONE_BATCH.search(text)
        if m is not None:
            ms, tps = scaled(m[2], _TO_MS[m[3]]), float(m[4])
            if m[1] == "Prefill":
                runs.close()
                runs.set("prompt_eval_ms", ms)
                runs.set("prompt_tps", tps)
            else:
                runs.set("total_ms", ms)
                runs.put_extra("total_tps", tps)
            return True
        m = _ONE_BATCH_DECODE.search(text)
        if m is not None:
            runs.put_extra("decode_median_latency_ms", scaled(m[1], _TO_MS[m[2]]))
            runs.put_extra("decode_median_tps", float(m[3]))
            return True
        return False
