"""A log file read in large blocks, only its candidate lines decoded and fed to a ``StreamParser``.

    feeder = BlockFeeder(parser)
    feeder.feed(data)        # bytes as read (any cut); complete lines are looked at
    feeder.close()           # the last line without a newline

Why: a line that holds no routing key, no figure shape and no escape sequence changes nothing in the parser
(``StreamParser.feed_line`` returns after its searches), and most lines of a long log are such lines. Python's
``re`` searches a multi-key pattern at a few MB/s, slower than the per-line loop it would replace, so the block
prefilter is google-re2 (``pip install google-re2``, the ``fast`` extra): one search per candidate line over the
block's bytes, hundreds of MB/s on server logs. Without it every line is fed, as before (same result, slower).

The prefilter is a superset of what the parser acts on: the parser's routing keys as they stand (every family's
and the warning rules' until a family is detected, then that family's), the general reader's gate loosened to
bytes while that reader or the self-name search still reads, and ESC. A candidate line is decoded (UTF-8, surrogateescape)
and split as ``str.splitlines`` splits it, so the parser sees exactly the lines a whole-text split gives. While a
parser is greedy (inside a table) every line is fed. The first ``HEAD_BYTES`` are fed line by line: banners and
logger names there name the log (``generic.SelfName``), and detection settles on them.
"""
from __future__ import annotations

import functools
import re
from typing import Callable, Optional

BLOCK_BYTES = 4 << 20
HEAD_BYTES = 64 << 10
MAX_LINE_BYTES = 1 << 20  # a "line" longer than this without a newline is cut, so memory stays bounded

# generic.GATE as bytes, loosened (any one separator byte or a UTF-8 sequence between number and unit).
_FIGURE_GATE = (rb"\d(?:[\s]|[\x80-\xff]{1,3})?(?:[mnu]?s|\xc2\xb5s|\xce\xbcs|sec|min|h|tok|[tT]/s|it/s|req|"
                rb"[KMGT]i?B|kB|%)|token|\||_(?:ms|s|tps|per_second)\"|\x1b")


def line_cut(block: bytes) -> int:
    """Where ``block`` can be cut between lines as ``str.splitlines`` splits them: just after its last newline,
    or, with none, after its last CR that is not its last byte (progress bars redrawn with CR alone); 0: nowhere."""
    cut = block.rfind(b"\n") + 1
    return cut if cut else block.rfind(b"\r", 0, len(block) - 1) + 1


def available() -> bool:
    """Whether the block prefilter can be used (google-re2 is installed)."""
    import importlib.util

    return importlib.util.find_spec("re2") is not None


@functools.lru_cache(maxsize=1)
def _all_keys() -> frozenset:
    from . import warn_rules
    from .routes import ROUTES

    return frozenset({k for route in ROUTES.values() for k in route.keys + route.evidence} | set(warn_rules.KEYS))


@functools.lru_cache(maxsize=32)
def prefilter(keys: frozenset = frozenset(), figures: bool = True) -> Optional[Callable]:
    """The compiled candidate search (``search(data, pos)``) for these routing keys (default: every family's),
    with the general reader's gate or without; None when google-re2 is not installed."""
    if not available():
        return None
    import re2

    literals = b"|".join(re.escape(k.encode("utf-8")) for k in sorted(keys or _all_keys()))
    options = re2.Options()
    options.max_mem = 64 << 20  # the key set compiles to a large DFA; the default 8 MiB makes re2 fall back
    return re2.compile(b"(?:" + literals + b")|" + (_FIGURE_GATE if figures else rb"\x1b"), options).search


class BlockFeeder:
    """Feeds ``parser.feed_line`` the lines of a byte stream that can matter to it (see the module doc)."""

    def __init__(self, parser, use_prefilter: bool = True) -> None:
        self._parser = parser
        self._use_prefilter = use_prefilter and available()
        self._search: Optional[Callable] = None
        self._state: Optional[tuple] = None  # (routing keys, figures read) the search was compiled for
        self._carry = b""
        self._head_left = HEAD_BYTES

    def feed(self, data: bytes) -> None:
        """Bytes as read; complete lines are handled now, the rest is kept for the next call."""
        block = self._carry + data if self._carry else data
        cut = line_cut(block) - 1
        if cut < 0:
            self._carry = block[:MAX_LINE_BYTES]
            return
        self._carry = block[cut + 1:cut + 1 + MAX_LINE_BYTES]
        self._block(block[:cut + 1] if cut + 1 < len(block) else block)

    def close(self) -> None:
        """The last line, when the stream did not end in a newline."""
        if self._carry:
            self._block(self._carry)
            self._carry = b""

    def _block(self, block: bytes) -> None:
        start = 0
        if self._head_left > 0:
            cut = block.rfind(b"\n", 0, self._head_left)
            cut = len(block) if cut < 0 and len(block) <= self._head_left else cut + 1
            self._head_left = self._head_left - cut if cut else 0  # no newline in the head: a huge first line
            self._lines(block[:cut])
            start = cut
        if not self._use_prefilter:
            self._lines(block[start:])
            return
        self._candidates(block, start)

    def _current_search(self) -> Callable:
        """The search for the parser's routing keys now: fewer keys once its family is known, no figure gate
        once the general reader stopped (each set is compiled once)."""
        parser = self._parser
        state = (parser.routing_keys, parser.reads_figures)
        if state != self._state:
            self._state, self._search = state, prefilter(*state)
        return self._search

    def _candidates(self, block: bytes, pos: int) -> None:
        parser, end = self._parser, len(block)
        while pos < end:
            if parser.wants_every_line:
                nl = block.find(b"\n", pos)
                nl = end if nl < 0 else nl + 1
                self._lines(block[pos:nl])
                pos = nl
                continue
            m = self._current_search()(block, pos)
            if m is None:
                return
            first = block.rfind(b"\n", pos, m.start()) + 1 or pos
            nl = block.find(b"\n", m.end())
            nl = end if nl < 0 else nl + 1
            self._lines(block[max(first, pos):nl])
            pos = nl

    def _lines(self, data: bytes) -> None:
        if data:
            feed = self._parser.feed_line
            for line in data.decode("utf-8", "surrogateescape").splitlines():
                feed(line)
