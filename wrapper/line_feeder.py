"""Feed the child's output, line by line, to the framework parsers that fill ``reported``.

Bounded cost: each stream feeds at most ``HEAD_BYTES`` of lines as they arrive; past that only the last
``TAIL_BYTES`` are kept and fed at the end (frameworks print their timing block last). A line longer
than ``MAX_LINE_BYTES`` is cut, so a 10 MB line without a newline never sits in memory.
"""
from __future__ import annotations

from typing import Optional

from . import frameworks
from .events import STREAMS, Chunk

HEAD_BYTES = 2 << 20
TAIL_BYTES = 256 << 10
MAX_LINE_BYTES = 64 << 10
_BREAKS = (b"\n", b"\r")


class _StreamLines:
    def __init__(self, parser) -> None:
        self._parser = parser
        self._partial = b""
        self._fed_bytes = 0
        self._tail = bytearray()

    def feed(self, data: bytes) -> None:
        if self._fed_bytes >= HEAD_BYTES:
            self._tail += data
            if len(self._tail) > 2 * TAIL_BYTES:
                del self._tail[:-TAIL_BYTES]
            return
        self._fed_bytes += len(data)
        self._split(data)

    def _split(self, data: bytes) -> None:
        # Only complete lines are joined and split; a line still open is kept up to MAX_LINE_BYTES, so
        # megabytes without a newline cost two memrchr scans, not copies.
        cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
        if cut < 0:
            room = MAX_LINE_BYTES - len(self._partial)
            if room > 0:
                self._partial += data[:room]
            return
        block = self._partial + data[:cut] if self._partial else data[:cut]
        self._partial = data[cut + 1:cut + 1 + MAX_LINE_BYTES]
        feed_line = self._parser.feed_line
        for raw in block.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
            if raw:
                feed_line(raw[:MAX_LINE_BYTES].decode("utf-8", "replace"))

    def finish(self) -> None:
        if self._tail:
            tail = bytes(self._tail[-TAIL_BYTES:])
            cut = tail.find(b"\n")
            self._partial = b""
            self._split(tail[cut + 1:] if cut >= 0 else tail)
        if self._partial:
            self._parser.feed_line(self._partial.decode("utf-8", "replace"))
            self._partial = b""


class LineFeeder:
    """Splits both streams into lines for one framework parser (``framework=None``: detect it)."""

    def __init__(self, framework: Optional[str]) -> None:
        self._parser = frameworks.new_parser(None if framework in (None, "unknown") else framework)
        self._streams = {name: _StreamLines(self._parser) for name in STREAMS}
        self._results: Optional[list] = None

    def feed(self, chunk: Chunk) -> None:
        self._streams[chunk.stream].feed(chunk.data)

    def results(self) -> list:
        """The parser's reported dicts (one per run/request found), after flushing partial lines."""
        if self._results is None:
            for lines in self._streams.values():
                lines.finish()
            self._results = self._parser.results()
        return self._results
