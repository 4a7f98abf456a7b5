"""Which lines each family's parser is shown, declared apart from the parsers.

A run that prints only its own text (most runs) never needs a family's parser, and a llama.cpp run never needs
vLLM's: the stream parser routes lines with these keys alone and imports a family's module on the first line routed
to it (importing all twelve costs ~25 ms, most of it compiling their regexes, on every run that prints a line).
A family's parser gets its ``KEYS`` and ``EVIDENCE_KEYS`` from here (``base.FamilyParser``), so each key is
written once.

``keys``: substrings; a line reaches the parser only if it contains one. ``evidence``: substrings of lines that
only show whose log this is, routed while the family is being detected (see ``base.FamilyParser``).
"""
from __future__ import annotations

from typing import NamedTuple


class Route(NamedTuple):
    module: str  # the module of this package holding the family's ``Parser``
    keys: tuple[str, ...]
    evidence: tuple[str, ...] = ()


# llama.cpp's own lines, which every program embedding it (ollama, koboldcpp, llama-server, …) prints too.
LLAMA_PERF = ("time =", "graphs reused")
LLAMA_LOAD = ("build", "version:", "offload", "buffer size", "self size", "VRAM used", "buffer total size",
              "VRAM kv self", "VRAM scratch", "memory_breakdown", "memory breakdown",
              "mem required", "overrid", "loaded meta data", ": size =", "print_info:", "llm_load_print_meta:", "- type ")
LLAMA_CLI_STATS = "[ Prompt: "  # llama-cli's figures after each answer: `[ Prompt: 323.5 t/s | Generation: 17.8 t/s ]`
# Function prefixes only llama.cpp prints: evidence that a log is llama.cpp's even when it holds no figure.
LLAMA_EVIDENCE = ("llama_model_load", "llama_model_loader:", "llm_load_", "load_tensors:", "print_info:",
                  "llama_context:", "llama_new_context_with_model:", "llama_init_from_model:", "llama_kv_cache",
                  "ggml_cuda_init:", "ggml_backend_", "ggml_metal_", "common_init", "llama_print_timings:",
                  "llama_perf_", "common_perf_print:")

OLLAMA_OWN = ("duration:", "count:", "rate:", "GPU loaded layers", "llm library", "runner started", "[GIN]",
              "_duration", "(version ", "version is", "print_timing", 'msg="offload to', "msg=offload ",
              'msg="model weights"', 'msg="kv cache"', 'msg="compute graph"', 'msg="total memory"',
              'msg="model load progress', "layers.",
              "memory.")

OLLAMA_PULL = "pulling manifest"  # the first line `ollama pull` / `ollama run` prints while it fetches a model

KOBOLD_SUMMARY = ("Total:", "CtxLimit", "ContextLimit", "Processing:", "Process:", "Processed:")
KOBOLD_PROGRESS = ("Processing Prompt", "Generating (")
KOBOLD_FALLBACK = "GPU Offload Fallback"
KOBOLD_EVIDENCE = ("KoboldCpp", "koboldcpp", "KoboldAI Lite", "Kobold API", "Load Text Model OK",
                   "Automatic RoPE Scaling")

LLAMA_SERVER_OWN = ("print_timing", "time =", "graphs reused", "timings", "build info", "draft acceptance",
                    "selected slot by LCP")

LOCALAI_EVIDENCE = ("GRPC stderr", "localai", "LocalAI", "local-ai")

SERVING_BENCH_HEADER = "Serving Benchmark Result"  # the serving-benchmark report vLLM and SGLang both print

SGLANG_EVIDENCE = ("sglang", "SGLang", "Load weight begin", "Memory pool end", "Capture cuda graph begin",
                   "Prefill. latency:", "Decode batch. #running-req", "Prefill batch. #new-seq")  # (its scheduler's
# lines, also when cut before their throughput)

