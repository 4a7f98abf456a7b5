"""The page cache state of the model files: how much is resident, evicting it, and finding the files.

Linux-first. Residency is read with ``mincore(2)`` on a read-only shared mapping of each file (ctypes to libc):
the mapping touches no page, so measuring does not warm the cache, and it is unmapped before returning.
Eviction uses ``posix_fadvise(POSIX_FADV_DONTNEED)`` per file, which needs no root; it drops only clean
pages that no process has mapped, hence the ``fdatasync`` first and the caveat that a running server holding
the model mapped keeps it resident.
"""
from __future__ import annotations

import mmap
import errno
import functools
import os
import re
import stat
from typing import Iterable, Optional, Sequence

from ..errors import UsageError

PAGE_SIZE = mmap.PAGESIZE
# Labels for the share of the model files' pages resident in the page cache before a run.
COLD_BELOW = 0.05   # fraction < 5 %: "cold" (the load reads from disk)
WARM_ABOVE = 0.95   # fraction > 95 %: "warm" (the load reads from memory); in between: "partial"
MODEL_SUFFIXES = (".gguf", ".safetensors")
MIN_MODEL_BYTES = 1 << 20  # a plain file argument counts as model data from 1 MiB up
MODEL_FLAGS = ("-m", "--model")
DROP_CACHES_PATH = "/proc/sys/vm/drop_caches"
_MIB = 1048576
# mincore is called over windows of this many pages, so the result vector stays small for a 100 GB file.
_WINDOW_PAGES = 1 << 18
# mincore's vector: bit 0 of each byte says "resident"; the other bits are reserved.
_LOW_BIT = bytes(b & 1 for b in range(256))
# llama.cpp split GGUF: name-00001-of-00003.gguf; the loader opens the sibling parts itself.
_SPLIT_GGUF = re.compile(r"^(?P<stem>.*)-(?P<part>\d{5})-of-(?P<count>\d{5})\.gguf$")


class PageCacheError(UsageError):
    """A page-cache operation could not be done; the message names the file and the fix."""


@functools.lru_cache(maxsize=None)
def _libc():
    import ctypes  # here, not at the top: a run without model files never needs it (~1.5 ms of start-up)
    import ctypes.util
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                          ctypes.c_long)
    libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
    return libc


def _os_error(call: str, path: str) -> OSError:
    import ctypes
    err = ctypes.get_errno()
    return OSError(err, f"{call}: {os.strerror(err)}", path)


def resident_pages(path: str) -> tuple[int, int]:
    """(pages resident in the page cache, pages in the file) for one file; (0, 0) for an empty file.

    Raises ``OSError`` when the file can't be opened, mapped or queried.
    """
    # O_NONBLOCK: opening a FIFO named by mistake must not hang; it is then refused as not a regular file.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        size = st.st_size
        if size == 0:
            return 0, 0
        import ctypes
        libc = _libc()
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):  # MAP_FAILED
            raise _os_error("mmap", path)
        try:
            total = (size + PAGE_SIZE - 1) // PAGE_SIZE
            vec = ctypes.create_string_buffer(min(total, _WINDOW_PAGES))
            resident = 0
            for first in range(0, total, _WINDOW_PAGES):
                pages = min(_WINDOW_PAGES, total - first)
                if libc.mincore(addr + first * PAGE_SIZE, pages * PAGE_SIZE, vec) != 0:
                    raise _os_error("mincore", path)
                resident += pages - vec.raw[:pages].translate(_LOW_BIT).count(0)
            return resident, total
        finally:
            libc.munmap(addr, size)
    finally:
        os.close(fd)


def residency(paths: Sequence[str]) -> dict:
    """The page-cache state of a set of files, ready for the run record's ``cache``.

    ``{"label", "resident_fraction", "resident_mib", "size_mib", "files", "reason"}``: the fraction is over all
    pages of all files (a 4 GB file weighs more than a 1 MB one). Any file that can't be read makes the fraction,
    the resident MiB and the label ``None``, with ``reason`` naming the file: a fraction over the other files
    would be a guess. No files, or only empty ones: ``None`` with a reason too.
    """
    files = list(paths)
    out = {"label": None, "resident_fraction": None, "resident_mib": None, "size_mib": None,
           "files": files, "reason": None}
    if not files:
        out["reason"] = "no model files found in the command (pass --model-file PATH)"
        return out
    resident = total = size = 0
    for path in files:
        try:
            size += os.stat(path).st_size
            r, t = resident_pages(path)
        except OSError as e:
            out["reason"] = f"{path}: {e.strerror or e}"
            return out
        resident += r
        total += t
    out["size_mib"] = round(size / _MIB, 3)
    if total == 0:
        out["reason"] = "the model files are empty"
        return out
    fraction = resident / total
    out["resident_fraction"] = round(fraction, 4)
    out["resident_mib"] = round(min(resident * PAGE_SIZE, size) / _MIB, 3)
    out["label"] = label(fraction)
    return out


