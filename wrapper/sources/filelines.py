"""A text file's lines without holding the file: read in blocks, each pass from the start, and counted or read
from the end when only that is needed.

Lines are those of ``text.splitlines()`` over the whole file decoded as UTF-8 with surrogateescape: blocks are
cut just after a newline byte (or a CR not followed by one), where neither a UTF-8 sequence nor a ``\\r\\n`` pair
can be split, so splitting each block gives the same lines.
"""
from __future__ import annotations

import os
from typing import Callable, Iterator, Optional

from ..derive.frameworks.blocks import line_cut

BLOCK_BYTES = 4 << 20
TAIL_BYTES = 64 << 10
# What ``str.splitlines`` ends a line at besides LF, as the bytes they decode from (UTF-8, surrogateescape: a
# lone 0x85 byte is not NEL, it decodes to a surrogate): a block holding none of them is split at LF alone.
# Each with its last byte, looked for first: a one-byte search is several times faster than a sequence's.
_OTHER_BREAKS = tuple((brk[-1:], brk) for brk in (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\xc2\x85",
                                                  b"\xe2\x80\xa8", b"\xe2\x80\xa9"))


class FileLines:
    """The lines of ``path``: iterate for a pass from the start; ``count()``; ``last_where(fn, after)``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._count: Optional[int] = None

    def blocks(self) -> Iterator[bytes]:
        """The file's bytes in blocks cut between lines (``blocks.line_cut``; the last one may end mid-line)."""
        carry = b""
        with open(self.path, "rb") as fh:
            while True:
                data = fh.read(BLOCK_BYTES)
                if not data:
                    break
                block = carry + data if carry else data
                cut = line_cut(block)
                if cut == 0:
                    carry = block
                    continue
                carry = block[cut:]
                yield block[:cut]
        if carry:
            yield carry

    def __iter__(self) -> Iterator[str]:
        for block in self.blocks():
            yield from block.decode("utf-8", "surrogateescape").splitlines()

    def count(self) -> int:
        """How many lines (one pass, kept)."""
        if self._count is None:
            self._count = sum(map(_line_count, self.blocks()))
        return self._count

    def last_where(self, value: Callable[[str], Optional[int]], first_index: int) -> Optional[int]:
        """``value(line)`` of the last line (index ≥ ``first_index``) for which it is not None, read from the
        end of the file backwards; None when there is none."""
        index = self.count()
        with open(self.path, "rb") as fh:
            pos = fh.seek(0, os.SEEK_END)
            carry = b""
            while pos > 0 and index > first_index:
                step = min(TAIL_BYTES, pos)
                pos -= step
                fh.seek(pos)
                data = fh.read(step) + carry
                cut = 0
                if pos > 0:  # the piece may start inside a line: that part waits for the bytes before it
                    cut = data.find(b"\n") + 1
                    if cut == 0:
                        carry = data
                        continue
                carry, whole = data[:cut], data[cut:]
                for line in reversed(whole.decode("utf-8", "surrogateescape").splitlines()):
                    index -= 1
                    if index < first_index:
                        return None
                    found = value(line)
                    if found is not None:
                        return found
        return None


def _line_count(block: bytes) -> int:
    """``len(block.decode("utf-8", "surrogateescape").splitlines())``; without decoding when LF is the block's
    only line break (a log's usual case: counting a 100 MB file takes a tenth of the time)."""
    if any(last in block and brk in block for last, brk in _OTHER_BREAKS):
        return len(block.decode("utf-8", "surrogateescape").splitlines())
    return block.count(b"\n") + (not block.endswith(b"\n") and bool(block))
