"""The only place that appends to shared log files: locked, whole lines, one write per batch.

Concurrent ``phasewrap run`` processes appending to one JSONL or CSV file never interleave: each takes an
exclusive ``flock`` and writes its lines with a single ``write`` on an ``O_APPEND`` descriptor.
"""
from __future__ import annotations

import fcntl
import os
from typing import Callable, Optional

from ..errors import UsageError


class OutputPathError(UsageError):
    """An output path that can't be written; raised before the child starts."""


def check_writable(option: str, path: str) -> None:
    """Fail early, with the fix, when ``path`` can't be appended to (its directory may not exist yet)."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise OutputPathError(f"{option}: {path} is a directory; give a file name")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise OutputPathError(f"{option}: cannot write {path} (permission denied); choose a writable file")
    elif not os.path.isdir(directory):
        raise OutputPathError(f"{option}: directory {directory} does not exist; create it or choose another path")
    elif not os.access(directory, os.W_OK):
        raise OutputPathError(f"{option}: cannot create files in {directory} (permission denied); choose another path")


def append_locked(path: str, make_text: Callable[[Optional[str]], str]) -> None:
    """Append ``make_text(first_line_or_None)`` under an exclusive lock.

    ``make_text`` sees the file's first line (None for an empty file) so a CSV writer can decide on a
    header and its columns while holding the lock.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        first = _first_line(path)
        data = make_text(first).encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)  # closing releases the lock


def _first_line(path: str) -> Optional[str]:
    with open(path, "r", encoding="utf-8", errors="replace", newline="") as fh:
        line = fh.readline()
    return line.rstrip("\r\n") if line else None
