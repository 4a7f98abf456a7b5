"""The measurement protocol around single runs: sweeps × repeats, warm-ups, cold/warm, fingerprint.

``run_session`` expands ``-L NAME=v1,v2`` sweeps, runs each variant ``warmup + runs`` times, labels every run's
page-cache state (evicting the model files first with ``--cold``), attaches the environment fingerprint and
hands each finished record to ``on_record`` at once, so an interrupt never loses a completed run.
"""
from __future__ import annotations

import dataclasses
import itertools
import re
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from ..measure import env as _env
from . import fleet as _fleet
from ..measure import pagecache
from ..sources.runner import RunConfig, execute, new_run_id, prepare
from ..measure.signals import SignalGuard

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class SessionConfig:
    base: RunConfig
    runs: int = 1
    warmup: int = 0
    cold: bool = False
    drop_caches: bool = False
    model_files: list = field(default_factory=list)
    sweeps: list = field(default_factory=list)  # [(name, [values])]
    fingerprint: bool = True
    probe_hardware: bool = True  # the host's peaks for the floors (measure.hardware: probed once, cached)
    fleet: Optional[dict] = None  # the ``fleet`` key (wrapper.fleet.describe); each record adds its plan_index
    items: Optional[list] = None  # the plan items to run (a shard, wrapper.fleet.select); None: the whole plan
    capture_dir_for: Optional[Callable[[str], str]] = None  # run_id → capture directory ({run_id} placeholders)


def _clock_text(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}" if minutes >= 60 else f"{minutes}:{secs:02d}"


def _timing(elapsed_s: float, done: int, total: int) -> str:
    """`` · 0:12 elapsed, ETA 0:30`` before run ``done`` of ``total``: the runs so far, averaged, predict the rest
    (no ETA before the first run has finished)."""
    if done == 1:
        return ""
    eta_s = elapsed_s / (done - 1) * (total - done + 1)
    return f" · {_clock_text(elapsed_s)} elapsed, ETA {_clock_text(eta_s)}"


def parse_sweep(text: str) -> tuple[str, list[str]]:
    """``NAME=v1,v2,...`` → (NAME, [v1, v2, ...]); ValueError names -L and the fix."""
    name, sep, values = text.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not values:
        raise ValueError(f"-L: expected NAME=v1,v2,... with NAME a word, got {text!r}")
    return name, values.split(",")


def variants(command: Sequence[str], sweeps: Sequence[tuple[str, list]]) -> list[tuple[dict, list]]:
    """Every combination of sweep values: (tags, command with ``{NAME}`` substituted)."""
    names = [n for n, _ in sweeps]
    used = {m for arg in command for m in _PLACEHOLDER.findall(arg)}
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"-L {name}: given more than once; give all its values in one -L {name}=v1,v2,...")
        if name not in used:
            raise ValueError(f"-L {name}: the command has no {{{name}}} to substitute; write it where the value goes")
    out = []
    for combo in itertools.product(*(values for _, values in sweeps)):
        tags = dict(zip(names, combo))
        out.append((tags, [_PLACEHOLDER.sub(lambda m: tags.get(m.group(1), m.group(0)), a) for a in command]))
    return out


def _with_limits(prep, cfg: SessionConfig):
    """The variant's model facts and the host's peaks (read once, before its runs: never on a run's clock)."""
    from ..derive.limits import LimitsInput
    from ..measure import hardware, model_facts

    limits = model_facts.fill(prep.config.limits or LimitsInput(), prep.config.command)
    if cfg.probe_hardware:
        model_path = (limits.model_file or {}).get("path")
        try:
            limits = dataclasses.replace(limits, hardware=hardware.probe(prep.config.command, model_path))
        except Exception as exc:  # a probe that fails costs the floors, never the run
            limits = dataclasses.replace(limits, hardware_reason=f"the hardware probe failed ({exc!r})")
    else:
        limits = dataclasses.replace(limits, hardware_reason="not probed (probe_hardware=False)")
    return dataclasses.replace(prep, config=dataclasses.replace(prep.config, limits=limits))


def _prompt_of(prep) -> Optional[str]:
    return prep.tokens.prompts[0] if prep.tokens.prompts else prep.config.request


def check(cfg: SessionConfig) -> list:
    """Prepare every variant up front so a bad regex or sweep fails before anything runs."""
    if cfg.runs < 1 or cfg.warmup < 0:
        raise ValueError("-n/--runs must be >= 1 and --warmup >= 0")
    if cfg.drop_caches and not cfg.cold:
        raise ValueError("--drop-caches: use it together with --cold")
    prepared = []
    for tags, command in variants(cfg.base.command, cfg.sweeps):
        run_cfg = dataclasses.replace(cfg.base, command=command, tags={**cfg.base.tags, **tags})
        prepared.append(prepare(run_cfg))
    if cfg.cold:
        for prep in prepared:
            if not pagecache.model_files(prep.config.command, cfg.model_files):
                raise ValueError("--cold: no model file found on the command line (-m/--model, a file >= 1 MB, "
                                 "a directory of *.gguf/*.safetensors); name it with --model-file PATH")
    return prepared


