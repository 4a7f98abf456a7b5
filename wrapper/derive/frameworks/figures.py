"""The reported-figures dict every family parser fills, and ``Runs``: the ordered list of them for one log.

One dict per run or request, all keys always present::

    framework        llama.cpp | llama-server | llama-bench | ollama | koboldcpp | text-generation-webui | vllm |
                     mlx_lm | sglang | tgi | tensorrt-llm | transformers | unknown
    version          str as printed after "build:"/"build ="/"version:" etc., or None
    load_ms, prompt_eval_ms, eval_ms, total_ms, sampling_ms        float milliseconds
    prompt_tokens, eval_tokens                                     int
    prompt_tps, eval_tps                                           float tokens per second
    gpu_layers       {"offloaded": int, "total": int}
    buffers          {device: {"model_mib", "kv_mib", "compute_mib"}}  (each float MiB or None)
    moe_experts_cpu  dict of what the log says about MoE expert tensors kept on the CPU (see llama_cpp.py)
    peak_memory_gb   float (mlx_lm)
    extra            dict of family-specific figures; key names carry their unit
    warnings         [{"kind": "oom" | "cpu_fallback" | "offload_cpu", "line": the log line as printed}]
    ttft_ms          float milliseconds: time to first token as the log states it (general reader only)
    figures          [{"label", "value", "unit", "kind", "line"}]: labelled figures the general reader
                     (generic/) found on lines no family read; at most generic.MAX_FIGURES per log
    sources          None, or {core key: "generic"} for the core keys the general reader filled (no family did)
    unparsed         None, or {"count": int, "lines": [up to MAX_UNPARSED_EXAMPLES lines as printed]}: lines the
                     family recognised as its figure lines (a timing block's line, a server's timing line) but
                     could not read — a format this version doesn't know yet; send them in

A value the log did not print is ``None``, never 0 or an estimate (a printed 0, as in ``prompt eval time = 0.00 ms
/ 0 tokens``, stays 0); a rate printed as ``nan``/``inf`` is ``None``. Times stay in the unit printed unless the
log printed seconds or a Go/Rust duration, which become milliseconds exactly (``Decimal``); sizes printed in GiB
or bytes become MiB where the key says ``_mib``.

Warnings: at most one per line (the most specific rule wins), at most MAX_WARNINGS per run, each line cut to
MAX_LINE_CHARS; a warning belongs to the run being filled when it was printed.

Attribution: figures printed once at startup (load/offload/buffer lines, a server's load time) belong to the run
that follows them, i.e. the first run of a server; later runs carry ``None`` there. ``version`` belongs to every
run. A figure that is already set in the current run starts a new run (two perf blocks, two ``--verbose``
blocks), and so does a startup figure arriving after the current run already has run figures (a second load).
"""
from __future__ import annotations

from typing import Any, Callable

REPORT_KEYS = (
    "framework", "version", "load_ms", "prompt_eval_ms", "prompt_tokens", "eval_ms", "eval_tokens", "total_ms",
    "sampling_ms", "prompt_tps", "eval_tps", "gpu_layers", "buffers", "moe_experts_cpu", "peak_memory_gb",
    "extra", "warnings", "unparsed", "ttft_ms", "figures", "sources",
)
RUN_KEYS = ("load_ms", "prompt_eval_ms", "prompt_tokens", "eval_ms", "eval_tokens", "total_ms", "sampling_ms",
            "prompt_tps", "eval_tps", "peak_memory_gb", "ttft_ms")
# The core keys the general reader (generic/) may fill where no family did.
GENERIC_CORE_KEYS = ("load_ms", "prompt_eval_ms", "prompt_tokens", "eval_ms", "eval_tokens", "total_ms", "prompt_tps",
                     "eval_tps", "ttft_ms")
_RUN_KEY_SET = frozenset(RUN_KEYS)
STARTUP_KEYS = ("gpu_layers", "buffers", "moe_experts_cpu")
BUFFER_KINDS = ("model_mib", "kv_mib", "compute_mib")
MAX_WARNINGS = 50
MAX_UNPARSED_EXAMPLES = 5
MAX_LINE_CHARS = 500


def new_report(framework: str) -> dict:
    """An empty report: every key present, nothing claimed."""
    report = dict.fromkeys(REPORT_KEYS)
    report["framework"] = framework
    report["extra"] = {}
    report["warnings"] = []
    report["figures"] = []
    return report


def _has_content(report: dict) -> bool:
    return (any(report[k] is not None for k in RUN_KEYS + STARTUP_KEYS)
            or bool(report["extra"]) or bool(report["warnings"]) or report["unparsed"] is not None
            or bool(report["figures"]))