# vLLM: the gates of its rules (vllm._RULES), of its memory lines (vllm._MEMORY_GATES) and of the benchmark
# reports; tests/test_frameworks_routes.py checks that every gate the module uses is here.
VLLM_KEYS = ("# CUDA blocks", "# GPU blocks", "Available KV cache memory", "Avg prompt throughput",
             "CUDA graph pool memory", "Compiling a graph for", "Dynamo bytecode transform",
             "Estimated CUDA graph memory", "Graph capturing finished", "Initial profiling/warmup run took", "Iteration(",
             "KV cache size", "LLM engine (v", "Loading model weights took", "Loading weights took",
             "Maximum concurrency", "Memory profiling t", "Model loading took", "Prefix cache hit rate: GPU",
             SERVING_BENCH_HEADER, "SpecDecoding metrics", "Throughput: ", "Total time: ", "] duration", "Processed prompts",
             "activation peak memory", "available_kv_cache_memory", "checkpoint shards", "from the cache, took",
             "gpu_memory_utilization", "init engine", "instance can use", "latency per ", "latency: ",
             "model weights take", "non_torch_memory", "num_gpu_blocks is", "server version",
             "torch.compile and initial", "torch.compile t", "total_gpu_memory")
VLLM_EVIDENCE = ("vllm", "vLLM", "Vllm", "EngineCore", "model_runner.py", "kv_cache_utils.py",
                 "Avg prompt throughput")

TGI_EVIDENCE = ("text_generation_launcher", "text_generation_router", "text-generation-inference",
                "text_generation_server")

TRTLLM_EVIDENCE = ("[TensorRT-LLM]", "tensorrt_llm", "TensorRT-LLM", "TensorRT LLM", "[BENCHMARK] model_name",
                   "Request Throughput (req/sec)", "Per GPU Output Throughput",
                   "Total time of converting checkpoints")  # its examples' convert_checkpoint.py, which loads with transformers

TRANSFORMERS_BARS = ("Loading checkpoint shards", "Loading weights")
# Libraries other programs load: transformers' weight bar is printed inside xinference, a benchmark script, …, so
# its evidence shows what the program uses, not what it is; a name the log prints about itself (SELF_NAMES) wins.
LIBRARIES = frozenset({"transformers"})
TRANSFORMERS_EVIDENCE = ("[transformers]", "transformers", "accelerate", "offloaded to the cpu",
                         "meta device") + TRANSFORMERS_BARS

