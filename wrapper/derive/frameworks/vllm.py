"""vLLM (V0 and V1 engines): startup figures and the periodic engine metrics, as one dict for the server's life.

vLLM prints no per-request timings, so there is one dict. Tensor-parallel workers each print their own load
lines; the first printed value is kept, ``extra["workers_reporting"]`` counts the ``Model loading took`` lines and
``extra["worker_load_ms"]``/``extra["worker_weights_load_ms"]`` list every worker's figure in print order.

``load_ms``: ``Model loading took 11.0802 GiB and 3.106979 seconds`` (V1). ``extra`` (units in the names):
``model_loading_gib``, ``weights_load_ms`` (``Loading weights took 2.63 seconds``), ``model_weights_gb`` (V0 and
early V1 ``Loading model weights took 6.1138 GB``), ``gpu_blocks``/``cpu_blocks`` (``# GPU blocks: …``, early V1
without CPU blocks; ``num_gpu_blocks is: …``), ``memory_profiling_ms``, ``dynamo_transform_ms`` (``Dynamo bytecode
transform time: 12.88 s``), ``graph_compile_ms`` (``Compiling a graph for general|dynamic shape takes …``),
``compile_cache_load_ms`` (``Directly load the compiled graph(s) for shape None from the cache, took 4.673 s``),
the memory profile (Dec 2024 table or the 2025 two lines): ``memory_profiling_ms``, ``total_gpu_memory_gib``,
``gpu_memory_utilization``, ``usable_memory_gib``, ``model_weights_gib``, ``non_torch_memory_gib``,
``activation_peak_gib``, ``kv_cache_gib`` (also ``available_kv_cache_memory``/``reserved for KV Cache``),
``weights_progress_elapsed_ms`` (the finished ``Loading safetensors checkpoint shards`` bar, whole seconds),
``kv_cache_tokens`` (``GPU KV
cache size: 396,928 tokens``), ``kv_cache_gib`` (``Available KV cache memory``), ``max_concurrency``,
``graph_capture_ms``/``graph_capture_gib`` (``Graph capturing finished in 2 secs, took 0.11 GiB``),
``cuda_graph_pool_gib``/``cuda_graph_pool_estimated_gib`` (``CUDA graph pool memory: 0.11 GiB (actual), 0.14 GiB
(estimated)``),
``init_engine_ms``/``compilation_ms`` (``init engine (…) took 13.70 s (compilation: 7.28 s)``),
``torch_compile_ms`` (``torch.compile takes|took … s in total``), ``warmup_ms`` (2026 ``Initial profiling/warmup
run took 56.94 s``), ``compile_and_warmup_ms`` (2026 ``torch.compile and initial profiling/warmup run together took
19.48 s in total``), ``cuda_graph_estimated_gib`` (``Estimated CUDA graph memory: 0.13 GiB total``);
``engine_metrics`` summarises the ``Avg prompt throughput: … Avg generation throughput: …``
lines: ``lines``, ``max_prompt_tps``, ``max_generation_tps``, ``series`` (every line's values, up to
base.SERIES_MAX) and the ``last`` line's values (``prompt_tps``,
``generation_tps``, ``running_reqs``/``waiting_reqs``/``pending_reqs``/``swapped_reqs``,
``gpu_kv_cache_usage_pct``, ``cpu_kv_cache_usage_pct``, ``prefix_cache_hit_rate_pct``, ``mm_cache_hit_rate_pct``,
``mfu_tflops_per_gpu``, ``mfu_gbps_per_gpu`` (2025-12's ``MFU: … TF/s/GPU … GB/s/GPU``),
and V0's separate
``Prefix cache hit rate: GPU: …%, CPU: …%`` line as ``gpu_/cpu_prefix_cache_hit_rate_pct``); ``spec_decoding``
holds the last ``SpecDecoding metrics`` line: ``mean_acceptance_length``, ``draft_acceptance_rate_pct``,
``accepted_tps``, ``drafted_tps``, ``accepted_tokens``, ``drafted_tokens``, ``per_position_acceptance_rate`` (a
list, the first drafted position's rate first, as a fraction).
``prompt_tps``/``eval_tps`` stay None: those averages are over a logging interval, not a request.
``iterations`` sums the 2025-12 per-step lines (``Iteration(515): 0 context requests, 0 context tokens, 20
generation requests, 20 generation tokens, iteration elapsed time: 10.99 ms``): ``lines``, ``context_tokens``,
``generation_tokens``, ``elapsed_ms`` (summed), ``max_elapsed_ms``, ``series`` (each line's ``iteration``,
``context_reqs``, ``context_tokens``, ``generation_reqs``, ``generation_tokens``, ``elapsed_ms``, up to
base.SERIES_MAX) and ``last``.
``serving_benchmark``: the ``vllm bench serve`` report (see serving_bench.py). ``benchmark_throughput.py``:
``throughput_req_s``, ``throughput_total_tok_s``, ``throughput_output_tok_s``; 2023 ``benchmark_serving.py`` and
``benchmark_latency.py``: ``bench_total_time_ms``, ``avg_latency_ms``, ``avg_latency_per_token_ms``,
``avg_latency_per_output_token_ms``.
"""
from __future__ import annotations

