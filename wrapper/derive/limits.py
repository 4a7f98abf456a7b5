"""How far each phase is from what the hardware allows: the record's ``model``, ``hardware`` and ``limits``.

Pure: the model file's facts and the host's peaks are measured before the run (``measure.model_facts``,
``measure.hardware``) and arrive in ``LimitsInput``; what the log printed (llama.cpp's model summary and buffer
sizes, vLLM's weights in GiB) and what the user gave (``--model-bytes``, ``--active-bytes``, ``--peak``) fill the
gaps. A floor is the time the bytes a phase must move take at the peak rate of the resource they move through:

* ``load``: the bytes read from disk ÷ the disk's rate, or (a warm page cache) the model's bytes ÷ the page-cache
  copy rate; the bytes uploaded to the GPU ÷ the PCIe rate when VRAM grew. The larger of the two: reading and
  uploading can overlap. Per load step too, for the steps that read from disk.
* ``ttft``: one pass over the active weights (as decode's per-token floor): the compute a prompt needs is not
  counted (no peak FLOPs are known), so this floor is low for long prompts.
* ``decode``: per token, Σ over devices of the weight bytes resident there per token ÷ that device's bandwidth, plus
  the KV cache read per token at the run's mean context.

``efficiency`` = floor ÷ measured. Above ``PLAUSIBLE_MAX`` an assumption is wrong (the model fits in a cache, the
weights live on another device): ``efficiency`` is null and ``over_limit`` says so.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..model import phases as phase_table

RESOURCES = ("gpu-memory", "cpu-memory", "disk", "pcie", "page-cache")
PLAUSIBLE_MAX = 1.05
READ_MIN_MIB = 1.0  # a load or load step that read less from disk has no disk floor: its reads were incidental
_MIB = 1 << 20
_GB = 1e9
CPU_MOE_FLAGS = ("--n-cpu-moe", "-ncmoe", "--cpu-moe", "-cmoe")  # llama.cpp: experts kept in system RAM
GPU_ONLY_FRAMEWORKS = ("vllm", "sglang", "tensorrt-llm")  # they keep the weights in GPU memory (no CPU offload here)


@dataclass
class LimitsInput:
    """What was measured or given before the record is built (all optional: a log alone gives none of it)."""

    model_path: Optional[str] = None       # --model-path: the model, when the command line doesn't say
    model_file: Optional[dict] = None      # measure.model_facts.read(), source "file"
    model_reason: Optional[str] = None     # why model_file is None
    model_bytes: Optional[float] = None    # --model-bytes
    active_bytes: Optional[float] = None   # --active-bytes
    hardware: Optional[dict] = None        # measure.hardware.probe(): {"peaks": {resource: {...}}, ...}
    hardware_reason: Optional[str] = None  # why hardware is None
    peaks: dict = field(default_factory=dict)  # --peak RESOURCE=GBPS
    disk_read_peak_mib_s: Optional[float] = None  # the run's own fastest read interval during load


def parse_peak(text: str) -> tuple[str, float]:
    """``gpu-memory=4800`` → ("gpu-memory", 4800.0); ValueError naming the fix."""
    name, eq, value = text.partition("=")
    if not eq or name not in RESOURCES:
        raise ValueError(f"--peak: {text!r} is not RESOURCE=GBPS with RESOURCE one of {', '.join(RESOURCES)}")
    try:
        gbps = float(value)
    except ValueError:
        raise ValueError(f"--peak: {value!r} is not a number of GB/s (e.g. --peak {name}=24.5)") from None
    if not gbps > 0 or gbps == float("inf"):
        raise ValueError(f"--peak: {name} must be a positive number of GB/s, got {value}")
    return name, gbps


# -- the model -----------------------------------------------------------------------------------------------

def _from_log(reported: Optional[dict]) -> Optional[dict]:
    """The model as the framework's log describes it (llama.cpp's summary, vLLM's weights), ``source`` "log"."""
    extra = (reported or {}).get("extra") or {}
    info = extra.get("model_info") or {}
    size = info.get("file_bytes")
    if size is None:
        # vLLM prints GiB, labelled "GB" before 2025 (model_weights_gb)
        gib = extra.get("model_weights_gib") or extra.get("model_loading_gib") or extra.get("model_weights_gb")
        size = None if gib is None else round(gib * (1 << 30))
    if size is None:
        return None
    count, used = info.get("expert_count"), info.get("expert_used")
    experts = ({"count": count, "used": used, "expert_bytes": None, "dense_bytes": None} if count else None)
    return {"path": None, "format": None, "bytes": size, "params": info.get("params"), "arch": info.get("arch"),
            "layers": info.get("layers"), "dtype_bytes": None, "experts": experts,
            "active_bytes_per_token": None if experts else size, "kv_bytes_per_token": None, "source": "log"}


