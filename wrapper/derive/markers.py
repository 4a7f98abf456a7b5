"""Markers over the decoded output: regex rules, the echo-aware first-token rule and token counting.

Everything here is fed stamped chunks in arrival order and never reads a clock of its own. Matching runs
over each stream's decoded text in a bounded window, so a marker split across two reads still matches and
is stamped with the chunk that completes it, while memory stays bounded for any output size.
"""
from __future__ import annotations

import codecs
import functools
import re
from collections import deque
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from ..core.lazy_re import LazyPattern
from ..core.safe import ANSI
from ..model.events import ANY, ERR, OUT, Chunk, Marker
from .gaps import GapStamps
from .reasoning import THINK_TAGS, ThinkTracker

WINDOW_CHARS = 1024  # overlap kept between reads: the longest match that may straddle two chunks
RACE_WINDOW_NS = 50_000_000
_SPACE = re.compile(r"\s+")
MARKER_TEXT_CHARS = 200


@dataclass(frozen=True)
class MarkerSpec:
    """A named regex and the stream(s) it watches (``out``, ``err`` or ``any``)."""

    name: str
    pattern: re.Pattern
    stream: str = ANY

    def watches(self, stream: str) -> bool:
        return self.stream == ANY or self.stream == stream


# What lets a regex match a newline: one itself, \s, \W, \D, a negated class, DOTALL; a regex with none of them
# matches within one line, so a read is searched from the start of the line it ends, not over the whole window
_SPANS_LINES = LazyPattern(r"\\[nsWDvf]|\\x0[aA]|\\0?12|\\u000[aA]|\[\^|\(\?[aiLmux]*s|\n")


@functools.lru_cache(maxsize=256)
def line_bound(pattern: re.Pattern) -> bool:
    """Whether ``pattern`` can only match within one line (``_SPANS_LINES``)."""
    return not pattern.flags & re.DOTALL and _SPANS_LINES.search(pattern.pattern) is None


# What ties a match to where a line's text starts: with none of them, a regex that matches a line's text after its
# prefixes matches the line as given too
_ANCHORED = LazyPattern(r"\^|\\[AbB]|\(\?<")


@functools.lru_cache(maxsize=256)
def found_in_raw_line(pattern: re.Pattern) -> bool:
    """Whether searching a log line as given (prefixes and all) finds ``pattern`` wherever searching its text
    after the prefixes would: within one line (``line_bound``) and tied to no start (``_ANCHORED``)."""
    return line_bound(pattern) and _ANCHORED.search(pattern.pattern) is None


def compile_marker(option: str, name: str, regex: str, stream: str = ANY) -> MarkerSpec:
    """Compile a marker; a bad regex raises ValueError naming the option (the CLI turns it into exit 2)."""
    if stream not in (OUT, ERR, ANY):
        raise ValueError(f"{option}: stream must be out, err or any, not {stream!r}")
    try:
        pattern = re.compile(regex, re.MULTILINE)
    except re.error as exc:
        raise ValueError(f"{option}: invalid regex {regex!r} ({exc}); fix the pattern or quote it for the shell") from None
    return MarkerSpec(name, pattern, stream)


def _trim(text: str) -> str:
    text = ANSI.sub("", text).strip()
    return text if len(text) <= MARKER_TEXT_CHARS else text[:MARKER_TEXT_CHARS] + "…"