import re

from . import serving_bench
from .base import LINE_BYTE, SERIES_MAX, FamilyParser, Periodic, bar_elapsed_ms
from .rules import column_name
from .units import seconds_to_ms
from .units import integer, number

NAME = "vllm"

# The serving-benchmark report's lines that are vLLM's own (serving_bench.key_of of "Successful requests:" and
# "Benchmark duration (s):"): its evidence, where other load testers print the same header above other labels.
_BENCH_OWN = ("successful_requests", "benchmark_duration_s")
# Lines vLLM's report never prints inside it: TensorRT-LLM's copy opens with "Total requests:", SGLang's
# bench_serving names its backend and its traffic rate there (vLLM prints its rate before the run, not in the report),
# FastDeploy's copy adds a decode-speed section ("Mean Decode:"); met after vLLM's own lines, it takes back the
# evidence they gave
_BENCH_FOREIGN = ("total_requests", "backend", "traffic_request_rate", "mean_decode")
# LLM.generate's bar: "Processed prompts: 100%|…| 1000/1000 [00:41<00:00, 24.1it/s, est. speed input: 24555.79
# toks/s, output: 22.14 toks/s]" (the rate may be "s/it" on a slow machine); each redraw supersedes the one before.
_PROCESSED = re.compile(r"Processed prompts:\s*\d+%.*?(\d+)/(\d+) \[.*?est\. speed input: ([\d.]+) toks/s, "
                        r"output: ([\d.]+) toks/s")
# vLLM 0.8 printed "GB" for the same figure (memory usage / 2**30, so GiB): both are read as GiB.
_MODEL_LOADING = re.compile(r"Model loading took ([\d.]+) Gi?B(?: memory)? and ([\d.]+) seconds")
_WEIGHTS_SECONDS = re.compile(r"Loading weights took ([\d.]+) seconds")
_WEIGHTS_GB = re.compile(r"Loading model weights took ([\d.]+) GB")
_BLOCKS = re.compile(r"# (?:GPU|CUDA) blocks: (\d+)(?:, # CPU blocks: (\d+))?")
_NUM_GPU_BLOCKS = re.compile(r"num_gpu_blocks is: (\d+)")
_DYNAMO = re.compile(r"Dynamo bytecode transform time: ([\d.]+) s")
_GRAPH_COMPILE = re.compile(r"Compiling a graph for (?:general shape|dynamic shape|compile range \([^)]*\)) takes "
                            r"([\d.]+) s")