def model_section(inputs: Optional[LimitsInput], reported: Optional[dict]) -> tuple[Optional[dict], Optional[str]]:
    """(the record's ``model``, why it is null): the file's facts, else the log's, with the user's figures over
    either."""
    inputs = inputs or LimitsInput()
    model = dict(inputs.model_file) if inputs.model_file else _from_log(reported)
    if inputs.model_bytes is not None or inputs.active_bytes is not None:
        model = model or {"path": None, "format": None, "bytes": None, "params": None, "arch": None, "layers": None,
                          "dtype_bytes": None, "experts": None, "active_bytes_per_token": None,
                          "kv_bytes_per_token": None}
        if inputs.model_bytes is not None:
            model["bytes"] = round(inputs.model_bytes)
            if not model.get("experts") and inputs.active_bytes is None:
                model["active_bytes_per_token"] = round(inputs.model_bytes)
        if inputs.active_bytes is not None:
            model["active_bytes_per_token"] = round(inputs.active_bytes)
        model["source"] = "user"
    if model is None:
        why = inputs.model_reason or "no model file named on the command line"
        return None, f"{why}; the log printed no model size (pass --model-path PATH or --model-bytes N)"
    return model, None


# -- the hardware --------------------------------------------------------------------------------------------

def hardware_section(inputs: Optional[LimitsInput]) -> tuple[Optional[dict], Optional[str]]:
    """(the record's ``hardware``, why it is null): the probed peaks with ``--peak`` over them."""
    inputs = inputs or LimitsInput()
    if inputs.hardware is None and not inputs.peaks:
        return None, inputs.hardware_reason or "not probed (pass --peak RESOURCE=GBPS)"
    unprobed = inputs.hardware_reason or "not probed"
    hardware = dict(inputs.hardware or {"host": None, "cpu": None, "gpus": None, "cached": None, "peaks": {
        r: {"gbps": None, "source": None, "reason": f"{unprobed} (pass --peak {r}=GBPS)"} for r in RESOURCES}})
    peaks = {r: dict(v) for r, v in hardware["peaks"].items()}
    for name, gbps in inputs.peaks.items():
        peaks[name] = {"gbps": gbps, "source": "user (--peak)", "reason": None}
    hardware["peaks"] = peaks
    return hardware, None


def _gbps(hardware: Optional[dict], resource: str) -> tuple[Optional[float], str]:
    """(GB/s, its source or why unknown) of one resource."""
    peak = ((hardware or {}).get("peaks") or {}).get(resource) or {}
    if peak.get("gbps"):
        return peak["gbps"], peak.get("source") or "?"
    return None, peak.get("reason") or f"no {resource} peak known (pass --peak {resource}=GBPS)"


def _mb(n_bytes: float) -> str:
    if n_bytes < 1e7:
        return f"{n_bytes / 1e6:.2f} MB"
    return f"{n_bytes / 1e6:.0f} MB" if n_bytes < 1e10 else f"{n_bytes / _GB:.1f} GB"


def _judge(floor: float, measured: Optional[float]) -> dict:
    """efficiency = floor ÷ measured, or null with ``over_limit`` where it breaks the limit."""
    if not measured:
        return {"efficiency": None, "over_limit": None}
    ratio = floor / measured
    if ratio > PLAUSIBLE_MAX:
        return {"efficiency": None, "over_limit": {
            "ratio": round(ratio, 3), "reason": "faster than the hardware allows: an assumption is wrong (the "
            "weights fit in a cache, live on another device, or the peak or the model's bytes are off)"}}
    return {"efficiency": round(ratio, 3), "over_limit": None}


