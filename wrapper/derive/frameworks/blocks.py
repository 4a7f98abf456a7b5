"""A log file read in large blocks, only its candidate lines decoded and fed to a ``StreamParser``.

    feeder = BlockFeeder(parser)
    feeder.feed(data)        # bytes as read (any cut); complete lines are looked at
    for _ in feeder.read(fh): ...   # or a whole binary file, into one buffer; yields after each block
    feeder.close()           # the last line without a newline

Why: a line that holds no routing key, no figure shape and no escape sequence changes nothing in the parser
(``StreamParser.feed_line`` returns after its searches), and most lines of a long log are such lines. Python's
``re`` searches a multi-key pattern at a few MB/s, slower than the per-line loop it would replace, so the block
prefilter is google-re2 (``pip install google-re2``, the ``fast`` extra): one search per candidate line over the
block's bytes (through the binding's C++ object: its Python match objects cost more than a short search), hundreds
of MB/s. Without it every line is fed, as before (same result, slower).

The prefilter is a superset of what the parser acts on: the families' routing keys as they stand (every family's
until one is detected, then that family's), the warning phrases themselves (``warn_rules.prefilter_pattern``:
``warn_rules.KEYS`` such as "memory" are on most lines of a llama.cpp load), the general reader's gate loosened to
bytes while that reader or the self-name search still reads, and ESC. A candidate line is decoded (UTF-8,
surrogateescape) and split as ``str.splitlines`` splits it, so the parser sees exactly the lines a whole-text split
gives. While a parser is greedy (inside a table) every line is fed. The first ``HEAD_BYTES`` are fed line by
line: banners and logger names there name the log (``generic.SelfName``), and detection settles on them.

Periodic lines (``base.Periodic``: vLLM's engine metrics and spec-decoding lines, SGLang's decode batches): once
a family is settled and a kind's series is full, its key leaves the search, so a server's metrics every few
seconds are not candidates. Between two candidates (a stretch) each kind's lines are found with the family's
regex on the bytes (``findall``), all but the last folded into the run (``StreamParser.fold``: counts, maxima),
the last fed as usual; lines the general reader's gate finds there, but the periodic ones (routed lines: the
reader skips them in a claimed log), are fed too. A stretch where a kind's key shows on a line its regex does not
read is fed line by line; a line holding two periodic keys, a kind's ``unless`` words or a line separator other
than LF is a candidate. So the result is always that of feeding every line (tests/test_frameworks_periodic.py).
"""
from __future__ import annotations

import functools
import re
from typing import Callable, Iterator, Optional
from .generic import HEADER_LINES_BACK

BLOCK_BYTES = 4 << 20
HEAD_BYTES = 64 << 10
MAX_LINE_BYTES = 1 << 20  # a "line" longer than this without a newline is cut, so memory stays bounded