_MEMORY_PROFILING = re.compile(r"Memory profiling (?:took|takes) ([\d.]+) seconds")
_CACHED_GRAPH = re.compile(r"Directly load the compiled graph\(s\) for .*? from the cache, took ([\d.]+) s")
# The memory profile: a table of its own lines in Dec 2024 (``worker.py:243] model weights take   14.96GiB``), two
# lines since 2025 (``… can use total_gpu_memory (23.58GiB) x gpu_memory_utilization (0.99) = 23.35GiB`` and
# ``model weights take 21.21GiB; non_torch_memory takes 0.20GiB; …``). (extra key, regex, converter)
_MEMORY_FIELDS = (
    ("total_gpu_memory_gib", re.compile(r"total_gpu_memory\s+\(?([\d.]+)\s*GiB"), float),
    ("gpu_memory_utilization", re.compile(r"gpu_memory_utilization\s+\(?([\d.]+)"), float),
    ("usable_memory_gib", re.compile(r"vLLM instance can use\s+(?:total_gpu_memory.*?=\s*)?([\d.]+)\s*GiB"), float),
    ("model_weights_gib", re.compile(r"model weights take\s+([\d.]+)\s*GiB"), float),
    ("non_torch_memory_gib", re.compile(r"non_torch_memory(?: takes)?\s+([\d.]+)\s*GiB"), float),
    ("activation_peak_gib", re.compile(r"activation peak memory(?: takes)?\s+([\d.]+)\s*GiB"), float),
    ("kv_cache_gib", re.compile(r"(?:available_kv_cache_memory|reserved for KV Cache is)\s+([\d.]+)\s*GiB"), float),
    ("memory_profiling_ms", re.compile(r"\] duration\s+([\d.]+) seconds"), seconds_to_ms),
)
_MEMORY_GATES = ("total_gpu_memory", "gpu_memory_utilization", "instance can use", "model weights take",
                 "non_torch_memory", "activation peak memory", "available_kv_cache_memory", "] duration")
_KV_TOKENS = re.compile(r"GPU KV cache size: ([\d,]+) tokens")
_KV_GIB = re.compile(r"Available KV cache memory: ([\d.]+) GiB")
_CONCURRENCY = re.compile(r"Maximum concurrency for [\d,]+ tokens per request: ([\d.]+)x")
_GRAPH = re.compile(r"Graph capturing finished in ([\d.]+) secs?(?:, took ([\d.]+) GiB)?")
_INIT_ENGINE = re.compile(r"init engine \(.*?\) took ([\d.]+) s(?:econds)?(?: \(compilation: ([\d.]+) s\))?")
_GRAPH_POOL = re.compile(r"CUDA graph pool memory: ([\d.]+) GiB \(actual\), ([\d.]+) GiB \(estimated\)")
_TORCH_COMPILE = re.compile(r"torch\.compile (?:takes|took) ([\d.]+) s in total")
# 2026: one figure for both, or the warm-up run on its own line.
_COMPILE_AND_WARMUP = re.compile(r"torch\.compile and initial profiling/warmup run together took ([\d.]+) s")
_WARMUP = re.compile(r"Initial profiling/warmup run took ([\d.]+) s")
# benchmarks/benchmark_throughput.py ("Throughput: 89.27 requests/s, 22853.37 total tokens/s, 11426.69 output
# tokens/s"; until Sep 2024 "…, 20926.37 tokens/s") and the 2023 benchmark_serving.py summary lines
_THROUGHPUT = re.compile(r"Throughput: ([\d.]+) requests/s(?![a-z])(?:, ([\d.]+) (?:total )?tokens/s)?"
                         r"(?:, ([\d.]+) output tokens/s)?")
_BENCH_SECONDS = (("bench_total_time_ms", re.compile(r"^Total time: ([\d.]+) s")),
                  ("avg_latency_ms", re.compile(r"^(?:Avg|Average) latency: ([\d.]+) s")),
                  ("avg_latency_per_token_ms", re.compile(r"^Average latency per token: ([\d.]+) s")),
                  ("avg_latency_per_output_token_ms", re.compile(r"^Average latency per output token: ([\d.]+) s")))
