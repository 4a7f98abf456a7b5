"""llama.cpp command-line tools (llama-cli, llama-completion, main, …) and the load lines every llama.cpp-based
program prints (llama-server, ollama's runners, ik_llama.cpp).

Timing blocks, three generations, one dict per block::

    llama_print_timings:        load time =    3222.35 ms                                   (2023 - mid 2024)
    llama_perf_sampler_print:    sampling time = …  /  llama_perf_context_print: … eval time = …   (late 2024 -)
    common_perf_print: … unaccounted time = 3.07 ms / 0.6 % …  graphs reused = 125          (2026 -)

Load lines: ``offloaded 33/33 layers to GPU`` -> ``gpu_layers``; ``CUDA0 model buffer size = 1454.83 MiB``,
``CUDA0 KV buffer size``, ``compute buffer size`` (and 2024's kind-less ``CUDA0 buffer size``, a model buffer)
-> ``buffers`` (several buffers of one device and kind add up; recurrent-state ``RS`` buffers count as KV);
2023's ``VRAM used: 0.00 MB``, ``VRAM kv self``, ``VRAM scratch buffer``, ``total VRAM used`` (with its model and
context parts: ``vram_model_mib``, ``vram_context_mib``), ``mem required``, ``compute buffer total size``, and ``KV self size`` / 2026's
``llama_kv_cache: size = 2.00 MiB`` -> ``extra`` (``*_mib``: llama.cpp printed MiB labelled "MB" in 2023);
``output buffer size`` -> ``extra["output_buffers_mib"]``. The model summary (``print_info: file size = 3.02 GiB``,
``arch``, ``n_layer``, ``n_expert``, ``n_expert_used``, ``model params``; 2024's ``llm_load_print_meta: model size``)
-> ``extra["model_info"]``: ``file_bytes``, ``arch``, ``layers``, ``expert_count``, ``expert_used``, ``params``, and
from the loader's ``- type q4_K:  193 tensors`` lines ``tensor_types`` {type: count}. The end-of-run memory table
(``llama_memory_breakdown_print`` / ``common_memory_breakdown_print``) -> ``extra["memory_breakdown_mib"]``:
``{device: {total, free, self, model, context, compute, unaccounted}}`` (the host row: self, model, context,
compute), whole MiB as printed. A new ``llama_model_loader: loaded meta data`` line
starts a new load: see ``_new_load`` for llama.cpp's 2026 memory-fit probe, which loads every model twice.

``moe_experts_cpu`` (None unless the log says something about expert tensors) is a dict:
  * ``exps_tensors_cpu``: expert tensors (``*_exps*``) whose buffer type the log says was overridden to a CPU
    type (``-ot exps=CPU`` and ``--n-cpu-moe`` print one such line per tensor);
  * ``exps_tensors_other``: ``{buffer type: count}`` for expert tensors overridden elsewhere (``CUDA13``);
  * ``cpu_model_mib``: CPU-side model buffers (``CPU``, ``CPU_Mapped``, ``*_Host``) summed, set only when the
    log says every layer is offloaded and yet those buffers outweigh the device ones: tensors were overridden to
    the CPU without the override lines in view (in practice MoE experts);
  * ``n_cpu_moe``: llama-bench's ``n_cpu_moe`` field.
All four keys are present; the two counts are set together once any expert override line was seen.
"""
from __future__ import annotations

import re

from . import routes
from .base import FamilyParser
from .figures import Runs
from .units import integer, number

NAME = "llama.cpp"

# Routing keys (see base.FamilyParser): every line a rule below reads contains one of these.
PERF_KEYS = routes.LLAMA_PERF
EVIDENCE_PREFIXES = routes.LLAMA_EVIDENCE
FOREIGN_PREFIXES = ("whisper_",)  # another ggml program's lines, which read like llama.cpp's
# ggml's own lines: every program built on ggml prints them (whisper.cpp, stable-diffusion.cpp, ollama), so they are
# read as llama.cpp's but show no one's log
GGML_SHARED = ("ggml_",)
LOAD_KEYS = routes.LLAMA_LOAD