# Where a line ends as str.splitlines ends it, after any spaces: at LF or the end (re2's multi-line $), or at a
# separator other than LF (its first byte: the line continues past it in the block's bytes).
_LINE_END = rb"(?:[^\n!-~]*(?m:$)|[^\n!-~]*?[\r\x0b\x0c\x1c-\x1e\xc2\xe2])"
# generic.GATE as bytes (the patterns are compiled in re2's Latin-1 mode: one byte is one character), loosened: a
# digit is also any other script's (2-4 bytes of a UTF-8 sequence), and between it and the unit any spaces Python's
# \s knows (ASCII, \x1c-\x1f or the bytes of a UTF-8 sequence); no look-ahead after the unit.
_FIGURE_GATE = (rb"(?:\d|[\x80-\xff]{2,4})[\s\x1c-\x1f\x80-\xff]*(?:[mnu]?s|\xc2\xb5s|\xce\xbcs|sec|SEC|milli|micro|nano|min|h|"
                rb"tok|tps|TPS|RPS|rps|[tT]/s|it/s|/s|/\xe7\xa7\x92|\xe7\xa7\x92|req|[KMGT]i?B|[KkMGT]i?(?:[^0-9A-Za-z_.\n]|(?m:$))|kB|kb|bytes|%|user|"
                rb"maximum resident|peak memory footprint|elapsed|[mk]?W|[mk]?J|cycles|samples|calls|chunks|blocks|iterations|instances|queries|docs|documents|pages|segments|images|attempts|retries|embeddings|vectors|records|"
                rb"[gmt]b|\xc2\xb0C|\xe2\x84\x83|degC|[xX]|[KMGTP]?FLOP|[kmgtp]?flops|TOPS|TF|GF|fps|FPS|"
                rb"[A-Za-z]{2,12}/s)|[tT]oken|\||\xe2\x94[\x82\x83]|\xe2\x95\x91|"
                rb"_(?:ms|s|tps|per_second)\"|[mun]s\)|/s\)|\(s\)|iB\)|[KMGTk]B\)|\(%\)|\x1b"
                # "label: 1780" / "p25 = 0.17" at a line's end (or before a separator str.splitlines cuts at), a
                # heading such as "ttft_s" alone on its line, CSV rows and headers
                rb"|(?:[\w) \t]|[\x80-\xff])[:=][ \t]*[-+]?[0-9][0-9.,]*(?:[eE][-+]?[0-9]+)?(?: ?/ ?[0-9][0-9.]*| of [0-9]+)*\**\"?" + _LINE_END +
                rb"|[A-Za-z_]=[-+]?[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?,?[ \t]|\w=[0-9][0-9./]*,[A-Za-z_]\w*=[0-9]|[A-Za-z_]:[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?[ \t]+[A-Za-z_]\w*:[0-9]|\w:[ \t]*[0-9]+ [a-z]{2,16}s, [0-9]+ [a-z]{2,16}s|[a-z]:[ \t]+[0-9]+, done\.|Total [0-9]+ \(delta [0-9]|[0-9][ \t]+[A-Za-z_][\w/.:,=-]*[ \t]+#[ \t]+[0-9]|[0-9] rd[ \t]+\+[ \t]+[0-9]|[0-9](?:,[ \t]+[-+]?[0-9][0-9.eE+-]*){2,},?[ \t]*(?m:$)|[0-9]{4}[ \t]?B|[0-9] [a-z]{2,12} (?:samples|requests|queries|prompts|images|pages|documents|segments)|\w:[ \t]*[-+]?[0-9][0-9.]*[ \t]+#|\.\.[ \t][0-9]|[0-9][ \t]+<-{1,3}[ \t]|\xe2\x94\x81[ \t]+[(0-9]|\w:[ \t]*[-+]?[0-9][0-9.]*(?:,[ \t]*[-+]?[0-9][0-9.]*){2,},?[ \t]*(?m:$)|':[^\n!-~]*[-+]?[0-9]|(?:Int|ble)\([0-9]|[0-9][ \t]+/[ \t]+[0-9][0-9.]*[ \t]+/[ \t]+[0-9]|[A-Za-z][:=][ \t]*[0-9]{1,3}:[0-5][0-9]:[0-5][0-9]"
                rb"|_(?:ms|s|us|ns|sec|seconds|tps|per_s)[^\n!-~]*:?" + _LINE_END +
                rb"|_(?:time|latency|duration)[ \t]*:" + _LINE_END +
                rb"|[A-Za-z]  [0-9][0-9.]*(?:[eE][-+]?[0-9]+)?" + _LINE_END +
                rb"|\xc2\xb1[ \t]*[0-9]|[0-9] _[ \t]+[0-9]|\+/- [0-9]|\][0-9][0-9.]*,\[[0-9]|erplexity [0-9]|PPL [0-9]|ppl [0-9]|[0-9] [0-9][0-9.]* [0-9][0-9.]* [0-9]|[0-9][ \t][0-9]+\.[0-9]+" + _LINE_END + rb"|[A-Za-z] [0-9][0-9.]*,[ \t][A-Za-z]|[0-9] ?\((?:Kilo|Mega|Giga|Tera)?[Bb]ytes\)|:[0-5][0-9]:[0-5][0-9]\.[0-9]{6}|  [0-9][0-9.,]*" + _LINE_END +
                rb"|\" ?:[^\n!-~]*\"?[-+]?[0-9]|unit\"[^\n!-~]*:|\{" + _LINE_END + rb"|\}[^\n!-~]*,?" + _LINE_END +
                rb"|\}[ \t]+[-+]?[0-9]|_(?:total|sum|count|seconds|bytes)[ \t]+[-+]?[0-9]"
                rb"|[0-9],[0-9][0-9.]*,[0-9]|[A-Za-z_)],[A-Za-z_](?:[\w()/%.-]|[\x80-\xff])*,[A-Za-z_(]|\",\"[A-Za-z_]"
                rb"|etric,[A-Za-z]|[A-Za-z)],\"?[-+]?[0-9][0-9.,]*\"?" + _LINE_END +
                rb"|iB\]|\[%\]|\[W\]|of size [0-9]|float(?:64|32)\([0-9]|(?:bytes|ercent|econds|\.Count):[0-9]|\t[0-9]|\t[^\t\n]{0,80}\t|[0-9][ \t]{2,}[-+]?[0-9]|[:=][ \t]*\[[ \t]*['\"]?[-+]?[0-9]|\][ \t]{2,}[-+]?[0-9]|\[" + _LINE_END + rb"|\):" + _LINE_END
                # a number alone on its line (a one-column CSV's cell)
                + rb"|(?m:^)[0-9][0-9.]*" + _LINE_END
                # free's and top's memory rows, top's tasks, dd's records
                + rb"|Mem:|Swap:|Tasks:|iB Mem :|[0-9]\+[0-9]+ records|[0-9][MG][Hh]z[ \t]*\*")