_GRAPH_ESTIMATE = re.compile(r"Estimated CUDA graph memory: ([\d.]+) GiB")
_METRICS = re.compile(r"Avg prompt throughput: ([\d.]+) tokens/s, Avg generation throughput: ([\d.]+) tokens/s")
_METRIC_FIELD = re.compile(r"(Running|Waiting|Pending|Swapped): (\d+) reqs|(GPU|CPU) KV cache usage: ([\d.]+)%"
                           r"|(Prefix|MM) cache hit rate: ([\d.]+)%"
                           # 2025-12 (PR #28594's --enable-mfu-metrics): "MFU: 11.3 TF/s/GPU 772.8 GB/s/GPU"
                           r"|MFU: ([\d.]+) TF/s/GPU ([\d.]+) GB/s/GPU")
# V0 prints the prefix cache hit rate on a line of its own, per device.
_PREFIX_CACHE_V0 = re.compile(r"Prefix cache hit rate: GPU: ([\d.]+)%, CPU: ([\d.]+)%")
# Its fields in either order: 2025-06's V1 opened with "Draft acceptance rate: 38.8%, Mean acceptance length: 2.16",
# later ones put the length first and the rate, as "Avg Draft acceptance rate", last.
_SPEC = re.compile(r"^(?=.*?Mean acceptance length: ([\d.]+))(?=.*?Draft acceptance rate: ([\d.]+)%)")
_SPEC_FIELDS = (("accepted_tps", re.compile(r"Accepted throughput: ([\d.]+) tokens/s"), float),
                ("drafted_tps", re.compile(r"Drafted throughput: ([\d.]+) tokens/s"), float),
                ("accepted_tokens", re.compile(r"Accepted: (\d+) tokens"), int),
                ("drafted_tokens", re.compile(r"Drafted: (\d+) tokens"), int),
                # one rate per draft position, the first drafted token's first
                ("per_position_acceptance_rate", re.compile(r"Per-position acceptance rate: ([\d.]+(?:, [\d.]+)*)"),
                 lambda printed: [float(rate) for rate in printed.split(", ")]))
# 2025-12 (--enable-log-iteration-details, PR #31193): one line per engine step
_ITERATION = re.compile(r"Iteration\((\d+)\): (\d+) context requests, (\d+) context tokens, (\d+) generation requests, "
                        r"(\d+) generation tokens, iteration elapsed time: ([\d.]+) ms")
_ITERATION_FIELDS = ("iteration", "context_reqs", "context_tokens", "generation_reqs", "generation_tokens",
                     "elapsed_ms")
_VERSION = re.compile(r"vLLM API server version ([\w.+-]+)|LLM engine \(v([\w.+-]+)\)")
# Evidence: vLLM's own names as words (not the Rust servers candle-vllm and vllm.rs, nor vllm-mlx), its engine's
# process names and files; routing (routes.VLLM_EVIDENCE) stays on plain substrings.
# A client's option naming it ("genai-perf … --backend vllm") is a mention, not vLLM's line; so is a comparison in
# prose ("measured on BHx31 (without vLLM)", "faster than vLLM", "vs vLLM"). A table's cell that is its name alone,
# one engine among others ("| vllm | 90.78 ± 1.60 |"), is a comparison too ("| vLLM Ascend v0.9.1 Round1 |" is not),
# and so is a column named after it with its unit ("| vLLM (ms) |": a kernel benchmark's baseline);
# a quoted name is a client's key or value ('"vllm:gpu_cache_usage_perc": {}' in a benchmark client's JSON), or a
# directory ("Cloning into 'vllm'...", git's clone before a build).
# RayWorkerVllm is vLLM's Ray worker class (0.2-0.4): Ray prefixes each line its actor prints with it. "vLLM log"
# is another program speaking of vLLM's log ("PP tok/s  n/a (vLLM log scrape unavailable …)", a bench script's).
# "vllm    0.8.0", "vllm==0.8.0": pip's listing of what is installed, beside some other program's output.
# "void vllm::paged_attention_v2_kernel<…>": a C++ namespace, a kernel's name in a profiler's capture.
# "vllm (pretrained=…, gpu_memory_utilization=0.5)": lm-evaluation-harness naming the backend it ran, in its summary.
_OWN = re.compile(r"(?<![\w\"-])(?<!into ')(?<!--backend )(?<!--backend=)(?<!without )(?<!than )(?<!vs )(?<!vs\. )(?:vllm|vLLM|Vllm)(?![\w-]|\.rs| *\||(?: *\([^()|]*\))+ *\|| logs?\b|[ \t]{2,}v?\d|==|::| \(pretrained=)|VllmWorker|RayWorkerVllm|EngineCore|model_runner\.py|"
                  r"kv_cache_utils\.py|Avg prompt throughput")