class _StreamText:
    """Incremental UTF-8 decoding of one stream with a bounded tail kept for cross-chunk matches."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.tail = ""

    def push(self, data: bytes) -> tuple[str, str]:
        """Return (window, new_text): the previous tail joined to the new text, and the new text alone."""
        text = self._decoder.decode(data)
        window = self.tail + text
        self.tail = window[-WINDOW_CHARS:]
        return window, text


class EchoFilter:
    """Recognises the echoed prompt at the start of the token stream.

    The echo is output that reproduces a candidate prompt (the profile's prompt flag value, else any
    argument). Whitespace is ignored on both sides because tokenizers add a leading space or fold runs of
    spaces. Text is fed in order; ``feed`` returns the part that is not echo (``""`` while the echo goes on).
    """

    def __init__(self, candidates: Iterable[str]) -> None:
        kept = [c for c in candidates if _SPACE.sub("", c)]
        self._candidates = [_SPACE.sub("", c) for c in kept]
        # A prompt that ends in whitespace is echoed with it (`-p "Tell me a story "` → ' Tell me a story '):
        # whitespace right after such an echo is still echo, not the first token.
        self._trailing_space = [c[-1:].isspace() for c in kept]
        self._skip_space = False
        self._pos = [0] * len(self._candidates)
        self._done = not self._candidates

    @property
    def done(self) -> bool:
        return self._done

    def feed(self, text: str) -> str:
        if self._skip_space:
            rest = text.lstrip()
            self._skip_space = not rest
            return rest
        if self._done:
            return text
        for i, ch in enumerate(text):
            if ch.isspace():
                continue
            alive = False
            for k, cand in enumerate(self._candidates):
                pos = self._pos[k]
                if pos < 0:
                    continue
                if pos < len(cand) and cand[pos] == ch:
                    self._pos[k] = pos + 1
                    alive = True
                    if pos + 1 == len(cand):
                        self._done = True
                        if self._trailing_space[k]:
                            self._skip_space = True
                            return self.feed(text[i + 1:])
                        return text[i + 1:]
                else:
                    self._pos[k] = -1
            if not alive:
                self._done = True
                return text[i:]
        return ""


@dataclass(frozen=True)
class TokenRule:
    """How the token stream is read: which stream, the prompts it may echo, what ends the tokens.

    ``first_token``: a regex that marks the first token instead of the echo-aware default.
    ``end``: a regex on the token stream after which nothing counts as a token (mlx_lm's closing
    separator, llama.cpp's ``[end of text]``).
    ``log_line``: with stdout and stderr merged, text whose every line fully matches it is the framework's
    log, skipped while looking for the echo and the first token.
    """

    stream: str = OUT
    prompts: tuple[str, ...] = ()
    first_token: Optional[MarkerSpec] = None
    end: Optional[re.Pattern] = None
    log_line: Optional[re.Pattern] = None
    think_tags: tuple = THINK_TAGS


TAIL_CHUNKS = 64
TAIL_CHUNK_BYTES = 4096  # of each read kept for the last lines: 64 reads of a 1 MiB pipe must not stay in memory
TAIL_LINES = 5


class PhaseTracker:
    """Consumes chunks; produces the ready / first_token / last_token markers, named marks and a token count.

    ``ready``: the spec that marks the model as loaded, or None when the profile has none (then the token
    rule starts at launch). ``ready_optional``: the token rule starts at launch anyway and starts over when
    ready appears (``--profile auto`` before it knows the framework). Hot-path note: once every regex
    marker is found and the echo is past, a chunk costs a stream comparison and a few assignments.
    """

    def __init__(
        self, ready: Optional[MarkerSpec], marks: Sequence[MarkerSpec], tokens: TokenRule, ready_optional: bool = False
    ) -> None:
        self._ready_spec = None if ready_optional else ready
        self._restart_on_ready = ready_optional and ready is not None
        self._pending = ([ready] if ready else []) + list(marks)
        self._tokens = tokens
        self._echo = EchoFilter(tokens.prompts)
        self._texts = {OUT: _StreamText(), ERR: _StreamText()}
        self.found: dict[str, Marker] = {}
        self.token_chunks = 0
        self.token_bytes = 0
        self.last_token: Optional[Marker] = None
        self._last_token_data = b""
        self.gap_stamps = GapStamps()  # every token-stream read from the first token: the decode gaps
        self.think = ThinkTracker(tokens.think_tags)  # a reasoning model's thinking → answer boundary
        self._counting = False
        self._blank_chunks = 0
        self._ended = False
        self._token_tail = ""
        self._before_ready: deque = deque(maxlen=64)
        self.stream_bytes = {OUT: 0, ERR: 0}
        self.stream_reads = {OUT: 0, ERR: 0}
        self.stream_first_ns: dict[str, int] = {}
        self.stream_last_ns: dict[str, int] = {}
        # the last reads of each stream, for a failed run's "last lines" (cheap: a bounded append per chunk)
        self._tails = {OUT: deque(maxlen=TAIL_CHUNKS), ERR: deque(maxlen=TAIL_CHUNKS)}

    @property
    def ready(self) -> Optional[Marker]:
        return self.found.get("ready")

    @property
    def first_token(self) -> Optional[Marker]:
        return self.found.get("first_token")

    def last_lines(self, stream: str, count: int = TAIL_LINES) -> list[str]:
        """The last ``count`` non-blank lines read on ``stream`` (raw text; make it safe before showing it)."""
        text = b"".join(self._tails[stream]).decode("utf-8", "replace")
        return [line.rstrip() for line in text.splitlines() if line.strip()][-count:]

    def _needs_text(self, stream: str) -> bool:
        if any(spec.watches(stream) for spec in self._pending):
            return True
        if stream != self._tokens.stream:
            return False
        return not self._counting or self._tokens.end is not None or not self.think.done

    def feed(self, chunk: Chunk) -> None:
        stream = chunk.stream
        self.stream_bytes[stream] += len(chunk.data)
        self.stream_reads[stream] += 1
        self._tails[stream].append(chunk.data[-TAIL_CHUNK_BYTES:])
        self.stream_last_ns[stream] = chunk.t_ns
        if stream not in self.stream_first_ns:
            self.stream_first_ns[stream] = chunk.t_ns
        if not self._needs_text(stream):
            if stream == self._tokens.stream and not self._ended:
                self._count(chunk, None)
            return
        window, text = self._texts[stream].push(chunk.data)
        ready_end = self._match_regexes(chunk, stream, window, len(window) - len(text)) if self._pending else None
        if stream == self._tokens.stream and not self._ended:
            # Output before the ready match on the token stream itself (a banner, "> ") is not a token.
            self._token_text(chunk, text if ready_end is None else text[ready_end:])

    def _match_regexes(self, chunk: Chunk, stream: str, window: str, new_from: int) -> Optional[int]:
        """Match pending specs; returns where in the new text a ready match found here ended, else None."""
        still = []
        ready_end = None
        for spec in self._pending:
            if spec.name in self.found:
                continue
            if spec.watches(stream):  # a match the window's old part held alone was found in the read before
                start = window.rfind("\n", 0, new_from) + 1 if line_bound(spec.pattern) else 0
                match = spec.pattern.search(window, start)
            else:
                match = None
            if match is None:
                still.append(spec)
                continue
            self.found[spec.name] = Marker(spec.name, chunk.t_ns, stream, _trim(match.group(0)))
            if spec.name != "ready":
                continue
            if self._restart_on_ready:
                self._restart_tokens()
            if stream == self._tokens.stream:
                end = match.end()
                if self._tokens.log_line is not None:
                    # merged streams: the rest of the ready line is log too
                    newline = window.find("\n", end)
                    end = len(window) if newline < 0 else newline + 1
                ready_end = max(0, end - new_from)
            else:
                self._replay_before_ready(chunk.t_ns)
        self._pending = [spec for spec in still if spec.name not in self.found]
        return ready_end

    def _replay_before_ready(self, ready_ns: int) -> None:
        """Token-stream text read just before a ready line on the other stream is treated as after it.

        The two pipes are read separately and frameworks print logs from another thread, so the echo (or
        even a token) can be read a little before the ready line that logically precedes it.
        """
        recent = [(t, text) for t, text in self._before_ready if ready_ns - t <= RACE_WINDOW_NS]
        self._before_ready.clear()
        for t_ns, text in recent:
            if self._counting or self._ended:
                self._count(Chunk(t_ns, self._tokens.stream, text.encode("utf-8")), text)
            else:
                self._token_text(Chunk(t_ns, self._tokens.stream, text.encode("utf-8")), text)

    def _restart_tokens(self) -> None:
        self.found.pop("first_token", None)
        self._counting = False
        self.token_chunks = 0
        self._blank_chunks = 0
        self.token_bytes = 0
        self.last_token = None
        self._last_token_data = b""
        self.gap_stamps.clear()
        self.found.pop("first_answer_token", None)
        self.think = ThinkTracker(self._tokens.think_tags)
        self._token_tail = ""

    def _token_text(self, chunk: Chunk, text: str) -> None:
        if self._counting:
            self._count(chunk, text)
            return
        if self._ready_spec is not None and "ready" not in self.found:
            self._before_ready.append((chunk.t_ns, text))
            return
        visible = ANSI.sub("", text)
        log_line = self._tokens.log_line
        if log_line is not None and all(log_line.fullmatch(line) for line in visible.split("\n")):
            return
        rule = self._tokens.first_token
        if rule is not None:
            window = self._token_tail + visible
            self._token_tail = window[-WINDOW_CHARS:]
            match = rule.pattern.search(window)
            if match is None:
                return
            self.found["first_token"] = Marker("first_token", chunk.t_ns, chunk.stream, _trim(match.group(0)))
            rest = window[match.start():]
        else:
            rest = self._echo.feed(visible)
            if not rest:
                return
            self.found["first_token"] = Marker("first_token", chunk.t_ns, chunk.stream, _trim(rest))
        self._counting = True
        self._think_text(chunk, rest)
        self._count(chunk, None)

    def _think_text(self, chunk: Chunk, visible: str) -> None:
        think = self.think
        think.text(chunk.t_ns, visible)
        if think.first_answer_ns is not None and "first_answer_token" not in self.found:
            self.found["first_answer_token"] = Marker("first_answer_token", think.first_answer_ns, chunk.stream,
                                                      _trim(think.first_answer_text))

    def _count(self, chunk: Chunk, text: Optional[str]) -> None:
        if text is not None and self._tokens.end is not None:
            window = self._token_tail + text
            match = self._tokens.end.search(window)
            if match is not None:
                self._ended = True
                before = window[: match.start()]
                text = before[len(self._token_tail):]
                if not text.strip():
                    return
            self._token_tail = window[-WINDOW_CHARS:]
        if text is not None and not self.think.done:
            self._think_text(chunk, ANSI.sub("", text))
        self.gap_stamps.add(chunk.t_ns, chunk.data)
        if chunk.data.isspace():
            # Whitespace after the last token (a closing newline) is not a token; it counts only once
            # a later token shows it was inside the stream.
            self._blank_chunks += 1
            return
        self.token_chunks += 1 + self._blank_chunks
        self._blank_chunks = 0
        self.token_bytes += len(chunk.data)
        self.last_token = Marker("last_token", chunk.t_ns, chunk.stream, "")
        self._last_token_data = chunk.data  # its text is decoded once, in markers(), off the hot path

    @property
    def settled(self) -> bool:
        """True once every marker is found and each further chunk would only count as a token."""
        return (not self._pending and self._counting and self._tokens.end is None and not self._ended
                and self.think.done)

    def waiting(self) -> Optional[tuple]:
        """The pending markers' regexes, when a line none of them matches changes nothing this tracker reports: the
        ready marker not seen yet and the tokens waiting for it (they are not counted before it), every pending
        regex ``found_in_raw_line``. Such lines may go unread (analyze, ``unread``); else None."""
        if self._ready_spec is None or "ready" in self.found or self._restart_on_ready or not self._pending:
            return None
        patterns = tuple(spec.pattern for spec in self._pending)
        return patterns if all(found_in_raw_line(p) for p in patterns) else None

    def unread(self, stream: str, lines: int, data_bytes: int) -> None:
        """Count ``lines`` of ``data_bytes`` that went unread while ``waiting``: in the stream's bytes, and as that
        many reads (a timed log's lines of one time are one read: the count of reads is an upper bound then)."""
        self.stream_bytes[stream] += data_bytes
        self.stream_reads[stream] += lines

    def fast_forward(self, chunks: int, last_t_ns: Optional[int], last_data: bytes = b"") -> None:
        """Count ``chunks`` more token chunks ending at ``last_t_ns`` (whose bytes were ``last_data``) without
        reading them (analyze, settled)."""
        if chunks and last_t_ns is not None:
            self.gap_stamps.complete = False
            self.token_chunks += chunks
            self.last_token = Marker("last_token", last_t_ns, self._tokens.stream, "")
            self._last_token_data = last_data

    def markers(self) -> dict[str, Marker]:
        """All markers found so far, ``last_token`` included."""
        out = dict(self.found)
        if self.last_token is not None:
            text = self.last_token.text
            if not text and self._last_token_data:
                text = _trim(self._last_token_data.decode("utf-8", "replace"))
            out["last_token"] = Marker("last_token", self.last_token.t_ns, self.last_token.stream, text)
        return out

    def pending(self) -> list[MarkerSpec]:
        """Regex markers never seen (for the missing-reason list)."""
        return list(self._pending)
