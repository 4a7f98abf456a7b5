"""Merge the per-task record files of a sharded sweep into one: validated, de-duplicated by ``run_id``, with
what is missing from the plan and how the hosts differ.

``merge`` is pure over already-read records; ``collect`` finds and reads the files; ``serialize`` is the
JSON Lines text. The CLI writes it through one atomic writer.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from . import fleet as _fleet
from ..sources.records_io import RecordsError

# Names of files that hold run records under a directory (captures are the raw output, not records).
# Environment conditions that must match across hosts for their runs to be one experiment.
HOST_CONDITIONS = ("cpu", "gpus", "driver", "executable")


@dataclass
class Merged:
    records: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # one line each: a file or line left out, and why
    duplicates: int = 0
    missing: list = field(default_factory=list)  # {"sweep_id", "plan_index", "shard", "shards"}
    host_differences: list = field(default_factory=list)  # {"condition", "values": {host: value}}
    shards: dict = field(default_factory=dict)  # sweep_id → sorted shard numbers seen


def record_files(paths: Sequence[str]) -> list[str]:
    """The files named, and the capture and record files under the folders named, in sorted order
    (``sources.reader.expand``: FIFOs, devices and dangling symlinks refused by name). A path that doesn't exist
    raises RecordsError."""
    from ..sources import reader

    try:
        return reader.expand(paths, allow_empty_folders=True)
    except reader.InputError as exc:
        raise RecordsError(f"phasewrap merge: {exc}; name record files or the directories that hold them") from None


def collect(paths: Sequence[str]) -> tuple[list[tuple[str, list]], list[str]]:
    """([(file, records)], problems): every record file read; a file that can't be read is a problem line,
    as is each line left out of a file that could."""
    from ..sources import reader

    read: list = []
    problems: list = []
    for path in record_files(paths):
        try:
            records, skipped = reader.read(path, reader.records_of_analysis)
        except RecordsError as exc:
            problems.append(f"{exc} (file left out)")
            continue
        problems.extend(f"{path}: line {line}: {why} (line left out)" for line, why in skipped)
        read.append((path, records))
    return read, problems


def _host(record: dict) -> Optional[str]:
    return (record.get("fleet") or {}).get("host") or (record.get("env") or {}).get("host")


def host_differences(records: Iterable[dict]) -> list[dict]:
    """The environment conditions (GPU model, driver, framework binary, CPU) on which hosts disagree."""
    from .compare import CONDITIONS

    getters = {name: get for name, get, _warn in CONDITIONS if name in HOST_CONDITIONS}
    by_host: dict = {}
    for record in records:
        host = _host(record)
        if host is not None:
            by_host.setdefault(host, []).append(record)
    out = []
    if len(by_host) < 2:
        return out
    for name in HOST_CONDITIONS:
        values = {}
        for host, rs in by_host.items():
            seen = [v for v in (getters[name](r) for r in rs) if v is not None]
            if seen:
                values[host] = seen[-1]
        if len(set(values.values())) > 1:
            out.append({"condition": name, "values": values})
    return out


def missing_items(records: Iterable[dict]) -> tuple[list[dict], dict]:
    """(plan items no record covers, shards seen per sweep) for records that carry ``fleet.plan_index``."""
    sweeps: dict = {}
    for record in records:
        fl = record.get("fleet") or {}
        if fl.get("sweep_id") is None or fl.get("plan_size") is None:
            continue
        entry = sweeps.setdefault(fl["sweep_id"], {"size": fl["plan_size"], "shards": fl.get("shards") or 1,
                                                   "seen": set(), "shard_seen": set()})
        if fl.get("plan_index") is not None:
            entry["seen"].add(fl["plan_index"])
        if fl.get("shard") is not None:
            entry["shard_seen"].add(fl["shard"])
    missing = []
    for sweep_id, entry in sweeps.items():
        for index in range(entry["size"]):
            if index not in entry["seen"]:
                missing.append({"sweep_id": sweep_id, "plan_index": index, "shards": entry["shards"],
                                "shard": _fleet.shard_of(index, entry["size"], entry["shards"])})
    return missing, {s: sorted(e["shard_seen"]) for s, e in sweeps.items()}


def merge(read: Sequence[tuple[str, list]], problems: Sequence[str] = ()) -> Merged:
    """Records of every file, first copy of each ``run_id`` kept, in file order."""
    out = Merged(problems=list(problems))
    seen: set = set()
    for _path, records in read:
        for record in records:
            run_id = record.get("run_id")
            if run_id in seen:
                out.duplicates += 1
                continue
            seen.add(run_id)
            out.records.append(record)
    out.missing, out.shards = missing_items(out.records)
    out.host_differences = host_differences(out.records)
    return out


def summary(merged: Merged, files: int) -> str:
    """What the merge did, for stderr: counts, then one line per missing plan item and host difference."""
    lines = [f"phasewrap merge: {len(merged.records)} record(s) from {files} file(s); {merged.duplicates} "
             f"duplicate(s) dropped"]
    for sweep_id, shards in merged.shards.items():
        lines.append(f"phasewrap merge: sweep {sweep_id}: shards {', '.join(map(str, shards)) or 'none'} present")
    for item in merged.missing:
        lines.append(f"phasewrap merge: missing: sweep {item['sweep_id']} plan item {item['plan_index']} "
                     f"(shard {item['shard']}/{item['shards']}): its task failed or has not run; rerun it with "
                     f"--shard {item['shard']}/{item['shards']}")
    for diff in merged.host_differences:
        values = "; ".join(f"{host}: {value}" for host, value in diff["values"].items())
        lines.append(f"phasewrap merge: warning: hosts differ in {diff['condition']} ({values}): their runs "
                     "differ in more than one variable")
    return "\n".join(lines) + "\n"