# By family name (frameworks.FAMILIES gives the detection order).
ROUTES = {
    "ktransformers": Route("ktransformers", ("Performance(T/s)", "eval count:", "eval duration:", "eval rate:"),
                           ("ktransformers", "KTransformers")),
    "ollama": Route("ollama", OLLAMA_OWN + LLAMA_PERF + LLAMA_LOAD, ("ollama", "source=", OLLAMA_PULL)),
    "koboldcpp": Route("koboldcpp", KOBOLD_SUMMARY + KOBOLD_PROGRESS
                       + ("Welcome to KoboldCpp", "Auto Recommended", KOBOLD_FALLBACK) + LLAMA_PERF + LLAMA_LOAD,
                       KOBOLD_EVIDENCE),
    # Not the project's name as evidence: it is in the paths of models other programs load from its folder.
    "text-generation-webui": Route("textgen_webui", ("Output generated in", "Loaded the model in")
                                   + LLAMA_PERF + LLAMA_LOAD,
                                   ("Loading settings from", "Starting Text generation web UI")),
    "localai": Route("localai", LLAMA_SERVER_OWN + LLAMA_LOAD, LOCALAI_EVIDENCE),
    "llama-server": Route("llama_server", LLAMA_SERVER_OWN + LLAMA_LOAD, ("srv ", "slot ", "listening", "INFO [")),
    "mnn-llm": Route("mnn_llm", ("modelSize", " MiB |")),
    "llama-bench": Route("llama_bench", ("| model", "\u00b1", "build_commit", "build", "S_PP t/s", "| t/s")),
    "llama.cpp": Route("llama_cpp", LLAMA_PERF + LLAMA_LOAD + (LLAMA_CLI_STATS,), LLAMA_EVIDENCE),
    "sglang": Route("sglang", ("Load weight begin", "Load weight end", "Memory pool end", "KV Cache is allocated",
                               "Capture cuda graph end", "Prefill batch", "Decode batch", "max_total_num_tokens=",
                               "checkpoint shards", "Prefill. latency", "median latency", "Total. latency",
                               SERVING_BENCH_HEADER),
                    SGLANG_EVIDENCE),
    "vllm": Route("vllm", VLLM_KEYS, VLLM_EVIDENCE),
    "text-embeddings-inference": Route("tei", ('total_time="', 'tokenization_time="', 'queue_time="',
                                               'inference_time="'),
                                       ("text_embeddings_router", "text-embeddings-inference",
                                        "text_embeddings_backend")),
    "tgi": Route("tgi", ("Shard ready in", 'total_time="', " - Suffix ", "Downloaded ", "Download: ["), TGI_EVIDENCE),
    "tensorrt-llm": Route("tensorrt_llm", ("KV cache", "k/v cache", "engine size", "TensorRT-LLM version",
                                           "[BENCHMARK]", "LLM Version", "Number of requests",
                                           "Number of concurrent", "Length (tokens)", "Throughput (",
                                           "Latency (ms)", "request latency", "[Latency]", "[TTFT]", "[TPOT]",
                                           "(tps/user)"),
                          TRTLLM_EVIDENCE),
    "mlx_lm": Route("mlx_lm", ("tokens-per-sec", "Peak memory:", "Cache memory:", "Timing with prompt_tokens",
                               "prompt_tps=")),
    "transformers": Route("transformers", TRANSFORMERS_BARS, TRANSFORMERS_EVIDENCE),
    # Runtimes read by a table of rules (rules.py): each gate of a family's RULES is one of its keys.
    "lmdeploy": Route("lmdeploy", ("concurrency:", "elapsed_time:", "first token latency(s)", "per-token latency(s)",
                                   "number of prompt tokens", "number of completion tokens",
                                   "first_token latency(min, max, ave)", "token latency(min, max, ave)", "throughput: ",
                                   "token throughput (completion token)", "token throughput (prompt + completion",
                                   "RPS (request per second)", "RPM (request per minute)"),
                      ("lmdeploy", "LMDeploy", "turbomind")),
    "mistral.rs": Route("mistralrs", ("Throughput (T/s)",), ("mistralrs", "mistral.rs")),
    "openvino-genai": Route("openvino_genai", ("Load time:", " ± ", "Batch_size=", "Infer count:",
                                               "other tokens latency:",
                                               "other infers latency:"),
                            # its own name, not OpenVINO's: "optimum-cli export openvino", "lm_eval --model openvino"
                            # run other programs on the same runtime
                            ("openvino_genai", "openvino.genai", "openvino-genai", "OpenVINO GenAI", "OpenVINO.GenAI",
                             "OpenVINO-GenAI")),
    "exllamav2": Route("exllamav2", ("Prompt processed in", "Response generated in"), ("exllamav2", "ExLlamaV2")),
    "mllm": Route("mllm", ("Prefill Tokens:", "Prefill Time taken:", "Prefill Speed:", "Decode Tokens:",
                           "Decode Time taken:", "Decode Speed:")),
    "mlc-llm": Route("mlc_llm", ("tok/s, decode:", "decode_tokens_sum", "decode_tokens_per_s", "decoding-time="),
                     ("mlc_llm", "mlc-llm", "mlc_chat", "MLC LLM")),
    "onnxruntime-genai": Route("ort_genai", ("Time to first:", "| Batch Size", "| Prompt Length",
                                             "| Tokenization Throughput (tps)",
                                             "| Tokenization Latency (ms)", "| Prompt Processing Throughput (tps)",
                                             "| Prompt Processing Latency (ms)", "| Token Generation Throughput (tps)",
                                             "| Token Generation Latency (ms)", "| Sampling Throughput (tps)",
                                             "| Sampling Latency (ms)", "| Wall Clock Throughput (tps)",
                                             "| Wall Clock Time (s)"),
                               ("onnxruntime_genai", "onnxruntime-genai")),
    "executorch": Route("executorch", ("PyTorchObserver {", "Generated Tokens:", "(seconds)"),
                        ("executorch", "ExecuTorch")),
    "perf_analyzer": Route("perf_analyzer", ("Measurement Settings", "  Batch size:", "Measurement window:",
                                             "Request concurrency:", "infer/sec", "Request count:", " usec",
                                             "Latency limit:", "Concurrency limit:", "Cache hit count:",
                                             "Inference count:", "Execution count:", "Successful request count:",
                                             "Request Rate:", "Delayed Request Count:", "Sequence count:",
                                             ", version:"),
                           ("perf_analyzer", "perf_client")),
    "torchchat": Route("torchchat", ("Time to load model:", "Generated ", "Time for inference", "with parallel prefill",
                                     "Total throughput:", "First token throughput:", "Next token throughput:",
                                     "Bandwidth achieved:", "Average tokens/sec:", "Memory used:"),
                       ("torchchat",)),
    "rkllm": Route("rkllm", ("Total Time (ms)", "rkllm:"), ("rkllm",)),
    "llama2.c": Route("llama2c", ("achieved tok/s:",)),
    "maxtext": Route("maxtext", ("prefill: stream=", "generate: token=#"), ("MaxText", "maxtext")),
    "lemonade": Route("lemonade", ("Seconds To First Token:", "Prefill Tokens Per Second:",
                                   "Token Generation Tokens Per Second:"), ("lemonade",)),
    "genai-perf": Route("genai_perf", ("Statistic ┃",), ("genai-perf", "genai_perf")),
    "trtexec": Route("trtexec", ("Performance summary", " qps", "min = ", "Total Host Walltime:",
                                 "Total GPU Compute Time:", "coefficient of variance", "Average on "),
                        ("trtexec",)),
    "candle": Route("candle", ("tensors (", "prompt tokens processed:", "tokens generated:")),
    "ipex-llm": Route("ipex_llm", ("-llm timings:",), ("ipex-llm", "ipex_llm", "bigdl-llm")),
}