# -- where the bytes of a token live -------------------------------------------------------------------------

def _flag_value(command: list, flags: tuple) -> Optional[str]:
    for i, arg in enumerate(command):
        name, eq, value = arg.partition("=")
        if name in flags:
            return value if eq else (command[i + 1] if i + 1 < len(command) else None)
    return None


def _gpu_share(rep: dict, command: list, layers: Optional[int]) -> tuple[Optional[float], str]:
    """The share of the layers on a GPU: llama.cpp's ``offloaded N/M layers``, else ``-ngl N``."""
    offload = rep.get("gpu_layers")
    if offload and offload.get("total"):
        return offload["offloaded"] / offload["total"], f"offloaded {offload['offloaded']}/{offload['total']} layers"
    ngl = _flag_value(command, ("-ngl", "--n-gpu-layers", "--gpu-layers"))
    if ngl is not None and ngl.lstrip("-").isdigit():
        n = int(ngl)
        if n == 0:
            return 0.0, "-ngl 0"
        if layers and 0 < n < layers:
            return n / layers, f"-ngl {n} of {layers} layers"
        if n >= (layers or 99) or n < 0:
            return 1.0, f"-ngl {ngl}" + (f" (all {layers} layers)" if layers else " (all layers)")
    return None, ""


def _host_model_bytes(rep: dict) -> tuple[Optional[float], Optional[float]]:
    """(host, device) model buffer bytes from llama.cpp's buffer lines."""
    from .frameworks.llama_cpp import is_host

    buffers = rep.get("buffers") or {}
    host = sum((b.get("model_mib") or 0) for d, b in buffers.items() if is_host(d)) * _MIB
    device = sum((b.get("model_mib") or 0) for d, b in buffers.items() if not is_host(d)) * _MIB
    return (host, device) if host or device else (None, None)


def _expert_split(experts: dict, on_cpu_bytes: float) -> Optional[dict]:
    """Expert bytes read per token from system RAM and from VRAM, ``on_cpu_bytes`` of the experts' bytes living
    in host memory."""
    if not experts.get("expert_bytes") or not experts.get("used") or not experts.get("count"):
        return None
    routed = experts["used"] / experts["count"]
    return {"cpu-memory": round(on_cpu_bytes * routed),
            "gpu-memory": round((experts["expert_bytes"] - on_cpu_bytes) * routed)}


def placement(model: dict, rep: dict, command: list, hardware: Optional[dict]) -> tuple[Optional[dict], str,
                                                                                         Optional[dict]]:
    """({resource: weight bytes read there per token}, how that was found, the experts' share of them by
    resource); (None, why, None) when unknown."""
    active = model.get("active_bytes_per_token")
    if not active:
        return None, "the model's active bytes per token are unknown (pass --active-bytes N)", None
    experts = model.get("experts") or {}
    moe = rep.get("moe_experts_cpu") or {}
    host, device = _host_model_bytes(rep)
    overridden = (any(moe.get(k) for k in ("exps_tensors_cpu", "cpu_model_mib", "n_cpu_moe"))
                  or any(a.partition("=")[0] in CPU_MOE_FLAGS for a in command))
    if experts.get("expert_bytes") and experts.get("used") and overridden and host is not None and device:
        expert_host = min(host, experts["expert_bytes"])
        on_cpu = min(active, expert_host * experts["used"] / experts["count"] + max(0.0, host - expert_host))
        return ({"cpu-memory": on_cpu, "gpu-memory": active - on_cpu},
                f"experts in host buffers ({_mb(host)} host, {_mb(device)} device model buffers)",
                _expert_split(experts, expert_host))
    share, why = _gpu_share(rep, command, model.get("layers"))
    if share is None and rep.get("framework") in GPU_ONLY_FRAMEWORKS:
        share, why = 1.0, f"{rep['framework']} keeps the weights in GPU memory"
    if share is None and host is not None:
        share, why = device / (host + device), f"model buffers: {_mb(host)} host, {_mb(device)} device"
    if share is None:
        if (hardware or {}).get("gpus") == []:  # the probe found no NVIDIA driver: nothing to offload to
            share, why = 0.0, "no GPU on this host"
        else:
            return None, "where the weights live is not in the log (no buffer sizes, no offload line, no -ngl)", None
    out = {}
    if share < 1:
        out["cpu-memory"] = active * (1 - share)
    if share > 0:
        out["gpu-memory"] = active * share
    return out, why, _expert_split(experts, (experts.get("expert_bytes") or 0) * (1 - share))


