"""What a label, a unit and a number mean: units and their kinds, noise, core keys (the general reader's words)."""
from __future__ import annotations

import functools
import re
from typing import Optional

from ....core.lazy_re import LazyPattern
from ..units import duration_ms


MAX_LABEL_CHARS = 60


MAX_LINE_CHARS = 300


_NUM = r"[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?"  # "1.88269e+06" as ORT GenAI's benchmark prints it


_TIME_UNITS = {"ns": "ns", "us": "us", "µs": "us", "μs": "us", "ms": "ms", "msec": "ms", "msecs": "ms", "milliseconds": "ms", "millis": "ms",
               "millisecond": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
               "min": "min", "mins": "min", "minutes": "min", "h": "h", "hours": "h", "microseconds": "us",
               "microsecond": "us", "usec": "us", "minute": "min", "hour": "h", "nanoseconds": "ns", "nanosecond": "ns", "nsec": "ns", "\u6beb\u79d2": "ms", "\u79d2": "s"}


# A cost's sign before its number, and the currency it names
CURRENCIES = {"$": "USD", "\u20ac": "EUR", "\u00a3": "GBP", "\u20b9": "INR"}


_RATE_UNITS = {"/min": "/min",  # "rate= 24.3/min": a load generator's requests a minute
               "tokens/s": "tokens/s", "token/s": "tokens/s", "tokens/sec": "tokens/s", "tok/s": "tokens/s",
               "tok/sec": "tokens/s", "t/s": "tokens/s", "tps": "tokens/s", "tokens per second": "tokens/s",
               "it/s": "it/s", "req/s": "req/s", "requests/s": "req/s", "ms/t": "ms/token", "ms/token": "ms/token", "us/token": "us/token", "\u00b5s/token": "us/token",
               "us/tok": "us/token", "ns/op": "ns/op", "us/op": "us/op", "ms/op": "ms/op",  # Go's "1234 ns/op"
               "ns/iter": "ns/iter", "us/iter": "us/iter", "ms/iter": "ms/iter", "s/iter": "s/iter",  # a benchmark loop's
               "ms/tok": "ms/token", "requests/sec": "req/s", "tokens/sec/user": "tokens/s", "tokens/s/user": "tokens/s",
               "tok/s/user": "tokens/s", "toks/s/user": "tokens/s", "t/s/u": "tokens/s", "t/s/user": "tokens/s",
               "token/s/user": "tokens/s", "tok/sec/user": "tokens/s",
               "queries/s": "req/s", "s/token": "s/token", "s/tok": "s/token", "/s": "/s",
               "token / sec": "tokens/s", "tokens / sec": "tokens/s", "token / s": "tokens/s", "tokens / s": "tokens/s",
               "ms / token": "ms/token", "ms / tok": "ms/token", "fps": "fps", "toks/s": "tokens/s", "toks/sec": "tokens/s",
               "tokens/second": "tokens/s", "token/second": "tokens/s",
               "s/it": "s/it", "qps": "req/s", "rps": "req/s",
               # time per item, as tqdm's unit_scale prints it ("8.27s/sample", "14.18s/prompt")
               "s/sample": "s/sample", "s/prompt": "s/prompt", "s/image": "s/image", "s/step": "s/step",
               "s/request": "s/request", "s/batch": "s/batch", "s/query": "s/query",
               # (or in ms, µs: "avg: 10.11ms/step", a diffusion model's denoising step)
               **{f"{p}s/{item}": f"{p}s/{item}" for p in ("m", "u") for item in ("sample", "prompt", "image", "step",
                                                                                   "request", "batch", "query")},
               "tokens/min": "tokens/min", "requests/min": "req/min", "req/min": "req/min", "tokens/secs": "tokens/s",
               "token/secs": "tokens/s", "token/min": "tokens/min", "tok/min": "tokens/min", "toks/min": "tokens/min",
               "reqs/s": "req/s", "tokens/\u79d2": "tokens/s", "\u8bf7\u6c42/\u79d2": "req/s", "token/\u79d2": "tokens/s", "req/s/replica": "req/s", "reqs/s/replica": "req/s", "req/s/user": "req/s",
               "reqs/s/user": "req/s", "req/s/gpu": "req/s", "reqs/s/gpu": "req/s"}  # Ray Serve's "reqs/s/replica"


_PER_SECOND = LazyPattern(r"/sec(?:ond)?\b")


_PER_ITEM = LazyPattern(r"\b(milliseconds|seconds|ms|s)/[a-z_]+$", re.I)  # a label naming its unit: "milliseconds/request"


_POWER_UNITS = {"W": "W", "mW": "mW", "kW": "kW", "Watt": "W", "Watts": "W", "watt": "W", "watts": "W"}


# Energy, and energy per token ("183155.23 J (0.050876 kWh)", "0.3500 J/token", "349.97 J/1K tokens")
_ENERGY_UNITS = {"J": "J", "Joules": "J", "joules": "J", "mJ": "mJ", "kJ": "kJ", "Wh": "Wh", "kWh": "kWh", "J/token": "J/token", "J/tok": "J/token",
                 "mJ/token": "mJ/token", "mJ/tok": "mJ/token", "J/1K tokens": "J/1K tokens", "J/1k tokens": "J/1K tokens"}


_TEMPERATURE_UNITS = frozenset(("\u00b0c", "\u2103", "degc", "celsius"))  # "38.1 °C", "temp_c": a device's temperature


_SIZE_WORDS = {"bytes": "B", "kilobytes": "kB", "megabytes": "MB", "gigabytes": "GB",
               "gb": "GB", "mb": "MB", "tb": "TB"}  # LMCache's "size: 0.2188 gb"


_SIZE_UNITS = frozenset(("B", "KiB", "MiB", "GiB", "TiB", "kB", "KB", "MB", "GB", "TB", "kb"))