# printed name -> (figure, count figure, rate figure); "x:" names go to ``extra``
TIMING = {
    "load time": ("load_ms", None, None),
    "sample time": ("sampling_ms", "x:sampling_runs", None),
    "sampling time": ("sampling_ms", "x:sampling_runs", None),
    "samplers time": ("x:samplers_ms", "x:samplers_tokens", None),
    "prompt eval time": ("prompt_eval_ms", "prompt_tokens", "prompt_tps"),
    "eval time": ("eval_ms", "eval_tokens", "eval_tps"),
    "generation eval time": ("eval_ms", "eval_tokens", "eval_tps"),
    "total time": ("total_ms", "x:total_tokens", None),
    "unaccounted time": ("x:unaccounted_ms", "x:unaccounted_pct", None),
    "graphs reused": ("x:graphs_reused", None, None),
}
# The "… ms per token" of a timing line (the inverse of its rate, as printed), and the sampler's rate (which has
# no core key): figure -> (extra key, extra key of the rate or None).
_PER_TOKEN = {"prompt_eval_ms": ("x:prompt_ms_per_token", None), "eval_ms": ("x:eval_ms_per_token", None),
              "sampling_ms": ("x:sampling_ms_per_token", "x:sampling_tps")}
# A value is any token up to a space, "/" or "(": units.number then reads it whatever the locale ("285,92") or
# says it is not a number ("nan", "-nan(ind)", "1.#INF00"), so an odd value loses itself, not its line.
_VALUE = re.compile(
    r"(?P<v>[^\s/(]+?)(?:\s*ms)?(?=[\s/(]|$)"
    r"(?:\s*/\s*(?P<n>[^\s/(]+)\s*(?P<nu>tokens|runs|%))?"
    # the rate's words may be cut off by a terminal's width ("2.10 tokens per se"): the number is still there
    # 2023's builds print the time per token alone: "(  417.59 ms per token)", the sampler's "( 0.87 ms per run)"
    r"(?:\s*\(\s*(?P<pt>\S+)\s*ms per (?:token|run)(?:,\s*(?P<tps>\S+)\s*tokens per s\w*)?\)?)?",
    re.IGNORECASE)
# Searched, not matched at the line start: with stdout and stderr merged, generated text without a final newline
# sits in front of the block's first line.
_PERF = re.compile(r"(?P<fn>llama_print_timings|llama_perf_[a-z]+_print|common_perf_print):\s+"
                   r"(?P<name>[a-z][a-z ]*?)\s*=\s*(?P<rest>.*)")
_BUILD = re.compile(r"\bbuild(?: =|:) (\d+ \([0-9a-f]+\)|[0-9a-f]+ \(\d+\))")
_CLI_STATS = re.compile(r"\[ Prompt: ([\d.,]+) t/s \| Generation: ([\d.,]+) t/s \]")
_VERSION = re.compile(r"version: (\S.*?)\s*$")
_OFFLOADED = re.compile(r"offloaded (\d+)/(\d+) layers to GPU")
_BUFFER = re.compile(
    r"(?:\w+:)?\s*(?P<dev>[A-Za-z][\w.-]*)\s+(?:(?P<kind>model|KV|RS|compute|output)\s+)?buffer size\s*=\s*"
    r"(?P<v>[\d.,]+)\s*MiB")
_KV_SELF = re.compile(r"KV self size\s*=\s*([\d.,]+)\s*Mi?B|^llama_kv_cache\w*: size\s*=\s*([\d.,]+)\s*MiB",
                      re.IGNORECASE)
_VRAM_USED = re.compile(r"(?<!total )VRAM used:\s*([\d.,]+)\s*Mi?B")
# late 2023: "VRAM kv self = 400,00 MiB", "VRAM scratch buffer: 75,00 MiB",
# "total VRAM used: 9169,21 MiB (model: 8694,21 MiB, context: 475,00 MiB)"; mid 2023 "[cublas] total VRAM used: 9192 MB"
_VRAM_PARTS = re.compile(r"(?:VRAM kv self =|VRAM scratch buffer:|total VRAM used:)\s*([\d.,]+)\s*Mi?B"
                         r"(?:\s*\(model:\s*([\d.,]+)\s*Mi?B, context:\s*([\d.,]+)\s*Mi?B\))?")
