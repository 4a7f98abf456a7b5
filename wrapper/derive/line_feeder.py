"""Keep the child's output lines for the framework parsers that fill ``reported``; parse them after the run.

The read thread only keeps bytes: each stream's first ``HEAD_BYTES`` as they arrive, then a ring of its last
``TAIL_BYTES`` (frameworks print their timing block last). Splitting into lines, decoding and the framework
parsers (and importing them) all happen in ``results()``, after the child exited, so they never delay a
stamp, and a run that printed nothing never loads them. A line longer than ``MAX_LINE_BYTES`` is cut, so a
10 MB line without a newline never sits in memory twice.
"""
from __future__ import annotations

from collections import deque
from typing import Optional

from ..model.events import STREAMS, Chunk

HEAD_BYTES = 2 << 20
TAIL_BYTES = 256 << 10
MAX_LINE_BYTES = 64 << 10


class _StreamLines:
    """One stream's kept bytes, and (in ``results``) its lines."""

    def __init__(self) -> None:
        self.kept_bytes = 0
        # The tail keeps references to the chunks themselves (no copy on the read thread: joining and trimming
        # a bytearray per read cost ~12 ms of a 200 MB passthrough), dropping the oldest while the rest still
        # holds TAIL_BYTES. A read of TAIL_BYTES or more replaces it with a copy of its own end: the read's
        # buffer (up to launch.READ_BYTES) is freed at once rather than kept for its last quarter MiB.
        self._tail: deque = deque()
        self._tail_bytes = 0
        self._partial = b""

    def keep(self, data: bytes) -> bool:
        """True when ``data`` belongs to the head (kept in arrival order by the caller); else it goes to the tail."""
        if self.kept_bytes < HEAD_BYTES:
            self.kept_bytes += len(data)
            return True
        tail = self._tail
        if len(data) >= TAIL_BYTES:
            tail.clear()
            tail.append(bytes(memoryview(data)[-TAIL_BYTES:]))
            self._tail_bytes = TAIL_BYTES
            return False
        tail.append(data)
        self._tail_bytes += len(data)
        while self._tail_bytes - len(tail[0]) >= TAIL_BYTES:
            self._tail_bytes -= len(tail.popleft())
        return False

    def split(self, data: bytes, feed_line) -> None:
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
        for raw in block.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
            if raw:
                feed_line(raw[:MAX_LINE_BYTES].decode("utf-8", "replace"))

    def finish(self, feed_line) -> None:
        if self._tail_bytes:
            tail = b"".join(self._tail)[-TAIL_BYTES:]
            cut = tail.find(b"\n")
            self._partial = b""
            self.split(tail[cut + 1:] if cut >= 0 else tail, feed_line)
        if self._partial:
            feed_line(self._partial.decode("utf-8", "replace"))
            self._partial = b""


class LineFeeder:
    """Both streams' lines for one framework parser (``framework=None``: detect it), parsed in ``results``."""

    def __init__(self, framework: Optional[str]) -> None:
        self._framework = None if framework in (None, "unknown") else framework
        self._streams = {name: _StreamLines() for name in STREAMS}
        self._head: list = []  # (stream, bytes) in arrival order: lines of both streams reach the parser in order
        self._results: Optional[list] = None

    def feed(self, chunk: Chunk) -> None:
        if self._streams[chunk.stream].keep(chunk.data):
            self._head.append((chunk.stream, chunk.data))

    def results(self) -> list:
        """The parser's reported dicts (one per run/request found); empty when the child printed nothing."""
        if self._results is None:
            if not self._head:
                self._results = []
                return self._results
            from . import frameworks  # every family's parser: loaded only for a run that printed something

            parser = frameworks.new_parser(self._framework)
            for stream, data in self._head:
                self._streams[stream].split(data, parser.feed_line)
            self._head = []
            for lines in self._streams.values():
                lines.finish(parser.feed_line)
            self._results = parser.results()
        return self._results