# -- the floors ----------------------------------------------------------------------------------------------

def _label(resource: str) -> str:
    return resource.replace("-", " ")


def _memory_floor_s(per_device: dict, hardware: Optional[dict]) -> tuple[Optional[float], Optional[str], list, str]:
    """(seconds, the resource that dominates, evidence parts, why null) to read ``per_device`` bytes once."""
    total_s, parts, worst = 0.0, [], (0.0, None)
    for resource, n_bytes in per_device.items():
        if n_bytes <= 0:
            continue
        gbps, source = _gbps(hardware, resource)
        if gbps is None:
            return None, None, [], f"{_label(resource)} bandwidth unknown: {source}"
        t = n_bytes / (gbps * _GB)
        total_s += t
        parts.append(f"{_mb(n_bytes)}/token at {gbps:.1f} GB/s, {_label(resource)} ({source})")
        worst = max(worst, (t, resource))
    return total_s, worst[1], parts, ""


def _decode(rec: dict, model: Optional[dict], hardware: Optional[dict],
            rep: dict) -> tuple[Optional[dict], str, Optional[float]]:
    """(decode's floor, why it is null, seconds for one pass over the weights alone: TTFT's floor)."""
    measured = rec.get("ms_per_token")
    if model is None:
        return None, "the model is unknown (see model)", None
    where, how, experts = placement(model, rep, rec.get("command") or [], hardware)
    if where is None:
        return None, how, None
    per_device = dict(where)
    tokens = rec.get("tokens") or {}
    kv, context = model.get("kv_bytes_per_token"), None
    if kv and tokens.get("input") is not None:
        context = tokens["input"] + (tokens.get("output") or 0) / 2
        home = max(where, key=where.get)
        per_device[home] = per_device[home] + kv * context
    floor_s, bound, parts, why = _memory_floor_s(per_device, hardware)
    if floor_s is None:
        return None, why, None
    kv_note = (f"; KV {_mb(kv * context)}/token at a mean context of {context:.0f} tokens" if context is not None
               else "; KV cache not counted (" + ("the prompt's token count is unknown)" if kv else
                                                  "the model's KV size is unknown)"))
    out = {"floor_ms_per_token": round(floor_s * 1000, 4), "measured_ms_per_token": measured,
           **_judge(floor_s * 1000, measured), "bound_by": bound,
           "bytes_per_token": {r: round(b) for r, b in per_device.items()},
           "gbps": {r: _gbps(hardware, r)[0] for r in per_device},
           "expert_bytes_per_token": experts,
           "evidence": "; ".join(parts) + kv_note + f"; placement: {how}"}
    return out, "", _memory_floor_s(where, hardware)[0]


def _ttft(rec: dict, decode: Optional[dict], weights_s: Optional[float]) -> Optional[dict]:
    """One pass over the weights: null where decode's floor is (its reason says why)."""
    if decode is None or weights_s is None:
        return None
    measured = (rec.get("phases") or {}).get("ttft_s")
    out = {"floor_s": round(weights_s, 6), "measured_s": measured, **_judge(weights_s, measured),
           "bound_by": decode["bound_by"],
           "evidence": "one pass over the active weights; the prompt's compute is not counted (no peak FLOPs known)"}
    return out