# (gate substring, regex, handler name); the periodic metrics lines first: most of a server log's routed lines
_RULES = (
    ("Avg prompt throughput", _METRICS, "_metrics"),
    ("SpecDecoding metrics", _SPEC, "_spec"),
    ("Iteration(", _ITERATION, "_iteration"),
    ("Model loading took", _MODEL_LOADING, "_model_loading"),
    ("Processed prompts", _PROCESSED, "_processed"),
    ("Loading weights took", _WEIGHTS_SECONDS, "_weights_seconds"),
    ("Loading model weights took", _WEIGHTS_GB, "_weights_gb"),
    ("# GPU blocks", _BLOCKS, "_blocks"),
    ("# CUDA blocks", _BLOCKS, "_blocks"),
    ("from the cache, took", _CACHED_GRAPH, "_cached_graph"),
    ("num_gpu_blocks is", _NUM_GPU_BLOCKS, "_num_gpu_blocks"),
    ("Dynamo bytecode transform", _DYNAMO, "_dynamo"),
    ("Compiling a graph for", _GRAPH_COMPILE, "_graph_compile"),
    ("Memory profiling t", _MEMORY_PROFILING, "_memory_profiling"),
    ("KV cache size", _KV_TOKENS, "_kv_tokens"),
    ("Available KV cache memory", _KV_GIB, "_kv_gib"),
    ("Maximum concurrency", _CONCURRENCY, "_concurrency"),
    ("Graph capturing finished", _GRAPH, "_graph"),
    ("init engine", _INIT_ENGINE, "_init_engine"),
    ("CUDA graph pool memory", _GRAPH_POOL, "_graph_pool"),
    ("torch.compile and initial", _COMPILE_AND_WARMUP, "_compile_and_warmup"),
    ("torch.compile t", _TORCH_COMPILE, "_torch_compile"),
    ("Initial profiling/warmup run took", _WARMUP, "_warmup"),
    ("Estimated CUDA graph memory", _GRAPH_ESTIMATE, "_graph_estimate"),
    ("Throughput: ", _THROUGHPUT, "_throughput"),
    ("Prefix cache hit rate: GPU", _PREFIX_CACHE_V0, "_prefix_cache_v0"),
    ("server version", _VERSION, "_version"),
    ("LLM engine (v", _VERSION, "_version"),
)


# Lines other programs print too, read but no evidence of vLLM on their own: torch.compile's "Compiling a graph for
# dynamic shape takes 1.80 s" (SGLang's piecewise CUDA graphs compile through the same backend) and "Throughput: 0.78
# requests/s" alone (the 2023 benchmark script, copied by Xinference and others; its three-part line is vLLM's own).
_SHARED = frozenset(("_graph_compile", "_throughput"))


# The two lines a vLLM server prints every few seconds for days (see base.Periodic): the same regexes on bytes.
_PERIODIC = (
    Periodic("Avg prompt throughput", re.compile(_METRICS.pattern.encode()), "_fold_metrics", "_metrics_full"),
    # _SPEC after the key, its groups left out and the gap greedy: only whether a line matches counts here
    Periodic("SpecDecoding metrics", re.compile(b"SpecDecoding metrics" + LINE_BYTE + b"*?Mean acceptance length: "
                                                rb"[\d.]+" + LINE_BYTE + rb"*Avg Draft acceptance rate: [\d.]+%"),
             "_fold_spec", "_spec_full"),
    Periodic("Iteration(", re.compile(_ITERATION.pattern.encode()), "_fold_iterations", "_iterations_full"),
)


