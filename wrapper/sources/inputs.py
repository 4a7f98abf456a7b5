"""What every subcommand accepts as an input file: a regular file, or ``-`` for stdin (a directory only where
the subcommand walks one). A FIFO, a device (``/dev/zero``), a socket or a dangling symlink is refused by name
before anything is read: reading one would block forever or never end.

A line longer than ``MAX_LINE_BYTES`` is skipped by the readers with a message naming the file and the line.
"""
from __future__ import annotations

import os
import stat
import sys
from typing import BinaryIO

from ..core.writer import show_path
from ..errors import UsageError

STDIN = "-"
MAX_LINE_BYTES = 16 << 20  # 16 MiB: a record or a recorded chunk is far smaller; a longer line is damage
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


class InputError(UsageError):
    """An input that is not a regular file (or ``-``); the one-line message names it and the fix."""


def _kind_problem(mode: int, directory_ok: bool) -> str:
    if stat.S_ISREG(mode) or (directory_ok and stat.S_ISDIR(mode)):
        return ""
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"is {kind}, not a regular file"


def check_input(path: str, directory_ok: bool = False) -> None:
    """Raise ``InputError`` unless ``path`` is ``-``, a regular file, or (``directory_ok``) a directory."""
    if path == STDIN:
        return
    shown = show_path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        why = "a dangling symlink (its target does not exist)" if os.path.islink(path) else "no such file or directory"
        raise InputError(f"{shown}: {why}") from None
    except OSError as exc:
        raise InputError(f"{shown}: can't read: {exc.strerror}") from None
    problem = _kind_problem(mode, directory_ok)
    if problem:
        raise InputError(f"{shown}: {problem}; name a file (or - for stdin)")


def open_input(path: str) -> BinaryIO:
    """``path`` opened for binary reading (``-``: stdin), checked on the open descriptor itself so that a FIFO
    swapped in after ``check_input`` still can't block. Raises ``InputError``."""
    if path == STDIN:
        return sys.stdin.buffer
    check_input(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        raise InputError(f"{show_path(path)}: can't read: {exc.strerror}") from None
    problem = _kind_problem(os.fstat(fd).st_mode, False)
    if problem:
        os.close(fd)
        raise InputError(f"{show_path(path)}: {problem}; name a file (or - for stdin)")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_lines(fh: BinaryIO) -> tuple[list[bytes], list[int]]:
    """(the lines of ``fh``, the numbers of those longer than ``MAX_LINE_BYTES``): a long line is read past in
    pieces, never held whole, and stands as an empty line so later line numbers stay true."""
    lines: list[bytes] = []
    too_long: list[int] = []
    while True:
        line = fh.readline(MAX_LINE_BYTES + 1)
        if not line:
            return lines, too_long
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while (more := fh.readline(1 << 20)) and not more.endswith(b"\n"):
                pass
            too_long.append(len(lines) + 1)
            line = b"\n"
        lines.append(line)