# What ``str.splitlines`` cuts a line at, besides LF, as UTF-8 bytes: a line holding one is never folded.
_SEPARATORS = rb"[\r\x0b\x0c\x1c-\x1e]|\xc2\x85|\xe2\x80[\xa8\xa9]"


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
    from .routes import ROUTES

    return frozenset({k for route in ROUTES.values() for k in route.keys + route.evidence})


Find = Callable[[bytes, int, int], Optional[tuple]]  # (data, pos, end) -> (start, end) of the first match or None


@functools.lru_cache(maxsize=32)
def prefilter(keys: frozenset = frozenset(), figures: bool = True, periodic: tuple = ()) -> Optional[Find]:
    """The compiled candidate search for these routing keys (default: every family's), the warning phrases, ESC,
    and the general reader's gate or not; None when google-re2 is not installed.

    ``periodic``: ``base.Periodic`` lines being folded: their keys leave the search (a line holding one and
    nothing else is folded, not fed), their ``unless`` words join it, and so does a line holding two of their
    keys (the family's rules would take it one way only)."""
    if not available():
        return None
    from . import warn_rules

    folded = {kind.key for kind in periodic}
    words = sorted((set(keys or _all_keys()) - folded) | {w for kind in periodic for w in kind.unless})
    parts = [b"|".join(re.escape(k.encode("utf-8")) for k in words), warn_rules.prefilter_pattern(), rb"\x1b"]
    if folded:
        either = b"(?:" + b"|".join(re.escape(k.encode("utf-8")) for k in sorted(folded)) + b")"
        parts += [either + rb"[^\n]*" + either, _SEPARATORS]
    if figures:
        parts.append(_FIGURE_GATE)
    return _compiled(b"|".join(b"(?:" + part + b")" for part in parts if part))


@functools.lru_cache(maxsize=1)
def gate() -> Optional[Find]:
    """The general reader's gate alone (for the lines between periodic ones); None without google-re2."""
    return _compiled(_FIGURE_GATE) if available() else None


def _compiled(pattern: bytes) -> Find:
    """``pattern`` compiled by re2 on bytes as bytes: Latin-1 mode, so ``\\xe2`` is the byte, not U+00E2 (in its
    default UTF-8 mode a byte escape is a code point), and a line that isn't UTF-8 is read as it is."""
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.max_mem = 64 << 20  # the key set compiles to a large DFA; the default 8 MiB makes re2 fall back
    return _spans(re2.compile(pattern, options))


def _spans(compiled) -> Find:
    """``compiled``'s search as (start, end) or None: through the C++ object where the binding exposes it
    (its Python ``search`` builds a match object per call, ~3 µs, more than the search itself on a short gap)."""
    import re2

    regexp, unanchored = getattr(compiled, "_regexp", None), getattr(re2, "_Anchor", None)
    if regexp is not None and unanchored is not None and hasattr(regexp, "Match"):
        match, anchor = regexp.Match, unanchored.UNANCHORED

        def find(data: bytes, pos: int, end: int) -> Optional[tuple]:
            span = match(anchor, data, pos, end)[0]
            return None if span[0] < 0 else span
        return find

    def find_public(data: bytes, pos: int, end: int) -> Optional[tuple]:
        m = compiled.search(data, pos, end)
        return None if m is None else m.span()
    return find_public


