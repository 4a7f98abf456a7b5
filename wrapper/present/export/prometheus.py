"""Run records as Prometheus gauges for node_exporter's textfile collector (extra: ``phasewrap[prometheus]``).

``serialize(records)`` is pure: the exposition text of the last run per label set (profile, host, cache, tags,
and the shard of a sharded sweep); ``Exporter(DIR)`` keeps this invocation's records and rewrites
``DIR/phasewrap.prom`` after each run (``DIR/phasewrap-shard<I>.prom`` for shard I, so array tasks that share a
node don't overwrite each other), through the one atomic writer, so the collector never reads half a file. A
gauge, not a store: each invocation starts its file afresh.
"""
from __future__ import annotations

import logging
import math
import os
import re
from typing import Iterable, Optional

from ...errors import UsageError
from ...model import phases as phase_table

FILE_NAME = "phasewrap.prom"
PHASES = tuple((p.name, p.key) for p in phase_table.PHASES)
BASE_LABELS = ("profile", "host", "cache")
# (metric name, help, the resources key read per phase window)
PER_PHASE = (
    ("phasewrap_vram_used_peak_mib", "Peak GPU memory used in the phase, MiB", "vram_used_peak_mib"),
    ("phasewrap_gpu_util_mean_percent", "Mean GPU utilization in the phase, percent", "gpu_util_mean"),
    ("phasewrap_cpu_percent_mean", "Mean CPU of the process tree in the phase, percent of one core", "cpu_pct_mean"),
    ("phasewrap_cpu_busiest_thread_percent_max", "Busiest thread's CPU in the phase, percent of one core",
     "cpu_busiest_thread_pct_max"),
    ("phasewrap_rss_peak_mib", "Peak resident memory of the process tree in the phase, MiB", "rss_peak_mib"),
    ("phasewrap_disk_read_mib", "Disk read by the process tree in the phase, MiB", "disk_read_mib"),
)
log = logging.getLogger("phasewrap")


def _client():
    try:
        import prometheus_client
    except ImportError:
        raise UsageError("--prom-textfile: prometheus_client is not installed; pip install "
                         "'phasewrap[prometheus]'") from None
    return prometheus_client


def _label_name(tag: str) -> str:
    name = "tag_" + re.sub(r"[^A-Za-z0-9_]", "_", tag)
    return name


def _labels(record: dict, tag_keys: list, sharded: bool) -> dict:
    fl = record.get("fleet") or {}
    cache = record.get("cache")
    out = {"profile": record.get("profile") or "", "host": fl.get("host") or (record.get("env") or {}).get("host")
           or "", "cache": (cache.get("label") if isinstance(cache, dict) else cache) or "unknown"}
    if sharded:
        out["shard"] = str(fl.get("shard", ""))
    tags = record.get("tags") or {}
    for key in tag_keys:  # two keys that sanitize to one label name: the later one's value
        out[_label_name(key)] = str(tags.get(key, ""))
    return out


def _number(value) -> bool:
    """A value to expose: a finite number (null, NaN and Infinity give no sample)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def serialize(records: Iterable[dict]) -> bytes:
    """The text exposition of the last recorded (non warm-up) run per label set. A value the record
    doesn't have (null) gives no sample, never 0."""
    client = _client()
    records = [r for r in records if not r.get("warmup")]
    tag_keys = sorted({k for r in records for k in (r.get("tags") or {})})
    sharded = any(((r.get("fleet") or {}).get("shards") or 1) > 1 for r in records)
    names = [*BASE_LABELS, *(["shard"] if sharded else []), *dict.fromkeys(_label_name(k) for k in tag_keys)]
    registry = client.CollectorRegistry()

    def gauge(name: str, doc: str, extra=()):
        return client.Gauge(name, doc, [*names, *extra], registry=registry)

    phase_s = gauge("phasewrap_phase_seconds", "Phase duration of the last run: load, ttft, decode, total",
                    ("phase",))
    tps = gauge("phasewrap_tokens_per_second", "Decode speed of the last run, tokens/s")
    mspt = gauge("phasewrap_ms_per_token", "Decode time per output token of the last run, ms")
    tokens = gauge("phasewrap_output_tokens", "Output tokens of the last run")
    started = gauge("phasewrap_run_started_seconds", "Start of the last run, Unix time")
    exit_code = gauge("phasewrap_exit_code", "Exit code of the last run's child")
    per_phase = [(gauge(name, doc, ("phase",)), key) for name, doc, key in PER_PHASE]
    for record in records:  # later runs overwrite earlier ones with the same labels: the last run wins
        labels = _labels(record, tag_keys, sharded)
        for phase, key in PHASES:
            value = (record.get("phases") or {}).get(key)
            if _number(value):
                phase_s.labels(**labels, phase=phase).set(value)
        for metric, value in ((tps, record.get("tokens_per_s")), (mspt, record.get("ms_per_token")),
                              (tokens, (record.get("tokens") or {}).get("output")),
                              (exit_code, record.get("exit_code")), (started, _epoch(record.get("started_at")))):
            if _number(value):
                metric.labels(**labels).set(value)
        resources = record.get("resources") or {}
        for metric, key in per_phase:
            for phase, _ in PHASES:
                value = (resources.get(phase) or {}).get(key)
                if _number(value):
                    metric.labels(**labels, phase=phase).set(value)
    return client.generate_latest(registry)


def _epoch(iso: Optional[str]) -> Optional[float]:
    if not iso:
        return None
    import datetime as _dt

    return _dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


class Exporter:
    """Rewrites ``DIR/phasewrap.prom`` after each record; the directory is checked before anything runs."""

    def __init__(self, directory: str, fleet: Optional[dict] = None) -> None:
        _client()
        if not os.path.isdir(directory):
            raise UsageError(f"--prom-textfile: {directory} is not a directory; give node_exporter's "
                             "--collector.textfile.directory")
        if not os.access(directory, os.W_OK):
            raise UsageError(f"--prom-textfile: cannot write in {directory} (permission denied)")
        shard = (fleet or {}).get("shard") if ((fleet or {}).get("shards") or 1) > 1 else None
        self.path = os.path.join(directory, FILE_NAME if shard is None else f"phasewrap-shard{shard}.prom")
        self.records: list = []

    def __call__(self, record: dict) -> None:
        from ...core.writer import OutputError, write_file

        self.records.append(record)
        try:
            write_file(self.path, serialize(self.records), "--prom-textfile")
        except OutputError as exc:  # the record is already in the other outputs; say so and go on
            log.error("%s", exc)