def resident_fraction(paths: Sequence[str]) -> Optional[float]:
    """Share (0..1) of the files' pages resident in the page cache; ``None`` when it can't be read.

    ``residency(paths)["reason"]`` says why it is ``None``.
    """
    return residency(paths)["resident_fraction"]


def label(fraction: Optional[float]) -> Optional[str]:
    """"cold" below 5 % resident, "warm" above 95 %, "partial" in between; ``None`` for ``None``."""
    if fraction is None:
        return None
    if fraction < COLD_BELOW:
        return "cold"
    if fraction > WARM_ABOVE:
        return "warm"
    return "partial"


def evict(paths: Iterable[str]) -> None:
    """Drop the files' pages from the page cache (no root needed).

    Each file is ``fdatasync``-ed first: DONTNEED skips dirty pages. Pages another process has mapped (a
    running server with the model loaded) stay resident; check with ``resident_fraction`` afterwards.
    Raises ``PageCacheError`` naming the file when it can't be opened or advised.
    """
    if not hasattr(os, "posix_fadvise"):
        raise PageCacheError("evicting the page cache needs posix_fadvise, which this OS lacks (Linux has it); "
                             "run without --cold")
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as e:
            raise PageCacheError(f"{path}: can't open to evict it from the page cache: {e.strerror}") from None
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError as e:
            raise PageCacheError(f"{path}: posix_fadvise(DONTNEED) failed: {e.strerror}") from None
        finally:
            os.close(fd)


def drop_caches(*, path: str = DROP_CACHES_PATH, euid: Optional[int] = None) -> None:
    """Drop the whole page cache (``sync``, then write 1 to /proc/sys/vm/drop_caches). Root only.

    ``euid`` defaults to the process's effective user id; ``path`` is injectable for tests. Raises
    ``PageCacheError`` when not root or when the kernel refuses (a container's read-only /proc/sys).
    """
    euid = os.geteuid() if euid is None else euid
    if euid != 0:
        raise PageCacheError(f"dropping the whole page cache needs root (euid is {euid}): run as root, or evict "
                             f"only the model files with evict() / --cold, which needs no root")
    os.sync()
    try:
        with open(path, "w") as fh:
            fh.write("1")
    except OSError as e:
        raise PageCacheError(f"{path}: can't write: {e.strerror} (a container's /proc/sys is read-only); evict "
                             f"only the model files with evict() / --cold instead") from None


def _split_parts(path: str) -> list[str]:
    m = _SPLIT_GGUF.match(os.path.basename(path))
    if m is None:
        return [path]
    folder = os.path.dirname(path)
    count = int(m["count"])
    parts = [os.path.join(folder, f"{m['stem']}-{i:05d}-of-{count:05d}.gguf") for i in range(1, count + 1)]
    return [p for p in parts if os.path.isfile(p)]


def _dir_models(folder: str) -> list[str]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names
            if n.endswith(MODEL_SUFFIXES) and os.path.isfile(os.path.join(folder, n))]


def _is_big_file(path: str) -> bool:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return os.path.isfile(path) and st.st_size >= MIN_MODEL_BYTES


def _candidates(argv: Sequence[str]) -> list[tuple[str, bool]]:
    """(value, named by a model flag) for each argument after the executable; ``--flag=value`` split."""
    out = []
    args = list(argv[1:])
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if eq and flag.startswith("-"):
            out.append((value, flag in MODEL_FLAGS))
        else:
            out.append((arg, i > 0 and args[i - 1] in MODEL_FLAGS))
    return out


def model_files(argv: Sequence[str], extra: Sequence[str] = ()) -> list[str]:
    """The model files a command will read, as absolute paths, in argument order, without duplicates.

    From the arguments after the executable: the value of ``-m``/``--model`` (a file, or a directory: its
    *.gguf / *.safetensors files), any existing file of at least 1 MiB, any directory holding *.gguf or
    *.safetensors files (those files); a split GGUF (``-00001-of-00003.gguf``) brings its existing parts.
    ``extra`` (``--model-file``) is added as given, after checking nothing. A ``-m`` value that is not a path
    here (a hub model id) adds nothing.
    """
    found: list[str] = []
    for value, flagged in _candidates(argv):
        if not value or value.startswith("-") and not flagged:
            continue
        if os.path.isdir(value):
            found += _dir_models(value)
        elif os.path.isfile(value) and (flagged or _is_big_file(value)):
            found += _split_parts(value)
    found += list(extra)
    seen, out = set(), []
    for path in found:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(os.path.abspath(path))
    return out
