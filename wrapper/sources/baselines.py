"""The baseline store: named sets of run records kept for ``check --baseline NAME``.

A store is a directory (``--baseline-dir``, else ``$PHASEWRAP_BASELINE_DIR``, else ``./.phasewrap/baselines``)
with one records file per baseline, ``NAME.jsonl``: plain JSON Lines that every subcommand reading records
reads too. A baseline is written whole (temp file + rename, by the caller through ``core.writer``), so a crash
never leaves half of one and saving a name again replaces it. A name is one safe file-name component.
"""
from __future__ import annotations

import datetime
import os
from typing import Optional

from ..core import safe
from ..core.writer import show_path
from ..errors import UsageError
from . import records_io

ENV_DIR = "PHASEWRAP_BASELINE_DIR"
DEFAULT_DIR = os.path.join(".phasewrap", "baselines")
SUFFIX = ".jsonl"


def store_dir(given: Optional[str] = None) -> str:
    """The store's directory: ``given``, else ``$PHASEWRAP_BASELINE_DIR``, else ``./.phasewrap/baselines``."""
    return given or os.environ.get(ENV_DIR) or DEFAULT_DIR


def check_name(name: str, option: str) -> str:
    """``name`` when it is a safe baseline name (letters, digits, ``. _ + -``, not starting with a dot, at most
    100 characters); else ``UsageError`` naming ``option``, the name and the fix."""
    if not isinstance(name, str) or not name or safe.path_component(name) != name:
        shown = safe.one_line(str(name))
        raise UsageError(f"{option}: {shown!r} is not a baseline name: use letters, digits and . _ + - (not "
                         f"starting with a dot, at most {safe.PATH_COMPONENT_CHARS} characters), e.g. "
                         f"{safe.path_component(shown) if shown else 'main'!r}")
    return name


def path_of(directory: str, name: str) -> str:
    """The file that holds baseline ``name`` (a checked name) in the store ``directory``."""
    return os.path.join(directory, name + SUFFIX)


def prepare_dir(directory: str, option: str) -> None:
    """Make the store's directory if needed and make sure it can be written; ``UsageError`` with the fix."""
    shown = show_path(directory)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UsageError(f"{option}: baseline store {shown} is not a directory; give a directory "
                         f"(--baseline-dir or ${ENV_DIR})")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{option}: cannot create the baseline store {shown} ({exc.strerror}); choose another "
                         f"with --baseline-dir or ${ENV_DIR}") from None
    if not os.access(directory, os.W_OK):
        raise UsageError(f"{option}: cannot write in the baseline store {shown} (permission denied); choose "
                         f"another with --baseline-dir or ${ENV_DIR}")


def load(directory: str, name: str) -> list[dict]:
    """The records of baseline ``name``; ``UsageError`` naming the store and the names it has when absent."""
    path = path_of(directory, check_name(name, "--baseline"))
    if not os.path.isfile(path):
        have = ", ".join(n["name"] for n in names(directory)) or "none"
        raise UsageError(f"--baseline: no baseline {name!r} in {show_path(directory)} (it has: {have}); save one "
                         f"with `phasewrap run --save-baseline {name} …`, or give --baseline-dir")
    return records_io.load_records(path)


def names(directory: str) -> list[dict]:
    """``[{"name", "path"}]`` of the baselines in ``directory``, by name; none when it does not exist."""
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return []
    out = []
    for entry in entries:
        name = entry[:-len(SUFFIX)]
        if entry.endswith(SUFFIX) and name and safe.path_component(name) == name:
            out.append({"name": name, "path": os.path.join(directory, entry)})
    return out


def _describe(path: str) -> dict:
    """What a listing shows of one baseline file: its runs and where and when they ran."""
    saved = datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc)
    out = {"saved_utc": saved.strftime("%Y-%m-%dT%H:%M:%SZ"), "records": None, "runs_ok": None, "cache": [],
           "hosts": [], "commands": [], "problem": None}
    try:
        records, _ = records_io.read_records(path)
    except UsageError as exc:
        return {**out, "problem": str(exc)}
    used = [r for r in records if not records_io.is_warmup(r) and r.get("status") == "ok"]
    out.update(records=len(records), runs_ok=len(used),
               cache=sorted({records_io.cache_label(r) or "unknown" for r in used}),
               hosts=sorted({(r.get("env") or {}).get("host") or "unknown" for r in records}),
               commands=list(dict.fromkeys(" ".join(map(str, r.get("command") or [])) for r in records)))
    return out


def listing(directory: str) -> list[dict]:
    """Every baseline in the store: ``{"name", "path", "saved_utc", "records", "runs_ok" (not warm-up, status
    ok), "cache" (labels of those), "hosts", "commands", "problem" (why the file can't be read, else None)}``."""
    return [{**item, **_describe(item["path"])} for item in names(directory)]
