"""The options of ``phasewrap run``, declared once: the CLI builds its flags on these fields (their defaults are
the CLI's defaults), the library's ``run(command, **options)`` takes them as keywords, and the session is
configured from them. A new run option is one field here, one flag row in the CLI, and one line in the README.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

ANY_STREAM = "any"


@dataclass(frozen=True)
class RunOptions:
    """Every option of ``phasewrap run`` / ``wrapper.run``.

    ``marks``: ``{name: regex}`` or ``[(name, regex[, stream])]``; ``sweep``: ``{name: [values]}`` or
    ``["name=v1,v2"]`` (``{name}`` in the command is replaced); ``tags``: ``{key: value}``. ``jsonl`` / ``csv``
    append each record as it is made (an interrupt never loses a finished run); ``plot`` draws the timeline
    afterwards, ``trace`` writes the runs as a Chrome trace-event / Perfetto JSON file; ``stdout_to_stderr``: the
    child's stdout passes through to stderr, so stdout carries only what the caller prints (JSON).

    Beyond one machine: ``shard`` ``"I/N"`` or ``"auto"`` (Slurm array / Kubernetes Indexed Job variables,
    ``shards`` for Kubernetes) runs only that slice of the plan; every record carries ``fleet``; ``jsonl``,
    ``csv`` and ``capture_dir`` may hold ``{host}``, ``{shard}``, ``{sweep_id}`` and ``{run_id}`` (each filled with
    one safe file-name component). ``prom_textfile`` (a directory) and ``mlflow`` (a tracking URI, ``""`` for the
    local default) export each record. Floors (``limits``): the model is read from ``model_path`` or the command
    line, the host's peaks probed once and cached (``probe_hardware=False``: not at all); ``model_bytes``,
    ``active_bytes`` and ``peaks`` (``{"gpu-memory": 4800}`` or ``["gpu-memory=4800"]``, GB/s) go over them.
    ``save_baseline``: keep the call's records as that baseline (``check(baseline=NAME)``) in ``baseline_dir``.
    """

    # markers and profiles (analyze takes these too)
    profile: str = "auto"
    ready: Optional[str] = None
    ready_stream: str = ANY_STREAM
    first_token: Optional[str] = None
    first_token_stream: str = ANY_STREAM
    marks: object = None                  # {name: regex} or [(name, regex[, stream])]
    # outputs
    jsonl: Optional[str] = None
    csv: Optional[str] = None
    capture_dir: Optional[str] = None
    tags: object = None                   # {key: value}
    note: Optional[str] = None
    quiet: bool = True                    # the library's default; the CLI passes the child's output through
    stdout_to_stderr: bool = False        # the child's stdout passed through to stderr (--format json)
    plot: Optional[str] = None
    trace: Optional[str] = None           # a Chrome trace-event / Perfetto JSON file of the runs
    # the child
    pty: bool = False
    timeout_s: Optional[float] = None
    kill_grace_s: float = 5.0
    # the method: repeats, cold/warm, sweeps
    runs: int = 1
    warmup: int = 0
    cold: bool = False
    drop_caches: bool = False
    model_files: tuple = ()
    sweep: object = None                  # {name: [values]} or ["name=v1,v2"]
    fingerprint: bool = True
    # resource sampling
    gpu: str = "auto"
    cpu: str = "auto"
    interval: float = 0.1
    require_idle_gpu: bool = False
    # servers
    request: Optional[str] = None
    max_tokens: Optional[int] = None
    api: str = "openai"
    url: Optional[str] = None
    model: Optional[str] = None
    # beyond one machine
    shard: Optional[str] = None
    shards: Optional[int] = None
    sweep_id: Optional[str] = None
    prom_textfile: Optional[str] = None
    mlflow: Optional[str] = None
    # hardware limits (the floor of each phase)
    model_path: Optional[str] = None      # the model file or directory (default: from -m/--model)
    model_bytes: Optional[float] = None   # the model's size, over what the file or the log says
    active_bytes: Optional[float] = None  # weight bytes read per token (MoE: dense + routed experts)
    peaks: object = None                  # {resource: GB/s} or ["gpu-memory=4800"], over the probed peaks
    probe_hardware: bool = True           # probe the host's peaks (once per host, cached) before the first run
    # baselines (phasewrap check)
    save_baseline: Optional[str] = None   # keep this call's records as the baseline of this name
    baseline_dir: Optional[str] = None    # the store (default $PHASEWRAP_BASELINE_DIR, else ./.phasewrap/baselines)


NAMES = tuple(f.name for f in dataclasses.fields(RunOptions))
DEFAULTS = {f.name: f.default for f in dataclasses.fields(RunOptions)}


def from_keywords(base: Optional[RunOptions] = None, **keywords) -> RunOptions:
    """``base`` (default: all defaults) with ``keywords`` set; an unknown keyword raises ``TypeError`` naming
    it and the known ones."""
    unknown = sorted(set(keywords) - set(NAMES))
    if unknown:
        raise TypeError(f"unknown run option(s) {', '.join(unknown)}; known: {', '.join(NAMES)}")
    return dataclasses.replace(base or RunOptions(), **keywords)
