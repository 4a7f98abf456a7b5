"""Reading a record, declared once: every reader (method, present, exporters) asks these instead of digging.

Each returns None where the record has no such value (an older record, a missing measurement): readers show
that as n/a, never as 0.
"""
from __future__ import annotations

from typing import Optional

from . import phases as _phases

UNKNOWN_HOST = "unknown host"


def _obj(value) -> dict:
    return value if isinstance(value, dict) else {}


def phase_s(record: dict, phase) -> Optional[float]:
    """A phase's seconds: ``phase`` is a ``Phase``, its name ("load") or its key ("load_s")."""
    if isinstance(phase, str):
        phase = _phases.BY_NAME.get(phase) or _phases.BY_KEY[phase]
    value = _obj(record.get("phases")).get(phase.key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def host(record: dict) -> str:
    """The host a run ran on: the fleet's name for it, else the environment's, else ``unknown host``."""
    return _obj(record.get("fleet")).get("host") or _obj(record.get("env")).get("host") or UNKNOWN_HOST


def cache_label(record: dict) -> Optional[str]:
    """The record's page-cache label ("cold" | "warm" | "partial"), ``None`` when not measured.

    Reads ``record["cache"]["label"]`` (a plain string in ``cache`` is accepted too)."""
    cache = record.get("cache")
    if isinstance(cache, dict):
        return cache.get("label")
    return cache if isinstance(cache, str) else None


def is_warmup(record: dict) -> bool:
    """True for a warm-up run: ``record["warmup"]`` is true (``true``, or a non-empty object describing it)."""
    return bool(record.get("warmup"))


def tags(record: dict) -> dict:
    """The run's ``-L``/``--tag`` tags (an empty dict when it has none or they are malformed)."""
    return _obj(record.get("tags"))


def is_ok(record: dict) -> bool:
    """Only runs that ended ``ok`` enter statistics."""
    return record.get("status") == "ok"


BUFFERED_KIND = "burst_at_exit"


def is_buffered(record: dict) -> bool:
    """True when the token stream came in one burst at exit: the reads can't show the phases."""
    return any(isinstance(w, dict) and w.get("kind") == BUFFERED_KIND for w in record.get("warning_details") or [])


MAPPED_FORMATS = ((".gguf", "GGUF"), (".safetensors", "safetensors"))


def model_format(record: dict) -> Optional[str]:
    """``"GGUF"`` / ``"safetensors"`` when the run's model files (``env.model_files``, else a command argument)
    are in a format frameworks map directly; None when unknown or another format."""
    files = [f.get("path") for f in (_obj(record.get("env")).get("model_files") or []) if isinstance(f, dict)]
    for text in [p for p in files if isinstance(p, str)] + [a for a in record.get("command") or [] if isinstance(a, str)]:
        for suffix, name in MAPPED_FORMATS:
            if text.lower().endswith(suffix):
                return name
    return None