def _read_rate(hardware: Optional[dict], inputs: LimitsInput) -> tuple[Optional[float], str]:
    gbps, source = _gbps(hardware, "disk")
    if gbps is None and inputs.disk_read_peak_mib_s:
        return inputs.disk_read_peak_mib_s * _MIB / _GB, ("this run's fastest sampled read interval "
                                                          "(a lower bound on the disk's rate)")
    return gbps, source


def _step_floors(steps: list, rate_gbps: float) -> list:
    out = []
    for step in steps or ():
        read_mib = (step.get("resources") or {}).get("disk_read_mib")
        if not read_mib or read_mib < READ_MIN_MIB or not step.get("dur_s"):
            continue  # a step that read (next to) nothing has no disk floor
        floor_s = read_mib * _MIB / (rate_gbps * _GB)
        out.append({"name": step["name"], "floor_s": round(floor_s, 6), "measured_s": step["dur_s"],
                    **_judge(floor_s, step["dur_s"]), "bound_by": "disk",
                    "evidence": f"read {read_mib:.0f} MiB at {rate_gbps:.2f} GB/s"})
    return out


def _load_terms(rec: dict, model: Optional[dict], hardware: Optional[dict], inputs: LimitsInput) -> tuple[list, str]:
    """[(seconds, resource, evidence)] for the bytes the load must read and upload; ([], why) when none is known."""
    load = ((rec.get("resources") or {}).get("load") or {})
    cache = rec.get("cache") if isinstance(rec.get("cache"), dict) else {}
    terms, why = [], "neither the bytes read from disk (a CPU sampler) nor the model's size and cache state are known"
    read_mib = load.get("disk_read_mib")
    read_b = read_mib * _MIB if read_mib and read_mib >= READ_MIN_MIB else None
    source = "read during load"
    if read_b is None and model and model.get("bytes") and cache.get("label") == "cold":
        read_b, source = model["bytes"], "the model's bytes, page cache cold"
    if read_b:
        rate, rate_source = _read_rate(hardware, inputs)
        if rate is None:
            return [], f"disk rate unknown: {rate_source}"
        terms.append((read_b / (rate * _GB), "disk", f"{_mb(read_b)} {source} at {rate:.2f} GB/s ({rate_source})"))
    elif model and model.get("bytes") and cache.get("label") == "warm":
        rate, rate_source = _gbps(hardware, "page-cache")
        if rate is None:
            return [], f"page-cache copy rate unknown: {rate_source}"
        terms.append((model["bytes"] / (rate * _GB), "page-cache",
                      f"{_mb(model['bytes'])} from a warm page cache at {rate:.1f} GB/s ({rate_source})"))
    grown = sum(max(0.0, (s.get("resources") or {}).get("vram_growth_mib") or 0) for s in rec.get("load_steps") or ())
    if grown:
        rate, rate_source = _gbps(hardware, "pcie")
        if rate is not None:
            terms.append((grown * _MIB / (rate * _GB), "pcie",
                          f"{_mb(grown * _MIB)} uploaded to VRAM at {rate:.1f} GB/s ({rate_source})"))
        elif terms:
            terms[0] = terms[0][:2] + (f"{terms[0][2]}; the {_mb(grown * _MIB)} uploaded to VRAM not counted "
                                       f"({rate_source})",)
    return terms, why


def _load(rec: dict, model: Optional[dict], hardware: Optional[dict], inputs: LimitsInput) -> tuple[Optional[dict], str]:
    terms, why = _load_terms(rec, model, hardware, inputs)
    if not terms:
        return None, why
    floor_s, bound, _ = max(terms)
    measured = (rec.get("phases") or {}).get("load_s")
    out = {"floor_s": round(floor_s, 6), "measured_s": measured, **_judge(floor_s, measured), "bound_by": bound,
           "evidence": "; ".join(t[2] for t in terms), "steps": []}
    if bound == "disk":
        out["steps"] = _step_floors(rec.get("load_steps"), _read_rate(hardware, inputs)[0])
    return out, ""