_VRAM_PART_KEYS = {"VRAM kv self": "vram_kv_self_mib", "VRAM scratch": "vram_scratch_mib",
                   "total VRAM used": "total_vram_used_mib"}
# 2025-26, at exit: "| memory breakdown [MiB] | total free self model context compute unaccounted |" then per device
# "|   - CUDA0 (H200) | 143156 = 131000 + (3300 = 3100 + 128 + 72) + 8856 |" and "|   - Host | 13 = 5 + 2 + 6 |"
# (September 2025 printed the same rows without the table's pipes: "  - CUDA0 (RTX 4090):  24080 = 9436 + (…) + 451",
# and a host row with its total: "  - CPU (EPYC 7742):  515628   72 = 0 + 57 + 15")
_BREAKDOWN_DEVICE = re.compile(r"-\s*(.+?)\s*[|:]\s*(\d+)\s*=\s*(\d+)\s*\+\s*\(\s*(\d+)\s*=\s*(\d+)\s*\+\s*(\d+)"
                               r"\s*\+\s*(\d+)\s*\)\s*\+\s*(-?\d+)")
_BREAKDOWN_HOST = re.compile(r"-\s*(.+?)\s*[|:]\s*(?:(\d+)\s+)?(\d+)\s*=\s*(\d+)\s*\+\s*(\d+)\s*\+\s*(\d+)")
_MEM_REQUIRED = re.compile(r"mem required\s*=\s*([\d.,]+)\s*Mi?B")
_COMPUTE_TOTAL = re.compile(r"compute buffer total size\s*=\s*([\d.,]+)\s*Mi?B")
_OVERRIDE = re.compile(r"[Tt]ensor (\S+?)(?: \([^)]*\))? buffer type overrid\w* to (\S+)")

MOE_KEYS = ("exps_tensors_cpu", "exps_tensors_other", "cpu_model_mib", "n_cpu_moe")
_BUFFER_KIND = {None: "model_mib", "model": "model_mib", "KV": "kv_mib", "RS": "kv_mib", "compute": "compute_mib"}
# (gate substring, regex, extra key); "size" gates the whole group
_EXTRA_SIZES = (("self size", _KV_SELF, "kv_self_mib"), (": size =", _KV_SELF, "kv_self_mib"),
                ("VRAM used", _VRAM_USED, "vram_used_mib"), ("mem required", _MEM_REQUIRED, "mem_required_mib"),
                ("buffer total size", _COMPUTE_TOTAL, "compute_total_mib"))
# extra keys that describe one model load, dropped with it
_LOAD_EXTRAS = ("kv_self_mib", "vram_used_mib", "vram_kv_self_mib", "vram_scratch_mib", "total_vram_used_mib",
                "vram_model_mib", "vram_context_mib", "memory_breakdown_mib", "mem_required_mib", "compute_total_mib", "output_buffers_mib",
                "tensor_overrides", "model_info")
_MODEL_INFO = re.compile(r"^(?:print_info|llm_load_print_meta):\s*(file size|model size|arch|n_layer|n_expert|"
                         r"n_expert_used|model params)\s*=\s*(\S+)\s*(\S*)")
# the loader's count of tensors per type: "llama_model_loader: - type q4_K:  193 tensors" (the quantization mix)
_TENSOR_TYPE = re.compile(r"llama_model_loader: - type\s+(\w+):\s+(\d+) tensors")
_INFO_KEY = {"file size": "file_bytes", "model size": "file_bytes", "arch": "arch", "n_layer": "layers",
             "n_expert": "expert_count", "n_expert_used": "expert_used", "model params": "params"}
