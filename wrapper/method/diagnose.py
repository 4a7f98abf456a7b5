"""Name the likely bottleneck of a set of runs from their phase shares and per-phase resource figures.

Pure: records in, findings out. Each finding quotes the figures it rests on and proposes one next step; a check
whose data is missing is listed as not checked (naming the missing fields) instead of guessed. Over several runs
each figure is the median across them (warm-up runs left out).

Thresholds (one place, so the rules read as data):
  a phase "dominates" when it is the largest of load / ttft / decode and the unmeasured rest of the total
  could not be larger; disk-bound load: cold cache and disk reads >= 50 % of the model files (>= 256 MiB when
  their size is unknown); VRAM nearly full: peak >= 95 % of total; one core pegged: busiest thread >= 90 %
  while the process averages < 150 %; CPU busy: >= 90 % (one core); GPU idle before the first token: < 10 %;
  GPU mostly idle in decode: < 30 %. Resource rules about one phase only fire when it is >= 10 % of the total.
  Decode stutters when stalls (gaps >= max(5 x the median gap, 50 ms)) take >= 5 % of decode; it is steady when
  they take less and the p99 gap is < 3 x the p50 gap.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional, Sequence, Union

from ..derive.loadsteps import START_UP
from ..model import accessors
from ..model import phases as phase_table
from . import steps, sweep
from ..sources import records_io
from . import stats

PHASE_KEYS = tuple((p.name, p.key) for p in phase_table.TIMED)
# the record's ``resources`` windows and the figures the rules read from them (aggregate.KEYS names)
RESOURCE_WINDOWS = phase_table.NAMES
RESOURCE_METRICS = ("gpu_util_mean", "vram_used_peak_mib", "vram_total_mib", "cpu_pct_mean",
                    "cpu_busiest_thread_pct_max", "disk_read_mib")
DISK_SHARE_OF_MODEL = 0.5
DISK_READ_HIGH_MIB = 256.0
VRAM_FULL_SHARE = 0.95
PEGGED_THREAD_PCT = 90.0
PEGGED_PROCESS_PCT_BELOW = 150.0
CPU_BUSY_PCT = 90.0
GPU_IDLE_TTFT_PCT = 10.0
GPU_IDLE_DECODE_PCT = 30.0
MATERIAL_SHARE = 0.10
STUTTER_SHARE = 0.05
STEADY_P99_OVER_P50 = 3.0
QUOTED_STALLS = 3
OFFLOAD_KINDS = ("offload_cpu", "cpu_fallback")
MAX_QUOTED_LINES = 2
_MIB = 1048576


@dataclass(frozen=True)
class Finding:
    """One diagnosis: what limits the run, the figures that show it, and what to try next.

    ``rule`` names the check that produced it (``load_disk``, ``vram_full``, ``not_checked`` …).
    """

    rule: str
    bottleneck: str
    statement: str
    next_step: str
    variant: Optional[str] = None  # a sweep's variant (``ctx=512``) the finding is about; None: all the runs


# -- the figures, over runs -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Facts:
    runs: int
    phases: dict          # load_s / ttft_s / decode_s / total_s → median or None
    resources: dict       # window → metric → median; only figures some run measured (empty: no resources)
    label: Optional[str]  # cache label shared by all runs; None when not measured
    model_mib: Optional[float]
    input_tokens: Optional[float]
    output_tokens: Optional[float]
    ms_per_token: Optional[float]
    reported: list        # the runs' ``reported`` dicts that exist
    missing: dict         # phase field → reason, from the first record that gives one
    load_steps: list      # the runs' load steps matched by name (steps.pooled)
    gaps: Optional[dict] = None  # decode gaps: medians of p50/p99/stall share, and the most stalled run's stalls
    model_format: Optional[str] = None  # "GGUF" / "safetensors": already a format the backend maps directly
    buffered: int = 0     # runs whose token stream came in one burst at exit: their phases can't be measured
    limits: dict = field(default_factory=dict)  # phase → the first run's floor, with the median efficiency


def _number(value) -> Optional[float]:
    """A figure, or ``None`` for anything else (a window's ``reason`` text, ``approximate`` flag)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _median_of(records: Sequence[dict], get) -> Optional[float]:
    return stats.median([get(r) for r in records])


def _facts(records: Sequence[dict]) -> _Facts:
    phases = {k: _median_of(records, lambda r, k=k: (r.get("phases") or {}).get(k))
              for k in phase_table.KEYS}
    resources: dict = {}
    for phase in RESOURCE_WINDOWS:
        for metric in RESOURCE_METRICS:
            value = _median_of(records, lambda r: _number(((r.get("resources") or {}).get(phase) or {}).get(metric)))
            if value is not None:
                resources.setdefault(phase, {})[metric] = value
    label = accessors.cache_label(records[0])  # diagnose() passes one pool: every run has this label
    model_bytes = _median_of(records, lambda r: (r.get("env") or {}).get("model_size_bytes"))
    missing: dict = {}
    for r in records:
        for item in r.get("missing") or []:
            missing.setdefault(item.get("field"), item.get("reason"))
    return _Facts(
        runs=len(records), phases=phases, resources=resources, label=label,
        model_mib=None if model_bytes is None else model_bytes / _MIB,
        input_tokens=_median_of(records, lambda r: (r.get("tokens") or {}).get("input")),
        output_tokens=_median_of(records, lambda r: (r.get("tokens") or {}).get("output")),
        ms_per_token=_median_of(records, lambda r: r.get("ms_per_token")),
        reported=[r["reported"] for r in records if r.get("reported")],
        missing=missing,
        load_steps=steps.pooled(records),
        gaps=_gap_facts(records),
        buffered=sum(1 for r in records if accessors.is_buffered(r)),
        model_format=accessors.model_format(records[0]),
        limits=_limit_facts(records),
    )


AT_LIMIT = 0.75  # a phase at this share of its floor or above is at the hardware limit


def _limit_facts(records: Sequence[dict]) -> dict:
    out = {}
    for phase in ("load", "decode"):
        floors = [(r.get("limits") or {}).get(phase) for r in records]
        known = [x for x in floors if isinstance(x, dict) and isinstance(x.get("efficiency"), (int, float))
                 and isinstance(x.get("bound_by"), str)]  # a floor the rules can quote: efficiency and its bound
        if known:
            out[phase] = {**known[0], "efficiency": stats.median([x["efficiency"] for x in known])}
    return out


def _limit_finding(f: _Facts, phase: str, quote: str) -> Optional[Finding]:
    """The phase against its floor: at the limit, only fewer bytes or faster hardware help; far below, the time
    goes elsewhere."""
    floor = f.limits.get(phase)
    if floor is None:
        return None
    eff, bound = floor["efficiency"], floor["bound_by"].replace("-", " ")
    said = f"{quote}; {eff:.0%} of the {bound} floor ({floor.get('evidence') or 'no evidence recorded'})"
    if eff >= AT_LIMIT and phase == "decode":
        experts = floor.get("expert_bytes_per_token") or {}
        fewer = ("fewer experts on the CPU (lower --n-cpu-moe / -ot exps=CPU, if VRAM allows), "
                 if experts.get("cpu-memory") else "")
        return Finding("decode_at_limit", f"decode at the hardware limit ({bound} bandwidth)", said,
                       f"only fewer bytes per token or faster memory help: a smaller quant, {fewer}a model with "
                       f"fewer active parameters, or hardware with more {bound} bandwidth")
    if eff >= AT_LIMIT:
        return Finding("load_at_limit", f"load at the hardware limit ({bound})", said,
                       "only fewer bytes or a faster path help: a smaller quant, a faster disk (local NVMe), or a "
                       "warm page cache between runs")
    if phase == "decode":
        p99 = (f.gaps or {}).get("p99_ms")
        gpu = _res(f, "decode", "gpu_util_mean")
        hints = "; ".join(x for x in (p99 and f"decode gaps p99 {p99:.1f} ms",
                                      gpu is not None and f"GPU {gpu:.0f}% busy") if x)
        return Finding("decode_below_limit", "decode overhead (far from the hardware limit)",
                       said + (f"; {hints}" if hints else ""),
                       "the weights' bytes explain only part of each token: look at per-token host work (logging, "
                       "sampling, synchronisation), a small batch, or kernels that don't stream memory well")
    return None


def _gap_facts(records: Sequence[dict]) -> Optional[dict]:
    """None: records from before the gaps were recorded (no key at all); {}: recorded but never measured."""
    measured = [r for r in records if r.get("decode_gaps_ms")]
    if not measured:
        return {} if any("decode_gaps_ms" in r for r in records) else None
    worst = max(measured, key=lambda r: r.get("stall_share_of_decode") or 0.0)
    return {
        "p50_ms": _median_of(measured, lambda r: r["decode_gaps_ms"]["p50"]),
        "p99_ms": _median_of(measured, lambda r: r["decode_gaps_ms"]["p99"]),
        "share": _median_of(measured, lambda r: r.get("stall_share_of_decode")),
        "stalls_total": _median_of(measured, lambda r: r.get("stalls_total")),
        "worst_stalls": worst.get("stalls") or [], "worst_total": worst.get("stalls_total") or 0,
        "worst_share": worst.get("stall_share_of_decode") or 0.0, "runs": len(measured),
    }


def _res(f: _Facts, phase: str, metric: str) -> Optional[float]:
    return (f.resources.get(phase) or {}).get(metric)


def _s(value: float) -> str:
    return f"{value:.2f} s"


def _of_runs(f: _Facts) -> str:
    return f" (median of {f.runs} runs)" if f.runs > 1 else ""


def _share(f: _Facts, key: str) -> Optional[float]:
    value, total = f.phases.get(key), f.phases.get("total_s")
    return None if value is None or not total else value / total


def _phase_quote(f: _Facts, name: str, key: str) -> str:
    return f"{name} {_s(f.phases[key])} is {_share(f, key):.0%} of the {_s(f.phases['total_s'])} total{_of_runs(f)}"


# -- rules: each returns a Finding, a "not checked" note (str), or None (checked, nothing found) -------------

Result = Union[Finding, str, None]


def _dominant(f: _Facts) -> Optional[tuple[str, str]]:
    known = [(name, key) for name, key in PHASE_KEYS if f.phases[key] is not None]
    if not known or not f.phases["total_s"]:
        return None
    name, key = max(known, key=lambda nk: f.phases[nk[1]])
    unmeasured = f.phases["total_s"] - sum(f.phases[k] for _, k in known)
    if len(known) < len(PHASE_KEYS) and unmeasured > f.phases[key]:
        return None
    return name, key


def _phase_data_missing(f: _Facts) -> Finding:
    absent = [k for k in phase_table.KEYS if f.phases[k] is None]
    reasons = "; ".join(f"{k}: {f.missing.get(k) or 'not measured'}" for k in absent)
    if f.phases["total_s"] and len(absent) < 4:
        known = sum(v for k, v in f.phases.items() if k != "total_s" and v is not None)
        statement = (f"can't rank the phases: {_s(f.phases['total_s'] - known)} of the {_s(f.phases['total_s'])} "
                     f"total{_of_runs(f)} is in no measured phase ({reasons})")
    else:
        statement = f"no phase timings to rank ({reasons})"
    return Finding("phases_missing", "unknown (phase timings missing)", statement,
                   "give the markers that split the run: --ready REGEX for the end of load and --first-token REGEX "
                   "(or a --profile that knows this framework)")


def rule_phases(f: _Facts) -> Result:
    if f.buffered:
        return Finding("phases_unmeasurable", "unmeasurable (output buffered until exit)",
                       f"in {f.buffered} of {f.runs} run(s) the output came in one burst at exit: the reads can't "
                       "show when loading ended or the tokens came, so the phases are not ranked",
                       "make the child write as it goes: --pty, `stdbuf -o0 CMD` or PYTHONUNBUFFERED=1, then "
                       "measure again")
    dom = _dominant(f)
    if dom is None:
        return _phase_data_missing(f)
    name, key = dom
    quote = _phase_quote(f, name, key)
    limit = _limit_finding(f, name, quote)
    if limit is not None:
        return limit
    if name == "load":
        return _load(f, quote)
    if name == "ttft":
        tokens = ""
        if f.input_tokens:
            tokens = (f"; {f.input_tokens:.0f} prompt tokens, "
                      f"{f.input_tokens / f.phases['ttft_s']:.0f} tokens/s")
        return Finding("ttft_dominant", "prompt processing (time to first token)", quote + tokens,
                       "shorten the prompt or the context length (-c / max context), and reuse the prompt prefix "
                       "across requests (a prefix / prompt cache)")
    rate = ""
    if f.output_tokens and f.ms_per_token:
        rate = f": {f.output_tokens:.0f} tokens at {f.ms_per_token:.2f} ms/token ({1000 / f.ms_per_token:.1f} tokens/s)"
    return Finding("decode_dominant", "decode (per-token generation)", quote + rate,
                   "for throughput, batch more requests (concurrency / a larger batch); take per-token logging, "
                   "streaming callbacks and per-token host synchronisation out of the generation loop")


# What to try for a load step of each measured kind.
STEP_NEXT = {
    "disk": ("disk reads", "put the model on faster local storage (NVMe), keep it in the page cache between runs "
             "(don't evict it; enough free RAM), and let the framework mmap it"),
    "cpu-single": ("one core (deserialization / format conversion)", "use a format the backend maps directly "
                   "(GGUF with mmap, safetensors in the target dtype): no load-time quantization or dtype conversion"),
    "cpu-multi": ("CPU work on several cores", "pre-convert or cache what is computed at every start (converted "
                  "weights, compiled kernels); check the step's lines for what it builds"),
    "gpu-upload": ("upload to the GPU", "a smaller quant format moves fewer bytes; check the PCIe link the upload "
                   "runs over (nvidia-smi -q: link generation and width, current vs max)"),
    "gpu-compute": ("GPU work at start-up (warm-up, compile, graph capture)", "cache compiled graphs between runs "
                    "(torch.compile cache, the framework's compile cache), capture fewer CUDA-graph sizes, or skip "
                    "the warm-up where the framework allows"),
    "wait": ("waiting (sleeps, locks, network)", "the process tree was idle: read the lines around the step for what "
             "it waited on (a download, a peer, a lock, a health check)"),
}
STEP_SHARE_LISTED = 0.15


def _convert_advice(f: _Facts, advice: str) -> str:
    """``advice`` (use a format the backend maps directly) unless the model already is one: then what is true."""
    if f.model_format is None:
        return advice
    return (f"the model is already {f.model_format}, which the backend maps with mmap: there is no format to "
            "convert; when the disk is not the limit its load is mostly the page faults that map the file into the process, the "
            "context set-up and, with layers on the GPU, their upload, so it grows with the file size (a smaller "
            "quant maps fewer pages) and a long-running server pays it once; check no --no-mmap and that the "
            "quant type is native to the backend")


def _disk_high(f: _Facts, read: Optional[float]) -> bool:
    return read is not None and read >= (DISK_SHARE_OF_MODEL * f.model_mib if f.model_mib else DISK_READ_HIGH_MIB)


def _load_steps_finding(f: _Facts, quote: str, contradiction: str) -> Optional[Finding]:
    """The load finding from the measured kinds of its steps; None when the largest step's kind is unknown."""
    load_s = f.phases["load_s"]
    steps = sorted(f.load_steps, key=lambda s: -(s["dur_s"] or 0))
    if not steps or not load_s or steps[0]["kind"] not in STEP_NEXT:
        return None
    top = steps[0]
    what, next_step = STEP_NEXT[top["kind"]]
    if top["name"] == START_UP:
        next_step = ("the time before the program's first line is its own start-up (interpreter, imports, dynamic "
                     "linking, argument parsing): import less at start, or keep a long-running process")
    elif top["kind"] == "cpu-single":
        next_step = _convert_advice(f, next_step)
    listed = [s for s in steps[1:] if (s["dur_s"] or 0) >= STEP_SHARE_LISTED * load_s]
    others = "".join(f"; then '{s['name']}' {_s(s['dur_s'])}: {s['kind']}" for s in listed)
    statement = (f"{quote}; its largest step '{top['name']}' {_s(top['dur_s'])} ({top['dur_s'] / load_s:.0%} of "
                 f"load) is {top['kind']}: {top['evidence']}{others}{contradiction}")
    if top["kind"] == "wait" and top.get("ended_by"):
        statement += f" (the step ended at the line \"{top['ended_by']['text']}\")"
    return Finding(f"load_step_{top['kind'].replace('-', '_')}", f"load: {what}", statement, next_step)


def _load(f: _Facts, quote: str) -> Finding:
    read = _res(f, "load", "disk_read_mib")
    contradiction = ""
    if f.label == "warm" and _disk_high(f, read):
        # measured reads outrank the pre-run label: the program evicted, bypassed or re-read its files
        contradiction = (f"; the model files were in the page cache before the run (warm), yet {read:.0f} MiB were "
                         "read from disk during load: the measured reads outrank that label (the program evicted "
                         "or bypassed the page cache, or read other files)")
    by_steps = _load_steps_finding(f, quote, contradiction)
    if by_steps is not None:
        return by_steps
    if contradiction:
        return Finding("load_disk", "disk (reads measured during load)", quote + contradiction,
                       "find what reads the disk during load: O_DIRECT or --no-mmap loaders, files evicted by the "
                       "program itself, or files other than the model; keep them in the page cache")
    if f.label == "warm":
        return Finding("load_warm_slow", "deserialization / format conversion",
                       f"{quote}, although the model files were in the page cache (warm): the disk is not the limit",
                       _convert_advice(f, "use a format the backend maps directly (GGUF with mmap, safetensors) "
                                       "instead of one converted at load (pickle .bin, on-the-fly quantization, dtype "
                                       "casts); don't pass --no-mmap; check the quant type is native to the backend"))
    if f.label == "cold":
        if read is None:
            return Finding("load_cold_unknown", "load (disk or deserialization: disk reads not sampled)",
                           f"{quote}, on a cold page cache; disk reads during load were not sampled",
                           "run it once warm (--warmup 1) as well: a much faster warm load means the disk is the "
                           "limit")
        high = read >= (DISK_SHARE_OF_MODEL * f.model_mib if f.model_mib else DISK_READ_HIGH_MIB)
        size = f"; model files {f.model_mib:.0f} MiB" if f.model_mib else ""
        rate = read / f.phases["load_s"]
        reads = f"{read:.0f} MiB read from disk during load ({rate:.0f} MiB/s{size})"
        if high:
            return Finding("load_disk", "disk (cold page cache)", f"{quote}, on a cold page cache; {reads}",
                           "the disk is the limit: compare a warm run (--warmup 1), put the model on faster local "
                           "storage (NVMe), or keep it in the page cache between runs")
        return Finding("load_cold_little_read", "deserialization / format conversion",
                       f"{quote}, on a cold page cache, yet only {reads}: the disk is not the limit",
                       _convert_advice(f, "use a format the backend maps directly (GGUF with mmap, safetensors) "
                                       "instead of one converted at load; check the quant type is native to the "
                                       "backend"))
    state = "partly in the page cache" if f.label == "partial" else "not measured"
    return Finding("load_dominant", "load (quant format, mmap or disk)",
                   f"{quote}; page cache state: {state}",
                   "separate disk from deserialization: run once cold (--cold) and once warm (--warmup 1) and compare "
                   "load_s; check the quant format and that the model is mmap-ed (no --no-mmap)")


def rule_vram(f: _Facts) -> Result:
    best = None
    for phase in sorted(phase_table.NAMES, key=lambda name: name != "total"):  # the whole run first
        used, total = _res(f, phase, "vram_used_peak_mib"), _res(f, phase, "vram_total_mib")
        if used is not None and total:
            if best is None or used / total > best[1] / best[2]:
                best = (phase, used, total)
            if phase == "total":
                break
    if best is None:
        return "VRAM headroom (needs resources.*.vram_used_peak_mib and vram_total_mib)"
    phase, used, total = best
    if used / total < VRAM_FULL_SHARE:
        return None
    where = "" if phase == "total" else f" during {phase}"
    return Finding("vram_full", "VRAM nearly full",
                   f"peak VRAM {used:.0f} of {total:.0f} MiB ({used / total:.0%}){where}{_of_runs(f)}",
                   "lower the context length or the concurrency (parallel slots, batch size), or keep fewer layers / "
                   "a smaller quant on the GPU: at the limit frameworks spill to the CPU or fail to allocate")


def rule_offload(f: _Facts) -> Result:
    if not f.reported:
        return "CPU offload (needs the framework's own figures: reported.warnings / reported.gpu_layers)"
    lines = list(dict.fromkeys(w.get("line", "") for rep in f.reported for w in rep.get("warnings") or []
                               if w.get("kind") in OFFLOAD_KINDS))
    layers = [rep["gpu_layers"] for rep in f.reported if rep.get("gpu_layers")]
    partial = [g for g in layers if g.get("offloaded") is not None and g.get("total")
               and g["offloaded"] < g["total"]]
    if not lines and not partial:
        return None
    quoted = []
    if partial:
        quoted.append(f"{partial[0]['offloaded']}/{partial[0]['total']} layers on the GPU")
    quoted += [f'"{line}"' for line in lines[:MAX_QUOTED_LINES]]
    more = f" (+{len(lines) - MAX_QUOTED_LINES} more)" if len(lines) > MAX_QUOTED_LINES else ""
    return Finding("cpu_offload", "CPU offload", f"the framework reports work on the CPU: {'; '.join(quoted)}{more}",
                   "put every layer on the GPU (-ngl 99 / --n-gpu-layers) if VRAM allows; otherwise lower the "
                   "context or the concurrency, or use a smaller quant so the model fits")


def _material(f: _Facts, key: str) -> bool:
    share = _share(f, key)
    return share is None or share >= MATERIAL_SHARE


def rule_load_pegged(f: _Facts) -> Result:
    busiest, mean = _res(f, "load", "cpu_busiest_thread_pct_max"), _res(f, "load", "cpu_pct_mean")
    if busiest is None or mean is None:
        return "one core pegged during load (needs resources.load.cpu_busiest_thread_pct_max and cpu_pct_mean)"
    if f.buffered or not (busiest >= PEGGED_THREAD_PCT and mean < PEGGED_PROCESS_PCT_BELOW and _material(f, "load_s")):
        return None
    steps = sorted(f.load_steps, key=lambda st: -(st["dur_s"] or 0))
    if steps and steps[0]["kind"] == "cpu-single" and _dominant(f) == ("load", "load_s"):
        return None  # the load finding already names the one-core step, with its figures
    return Finding("load_one_core", "single-threaded deserialization / format conversion",
                   f"during load the busiest thread peaked at {busiest:.0f}% while the process averaged "
                   f"{mean:.0f}% CPU: one core pegged{_of_runs(f)}",
                   _convert_advice(f, "the load is bound to one core converting or parsing weights: use a "
                                   "pre-converted, mmap-able format (GGUF, safetensors) and avoid load-time "
                                   "quantization or dtype conversion"))


def rule_ttft_preprocessing(f: _Facts) -> Result:
    cpu, gpu = _res(f, "ttft", "cpu_pct_mean"), _res(f, "ttft", "gpu_util_mean")
    if cpu is None or gpu is None:
        return "CPU busy / GPU idle before the first token (needs resources.ttft.cpu_pct_mean and gpu_util_mean)"
    if not (cpu >= CPU_BUSY_PCT and gpu < GPU_IDLE_TTFT_PCT and _material(f, "ttft_s")):
        return None
    return Finding("ttft_cpu_preprocessing", "tokenization / preprocessing on the CPU",
                   f"before the first token the process averaged {cpu:.0f}% CPU while the GPU averaged "
                   f"{gpu:.0f}% utilization{_of_runs(f)}",
                   "the prompt is prepared on the CPU before the GPU starts: check tokenization, chat-template "
                   "rendering and image/audio preprocessing (pre-tokenize, use a fast tokenizer)")


def rule_decode_gpu_idle(f: _Facts) -> Result:
    gpu = _res(f, "decode", "gpu_util_mean")
    if gpu is None:
        return "GPU idle during decode (needs resources.decode.gpu_util_mean)"
    if not (gpu < GPU_IDLE_DECODE_PCT and _material(f, "decode_s")):
        return None
    return Finding("decode_gpu_idle", "GPU mostly idle during decode (small batch, per-token synchronisation)",
                   f"during decode the GPU averaged {gpu:.0f}% utilization{_of_runs(f)}",
                   "the GPU waits on the host between tokens: batch more requests, avoid per-token host syncs "
                   "(logging, callbacks, copying each token to the CPU), use CUDA graphs where the framework has "
                   "them")


def _seen_text(seen: Optional[dict]) -> str:
    """What the samplers saw during a stall, in words."""
    if not seen:
        return "no samples"
    parts = []
    if seen.get("gpu_util_mean") is not None:
        parts.append(f"GPU {seen['gpu_util_mean']:.0f}%")
    if seen.get("cpu_pct_mean") is not None:
        parts.append(f"CPU {seen['cpu_pct_mean']:.0f}%")
    if seen.get("disk_read_mib"):
        parts.append(f"{seen['disk_read_mib']:.1f} MiB read from disk")
    if seen.get("major_faults"):
        parts.append(f"{seen['major_faults']:.0f} major page faults")
    return ", ".join(parts) or "no samples"


def _stutter_cause(stalls: list) -> str:
    """The next step that fits what the samplers saw during the stalls."""
    seen = [s.get("seen") or {} for s in stalls]
    if any(s.get("disk_read_mib") or s.get("major_faults") for s in seen):
        return ("the stalls come with disk reads / page faults: weights or KV cache are paged in or swapped; keep the "
                "model resident (--mlock, more free RAM, no other memory-hungry process) or use a smaller quant")
    gpu = [s["gpu_util_mean"] for s in seen if s.get("gpu_util_mean") is not None]
    cpu = [s["cpu_pct_mean"] for s in seen if s.get("cpu_pct_mean") is not None]
    if gpu and max(gpu) < GPU_IDLE_DECODE_PCT and cpu and max(cpu) >= CPU_BUSY_PCT:
        return ("the GPU idles while the CPU works during the stalls: host-side work between tokens (logging flush, "
                "garbage collection, detokenization, a callback); move it out of the generation loop")
    if gpu and min(gpu) >= 50:
        return ("the GPU is busy during the stalls: something else runs on it (another process, a KV-cache "
                "reallocation or defragmentation as the context grows); check nvidia-smi for other processes and "
                "reserve the context up front")
    if cpu and max(cpu) < 10 and (not gpu or max(gpu) < GPU_IDLE_DECODE_PCT):
        return ("the process is idle during the stalls: it waits on something outside (output pipe, lock, I/O, "
                "scheduler); check what it blocks on (py-spy / perf) at those times")
    return ("check what happens at the stall times: KV-cache growth, logging flushes, swap, other GPU processes "
            "(run with GPU and CPU sampling to see which)")


def rule_decode_stalls(f: _Facts) -> Result:
    """Stuttering decode (stalls) vs steady-but-slow decode (every token equally slow)."""
    g = f.gaps
    if g is None or f.buffered:
        return None  # records older than the gap fields, or gaps of one burst: nothing to say
    if not g:
        return "stutter vs steady decode (needs decode_gaps_ms: two or more token reads)"
    if not _material(f, "decode_s"):
        return None
    runs = f" (median of {g['runs']} runs)" if g["runs"] > 1 else ""
    dist = f"p50 gap {g['p50_ms']:.1f} ms, p99 {g['p99_ms']:.1f} ms{runs}"
    if (g["share"] or 0.0) >= STUTTER_SHARE:
        quoted = "; ".join(f"at {s['t_s']:.2f} s a {s['gap_ms']:.0f} ms gap (" + _seen_text(s.get("seen")) + ")"
                           for s in sorted(g["worst_stalls"], key=lambda s: -s["gap_ms"])[:QUOTED_STALLS])
        return Finding("decode_stutter", "stuttering decode (stalls)",
                       f"{g['worst_total']} stalls took {g['worst_share']:.0%} of decode: {quoted}; {dist}",
                       _stutter_cause(g["worst_stalls"]))
    if g["p50_ms"] and g["p99_ms"] < STEADY_P99_OVER_P50 * g["p50_ms"] and "decode" not in f.limits:
        return Finding("decode_steady", "steady but slow decode (per-token cost)",
                       f"decode is steady: {dist}, stalls {g['share']:.0%} of decode: every token costs about the "
                       "same, so the per-token work itself is the limit",
                       "per-token cost is set by memory bandwidth and batch size: a smaller quant or fewer active "
                       "parameters, faster memory, more requests per batch, or speculative decoding")
    return None


def rule_decode_limit(f: _Facts) -> Result:
    """Decode against its floor, where decode is not the dominant phase (``rule_phases`` says it there)."""
    dom = _dominant(f)
    if "decode" not in f.limits or (dom is not None and dom[0] == "decode") or not f.ms_per_token:
        return None
    return _limit_finding(f, "decode", f"decode {f.ms_per_token:.2f} ms/token")


RULES = (rule_phases, rule_decode_limit, rule_vram, rule_offload, rule_load_pegged, rule_ttft_preprocessing,
         rule_decode_gpu_idle, rule_decode_stalls)


def diagnose(records: Sequence[dict]) -> list[Finding]:
    """Findings for a set of runs of one configuration, most important first.

    Runs are pooled by ``records_io.pool_key`` (never cold with warm): the largest pool is diagnosed, and a
    ``mixed_cache`` finding names the runs left out. The phase-share finding comes first, then VRAM, CPU offload,
    and the per-phase resource signals; a last ``not_checked`` finding names the data each skipped check needed.
    With no record (warm-up runs don't count), one ``no_data`` finding. Failed runs come first (``run_failed``)
    and out of the statistics; a sweep (runs whose tags differ) is diagnosed variant by variant (``_by_variant``).
    """
    failed = [r for r in records if r.get("failure") and not accessors.is_warmup(r)]
    if failed:
        return _with_failures(failed, [r for r in records if not r.get("failure")])
    by_variant = sweep.variants(records)
    if len(by_variant) > 1:
        return _by_variant(records, by_variant)
    pools = records_io.group(records)
    if not pools:
        return [Finding("no_data", "unknown (no runs)", "no run records to diagnose (warm-up runs are left out)",
                        "record runs first: phasewrap run --jsonl FILE -- CMD")]
    key = max(pools, key=lambda k: len(pools[k]))
    f = _facts(pools[key])
    findings, unchecked = [], []
    for rule in RULES:
        result = rule(f)
        if isinstance(result, Finding):
            findings.append(result)
        elif isinstance(result, str):
            unchecked.append(result)
    if len(pools) > 1:
        others = ", ".join(f"{records_io.describe_key(k)} × {len(v)}" for k, v in pools.items() if k != key)
        findings.append(Finding("mixed_cache", "mixed page-cache states",
                                f"runs with different cache labels are never pooled: diagnosed "
                                f"{records_io.describe_key(key)} ({len(pools[key])} runs), left out {others}",
                                "diagnose the other runs on their own (select them by tag)"))
    if unchecked:
        lead = "these checks were not run for lack of data: "
        if not f.resources:
            lead = "the records carry no resource samples (no `resources`); " + lead
        findings.append(Finding("not_checked", "not checked", lead + "; ".join(unchecked),
                                "run with GPU and CPU sampling available (NVML / nvidia-smi, psutil) and a framework "
                                "profile that parses its log, then diagnose again"))
    return findings


def _by_variant(records: Sequence[dict], by_variant: dict) -> list[Finding]:
    """A sweep: what each tag moved, then each variant diagnosed on its own (never pooled into one median); the
    checks no variant's data allowed are named once, at the end."""
    effects = sweep.effect_lines(records)
    findings = [Finding("sweep_effect", "sweep: what each tag moved", "; ".join(e[len("sweep: "):] for e in effects),
                        "each variant is diagnosed on its own below: look at the one whose dominant phase costs "
                        "most, and keep the tag value that shortens the phase you care about")]
    unchecked = None
    for name, runs in by_variant.items():
        for finding in diagnose(runs):
            if finding.rule == "not_checked":
                unchecked = unchecked or finding
            else:
                findings.append(replace(finding, variant=name))
    return findings + ([unchecked] if unchecked else [])


def _with_failures(failed: Sequence[dict], rest: Sequence[dict]) -> list[Finding]:
    """Failed runs first and on their own: their phases are cut short, so no tuning advice rests on them."""
    from ..core.safe import one_line

    first = failed[0]["failure"]
    last = ""
    if first["last_lines"]:
        last = f"; its last line on std{first['stream']}: \"{one_line(first['last_lines'][-1])}\""
    runs = len(failed) + len([r for r in rest if not accessors.is_warmup(r)])
    finding = Finding("run_failed", "the run did not complete", f"{len(failed)} of {runs} run(s) did not complete: "
                      f"{first['how']} (run {failed[0].get('run_id')}){last}",
                      "fix what made it fail (the lines above), then measure again: a failed run's timings say "
                      "nothing about its bottleneck")
    return [finding] + (diagnose(rest) if any(not accessors.is_warmup(r) for r in rest) else [])


def render(findings: Sequence[Finding]) -> str:
    """Findings as numbered text: ``1. [bottleneck] statement`` with the next step beneath."""
    lines = []
    for i, finding in enumerate(findings, 1):
        variant = f"{finding.variant}: " if finding.variant else ""
        lines.append(f"{i}. {variant}[{finding.bottleneck}] {finding.statement}")
        lines.append(f"   next: {finding.next_step}")
    return "\n".join(lines) + "\n"