def limits_section(rec: dict, inputs: Optional[LimitsInput], reported: Optional[dict]) -> tuple[dict, list]:
    """(the record's ``limits``: {load, ttft, decode}, each a floor or null; the reasons for the nulls)."""
    inputs = inputs or LimitsInput()
    model, hardware = rec.get("model"), rec.get("hardware")
    rep = reported or {}
    decode, decode_why, weights_s = _decode(rec, model, hardware, rep)
    ttft = _ttft(rec, decode, weights_s)
    load, load_why = _load(rec, model, hardware, inputs)
    found = {"load": (load, load_why), "ttft": (ttft, ""), "decode": (decode, decode_why)}  # ttft: as decode
    if load is None and decode is None:
        why = decode_why if model is not None else "needs the model's size (see model) or the bytes the load read"
        return dict.fromkeys(p.name for p in phase_table.TIMED), [{"field": "limits", "reason": why}]
    missing = [{"field": f"limits.{name}", "reason": why} for name, (value, why) in found.items()
               if value is None and why]
    return {name: value for name, (value, _why) in found.items()}, missing


def fastest_read_mib_s(samples, start_ns: int, end_ns: int, min_interval_s: float = 0.5) -> Optional[float]:
    """The fastest disk read rate between two consecutive samples of one CPU sampler inside [start, end]: what
    the disk delivered at least, when no probe measured it."""
    last: dict = {}
    best = None
    for s in sorted(samples, key=lambda x: x.t_ns):
        total = s.values.get("disk_read_bytes_total")
        if total is None or not start_ns <= s.t_ns <= end_ns:
            continue
        key = (s.source, s.device)
        if key in last:
            t_ns, before = last[key]
            dt_s = (s.t_ns - t_ns) / 1e9
            if dt_s >= min_interval_s:
                rate = (total - before) / _MIB / dt_s
                best = rate if best is None or rate > best else best
                last[key] = (s.t_ns, total)
            continue
        last[key] = (s.t_ns, total)
    return None if best is None else round(best, 3)


# -- for people ----------------------------------------------------------------------------------------------

def _share_text(entry: dict) -> str:
    if entry.get("efficiency") is not None:
        return f"{entry['efficiency']:.0%} of the limit"
    over = entry.get("over_limit")
    if over:
        return f"faster than this floor allows (×{over['ratio']:g}): an assumption is wrong, not a result"
    return "not measured"


def summary_lines(record: dict) -> list:
    """One line per phase with a floor, e.g. ``decode 13.95 ms/token · floor 13.1 ms (319 MB/token at 24.3 GB/s,
    cpu memory) · 94 % of the limit``; and, for a mixture of experts, where its expert bytes come from."""
    limits = record.get("limits") or {}
    lines = []
    load = limits.get("load")
    if load:
        lines.append(f"load {load['measured_s'] or 0:.2f} s · floor {load['floor_s']:.2f} s ({load['evidence']}) · "
                     f"{_share_text(load)}" if load.get("measured_s") is not None else
                     f"load floor {load['floor_s']:.2f} s ({load['evidence']})")
    ttft = limits.get("ttft")
    if ttft and ttft.get("measured_s") is not None:
        lines.append(f"TTFT {ttft['measured_s']:.3g} s · floor {ttft['floor_s']:.3g} s (one pass over the weights, "
                     f"{_label(ttft['bound_by'])}; the prompt's compute not counted) · {_share_text(ttft)}")
    decode = limits.get("decode")
    if decode:
        parts = " + ".join(f"{_mb(b)}/token at {decode['gbps'][r]:.1f} GB/s, {_label(r)}"
                           for r, b in decode["bytes_per_token"].items())
        measured = decode.get("measured_ms_per_token")
        head = f"decode {measured:.2f} ms/token · " if measured is not None else "decode "
        lines.append(f"{head}floor {decode['floor_ms_per_token']:.3g} ms ({parts}) · {_share_text(decode)}")
        experts = decode.get("expert_bytes_per_token")
        if experts:
            lines.append(f"experts: {_mb(experts['cpu-memory'])}/token from system RAM, "
                         f"{_mb(experts['gpu-memory'])}/token from VRAM")
    return lines
