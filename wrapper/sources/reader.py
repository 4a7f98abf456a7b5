"""The one input reader: every subcommand that reads runs (analyze, compare, diagnose, plot, report, merge)
takes the same inputs and gets the same records from them.

An input is a file or a folder. A folder stands for the capture files and record files in it (and its
subfolders), in name order. A file is one of ``KINDS``, told from its first line, not its name alone:

- ``records``  run records (JSON Lines, a JSON array, pretty-printed objects: ``records_io``);
- ``capture``  a ``phasewrap.capture/1`` file: its record line is the live run's record (exactly what the JSONL
  got); a capture cut off before that line is re-analyzed;
- ``cast``     an asciinema v2 recording; ``events`` the ``[t_s, stream, text]`` events format;
- ``log``      anything else: a console log, timed or not (``analyze`` reads it). A ``*.jsonl``/``*.json``
  file that is none of the others is read as records (and its bad lines named).

A run met twice (its capture and its JSONL record, in one folder) is one run: the first met is kept. A folder's
runs come in launch order (start time, then the monotonic launch instant): run ids order them only to the second.
"""
from __future__ import annotations

import json
import os
from typing import Callable, Iterable, Optional, Sequence

from .capture import SUFFIX as CAPTURE_SUFFIX
from .inputs import STDIN, InputError, check_input

RECORDS, CAPTURE, CAST, EVENTS, LOG = "records", "capture", "cast", "events", "log"
KINDS = (RECORDS, CAPTURE, CAST, EVENTS, LOG)
RECORD_SUFFIXES = (".jsonl", ".json")
HEAD_BYTES = 1 << 20  # the first line is read up to this much to tell the kind
_STDIN_READ: list = []  # (records, skipped) of stdin, once read


def _first_line(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.readline(HEAD_BYTES).strip()
    except OSError as exc:
        raise InputError(f"{path}: can't read: {exc.strerror}; check the path and its permissions") from None


def kind_of(path: str) -> str:
    """What the file ``path`` holds (one of ``KINDS``); ``-`` (stdin, read once) is records."""
    if path == STDIN:
        return RECORDS
    first = _first_line(path)
    try:
        head = json.loads(first) if first[:1] in (b"{", b"[") else None
    except ValueError:
        head = None
    if isinstance(head, dict):
        if head.get("type") == "header":
            return CAPTURE
        if head.get("version") == 2:
            return CAST
        if "wall_start" in head or "cmd" in head:
            return EVENTS
        if str(head.get("schema", "")).startswith("phasewrap.run/"):
            return RECORDS
    if path.endswith(CAPTURE_SUFFIX):
        return CAPTURE
    if path.endswith(RECORD_SUFFIXES):
        return RECORDS  # a JSON array, pretty-printed records, a first line cut off by a crash: the records
        # reader says which line is wrong
    return LOG


def _folder_files(folder: str) -> list:
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        out += [os.path.join(root, f) for f in sorted(files) if f.endswith(RECORD_SUFFIXES)]
    return out


def expand(paths: Iterable[str], allow_empty_folders: bool = False) -> list:
    """The files the inputs stand for, in order: files as given, a folder's capture and record files. A folder
    with neither is an error unless ``allow_empty_folders`` (a merge of shards that wrote nothing yet)."""
    out = []
    for path in paths:
        path = os.fspath(path)
        check_input(path, directory_ok=True)  # a FIFO, a device, a dangling symlink: refused by name
        if path != STDIN and os.path.isdir(path):
            found = _folder_files(path)
            if not found and not allow_empty_folders:
                raise InputError(f"{path}: no capture (*{CAPTURE_SUFFIX}) or record (*.jsonl) files in this "
                                 "folder; give the folder of `run --capture` or record files")
            for name in found:
                check_input(name)
            out += found
        else:
            out.append(path)
    return out


def read(path: str, analyze: Callable[[str], list]) -> tuple[list, list]:
    """(records, skipped lines as (number, why)) of one file of any kind; ``analyze(path)`` makes the records of
    a capture cut short, a cast, an events file or a log."""
    from .records_io import read_records

    kind = kind_of(path)
    if path == STDIN:
        if _STDIN_READ:  # stdin is read once: a subcommand that reads its inputs twice (report) gets them again
            return _STDIN_READ[0]
        _STDIN_READ.append(read_records(path))
        return _STDIN_READ[0]
    if kind == RECORDS:
        return read_records(path)
    if kind == CAPTURE:
        from .capture import CaptureError, read_capture

        try:
            cap = read_capture(path)
        except CaptureError as exc:
            raise InputError(str(exc)) from None
        if isinstance(cap.record, dict):
            return [cap.record], []
    return analyze(path), []


def records(paths: Sequence[str], analyze: Optional[Callable[[str], list]] = None,
            on_skip: Optional[Callable[[str, int, str], None]] = None) -> list:
    """The runs of every input, each once (by run id, first met wins). ``analyze``: how a file that holds no
    records is read (default: ``analyze`` with its defaults); ``on_skip(path, line, why)`` for each line left
    out of a records file (default: a warning on the ``phasewrap`` logger)."""
    if analyze is None:
        analyze = records_of_analysis
    if on_skip is None:
        on_skip = _warn_skipped
    out, seen = [], set()
    for given in paths:
        found = _read_all(expand([given]), analyze, on_skip)
        if os.fspath(given) != STDIN and os.path.isdir(given):
            found.sort(key=_launch_order)  # file names order runs only to the second: a folder's runs by launch
        for record in found:
            run_id = record.get("run_id") if isinstance(record, dict) else None
            if run_id is not None:
                if run_id in seen:
                    continue
                seen.add(run_id)
            out.append(record)
    return out


def _read_all(files: list, analyze: Callable[[str], list], on_skip: Callable[[str, int, str], None]) -> list:
    found = []
    for path in files:
        records, skipped = read(path, analyze)
        for number, why in skipped:
            on_skip(path, number, why)
        found += records
    return found


def _launch_order(record) -> tuple:
    """(start time, monotonic t0): runs of one host in the order they were launched (unknowns first, stable)."""
    if not isinstance(record, dict):
        return ("", 0)
    t0 = record.get("t0_monotonic_ns")
    return (str(record.get("started_at") or ""), t0 if isinstance(t0, int) else 0)


def records_of_analysis(path: str) -> list:
    """``analyze`` of one file with its defaults (the options a capture recorded, else the profile's)."""
    from ..derive.pipeline import RunConfig
    from .analyze import SideFiles, analyze

    return analyze([path], RunConfig(command=[]), SideFiles())


def _warn_skipped(path: str, number: int, why: str) -> None:
    import logging

    logging.getLogger("phasewrap").warning("%s: line %d skipped: %s", path, number, why)