def run_session(cfg: SessionConfig, prepared: list, *, make_samplers: Callable[[], list],
                on_record: Callable[[dict], None], on_progress: Callable[[str], None] = lambda _m: None,
                signals: Optional[SignalGuard] = None, keep=None) -> tuple[list, int]:
    """Run every variant; returns (records, exit status of the last run). Stops after an interrupted run, and
    at a SIGINT/SIGTERM/SIGHUP that comes between runs (exit status 128+N then). ``keep``: passed to
    ``runner.execute`` (each run's chunk times and samples, for ``--plot`` / ``--trace``).

    ``signals``: a ``SignalGuard`` already installed by the caller (so it covers what the caller does after
    the runs too); without one the session installs its own.
    """
    if signals is None:
        with SignalGuard() as own:
            return run_session(cfg, prepared, make_samplers=make_samplers, on_record=on_record,
                               on_progress=on_progress, signals=own)
    wanted = _wanted(cfg, len(prepared))
    progress = _Progress(sum(cfg.warmup + len(items) for items in wanted.values()), on_progress)
    records: list = []
    status = 0
    for variant, prep in enumerate(prepared):
        if variant not in wanted:
            continue
        files = pagecache.model_files(prep.config.command, cfg.model_files)
        prep = _with_limits(prep, cfg)
        fingerprint = None
        if cfg.fingerprint:
            fingerprint = _env.fingerprint(prep.config.command, files, prep.profile.version_args,
                                           prompt=_prompt_of(prep))
        for i, item in enumerate([None] * cfg.warmup + wanted[variant]):
            cache = _cache_before(cfg, files)
            signals.take()
            if signals.received is not None:  # between runs: stop here, keep what is recorded
                return records, 128 + signals.received
            progress.next(item is None, prep.config.tags)
            record, status = _one_run(cfg, prep, make_samplers, signals, _extra(cfg, i, item, cache, fingerprint),
                                      keep)
            records.append(record)
            on_record(record)
            if record["status"] == "interrupted":
                return records, status
    signals.take()
    if signals.received is not None:  # came after the last run: still a request to stop
        return records, 128 + signals.received
    return records, status


def _wanted(cfg: SessionConfig, variants: int) -> dict:
    """The plan items to run (the shard's, else the whole plan), by variant."""
    wanted: dict = {}
    for item in cfg.items if cfg.items is not None else _fleet.plan(variants, cfg.runs):
        wanted.setdefault(item.variant, []).append(item)
    return wanted


def _cache_before(cfg: SessionConfig, files: list) -> dict:
    """Evict the model files first with --cold; then their page-cache residency (the run's cold/warm label)."""
    if cfg.cold and files:
        if cfg.drop_caches:
            pagecache.drop_caches()
        else:
            pagecache.evict(files)
    return pagecache.residency(files) if files else {"label": None, "reason": "no model files known"}


def _extra(cfg: SessionConfig, i: int, item, cache: dict, fingerprint: Optional[dict]) -> dict:
    """What the record carries beyond the run itself: cache state, warm-up, repeat, env, fleet."""
    warmup = item is None
    extra = {"cache": cache, "warmup": warmup, "repeat": {"index": i if warmup else item.repeat, "of": cfg.runs}}
    if fingerprint is not None:
        extra["env"] = fingerprint
    if cfg.fleet is not None:
        extra["fleet"] = {**cfg.fleet, "plan_index": None if warmup else item.index}
    return extra


def _one_run(cfg: SessionConfig, prep, make_samplers, signals, extra: dict, keep=None) -> tuple[dict, int]:
    """(record, exit status) of one run; a run that ended ``failed`` with exit 0 (a --request that got no
    answer) exits 1."""
    run_id = new_run_id()
    if cfg.capture_dir_for is not None:
        prep = dataclasses.replace(prep, config=dataclasses.replace(prep.config, capture_dir=cfg.capture_dir_for(run_id)))
    record, result = execute(prep, samplers=make_samplers(), extra=extra, run_id=run_id, signals=signals, keep=keep)
    status = result.run_status  # a server phasewrap stopped after its request: 0 unless it failed on its own
    return record, 1 if status == 0 and record["status"] == "failed" else status


class _Progress:
    """``phasewrap: run 3/10 (warm-up) ctx=512 · 0:12 elapsed, ETA 0:30`` before each run of a session of
    several."""

    def __init__(self, total: int, on_progress: Callable[[str], None]) -> None:
        self.total, self.done, self._say = total, 0, on_progress
        self._started_s = 0.0

    def next(self, warmup: bool, tags: dict) -> None:
        self.done += 1
        if self.total > 1:
            self._started_s = self._started_s if self.done > 1 else time.monotonic()
            text = " ".join(f"{k}={v}" for k, v in tags.items())
            self._say(f"phasewrap: run {self.done}/{self.total}{' (warm-up)' if warmup else ''}"
                      f"{' ' + text if text else ''}"
                      f"{_timing(time.monotonic() - self._started_s, self.done, self.total)}")