def _copy(value: Any) -> Any:
    """Deep copy of JSON-shaped data (dicts, lists, scalars): what reports hold; faster than copy.deepcopy."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _copy_report(report: dict) -> dict:
    """Deep copy of a report, copying only the keys that can hold containers."""
    out = report.copy()
    out["extra"] = _copy(report["extra"])
    out["warnings"] = [w.copy() for w in report["warnings"]]
    out["figures"] = [f.copy() for f in report["figures"]]
    if report["sources"] is not None:
        out["sources"] = dict(report["sources"])
    if report["unparsed"] is not None:
        out["unparsed"] = _copy(report["unparsed"])
    for key in STARTUP_KEYS:
        if out[key] is not None:
            out[key] = _copy(out[key])
    return out


Finalizer = Callable[[dict, dict], None]


class Runs:
    """The reports of one log in order: finished ones plus the one being filled.

    Each run has a private ``notes`` dict for the family's bookkeeping (never exported). ``finalize(report,
    notes)``, when given, runs on a report as it is finished (and on a copy of the open one in ``results``).
    """

    def __init__(self, framework: str, finalize: Finalizer | None = None):
        self.framework = framework
        self.version: str | None = None
        self._finalize = finalize
        self._done: list[dict] = []
        self._cur: dict | None = None
        self._figures = False  # the open run has a RUN_KEYS figure
        self.notes: dict = {}

    # -- the open run ----------------------------------------------------------------------------------------
    @property
    def current(self) -> dict:
        """The run being filled, created on first use."""
        if self._cur is None:
            self._cur = new_report(self.framework)
            self.notes = {}
        return self._cur

    def recent(self) -> tuple:
        """Where a line just fed may have put what it took: the open run, its notes, the run finished last."""
        return self._cur, self.notes, (self._done[-1] if self._done else None)

    def has_run_figures(self) -> bool:
        """Whether the open run has any RUN_KEYS figure (tracked on write, this is asked on every startup line)."""
        return self._figures

    def close(self) -> None:
        """Finish the open run (kept only if it holds anything) and start afresh on next use."""
        cur = self._cur
        if cur is not None and _has_content(cur):
            if self._finalize is not None:
                self._finalize(cur, self.notes)
            self._done.append(cur)
        self._cur = None
        self._figures = False
        self.notes = {}

    # -- setters ---------------------------------------------------------------------------------------------
    def put(self, key: str, value: Any) -> None:
        """Set a run figure; if the open run already has it, that run is finished and a new one gets it."""
        if self.current[key] is not None:
            self.close()
        self._set(key, value)

    def fill(self, key: str, value: Any) -> None:
        """Set a figure only if the open run does not have it yet (TP workers each print their own)."""
        if self.current[key] is None:
            self._set(key, value)

    def set(self, key: str, value: Any) -> None:
        """Set a figure of the open run unconditionally (the tail of a block already opened by ``put``)."""
        self._set(key, value)

    def _set(self, key: str, value: Any) -> None:
        self.current[key] = value
        if value is not None and key in _RUN_KEY_SET:
            self._figures = True

    def startup(self) -> dict:
        """The run that startup figures go to: a new one if the open run already has run figures."""
        if self.has_run_figures():
            self.close()
        return self.current

    def put_extra(self, key: str, value: Any) -> None:
        self.current["extra"][key] = value

    def fill_extra(self, key: str, value: Any) -> None:
        self.current["extra"].setdefault(key, value)

    def add_buffer(self, device: str, kind: str, mib: float) -> None:
        """Add MiB to ``buffers[device][kind]``; several buffers of one device and kind add up."""
        buffers = self.current["buffers"]
        if buffers is None:
            buffers = self.current["buffers"] = {}
        slot = buffers.get(device)
        if slot is None:
            slot = buffers[device] = dict.fromkeys(BUFFER_KINDS)
        old = slot[kind]
        slot[kind] = mib if old is None else round(old + mib, 6)

    def warn(self, kind: str, line: str, tag: str | None = None) -> None:
        """Record a warning on the open run: one per distinct line (or per ``tag``), at most MAX_WARNINGS."""
        warnings = self.current["warnings"]
        seen = self.notes.setdefault("warned", set())
        key = tag or line
        if key in seen or len(warnings) >= MAX_WARNINGS:
            return
        seen.add(key)
        warnings.append({"kind": kind, "line": line.rstrip("\r\n")[:MAX_LINE_CHARS]})

    def unparsed(self, line: str) -> None:
        """A line of the family's figure lines that it could not read: counted, the first few kept as printed."""
        report = self.current
        seen = report["unparsed"]
        if seen is None:
            seen = report["unparsed"] = {"count": 0, "lines": []}
        seen["count"] += 1
        if len(seen["lines"]) < MAX_UNPARSED_EXAMPLES:
            seen["lines"].append(line.rstrip("\r\n")[:MAX_LINE_CHARS])

    # -- output ----------------------------------------------------------------------------------------------
    def pop_done(self) -> list[dict]:
        """The finished runs so far but the last, handed over (not copied) and forgotten here: a long log's runs
        leave memory as they end. ``version`` is set as known now."""
        out, self._done = self._done[:-1], self._done[-1:]  # the last stays: it may be the log's last run
        for r in out:
            r["version"] = self.version
        return out

    def held(self) -> int:
        """How many finished runs are held."""
        return len(self._done)

    def results(self) -> list[dict]:
        """Deep copies of all runs in order (the open one included if it holds anything); never empty."""
        out = [_copy_report(r) for r in self._done]
        cur = self._cur
        if cur is not None and _has_content(cur):
            last = _copy_report(cur)
            if self._finalize is not None:
                self._finalize(last, dict(self.notes))
            out.append(last)
        if not out:
            out.append(new_report(self.framework))
        for r in out:
            r["version"] = self.version
        return out