# A number's magnitude glued after it, with no unit ("75.3K", "176M"): thousands, millions, ... of what its label
# counts, or, of nothing counted, binary multiples of bytes as top, free -h, du -h and ls -lh print them.
MAGNITUDES = {"K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}  # "345.6k" tokens as "75.3K"


# A tokenizer, not tokens: "tokenizer_init", "tokenize" count nothing (a label may name both: "tokenized tokens").
_TOKENIZER = LazyPattern(r"tokeni[sz]")
_TOKENS = LazyPattern(r"\btokens?\b")


# What a label names when a number with a bare magnitude ("176M") is a size: memory, not a model's or CPU's name.
_MEMORY = LazyPattern(r"\b(?:mem(?:ory)?|ram|vram|rss|res|virt|swap|heap|cache|disk|hbm|dram|buffers?|footprint)\b"
                      r"|working set", re.I)


_COUNT_UNITS = {"tokens": "tokens", "token": "tokens", "tok": "tokens", "requests": "requests", "runs": "runs",
                "cycles": "cycles", "samples": "samples", "calls": "calls", "chunks": "chunks", "blocks": "blocks", "iterations": "iterations",
                "queries": "queries", "instances": "instances", "token(s)": "tokens", "request(s)": "requests", "pages": "pages",
                "prompts": "prompts", "reqs": "requests",
                "docs": "documents", "documents": "documents", "segments": "segments", "images": "images",
                "attempts": "attempts", "retries": "retries", "embeddings": "embeddings", "vectors": "vectors",
                "records": "records"}  # (a loader's "Loaded 9400000 embeddings")  # ollama's "18 token(s)"; vLLM's "Running: 1 reqs"


_UNIT = (r"(?:tokens per second|tokens? / s(?:ec)?|ms / tok(?:en)?|tokens?/s(?:ec(?:ond)?s?)?(?:/user)?|req(?:uests)?/min|tok(?:en)?s?/min|toks?/s(?:ec)?(?:/user)?|[tT]/s(?:/u(?:ser)?)?|it/s|s/it|[mu\u00b5]?s/(?:sample|prompt|image|step|request|batch|query)|(?:samples|images|embeddings|embeds|sentences|frames|items|seqs|sequences|steps)/s(?:ec(?:ond)?)?|reqs?/s(?:/(?:replica|user|gpu))?|requests/s|req(?:uests)?/sec|queries/s|ms/[tT](?:ok(?:en)?)?|[u\u00b5]s/tok(?:en)?|[nmu]s/op|[nmu]?s/iter|"
         r"s/tok(?:en)?|tps|TPS|RPS|rps|fps|FPS|milliseconds?|millis|msec|ms|microseconds?|usec|nanoseconds?|nsec|seconds?|secs?|SECONDS?|SECS?|s|µs|μs|us|ns|minutes?|mins?|hours?|h|"
         r"tokens?/\u79d2|\u8bf7\u6c42/\u79d2|[KMGT]i?B/s|kB/s|B/s|[KMGT]b(?:its?)?/s|[GM]T/s|(?<=\d)[kKMGT]/s|[KMGTP]?FLOP(?:s/s|S|s|/s)|[KMGTP]?flops|TOPS|(?<=\d)TF(?:/s)?|(?<=\d)GF|(?!tok)[a-z][a-z]+/s(?:ec)?(?![a-z])|[KMGT]i?B|[KMGT]ib|(?<=\d)[KMGT]i(?![A-Za-z])|kB|kb|gb|mb|tb|[KMGT]b|B|(?<=\d )b|bytes|\u00b0C|\u2103|degC|%|token\(s\)|request\(s\)|tokens?|tok|requests|reqs|prompts|runs|queries|cycles|samples|calls|chunks|blocks|iterations|instances|docs|documents|pages|segments|images|attempts|retries|embeddings|vectors|records / s(?:ec(?:ond)?)?|records|/sec|/s|USD|EUR|GBP|INR|[mk]?J/(?:1[kK] tokens|tok(?:en)?)|[mk]?J|[Jj]oules|k?Wh|[mk]?W|[Ww]atts?|BPW|bpw|/min|\u6beb\u79d2|\u79d2|x|X(?![ \t]*\d)|\u00d7|\u500d)(?![\w/=])"
         r"|(?:[KMGT]i?B|kB)(?=/[\d.])")  # "(1.53GB/23.99GB)": a size used of a total


# A number with no digit before its point, as bc and shell scripts print it ("14 tokens in .63s"): read only when a
# unit follows, so an ellipsis or a version's tail (".5") stays out.
_NUM_OR_BARE_FRACTION = "(?:" + _NUM + r"|(?<![\w.])\.\d+(?=\s*" + _UNIT + "))"


# A label's value may carry a bare magnitude ("rss=176M", "Prompt tokens: 75.3K"; ``MAGNITUDES``); a table's cell
# may not: there "1K", "30K" name a row (a prompt's size), "16225M" a device's.
_UNIT_OR_MAGNITUDE = "(?:" + _UNIT + r"|(?<=\d)[KkMGT](?![\w/=.]))"


# "85.41 +/- 2.67 ms / token", "1287.54 ± 66.23": the spread after a value, in the unit printed after both.
_PLUS_MINUS = r"\s*(?:\u00b1|\+/-|\+\\-|(?<=\d )_(?=[ \t]))\s*"  # "±", "+/-", setfit's "+\\-"; "±" lost to "_"


# A change from one value to another: "Decode: 12.3 -> 15.6 tok/s", a cell "37.9 -> 37.6 (Max 38.1)" (its last bracket
# a statistic of the same quantity)
_ARROW_SIGN = r"\s*(?:->|\u2192|=>)\s*"


_UNIT_WORD = LazyPattern(_UNIT)


# Columns of a statistics table ("┃ Metric ┃ avg ┃ min ┃ max ┃ p99 ┃ std ┃"): "min"/"max" there are a row's
# statistics, not the limits _NOISE leaves out ("max tokens 512").
_STAT_COLUMN = LazyPattern(r"avg|mean|median|med|min|max|std|stdev|stddev|p\d{1,2}(?:\.\d+)?", re.I)


_LINE_HEAD = LazyPattern(r"\s*(?P<head>[A-Za-z_][\w ./()-]{0,60}?)\s*[:=]")  # "minicpm4 (prefill)  min = 122.64"


_CELL_UNIT = LazyPattern(r"^(?P<label>.*?)\s*\((?P<unit>[^()]+)\)\s*$")


# a cell's value, maybe approximate ("~157 tokens/秒"), maybe its spread ("1287.54 ± 66.23"), its share in brackets ("100 (100.0%)") or its change against
# another column, signed ("74.22 (-9.3%)", "50.1% (-5.2pp)": percentage points)
_CELL_VALUE = LazyPattern(r"[~\u2248]?\s*(?P<num>" + _NUM + r")\s*(?P<unit>" + _UNIT + r")?(?:" + _PLUS_MINUS + r"(?P<spread>" + _NUM
                          + r")\s*(?P<sunit>" + _UNIT + r")?|\s*\((?P<share>" + _NUM + r")\s*(?P<shunit>%|pp|x|\u00d7)\))?")  # "1900.72 ± 33.74 t/s", "87 ms (1.25×)"


_PER_MINUTE = LazyPattern(r"(?:^|[ _])(tokens?|requests?|req)/min$")


LIST_ITEMS = 128


# What a llama.cpp-style "n_…" count names when it is measured ("n_past=648", "n_saved": 243), not a setting ("n_ctx")
_MEASURED_N = r"decoded|gen|(?:p )?eval|sample|accept|prompt tokens|past|(?:cache|system) tokens|prompt tokens processed|saved|written|read|restored|accepted|drafted|(?:idle|processing) slots"


_NOISE = LazyPattern(r"thread|\btid\b|seed|sampler[ _]?order|@entry\b|\bpid\b|(?<!\bmat )\bids?\b|_id\b|\bport\b|addr|address|version|\bdate\b|year|month|"
                    r"\bday\b|hour\b|\bbuild\b(?! (?:complete|completed|times?|took|done|finished|phase|progress)\b)|commit(?!ted)|(?<!ggml[ _])ctx|context[ _-]?(?:len|length|window|shift|size)\b|\bn_(?!tokens(?:\b|_second)|(?:" + _MEASURED_N.replace(" ", "_") + r")\b)|"
                    r"(?<![a-z])line\b|"
                    r"temperature|(?<!same[ _])(?<![a-z])top_?[kp]|penalty|\bpos\b|^percent$|\bpercent(?!ile|age|[\s_]+of(?![a-z])|$)|^n\b(?! (?:tokens|" + _MEASURED_N + r")$)|budget|"
                    r"per block|units per|memory[ _]percentage|"  # ("KV Memory Percentage: 90%": a fraction set aside)
                    r"\u95f4\u9694|\u8d85\u8fc7|\u9608\u503c", re.I)  # Chinese: an interval, "exceeds", a threshold: settings


# What a count or size labelled by a part of the work is: which part ("layer 12", "step 3", "rank 0", "8 workers"),
# noise; that part's time or rate is a figure ("DecodeStep 104.636 seconds", "EncodeLayer 68.09 seconds").
_INDEX_NOISE = LazyPattern(r"(?<!per )(?<!per_)(?:layer|rank|\bworkers?\b|\bcores?\b(?!\s*ml)|\bshard|\bslot\b|\btask\b(?!\.)"
                           r"|\bstep\b|epoch|index|\bidx)", re.I)  # "tokens per step" is a rate, no index


_TIMED_KINDS = frozenset(("duration", "rate"))


# Limits ("max tokens 512", "max_num_seqs: 256", "memory limit 80 GiB") and token ids ("EOS token = 50256"): noise
# in counts, sizes and ratios; a duration, rate or percentage labelled max/min is a statistic ("Max ITL (ms): 123.4"),
# one labelled "… per token" a cost ("Average time per token: 0.0295 seconds").
_LIMIT = LazyPattern(r"\bmax\b|\bmin\b|limit(?!ing|ed)|(?<!first[ _-])(?<!second[ _-])(?<!per[ _-])(?<!output[ _-])(?<!input[ _-])"
                     r"(?<!prompt[ _-])(?<!generated[ _-])(?<!cached[ _-])(?<!new[ _-])(?<!pending[ _-])(?<!total[ _-])\btoken$", re.I)
# ("EOS token = 50256"; SGLang's "#cached_token: 757", "#new_token: 1", "#new-token: 896", "#pending-token: 0" are counts)


_BUILD = LazyPattern(r"\b[Bb]uild\b")


# What a bare magnitude sizes besides memory: what is stored ("total_size = 8.0G", gguf's writer; "file size: 4.1G")
_STORED_SIZE = LazyPattern(r"\b(?:total|file|model|disk|download|weights?|tensors?|checkpoint)[ _]size\b")


_LIMIT_KINDS = frozenset(("count", "size", "ratio", "value"))


# A batch's size or a limit spelled out ("batch 512 tokens", "Maximum concurrency for 29000 tokens per request"):
# noise in counts and sizes; a batch's time or rate is a figure ("batchd time = 727.40 ms"), and a ratio
# labelled maximum/minimum is the computed capacity ("Minimum concurrency: 3.31x").
_SETTING = LazyPattern(r"batch(?!\.n[ _]|d\b|ed\b)|\bmaximum\b|\bminimum\b", re.I)


_SETTING_KINDS = frozenset(("count", "size", "percent", "value"))


# A size labelled max/min that names memory in use is a measured peak ("max_allocated 5856 MB"), not a limit.
# ("completions/max length": a namespaced metric, as trainers log them, is a statistic of what was measured)
_MEASURED = LazyPattern(r"\b(?:ram|vram|rss|allocated|reserved|used|usage|peak|inflight|in-flight|queued|avg|average|mean|diff|kld)\b|\bper step\b|\u0394"  # Δp: a change measured
                        r"|[a-z]/(?:min|max)\b"
                        # a benchmark's "Max Memory (device: 0): 5.40 GB", llama-bench's max_mem: the peak it reached
                        r"|\bmax[ _]?mem(?:ory)?\b(?![ _]?(?:limit|util|fraction|per|budget))", re.I)


# "batch size 8", "page size by 0.99%": settings, adjustments ("Size Reduction 49.7%" is a quantization's result)
_SIZE_NOISE = LazyPattern(r"(?<!model )\bsize\b(?! reduction| savings?)", re.I)


_SIZE_NOISE_KINDS = frozenset(("count", "ratio", "percent", "value"))


# A labelled number of no stated kind is a setting, a code or a clock when its label says so ("status 200",
# "timestamp 1711754028", "temp 0.7", "n_gpu_layers = 99").
_VALUE_NOISE = LazyPattern(r"stamp|\bkv[ _]?size$|\btime$|created|\bcode$|status|\bexit\b|\bconc\b|\bmem(?:ory)?[ _]fraction|\blevel\b|\bgpu[ _]?layers|\bngl\b|\btemp\b(?![ _]c$)|\bnum\b$"
                           r"|\bpriority|\bverbos|\bdebug|\blog(?!ps\b|its\b)|\bwidth|\bheight|\bdim\b|\bheads?\b|\bvocab|\bembd?\b"
                           r"|\bexpert|quant|\bbits?\b|\bgroup|\bub?atch|\bparallel|chunk|\bpoll"
                           # sampling and RoPE settings ("mirostat = 0", "freq_base = 10000.0", "f_keep = -1.000")
                           r"|mirostat|typical|repeat|\bdry\b|\bxtc\b|\btfs\b|rep pen|\btop[ _]?[an]\b|sigma|\bfreq(?!s?[ _]?[kmg]?hz)|rope|\bmin[ _]?p\b"
                           r"|\bf[ _]keep|\bsim\b|\bt[ _]last|\bp0\b|\bga[ _]|learning[ _]rate|\blr\b"
                           # flags, modes, types and devices ("flash_attn = 1", "uma: 0", "Device: cuda:0", "u32 = 15")
                           r"|\bis\b|\bhas\b|\buse\b|enable|\bflag|\bmode\b|\btype\b|thinking|causal|flash|\buma\b|(?:^|[ _])fp16$|\bint dot"
                           r"|\bclients?\b|\busers?\b|\bseq$|\bcuda\b(?!.graph)|\brocm\b|\bvulkan\b|\bmetal\b|\bdevice\b|(?<![+\w])[uif](?:8|16|32|64)$|caller|knearest|truncat"
                           # a model's hyper-parameters (GGUF's "llama.embedding_length") and a loader's switches ("f_norm_rms_eps", "ssm_d_conv", "add_bos")
                           r"|\beps\b|\bssm\b|\battn\b|param|embedding[ _]length|feed[ _]forward[ _]length|\w\.block[ _]count|\bno[ _](?:alloc|mmap|kv|warmup|perf|display|cnv|host)|\badd\b|adaptive|disable|\bo[ _]direct|^\w$"
                           # llama-bench's switch columns ("fa", "nkvo", "repack", "mmap", "dio", "rtr"), llama.cpp's KV switches
                           # ("kv_size = 1024, offload = 1, …, can_shift = 1")
                           r"|\bfa$|\bnkvo$|\brepack$|\bmmap$|\bdio$|\brtr$|\bcan[ _]shift\b|\boffload$"
                           # and its loader's and context's settings, often 0 ("main_gpu 0", "f_clamp_kqv = 0.0e+00")
                           r"|\bmain[ _]gpu\b|tensor[ _]split|cpu[ _]strict|fit[ _]target|\bf[ _]clamp|^embeddings$", re.I)


# A score measured on the run names what it scores ("Head 0 Accuracy=0.68": a Medusa head's, no count of heads).
# ("accuracy_log_probability = 0": MLPerf loadgen's setting of how many responses it logs, no score)
_SCORE = LazyPattern(r"\baccura(?!cy[ _]log)|\baccept", re.I)


# A source file's name: a number glued after it and its colon is a line ("[metrics.py:536]", "source=server.go:686"),
# a label that is a path to one is noise; a project named like one is neither ("| mistral.rs | 37.39 |", "llama.cpp")
_SOURCE_FILE = LazyPattern(r"\.(?:py|go|rs|cpp|cc|cxx|c|h|hpp|cu|js|ts|java|kt|swift|mm?|zig)$")


_PARAMS = LazyPattern(r"\bparam(?:eter)?s?\b", re.I)


# Unitless figures that are counts by their label, besides tokens and requests.
# a count of thousands or millions with no noun but the side of a request it counts ("Prompt: 345.6k" under
# "Total Tokens: 1.2M", an LM Studio log summary's): tokens
_TOKEN_SIDES = frozenset(("prompt", "completion", "input", "output", "generated", "generation"))
_COUNTED = LazyPattern(r"faults\b|switches\b|errors\b|failures\b|preemptions\b|retries\b|evictions\b|queries\b|transactions\b|samples\b"
                       r"|blocks\b|^number of\b|^# ?[a-z]+ blocks|hits\b|misses\b|\b(?:running|waiting|remaining|pending|queued) reqs?$|^iterations$"
                       r"|\b(?:eval|prompt|input|output|generated|completion)\b.*\bcount$")  # ollama's "prompt_eval_count"


# Unitless figures that are rates by their label (the unit left unprinted: null).
_UNITLESS_RATE = LazyPattern(r"throughput|per (?:second|minute|sec|min)\b|speed$|\bqps$|\brequests? rate$")


_UNITLESS_DURATION = LazyPattern(r"(?:\btime(?: (?:taken|spent|used|cost))?|duration|latency|elapsed|\bttft|\btpot|\bitl)(?: (?:to|per) (?:first |output )?token)?"
                                 r"(?: (?:mean|avg|median|min|max|std|stddev|p\d{1,2}(?:\.\d+)?))?$")


_NOT_A_DURATION = LazyPattern(r"stamp|start|(?<!to )(?<!to_)(?<!to-)\bend(?![ _-]to[ _-]end)|epoch|date|clock|\bat\b|since|until|timeout|wall ?time$|^time$")


# Unitless figures that measure a model's quality by their label: perplexity (llama-perplexity's "Mean PPL(Q)", its
# chunks' "[12]5.8278"), KL divergence and "Same top", a loss, an accuracy or match score, a quantizer's error
# ("proxy_err: 0.001755", exllamav3's "rfn", optimum's "max diff"): kind "value", read without a unit.
_QUALITY = LazyPattern(r"perplexity|\bppl\b|\bkld\b|kl[ _-]?divergence|same top|\bloss\b|\bacc(?:uracy)?\b|exact[ _]match"
                       r"|\bf1\b|\bbleu\b|\brouge|\bwer\b|\bcer\b|\bscore\b|(?<=[a-z][ _])err\b|\brfn\b|max diff|\bmse\b|\bmae\b"
                       r"|\blogps\b|\blogits\b|\brewards?\b|\bgrad[ _]norm\b", re.I)  # a training step's statistics


# Unitless figures that are ratios by their label ("Concurrency: 48.06", "Mean acceptance length: 2.63").
# (a speech model's real-time factor, "rtf 0.17": processing time over the audio's duration)
_RATIO = LazyPattern(r"acceptance|concurrency|ratio\b|speed-?up|utili[sz]ation|efficiency|occupancy|\bmfu\b|\bmbu\b|\bprogress$"
                     r"|\brtf\b|real[ -]time factor",
                     re.I)


_LEVEL = LazyPattern(r"^(?:(?:INFO|DEBUG|WARN(?:ING)?|ERROR|TRACE|[IWED])\b\s*)+")


MAX_LABEL_WORDS = 6


_SEP = LazyPattern(r"[\s_]+")


# Words that make a label a step beside the core figure, not the figure ("prompt cache update took 0.01 ms"):
# parts of the work, statistics, and the reader's own suffixes ("Decode speed from":
# the value a change came from, ``lines._arrows``; "duration under prompt eval count": a cell of a row whose cells
# contradict their columns, ``tables._contradicted``; a bar still going, ``lines._bar``: "… elapsed so far", "… remaining")
_NOT_CORE = LazyPattern(r"cache|update|build|tokeniz|template|queue|wait|sav|restor|check|per token|/token|sampl|encod|"
                       r"validat|schedul|compil|graph|warm|download|fetch|lookup|mean|median|p\d\d|std|avg|max|min|\u00b1|step|layer|"
                       r"\(token\)| target | from $| under | so far $| remaining $")


# nvidia-smi's --format=csv header names its units in square brackets ("memory.used [MiB]"), its cells print them
# ("18604 MiB"): read as a column "(MiB)" (and its JSON form's keys: "power.draw [W]": "11.69 W")
_SQUARE_UNIT = LazyPattern(r"\s*\[([^\[\]]{1,8})\]$")


# a key naming what it counts each second, other than tokens and requests ("train_samples_per_second")
_ITEMS_PER_SECOND = LazyPattern(r"(?:^|[_ ])(samples|steps|images|iterations|items|examples|sequences)[_ ]per[_ ]second$")
_COMPUTE_RATE = LazyPattern(r"[kmgtp]flops(?:/s)?|[kmgtp]?flop/s|tops|tf(?:/s)?")  # "58.7353TF": oneMKL's benchmark, teraflops


# Units read only where a shape names them: "(-5.2pp)" beside a percentage in a table cell, its change in percentage
# points; a clock a device reports (rocm-smi's "145Mhz": the general grammar reads no MHz)
_SET_UNITS = {"pp": ("pp", "percent"), "MHz": ("MHz", "frequency"), "Mhz": ("MHz", "frequency"),
              "GHz": ("GHz", "frequency")}


def _path_tail(path: str) -> str:
    """A path's last part, as a label names what it holds ("/…/custom_nodes/ComfyUI-Manager", "C:\\bin\\ollama",
    ls's "windows-arm64/" and "OllamaSetup.exe*")."""
    return re.split(r"[/\\]", path.rstrip("/\\*"))[-1]


def _unitless_kind(low: str) -> Optional[str]:
    """The kind of a number printed without a unit, by its (lower-case) label, or None: not a figure."""
    if _UNITLESS_DURATION.search(low) is not None and _NOT_A_DURATION.search(low) is None:
        return "duration"  # "TotalTime=95.67", "Time To First Token: 5.71": a duration, its unit not printed
    if _UNITLESS_RATE.search(low) is not None:  # "Overall Output Throughput: 68.25": a rate, its unit not printed
        return "rate"  # ("Output token throughput (per sec): 26.37" too: no count of tokens)
    if ("token" in low and (_TOKENIZER.search(low) is None or _TOKENS.search(low) is not None) or "request" in low
            or low.rsplit(" ", 1)[-1] in ("tok", "toks")):  # "toks= 954"; "tokenizer_init 0.13" is a time
        return "count"
    if _COUNTED.search(low) is not None:  # "page faults 238571", "context switches 38"
        return "count"
    if _RATIO.search(low) is not None:
        return "ratio"
    if _QUALITY.search(low) is not None:
        return "value"
    return None


@functools.lru_cache(maxsize=4096)
def _unit_kind(unit: Optional[str], label: str) -> tuple[Optional[str], Optional[str]]:
    """(normalised unit, kind), or (None, None) when the pair is not a figure; labels and units recur line after
    line, hence the cache."""
    if unit is None:
        return None, _unitless_kind(label.lower())
    if unit == "%":
        return "%", "percent"
    if unit in MAGNITUDES:  # "75.3K" tokens: thousands of them; "rss=176M" (top, free -h): a size in MiB
        low = label.lower()
        if "token" in low or "request" in low or _COUNTED.search(low) is not None or low in _TOKEN_SIDES:
            return unit, "count"
        if unit == "k":  # a thousand of a counted thing; no tool prints a size so ("10k push/pop" under "… heap")
            return None, None
        sized = _MEMORY.search(low) or _STORED_SIZE.search(low)  # "rss=176M", "total_size = 8.0G"
        return (unit + "iB", "size") if sized else (None, None)  # "4750G", "128K": names
    if unit in _SET_UNITS:
        return _SET_UNITS[unit]
    low = unit.lower().strip()
    if " / " in low and low not in _RATE_UNITS:  # "27,248.3 records / second" (airbyte's): spaced as any rate
        low = low.replace(" / ", "/")
    if low not in _RATE_UNITS and "/sec" in low:  # "req/sec", "tokens/second": per second however spelled
        low = _PER_SECOND.sub("/s", low)
    if low in _TIME_UNITS:
        return _TIME_UNITS[low], "duration"
    if low in _RATE_UNITS:
        return _RATE_UNITS[low], "rate"
    if low in _COUNT_UNITS:
        return _COUNT_UNITS[low], "count"
    if unit.strip() in _SIZE_UNITS:
        return unit.strip(), "size"
    if unit in ("b", "Kb"):  # torch.profiler's memory columns: "0 b", "3.50 Kb" (and "545.80 Mb", "129.31 Gb")
        return unit.upper(), "size"
    if unit in ("Kib", "Mib", "Gib", "Tib"):  # vLLM 0.6's "memory_usage_post_profile=7.89Gib": its GiB misspelt
        return unit[:-1] + "B", "size"
    if unit in ("Ki", "Mi", "Gi", "Ti"):  # free -h's and Kubernetes' "20Gi": GiB
        return unit + "B", "size"
    if low in _SIZE_WORDS:  # "Loaded 6323781632 bytes", "Peak working set size (megabytes): 3051"
        return _SIZE_WORDS[low], "size"
    if _COMPUTE_RATE.fullmatch(low) is not None or unit.strip() == "FLOPS":  # "1755 GFLOP/s", "PyTorch (TFLOPs)", "45 TOPS": arithmetic a second
        return unit.strip(), "rate"  # (a bare "FLOPs" counts operations: "model FLOPs: 1.2e12" is no rate)
    if low.endswith("/s"):  # "1466.57 GB/s": a bandwidth; "embeddings/sec: 0.74" (the unit as the label)
        return (unit if unit.endswith("/s") else low), "rate"  # "1.02 samples/second": samples/s
    if unit.strip() in _POWER_UNITS:  # "Power in streaming mode (average) = 3.19395 W"
        return _POWER_UNITS[unit.strip()], "power"
    if unit in CURRENCIES.values():  # "$0.0124" in a table's cell, "0.12 USD", "₹0.6943": what a run cost
        return unit, "cost"
    if unit.strip() in _ENERGY_UNITS:  # "Total energy: 183155.23 J (0.050876 kWh)", "Energy per token: 0.35 J/token"
        return _ENERGY_UNITS[unit.strip()], "energy"
    if low in _TEMPERATURE_UNITS:  # "GPU temperature: 61 °C", "| 0%   38C   P8 …" (nvidia-smi's row)
        return "\u00b0C", "temperature"
    if unit == "GF":  # "total_flos = 3778867GF" (HF Trainer's): billions of operations counted, no rate
        return "GFLOP", "count"
    if low == "bpw":  # "file size = 60.85 GiB (4.85 BPW)": bits per weight, a quantization's density
        return "BPW", "ratio"
    if unit in ("x", "X", "\u00d7", "\u500d"):  # "Speedup: 1.12x", "Minimum concurrency: 3.31x", "**1.27×**", "4倍"
        return "x", "ratio"
    return None, None


def _bracket_unit(text: str) -> Optional[re.Match]:
    """``text``'s brackets at its end when they hold a unit ("TTFT (ms)"), else None ("ROCm (patched)")."""
    m = _CELL_UNIT.match(text)
    if m is not None and m["unit"] == "s" and m["label"][-1:].isalpha() and text[m.end("label")] == "(" \
            and _unitless_kind(m["label"].lower()) != "duration":
        return None  # "core(s)", "socket(s)": a plural, no seconds ("latency(s)" is in them)
    return m if m is not None and _unit_kind(m["unit"], m["label"])[1] is not None else None


def _unit_word_in(name: str) -> Optional[str]:
    """The unit a column's name holds as one of its words ("Prefill t/s", "prompt tok/s pre", "memory GB post")."""
    words = name.split()
    if len(words) < 2:
        return None
    return next((w for w in reversed(words) if _UNIT_WORD.fullmatch(w) and _unit_kind(w, name)[1] is not None), None)


def _words(label: str) -> str:
    """A label with its camelCase humps as words, for telling what it names (the label itself stays as printed)."""
    return _HUMP.sub(" ", label) if not label.islower() and not label.isupper() else label


def _statistic(stat: str, unit: Optional[str], s: str, heading: Optional[tuple]) -> tuple:
    """(label, unit, whether ``heading`` named it) of a bare statistic: labelled by the line's head ("TTFT
    p50=120ms p90=180ms" -> "TTFT p90"; "latency: avg 12.3ms" -> "latency avg"), else by the heading above it,
    whose unit it takes when it prints none ("ttft_s" then "p25 = 0.17" -> "ttft s p25", s)."""
    if " " in stat:  # "wall_TPS  mean= 177.29": the statistic of what the words before it name
        of, stat = stat.rsplit(" ", 1)
        return f"{of} {stat}", unit or _key_unit(of.replace(" ", "_")), False
    m = _LINE_HEAD.match(s)
    if m is not None:
        words = [w for w in _label(m["head"]).split(" ")  # "p50 (us): 1.88e+06": its unit names nothing
                 if not (w[:1] == "(" and w[-1:] == ")" and _unit_kind(w[1:-1], "")[1])]
        while words and _STAT_COLUMN.fullmatch(words[-1]):
            words.pop()
        if words and len(words) <= MAX_LABEL_WORDS:
            return f"{' '.join(words)} {stat}", unit or _key_unit("_".join(words)), False
    if heading is not None:
        return f"{heading[0]} {stat}", unit or heading[1], True
    return stat, unit, False


def _joined_label(last: str, kind: Optional[str], unit: Optional[str] = None) -> str:
    """The label of an unlabelled figure that follows one: "prompt time: 15761 ms / 17 tokens (927.1 ms/token)"
    gives "prompt time tokens" and "prompt time tokens rate"; "total 9.55 ms, 104.73 tok/s, 1466.57 GB/s" gives
    "total rate" twice (the values and units tell them apart)."""
    if kind == "rate":
        return last if last.endswith(" rate") else f"{last} rate"
    if kind == "count" and "token" not in last.lower():  # "… (36 instances)": of what the unit says; a timing
        counted = _unit_kind(unit, "")[0] if unit else None  # line's "runs" are its tokens ("eval time = … / 297 runs")
        return f"{last} {counted}" if counted not in (None, "tokens", "runs") and counted not in last \
            else f"{last} tokens"
    if kind == "ratio" and unit == "BPW":  # "file size = 60.85 GiB (4.85 BPW)": the model's, whatever its label
        return "bits per weight"
    return last


def _label(text: str) -> str:
    """A label as printed, separators made spaces, its log level dropped, its last MAX_LABEL_WORDS words."""
    spaced = _SEP.sub(" ", text.strip(" .-:#")).strip()
    words = (_LEVEL.sub("", spaced) or spaced).split(" ")  # "I 499 ms" (dllama's inference time): "I" is the label
    words = words[-MAX_LABEL_WORDS:]
    while len(words) > 1 and sum(map(len, words)) + len(words) - 1 > MAX_LABEL_CHARS:
        del words[0]  # the last words name the figure ("… IExecutionContext creation GPU"): the first go
    return " ".join(words)[:MAX_LABEL_CHARS]


@functools.lru_cache(maxsize=4096)
def _is_noise(label: str, kind: Optional[str] = None, unit: Optional[str] = None) -> bool:
    """Whether a label names noise (threads, seeds, ids, …; a limit for a count, size or ratio); labels recur line
    after line, hence the cache."""
    if kind in _LIMIT_KINDS and _LIMIT.search(label) is not None and not (kind in ("size", "count", "value")
                                                                           and _MEASURED.search(label)):
        return True
    if kind in _SIZE_NOISE_KINDS and _SIZE_NOISE.search(label) is not None:
        return True
    if kind in _SETTING_KINDS and _SETTING.search(label) is not None and _MEASURED.search(label) is None:
        return True  # "batch 512 tokens"; "Peak Batch pp: 208.4" is measured
    if kind == "value" and _VALUE_NOISE.search(label) is not None and _SCORE.search(label) is None:
        return True  # a setting, a code, a clock
    if _SOURCE_FILE.search(label) is not None and ("/" in label or "\\" in label or ":" in label):
        return True  # "server/api.go": a path; "llama.cpp", "mistral.rs" name projects whose figures these are
    if kind == "temperature":  # degrees are a device's reading: "temperature" names a sampling setting elsewhere
        return False
    if kind == "percent" and label.endswith("percentile"):  # trtexec's "percentile(99%)": which one, a setting
        return True
    if unit == "B" and _PARAMS.search(label) is not None:  # "params 6.74 B": billions of parameters, no size
        return True
    if kind == "duration" and "uild" in label:  # "Total build 213.4s", "TRT build took 46 s": the build's time
        label = _BUILD.sub("", label)
    if kind not in _TIMED_KINDS and kind != "size" and _INDEX_NOISE.search(label) is not None:
        # "layer 3: 12": an index; "repeating layers = 16.411 GiB" is a size of them
        return True
    return _NOISE.search(label) is not None or _NOISE.search(label.replace(" ", "_")) is not None


@functools.lru_cache(maxsize=4096)
def _core_key(label: str, kind: str, unit: Optional[str]) -> Optional[str]:
    """The core ``reported`` key a label clearly means, or None."""
    low = " " + _SEP.sub(" ", label.lower()).replace(".", " ") + " "  # "usage.prompt tokens": a JSON object's member
    low = low.replace(" p eval ", " prompt eval ")  # llama.cpp's t_p_eval, n_p_eval: prompt evaluation
    if _NOT_CORE.search(low):
        return None
    if kind == "duration":
        if "ttft" in low or "first token" in low:
            return "ttft_ms"
        if any(w in low for w in (" prefill", "prompt processing", "prompt eval", " prompt ", "process ")):
            return "prompt_eval_ms"
        if any(w in low for w in (" decode", "generation", " generate", " eval ", " predicted ")):
            return None if "prompt" in low else "eval_ms"
        if " load" in low or "loading" in low:
            return "load_ms"
        if " total " in low or low.strip() in ("total time", "total"):
            return "total_ms"
        return None
    if kind == "rate" and unit == "tokens/s":
        if " prefill" in low or " prompt" in low:
            return "prompt_tps"
        if any(w in low for w in (" decode", "generation", " eval", " output", " generate")):
            return "eval_tps"
        return None
    if kind == "count" and "token" in low:
        if any(w in low for w in (" input", " prompt", " prefill")):
            return "prompt_tokens"
        if any(w in low for w in (" generated", " output", " completion", " decode", " eval")):
            return "eval_tokens"
    return None


def _core_value(key: str, value: float, unit: Optional[str]) -> Optional[float]:
    if key.endswith("_ms"):
        if unit is None:
            return None  # a duration printed without its unit: kept as a figure, never a core time
        return duration_ms(f"{value!r} {unit}")
    if key.endswith("_tokens"):
        return int(value) if value == int(value) and value >= 0 else None
    return value


def _named_unit(shape: Optional[str], label: Optional[str]) -> Optional[str]:
    """The unit a label's key names when none is printed: prefill_elapsed_ms=12, decode_tps=5.38, "FPS (hw)",
    "tokensPerSec 49.97"."""
    if shape in ("pair", "bracket"):
        return _key_unit(label.split(" (", 1)[0].strip())
    if shape == "spaced" and label and ("_" in label or not label.islower()):
        return _key_unit(label.rsplit(" ", 1)[-1])
    return None


_CAMEL = LazyPattern(r"(?<=[a-z0-9])(?<![KMGT]i)(?=[A-Z])")  # "maximumDockerRssMiB": "…_rss_mib", a size


_HUMP = LazyPattern(r"(?<=[a-z0-9]{2})(?=[A-Z])")  # "nTokens" stays one word (n_tokens, not the noise "n")


_KEY_UNITS = (("_ms", "ms"), ("_us", "us"), ("_ns", "ns"), ("_sec", "s"), ("_seconds", "s"), ("_s", "s"),
              ("_tps", "tokens/s"), ("_mib", "MiB"), ("_gib", "GiB"), ("_mb", "MB"), ("_gb", "GB"), ("_bytes", "B"),
              ("_percent", "%"), ("_pct", "%"), ("_watts", "W"), ("-tflops", "TFLOPS"), ("_tflops", "TFLOPS"), ("-gflops", "GFLOPS"),
              ("_gflops", "GFLOPS"),  # tritonbench's "flash_v3-tflops" column
              ("train_runtime", "s"), ("eval_runtime", "s"), ("test_runtime", "s"), ("predict_runtime", "s"))
# (HF Trainer's "train_runtime", in seconds; "maxBatchSizeRuntime" is a setting of a runtime)


_PER_TOKEN_COST = LazyPattern(r"_(ms|us|ns|s)_per_(?:output_)?tok(?:en)?s?$")


@functools.lru_cache(maxsize=4096)
def _key_unit(key: str) -> Optional[str]:
    """The unit a key's or label's end names (``prompt_ms``, ``load_time_s``, ``milliseconds/request``); None when it
    names none."""
    low = _CAMEL.sub("_", key).lower() if not key.islower() else key  # "ttftMs", "memoryUsedGB", "promptTPS"
    if "/" in low and (per := _PER_ITEM.search(low)) is not None:  # "Average milliseconds/request: 18217.93"
        return _TIME_UNITS[per[1]]
    if low.endswith(("_tok_s", "_toks_s", "_tokens_s", " tok s")):  # "median_interactivity_output_tok_s": a rate
        return "tokens/s"
    if low.endswith(("_per_s", " per s", "per_sec", "/sec", "/s", "/second")) and not low.endswith(("s/s",)):
        if "token" in low or "tok" in low:
            return "tokens/s"
        if "request" in low or "req" in low:
            return "req/s"
    if low.endswith(("temp_c", "temperature_c", "celsius")):  # "gpu_temp_c": degrees, not the "_c" of a count
        return "celsius"
    if low in ("%", "pct", "percent"):  # a column named by its unit alone (ExecuTorch's ETDump summary: "%")
        return "%"
    if (cost := _PER_TOKEN_COST.search(low)) is not None:  # "spec_ms_per_tok": a time per token, in ms
        return cost[1]
    for suffix, unit in _KEY_UNITS:
        if low.endswith(suffix):
            return unit
    if low.endswith(("per_second", " per second")) and ("token" in low or "tok" in low):
        return "tokens/s"
    if low.endswith("/min") and (per := _PER_MINUTE.search(low)) is not None:
        return "tokens/min" if per[1].startswith("tok") else "req/min"  # "Requests/min: 62.30", "Output_tokens/min: …"
    if low.endswith(("fps", "/sec", "/s")):  # "FPS (hw_only) = 1328.83", "embeddings/sec: 0.74"
        return "fps" if low.endswith("fps") else low.rsplit(" ", 1)[-1].replace("/sec", "/s")
    if (per := _ITEMS_PER_SECOND.search(low)) is not None:  # "train_samples_per_second", "train_steps_per_second"
        return f"{per[1]}/s"  # (HF Trainer's metrics): what is counted, not tokens
    if low.endswith(("per_second", "tokens_per_sec", "tokens_second")) or low in ("tps", "tok/s", "t/s", "tokens/s", "tokens/sec"):
        return "tokens/s"
    return None