# Names logs print about themselves (a banner, a logger or crate name, their install path) for runtimes no family
# parser covers: a log no family claims is labelled with the first of these it prints, else "unknown"; a family
# that claims the log keeps its own name. (regex, name); the regexes are searched on raw lines until one is found.
SELF_NAMES = (
    (r"(?<![\w(-])ktransformers\b", "ktransformers"),  # ("PID 2402316 (ktransformers)": numastat names the process)
    (r"text_embeddings_(?:router|backend|core)|text-embeddings-(?:router|inference)", "text-embeddings-inference"),
    (r"\bmistralrs(?:_core|_server|_server_core|_quant|_bench)?::|\bmistralrs-server\b|\bmistral\.rs\b", "mistral.rs"),
    (r"\bcandle_vllm(?:::|:)|\bcandle-vllm\b", "candle-vllm"),
    (r"\bvllm_rs(?:::|:)|\bvllm\.rs\b", "vllm.rs"),
    (r"\bvllm[-_]mlx\b", "vllm-mlx"),
    (r"\blmdeploy\b", "lmdeploy"),
    (r"\bexllamav2\b", "exllamav2"),
    (r"\baphrodite\b", "aphrodite-engine"),
    (r"\bmlc_llm\b|\bmlc-llm\b", "mlc-llm"),
    (r"\bonnxruntime[-_]genai\b", "onnxruntime-genai"),
    (r"\bopenvino_genai\b|\bOpenVINO GenAI\b", "openvino-genai"),
    (r"\blightllm\b", "lightllm"),
    (r"\bxinference\b", "xinference"),
    (r"\bLocalAI\b|\blocal-ai\b", "localai"),
    (r"\bllamafile\b", "llamafile"),
)
# Every SELF_NAMES pattern matches text holding one of these (lower-cased): a cheap test before the regexes.
SELF_NAME_WORDS = ("ktransformers", "text_embeddings", "text-embeddings", "mistral", "candle", "vllm", "lmdeploy",
                   "exllamav2", "aphrodite", "mlc", "onnxruntime", "openvino", "lightllm", "xinference", "localai",
                   "local-ai", "llamafile")