_SIZE_UNIT = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
_COUNT_UNIT = {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


def is_host(device: str) -> bool:
    """Buffer types that live in host memory: ``CPU``, ``CPU_Mapped``, ``CPU_REPACK``, ``CUDA_Host``, …"""
    return device.startswith("CPU") or device.endswith("_Host")


def _put(runs: Runs, key: str, value, check_repeat: bool) -> None:
    """Set a report key, or an ``extra`` key when written ``x:name``."""
    if key.startswith("x:"):
        runs.put_extra(key[2:], value)
    elif check_repeat:
        runs.put(key, value)
    else:
        runs.set(key, value)


def _printed(text: str | None) -> float | None:
    """A number llama.cpp's printf wrote: a comma is a locale's decimal comma, and nothing groups thousands, so a
    dot is a decimal point whatever follows it ("284.746 ms" from a fork printing three decimals is not 284746)."""
    return None if text is None else number(text.replace(",", "."))


def timing_fields(name: str, rest: str) -> list[tuple[str, object]] | None:
    """The figures of one ``<name> = <value> ms / <n> tokens (… ms per token, … tokens per second)`` line as
    ``[(key, value), …]``, the block's own figure first (``"x:name"`` keys go to ``extra``); None for a name not
    in TIMING."""
    spec = TIMING.get(name)
    if spec is None:
        return None
    m = _VALUE.match(rest)
    if m is None:
        return None
    primary, count_key, rate_key = spec
    if primary == "x:graphs_reused":
        return [(primary, integer(m["v"]))]
    # llama.cpp prints times with "%.2f" and counts with "%d": a comma can only be a locale's decimal comma.
    fields = [(primary, _printed(m["v"]))]
    if count_key is not None and m["n"] is not None:
        count = _printed(m["n"]) if m["nu"] == "%" else integer(m["n"], decimal_comma=True)
        fields.append((count_key, count))
    if rate_key is not None and m["tps"] is not None:
        fields.append((rate_key, _printed(m["tps"])))
    if m["pt"] is not None and primary in _PER_TOKEN:  # "( 0.03 ms per token, 30200.08 tokens per second)"
        per_token_key, sampling_rate_key = _PER_TOKEN[primary]
        fields.append((per_token_key, _printed(m["pt"])))
        if sampling_rate_key is not None and m["tps"] is not None:
            fields.append((sampling_rate_key, _printed(m["tps"])))
    return fields


def apply_timing(runs: Runs, name: str, rest: str, load_key: str = "load_ms") -> bool:
    """Apply one timing line (see ``timing_fields``) to ``runs``.

    The block's first figure already being set in the open run starts a new run. ``load_key`` lets a wrapper
    (ollama) file llama.cpp's own load time elsewhere than ``load_ms``. Returns False for a name not in TIMING.
    """
    fields = timing_fields(name, rest)
    if fields is None:
        return False
    for i, (key, value) in enumerate(fields):
        _put(runs, load_key if key == "load_ms" else key, value, i == 0 and key != "x:graphs_reused")
    return True


def perf_line(text: str) -> tuple[str, str] | None:
    """(name, rest) of a ``llama_print_timings:`` / ``llama_perf_*_print:`` / ``common_perf_print:`` line."""
    m = _PERF.search(text) if "_print" in text else None
    return None if m is None else (m["name"], m["rest"])


def feed_perf(text: str, runs: Runs, load_key: str = "load_ms") -> bool:
    """A ``llama_print_timings:`` / ``llama_perf_*_print:`` / ``common_perf_print:`` line; True if it was one."""
    if "_print" not in text:  # every block's function name has it; most routed lines don't
        return False
    m = _PERF.search(text)
    if m is None:
        return False
    if not apply_timing(runs, m["name"], m["rest"], load_key):
        runs.unparsed(text[m.start():])
    return True


def _moe(report: dict) -> dict:
    moe = report["moe_experts_cpu"]
    if moe is None:
        moe = report["moe_experts_cpu"] = dict.fromkeys(MOE_KEYS)
    return moe


def feed_load(text: str, line: str, runs: Runs) -> bool:
    """Version, offload, buffer and tensor-override lines; True if the line was one of them."""
    line = line.rstrip("\r\n")
    if text.startswith(("print_info:", "llm_load_print_meta:")):
        return _model_info(text, runs)
    if "buffer size" in text:
        m = _BUFFER.match(text)
        if m is not None:
            mib = _printed(m["v"])
            if mib is not None:
                _buffer(runs, m["dev"], m["kind"], mib, line)
                return True
    if "offloaded" in text:
        m = _OFFLOADED.search(text)
        if m is not None:
            offloaded, total = int(m[1]), int(m[2])
            runs.startup()["gpu_layers"] = {"offloaded": offloaded, "total": total}
            if offloaded < total:
                runs.warn("offload_cpu", line)
            return True
    if "overrid" in text:
        m = _OVERRIDE.search(text)
        if m is not None:
            _override(runs, m[1], m[2], line)
            return True
    if "memory_breakdown" in text or "memory breakdown" in text:
        return _breakdown(text, runs)
    version = version_of(text)
    if version is not None:
        runs.version = version
        return True
    if "- type " in text and (m := _TENSOR_TYPE.search(text)) is not None:
        model_info = runs.startup()["extra"].setdefault("model_info", {})
        model_info.setdefault("tensor_types", {})[m[1]] = int(m[2])
        return True
    if "loaded meta data" in text and text.startswith("llama_model_loader"):
        _new_load(runs)
        return True
    if "VRAM" in text and ("VRAM kv self" in text or "VRAM scratch" in text or "total VRAM used" in text):
        m = _VRAM_PARTS.search(text)
        if m is not None:
            extra = runs.startup()["extra"]
            key = next(v for k, v in _VRAM_PART_KEYS.items() if k in text)
            extra[key] = _printed(m[1])
            if m[2] is not None:
                extra["vram_model_mib"] = _printed(m[2])
                extra["vram_context_mib"] = _printed(m[3])
            return True
    if "size" in text or "VRAM" in text or "mem required" in text:
        for gate, rx, key in _EXTRA_SIZES:
            if gate in text:
                m = rx.search(text)
                mib = None if m is None else _printed(m[1] or m[2])
                if mib is not None:
                    runs.startup()["extra"][key] = mib
                    return True
    return False


def _model_info(text: str, runs: Runs) -> bool:
    """One line of the model summary into ``extra["model_info"]`` (sizes in bytes, counts as numbers)."""
    m = _MODEL_INFO.match(text)
    if m is None:
        return True  # the summary's other lines: evidence only
    name, value, unit = m.groups()
    key = _INFO_KEY[name]
    if key == "arch":
        parsed = value
    elif key == "file_bytes":
        size = number(value)
        parsed = None if size is None or unit not in _SIZE_UNIT else round(size * _SIZE_UNIT[unit])
    elif key == "params":
        count = number(value)
        parsed = None if count is None or unit not in _COUNT_UNIT else round(count * _COUNT_UNIT[unit])
    else:
        parsed = integer(value)
    if parsed is not None:
        runs.startup()["extra"].setdefault("model_info", {})[key] = parsed
    return True


def _breakdown(text: str, runs: Runs) -> bool:
    """One row of the memory table, into ``extra["memory_breakdown_mib"][device]`` (a later table replaces an
    earlier row of the same device: the memory-fit loop prints one per attempt)."""
    m = _BREAKDOWN_DEVICE.search(text)
    if m is not None:
        row = dict(zip(("total", "free", "self", "model", "context", "compute", "unaccounted"),
                       map(int, m.groups()[1:])))
    else:
        m = _BREAKDOWN_HOST.search(text)
        if m is None:
            return _breakdown_header(text)
        row = dict(zip(("self", "model", "context", "compute"), map(int, m.groups()[2:])))
        if m[2] is not None:
            row["total"] = int(m[2])
    runs.current["extra"].setdefault("memory_breakdown_mib", {})[m[1]] = row
    return True


def _breakdown_header(text: str) -> bool:
    """The table's header row (`| memory breakdown [MiB] | total free self …` or, older, `memory breakdown:
    total free self …`): evidence of llama.cpp. Another program's "memory breakdown" (vllm-metal's
    `Paged attention memory breakdown: metal_limit=…`) is not."""
    return "memory breakdown [" in text or ("memory breakdown" in text and "total" in text and "self" in text)


def _new_load(runs: Runs) -> None:
    """A model load begins. A run that already has figures is finished. Otherwise the load figures of an earlier
    load in the same run are dropped: since 2026 llama.cpp first loads the model without weights to fit its
    parameters to device memory (``common_params_fit``), then loads it for real, printing every load line twice."""
    if runs.has_run_figures():
        runs.close()
        return
    report = runs.current
    for key in ("gpu_layers", "buffers", "moe_experts_cpu"):
        report[key] = None
    for key in _LOAD_EXTRAS:
        report["extra"].pop(key, None)
    runs.notes.pop("first_host_model_line", None)


def _buffer(runs: Runs, dev: str, kind: str | None, mib: float, line: str) -> None:
    report = runs.startup()
    if kind == "output":
        report["extra"].setdefault("output_buffers_mib", {})[dev] = mib
        return
    runs.add_buffer(dev, _BUFFER_KIND[kind], mib)
    if kind is None or kind == "model":
        if is_host(dev):
            runs.notes.setdefault("first_host_model_line", line)
    elif kind in ("KV", "RS") and (dev.endswith("_Host") or (dev.startswith("CPU") and _offloads(report))):
        # KV cache in host memory although this build/run uses a GPU
        runs.warn("offload_cpu", line)


def _override(runs: Runs, tensor: str, buft: str, line: str) -> None:
    report = runs.startup()
    if "_exps" in tensor:
        moe = _moe(report)
        if moe["exps_tensors_cpu"] is None:
            moe["exps_tensors_cpu"], moe["exps_tensors_other"] = 0, {}
        if is_host(buft):
            moe["exps_tensors_cpu"] += 1
            runs.warn("offload_cpu", line, tag="exps-override-cpu")
        else:
            moe["exps_tensors_other"][buft] = moe["exps_tensors_other"].get(buft, 0) + 1
        return
    overrides = report["extra"].setdefault("tensor_overrides", {})
    overrides[buft] = overrides.get(buft, 0) + 1
    if is_host(buft):
        runs.warn("offload_cpu", line, tag="override-cpu")


def version_of(text: str) -> str | None:
    """``build: 4662 (7ee953a64) with cc …`` -> ``"4662 (7ee953a64)"``; ``main: build = 3285 (a27152b6)``;
    llama-bench's ``build: 32d9f7d9 (1786)``; ``version: 0.5.0-dev (build 1, commit 0c1e570)`` (``--version``)."""
    if "build" in text:
        m = _BUILD.search(text)
        if m is not None:
            return m[1]
    if text.startswith("version: "):
        return _VERSION.match(text)[1]
    return None


def _offloads(report: dict) -> bool:
    layers = report["gpu_layers"]
    return layers is not None and layers["offloaded"] > 0


def finalize_load(report: dict, notes: dict) -> None:
    """All layers "offloaded" yet CPU-side model buffers outweigh the device ones: say so (see module doc)."""
    layers, buffers = report["gpu_layers"], report["buffers"]
    if layers is None or buffers is None or layers["total"] == 0 or layers["offloaded"] < layers["total"]:
        return
    host = sum(b["model_mib"] or 0.0 for dev, b in buffers.items() if is_host(dev))
    device = sum(b["model_mib"] or 0.0 for dev, b in buffers.items() if not is_host(dev))
    if host <= device:
        return
    _moe(report)["cpu_model_mib"] = round(host, 6)
    line = notes.get("first_host_model_line")
    if line is not None and all(w["line"] != line for w in report["warnings"]):
        report["warnings"].append({"kind": "offload_cpu", "line": line})


def feed_cli_stats(text: str, runs: Runs) -> bool:
    """llama-cli's ``[ Prompt: 323.5 t/s | Generation: 17.8 t/s ]`` after an answer (a new one: a new run)."""
    m = _CLI_STATS.search(text) if "[ Prompt: " in text else None
    if m is None:
        return False
    runs.put("prompt_tps", _printed(m[1]))
    runs.set("eval_tps", _printed(m[2]))
    return True


class Parser(FamilyParser):
    """llama.cpp CLI: perf blocks plus load lines."""

    NAME = NAME

    def feed(self, text: str, line: str) -> None:
        if text.startswith(FOREIGN_PREFIXES):
            return  # whisper.cpp prints llama.cpp's words under its own names ("whisper_init_state: kv self size")
        if (feed_perf(text, self.runs) or feed_load(text, line, self.runs) or feed_cli_stats(text, self.runs)
                or text.lstrip().startswith(EVIDENCE_PREFIXES)) and not text.lstrip().startswith(GGML_SHARED):
            self.evidence += 1

    def finalize(self, report: dict, notes: dict) -> None:
        finalize_load(report, notes)
