"""The one place that writes phasewrap's output files.

Two ways in:

- ``write_file(path, data)``: a whole file (report, plot, --plot). Written to a temporary file in the same
  directory and renamed over ``path``, so a failure (full disk, read-only file system, a crash) never leaves
  half a file and never touches an existing one. ``-`` means stdout.
- ``append_locked(path, make_text)``: whole lines appended to a shared log (JSONL, CSV) under an exclusive
  ``flock``, in one ``write`` on an ``O_APPEND`` descriptor, so concurrent runs never interleave. An append
  always starts on a fresh line (a file cut off mid-line gets its newline first), and a short write (ENOSPC)
  is truncated back, so the file holds whole lines only.

Every failure is an ``OutputError`` whose one-line message names the option, the file and the fix.
"""
from __future__ import annotations

import errno
import fcntl
import os
import sys
from typing import Callable, Optional, Union

from ..errors import UsageError

STDOUT = "-"
_stdout_first: Optional[str] = None  # the first line appended to stdout, as a file's first line would be


class OutputError(UsageError):
    """An output file that can't be written; the message is one line naming the file."""


class OutputPathError(OutputError):
    """An output path that can't be written, found before the child starts."""


def show_path(path: str) -> str:
    """``path`` printable on any terminal: bytes that aren't UTF-8 (kept by Python as surrogates) as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _fail(option: Optional[str], path: str, exc: OSError, fix: str) -> OutputError:
    head = f"{option}: " if option else ""
    return OutputError(f"{head}cannot write {show_path(path)} ({exc.strerror or exc}); {fix}")


def write_file(path: str, data: Union[bytes, str], option: Optional[str] = None) -> None:
    """Write ``data`` as the whole of ``path`` (temp file + rename); ``-`` writes it to stdout."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if path == STDOUT:
        out = sys.stdout.buffer if sys.stdout is not None else None
        try:
            if out is None:
                raise OSError(9, "stdout is closed")
            out.write(data)
            out.flush()
        except OSError as exc:
            raise _fail(option, "stdout", exc, "give a file name instead of -") from None
        return
    directory = os.path.dirname(os.path.abspath(path))
    mode = 0o666
    try:
        st = os.stat(path)
        mode = st.st_mode & 0o7777  # keep the mode of the file being replaced
    except OSError:
        pass
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)  # the umask applies to a new file
    except OSError as exc:
        raise _fail(option, path, exc, "choose a writable location") from None
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise _fail(option, path, exc, "free some space or choose another location") from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_whole(fd: int, data: bytes, size: int) -> None:
    """Write ``data`` at the end of ``fd`` (now ``size`` bytes long) completely, or cut the file back to ``size``
    and raise the OSError: never a partial line for the next writer to be glued onto."""
    try:
        _write_all(fd, data)
    except OSError:
        try:
            os.ftruncate(fd, size)
        except OSError:
            pass
        raise


def check_writable(option: str, path: str) -> None:
    """Fail early, with the fix, when ``path`` can't be written (its directory may not exist yet).

    An existing file is opened for append (nothing is written); a new one is created and removed again:
    permission bits alone say nothing for root, or for /proc, which refuses new files.
    """
    if path == STDOUT:
        return
    shown = show_path(path)
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise OutputPathError(f"{option}: {shown} is a directory; give a file name")
    if os.path.exists(path) and _check_existing(option, path, shown):
        return
    if not os.path.isdir(directory):
        raise OutputPathError(f"{option}: directory {show_path(directory)} does not exist; create it or choose "
                              "another path")
    else:
        _try_create(option, path)


def _check_existing(option: str, path: str, shown: str) -> bool:
    """An existing file opened for append (nothing written); False when it is gone meanwhile (another
    writer's check of a new file, or a rotation): then it is checked as a new one."""
    try:
        mode = os.stat(path).st_mode
        if not mode & 0o222:  # no write bit at all (/proc/version, a file made read-only): root would still try
            raise OutputPathError(f"{option}: cannot write {shown} (read-only, mode {mode & 0o7777:04o}); choose "
                                  "a writable file")
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_NOCTTY))
    except FileNotFoundError:
        return False
    except OSError as exc:
        why = "a FIFO with no reader" if exc.errno == errno.ENXIO else exc.strerror  # the real cause
        raise OutputPathError(f"{option}: cannot write {shown} ({why}); choose a writable file") from None
    return True


def _try_create(option: str, path: str) -> None:
    """Create a file beside ``path`` and remove it again: permission bits don't tell (root, /proc, a read-only
    mount), only an open does. Not ``path`` itself: another run writing the same file (eight runs sharing one
    --jsonl) could append its record between that create and the remove, and lose it."""
    directory, name = os.path.split(os.path.abspath(path))
    try:
        if len(os.fsencode(name)) > os.pathconf(directory, "PC_NAME_MAX"):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
        probe = os.path.join(directory, f".phasewrap-check-{os.getpid()}-{os.urandom(4).hex()}")
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_NOCTTY, 0o666)
    except OSError as exc:
        raise OutputPathError(f"{option}: cannot write {show_path(path)} ({exc.strerror}); choose another "
                              "path") from None
    os.close(fd)
    os.unlink(probe)


def append_locked(path: str, make_text: Callable[[Optional[str]], str], option: Optional[str] = None) -> None:
    """Append ``make_text(first_line_or_None)`` under an exclusive lock, as whole lines or not at all.

    ``make_text`` sees the file's first line (None for an empty file) so a CSV writer can decide on a header
    and its columns while holding the lock. Raises ``OutputError``; the file is then as it was before.
    ``-`` appends to stdout (its "first line" is the first one this process wrote there).
    """
    if path == STDOUT:
        global _stdout_first
        text = make_text(_stdout_first)
        write_file(STDOUT, text, option)
        if _stdout_first is None and text:
            _stdout_first = text.split("\n", 1)[0]
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    except OSError as exc:
        raise _fail(option, path, exc, "choose a writable file") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        first = _first_line(path) if size else None
        text = make_text(first)
        if size and _last_byte(path, size) != b"\n":
            text = "\n" + text  # the previous writer was cut off mid-line: start ours on a fresh one
        try:
            write_whole(fd, text.encode("utf-8", "surrogateescape"), size)
        except OSError as exc:
            raise _fail(option, path, exc, "free some space; nothing of this record was written there") from None
    finally:
        os.close(fd)  # closing releases the lock


def _first_line(path: str) -> Optional[str]:
    with open(path, "r", encoding="utf-8", errors="replace", newline="") as fh:
        line = fh.readline()
    return line.rstrip("\r\n") if line else None


def _last_byte(path: str, size: int) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(size - 1)
        return fh.read(1)