class Parser(FamilyParser):
    NAME = NAME
    PERIODIC = _PERIODIC

    def __init__(self) -> None:
        super().__init__()
        self._bench = serving_bench.Block()
        self._foreign_bench = False  # this report holds a line vLLM's never prints: no evidence of vLLM
        self._bench_evidence = 0  # the evidence this report's own lines gave (taken back by a foreign line)

    def feed(self, text: str, line: str) -> None:
        if self._bench.active or serving_bench.HEADER in text:
            if serving_bench.HEADER in text:
                self._foreign_bench, self._bench_evidence = False, 0
            taken = self._bench.feed(text, self.runs.current["extra"])
            self.greedy = self._bench.active
            if taken:
                # vLLM's own first lines of the report are its evidence, not the header: other load testers (a Go
                # one against Triton) print the same header above their own labels ("Benchmark Duration (sec)"),
                # and TensorRT-LLM's copy of the script opens it with "Total requests:", a line vLLM's never prints
                if self._bench.last_key in _BENCH_FOREIGN:
                    self._foreign_bench = True
                    self.evidence -= self._bench_evidence
                    self._bench_evidence = 0
                elif self._bench.last_key in _BENCH_OWN and not self._foreign_bench:
                    self.evidence += 1
                    self._bench_evidence += 1
                return
        hit = False
        for gate, rx, handler in _RULES:
            if gate in text:
                m = rx.search(text)
                if m is not None:
                    getattr(self, handler)(m, text)
                    hit = handler not in _SHARED or m.lastindex > 1  # (read either way)
                    break
        if not hit and ("latency" in text or "Total time" in text):
            for key, rx in _BENCH_SECONDS:
                m = rx.search(text.strip())
                if m is not None:  # read, but no evidence: "Total time: 3 s" is any benchmark's line
                    self._extra(key, seconds_to_ms(m[1]))
                    break
        if not hit and any(g in text for g in _MEMORY_GATES):
            for key, rx, convert in _MEMORY_FIELDS:
                m = rx.search(text)
                if m is not None:
                    self._extra(key, convert(m[1]))
                    hit = True
        if not hit and "checkpoint shards" in text and (ms := bar_elapsed_ms(text)) is not None:
            self._extra("weights_progress_elapsed_ms", ms)
        if hit or (own := _OWN.search(line)) is not None and not ("  " in line and column_name(line, own[0])):
            self.evidence += 1  # (not a table's column among other engines': "m  n  k  DeepGEMM  SGLang  vLLM")

    def _extra(self, key, value):
        self.runs.fill_extra(key, value)

    def _model_loading(self, m, text):
        runs = self.runs
        runs.fill("load_ms", seconds_to_ms(m[2]))
        self._extra("model_loading_gib", float(m[1]))
        extra = runs.current["extra"]
        extra["workers_reporting"] = extra.get("workers_reporting", 0) + 1
        extra.setdefault("worker_load_ms", []).append(seconds_to_ms(m[2]))

    def _processed(self, m, text):
        """The offline bar's last redraw: prompts done of all, and its estimated input and output token rates."""
        extra = self.runs.current["extra"]
        extra["offline_prompts_done"], extra["offline_prompts"] = int(m[1]), int(m[2])
        extra["offline_input_tps"], extra["offline_output_tps"] = float(m[3]), float(m[4])

    def _weights_seconds(self, m, text):
        self._extra("weights_load_ms", seconds_to_ms(m[1]))
        self.runs.current["extra"].setdefault("worker_weights_load_ms", []).append(seconds_to_ms(m[1]))

    def _weights_gb(self, m, text):
        self._extra("model_weights_gb", float(m[1]))

    def _blocks(self, m, text):
        self._extra("gpu_blocks", int(m[1]))
        if m[2] is not None:
            self._extra("cpu_blocks", int(m[2]))

    def _num_gpu_blocks(self, m, text):
        self._extra("gpu_blocks", int(m[1]))

    def _dynamo(self, m, text):
        self._extra("dynamo_transform_ms", seconds_to_ms(m[1]))

    def _cached_graph(self, m, text):
        self._extra("compile_cache_load_ms", seconds_to_ms(m[1]))

    def _graph_compile(self, m, text):
        self._extra("graph_compile_ms", seconds_to_ms(m[1]))

    def _memory_profiling(self, m, text):
        self._extra("memory_profiling_ms", seconds_to_ms(m[1]))

    def _kv_tokens(self, m, text):
        self._extra("kv_cache_tokens", integer(m[1]))

    def _kv_gib(self, m, text):
        self._extra("kv_cache_gib", float(m[1]))

    def _concurrency(self, m, text):
        self._extra("max_concurrency", float(m[1]))

    def _graph(self, m, text):
        self._extra("graph_capture_ms", seconds_to_ms(m[1]))
        if m[2] is not None:
            self._extra("graph_capture_gib", float(m[2]))

    def _graph_pool(self, m, text):
        self._extra("cuda_graph_pool_gib", float(m[1]))
        self._extra("cuda_graph_pool_estimated_gib", float(m[2]))

    def _init_engine(self, m, text):
        self._extra("init_engine_ms", seconds_to_ms(m[1]))
        if m[2] is not None:
            self._extra("compilation_ms", seconds_to_ms(m[2]))

    def _compile_and_warmup(self, m, text):
        self._extra("compile_and_warmup_ms", seconds_to_ms(m[1]))

    def _warmup(self, m, text):
        self._extra("warmup_ms", seconds_to_ms(m[1]))

    def _throughput(self, m, text):
        self._extra("throughput_req_s", float(m[1]))
        if m[2] is not None:
            self._extra("throughput_total_tok_s", float(m[2]))
        if m[3] is not None:
            self._extra("throughput_output_tok_s", float(m[3]))

    def _graph_estimate(self, m, text):
        self._extra("cuda_graph_estimated_gib", float(m[1]))

    def _torch_compile(self, m, text):
        self._extra("torch_compile_ms", seconds_to_ms(m[1]))

    def _metrics(self, m, text):
        prompt_tps, gen_tps = float(m[1]), float(m[2])
        last = {"prompt_tps": prompt_tps, "generation_tps": gen_tps}
        # Fields follow the throughputs, ", "-separated: matched one part at a time (a findall over the whole line
        # costs more than the rest of the line's handling)
        parts = (_METRIC_FIELD.match(part.lstrip()) for part in text[m.end():].split(", "))
        for name, reqs, device, kv_pct, cache, hit_pct, tflops, gbps in (f.groups() for f in parts if f is not None):
            if name:
                last[name.lower() + "_reqs"] = int(reqs)
            elif device:
                last[device.lower() + "_kv_cache_usage_pct"] = number(kv_pct)
            elif cache:
                last[cache.lower() + "_cache_hit_rate_pct"] = number(hit_pct)
            else:
                last["mfu_tflops_per_gpu"], last["mfu_gbps_per_gpu"] = number(tflops), number(gbps)
        extra = self.runs.current["extra"]
        summary = extra.get("engine_metrics")
        if summary is None:
            summary = extra["engine_metrics"] = {"lines": 0, "max_prompt_tps": prompt_tps,
                                                 "max_generation_tps": gen_tps}
        summary["lines"] += 1
        summary["max_prompt_tps"] = max(summary["max_prompt_tps"], prompt_tps)
        summary["max_generation_tps"] = max(summary["max_generation_tps"], gen_tps)
        summary["last"] = last
        series = summary.setdefault("series", [])
        if len(series) < SERIES_MAX:
            series.append(last)

    def _metrics_full(self) -> bool:
        summary = self.runs.current["extra"].get("engine_metrics")
        return summary is not None and len(summary["series"]) >= SERIES_MAX

    def _fold_metrics(self, groups: list) -> None:
        """``_metrics`` of these lines past the series cap: their count and maxima (the last line is fed)."""
        summary = self.runs.current["extra"]["engine_metrics"]
        summary["lines"] += len(groups)
        summary["max_prompt_tps"] = max(summary["max_prompt_tps"], *(float(p) for p, _ in groups))
        summary["max_generation_tps"] = max(summary["max_generation_tps"], *(float(g) for _, g in groups))
        self.evidence += len(groups)

    def _spec_full(self) -> bool:
        spec = self.runs.current["extra"].get("spec_decoding")
        return spec is not None and len(spec["series"]) >= SERIES_MAX

    def _fold_spec(self, groups: list) -> None:
        """``_spec`` of these lines past the series cap: their count (each line's values replace the one
        before's, so the last, fed, sets them)."""
        self.runs.current["extra"]["spec_decoding"]["lines"] += len(groups)
        self.evidence += len(groups)

    def _iteration(self, m, text):
        values = dict(zip(_ITERATION_FIELDS, (int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), float(m[6]))))
        summary = self.runs.current["extra"].get("iterations")
        if summary is None:
            summary = self.runs.current["extra"]["iterations"] = {
                "lines": 0, "context_tokens": 0, "generation_tokens": 0, "elapsed_ms": 0.0,
                "max_elapsed_ms": values["elapsed_ms"], "series": []}
        self._add_iteration(summary, values["context_tokens"], values["generation_tokens"], values["elapsed_ms"])
        summary["last"] = values
        if len(summary["series"]) < SERIES_MAX:
            summary["series"].append(values)

    @staticmethod
    def _add_iteration(summary: dict, context_tokens: int, generation_tokens: int, elapsed_ms: float) -> None:
        summary["lines"] += 1
        summary["context_tokens"] += context_tokens
        summary["generation_tokens"] += generation_tokens
        summary["elapsed_ms"] = round(summary["elapsed_ms"] + elapsed_ms, 6)
        summary["max_elapsed_ms"] = max(summary["max_elapsed_ms"], elapsed_ms)

    def _iterations_full(self) -> bool:
        summary = self.runs.current["extra"].get("iterations")
        return summary is not None and len(summary["series"]) >= SERIES_MAX

    def _fold_iterations(self, groups: list) -> None:
        """``_iteration`` of these lines past the series cap: the sums in print order (the last line is fed)."""
        summary = self.runs.current["extra"]["iterations"]
        for _n, _cr, context_tokens, _gr, generation_tokens, elapsed_ms in groups:
            self._add_iteration(summary, int(context_tokens), int(generation_tokens), float(elapsed_ms))
        self.evidence += len(groups)

    def _spec(self, m, text):
        spec = {"mean_acceptance_length": float(m[1]), "draft_acceptance_rate_pct": float(m[2])}
        for key, rx, kind in _SPEC_FIELDS:
            f = rx.search(text)
            if f is not None:
                spec[key] = kind(f[1])
        before = self.runs.current["extra"].get("spec_decoding") or {"lines": 0, "series": []}
        series = before["series"]
        if len(series) < SERIES_MAX:
            series.append(dict(spec))  # each line's values, as engine_metrics keeps them
        self.runs.put_extra("spec_decoding", dict(spec, lines=before["lines"] + 1, series=series))

    def _prefix_cache_v0(self, m, text):
        summary = self.runs.current["extra"].get("engine_metrics")
        if summary is not None:
            summary["last"]["gpu_prefix_cache_hit_rate_pct"] = float(m[1])
            summary["last"]["cpu_prefix_cache_hit_rate_pct"] = float(m[2])

    def _version(self, m, text):
        self.runs.version = m[1] or m[2]