class BlockFeeder:
    """Feeds ``parser.feed_line`` the lines of a byte stream that can matter to it (see the module doc)."""

    def __init__(self, parser, use_prefilter: bool = True) -> None:
        self._parser = parser
        self._use_prefilter = use_prefilter and available()
        self._search: Optional[tuple] = None  # see _current_search
        self._state: Optional[tuple] = None  # (family keys, figures read, periodic kinds) it was compiled for
        self._fed = False
        self._carry = b""
        self._head_left = HEAD_BYTES
        self._chunk: Optional[tuple] = None  # (block, start, its lines) being fed: see line_before
        self._tail: list = []  # the last lines of the block before, for line_before across a block's start
        parser.line_before = self.line_before

    def feed(self, data: bytes) -> None:
        """Bytes as read; complete lines are handled now, the rest is kept for the next call."""
        block = self._carry + data if self._carry else data
        cut = line_cut(block) - 1
        if cut < 0:
            self._carry = block[:MAX_LINE_BYTES]
            return
        self._carry = block[cut + 1:cut + 1 + MAX_LINE_BYTES]
        self._block(block, cut + 1)

    def read(self, fh, block_bytes: int = BLOCK_BYTES) -> Iterator[None]:
        """All of the binary file ``fh``, as ``feed`` of its reads would take it, read into one buffer used again
        for every block (a new 4 MiB object per block costs its page faults: ~0.7 s of system time per GB).
        Yields after each block (for ``pop_finished``); call ``close()`` after."""
        buf = bytearray(MAX_LINE_BYTES + block_bytes)
        kept = len(self._carry)
        buf[:kept], self._carry = self._carry, b""
        with memoryview(buf) as view:
            while True:
                got = fh.readinto(view[kept:kept + block_bytes])
                if not got:
                    break
                end = kept + got
                cut = buf.rfind(b"\n", 0, end) + 1 or buf.rfind(b"\r", 0, end - 1) + 1  # as line_cut
                if cut == 0:
                    kept = min(end, MAX_LINE_BYTES)
                else:
                    self._block(buf, cut)
                    kept = min(end - cut, MAX_LINE_BYTES)
                    buf[:kept] = buf[cut:cut + kept]
                yield
        self._carry = bytes(buf[:kept])

    def close(self) -> None:
        """The last line, when the stream did not end in a newline."""
        if self._carry:
            self._block(self._carry, len(self._carry))
            self._carry = b""

    def _block(self, block, end: int) -> None:
        """The lines of ``block[:end]`` (bytes or a bytearray), which ends between two lines."""
        start = 0
        if self._head_left > 0:
            cut = block.rfind(b"\n", 0, min(self._head_left, end))
            cut = end if cut < 0 and end <= self._head_left else cut + 1
            self._head_left = self._head_left - cut if cut else 0  # no newline in the head: a huge first line
            self._lines(block, 0, cut)
            start = cut
        if not self._use_prefilter:
            self._lines(block, start, end)
        else:
            self._candidates(block, start, end)
        self._keep_tail(block, end)

    def _keep_tail(self, block, end: int) -> None:
        """The block's last lines (as many as a table's header may stand above a row, HEADER_LINES_BACK),
        so that ``line_before`` sees past the next block's start as feeding every line would."""
        cut = end
        for _ in range(HEADER_LINES_BACK + 1):
            if cut <= 0:
                break
            cut = block.rfind(b"\n", 0, cut - 1) + 1
        tail = bytes(block[cut:end]).decode("utf-8", "surrogateescape").splitlines()
        self._tail = (self._tail + tail)[-HEADER_LINES_BACK:] if cut == 0 else tail[-HEADER_LINES_BACK:]

    def _current_search(self) -> tuple:
        """(search, periodic kinds folded, their keys as bytes, the general reader's gate or None) for the parser
        now: fewer keys once its family is known, no figure gate once the general reader stopped, periodic lines
        out once their fold is exact (each set compiled once; with periodic lines out, the gate is searched
        apart, in the lines between them). Asked again only after lines were fed (nothing else changes the
        parser)."""
        if self._fed or self._search is None:
            parser = self._parser
            periodic = parser.periodic()
            state = (parser.family_keys, parser.reads_figures, periodic)
            if state != self._state:
                self._state = state
                keys = tuple(kind.key.encode("utf-8") for kind in periodic)
                if periodic:
                    search = (prefilter(parser.family_keys, False, periodic), periodic, keys,
                              gate() if parser.reads_figures else None)
                else:
                    search = (prefilter(*state), (), (), None)
                self._search = search
            self._fed = False
        return self._search

    def _candidates(self, block, pos: int, end: int) -> None:
        parser = self._parser
        stretch = pos  # where the lines not fed yet begin: no candidate among them, periodic ones maybe
        while pos < end:
            if parser.wants_every_line:
                nl = block.find(b"\n", pos, end)
                nl = end if nl < 0 else nl + 1
                self._lines(block, pos, nl)
                pos = stretch = nl
                continue
            find, periodic, _keys, _gate = self._current_search()
            span = find(block, pos, end)
            if span is None:
                break
            first = max(block.rfind(b"\n", pos, span[0]) + 1, pos)
            nl = block.find(b"\n", span[1], end)
            nl = end if nl < 0 else nl + 1
            if periodic and first > stretch:
                self._stretch(block, stretch, first)
            self._lines(block, first, nl)
            pos = stretch = nl
        if stretch < end and self._search[1]:
            self._stretch(block, stretch, end)

    def _stretch(self, block: bytes, start: int, stop: int) -> None:
        """The lines in ``block[start:stop]``: no candidate but periodic lines and, while the general reader
        reads, lines its gate finds. Each periodic kind's lines but its last are folded (``StreamParser.fold``);
        the gate's lines (outside the periodic ones, which it skips as routed) are fed, then each kind's last.
        (The general reader and the family keep apart state, so the order between the two does not matter.)
        When a kind's key shows on a line its regex does not read, the stretch is fed line by line instead:
        always the same result."""
        _find, kinds, keys, gate_find = self._search
        found = []
        for kind, key in zip(kinds, keys):
            count = block.count(key, start, stop)
            if count == 0:
                continue
            items = kind.figures.findall(block, start, stop)
            if len(items) != count:
                self._lines(block, start, stop)
                return
            found.append((block.rfind(key, start, stop), kind, items))
        if gate_find is not None:
            self._gate_lines(block, start, stop, keys if found else (), gate_find)
        for at, kind, items in sorted(found, key=lambda f: f[0]):
            if len(items) > 1:
                self._parser.fold(kind, items[:-1])
            first = block.rfind(b"\n", start, at) + 1 or start
            nl = block.find(b"\n", at, stop)
            self._lines(block, max(first, start), stop if nl < 0 else nl + 1)

    def _gate_lines(self, block: bytes, start: int, stop: int, keys: tuple, gate_find: Find) -> None:
        """Feed the lines of ``block[start:stop]`` the gate finds something in, but those holding a periodic key."""
        pos, find, rfind = start, block.find, block.rfind
        while pos < stop:
            span = gate_find(block, pos, stop)
            if span is None:
                return
            first = rfind(b"\n", pos, span[0]) + 1 or pos
            nl = find(b"\n", span[1], stop) + 1 or stop
            for key in keys:  # a periodic line: the reader skips it (routed), the fold has it
                if find(key, first, nl) >= 0:
                    break
            else:
                self._lines(block, first, nl)
                while nl < stop and self._parser.wants_every_line:  # a table's rows the gate may not find
                    after = find(b"\n", nl, stop) + 1 or stop
                    if any(find(key, nl, after) >= 0 for key in keys):
                        self._parser.interrupt_figures()  # a periodic line: the fold has it, the reader is not shown it
                        break
                    self._lines(block, nl, after)
                    nl = after
            pos = nl

    def _lines(self, block, start: int, stop: int) -> None:
        if stop > start:
            self._fed = True
            feed = self._parser.feed_line
            lines = block[start:stop].decode("utf-8", "surrogateescape").splitlines()
            self._chunk = (block, start, lines)
            for line in lines:
                feed(line)
            self._chunk = None

    def line_before(self, line: str, back: int = 1) -> Optional[str]:
        """The line ``back`` lines before ``line`` (the one being fed) in the stream, fed or not; past a block's
        start, the block before's last lines (``_tail``); None past those. Asked only by the general reader, for
        the header of a table whose row it meets first."""
        if self._chunk is None:
            return None
        block, start, lines = self._chunk
        for i in range(len(lines) - 1, -1, -1):
            if lines[i] is line:
                if i >= back:
                    return lines[i - back]
                back -= i
                break
        else:
            return None
        end = start
        for left in range(back, 0, -1):  # ``left`` lines still to go back, this one included
            if end <= 0:  # past the block's start: the block before's last lines
                return self._tail[-left] if left <= len(self._tail) else None
            cut = block.rfind(b"\n", 0, end - 1) + 1
            found, end = (cut, end), cut
        return bytes(block[found[0]:found[1]]).decode("utf-8", "surrogateescape").rstrip("\r\n")

