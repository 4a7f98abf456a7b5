"""An incremental parser for server-sent events (the ``text/event-stream`` body of a streaming completion).

Pure: bytes in, events out, no I/O and no clock. Feed it the bytes of each read as they arrive; it keeps the
unfinished line and the unfinished event between reads, so an event split over several reads comes out of the
read that completes it, and a read holding several events yields all of them. Follows the WHATWG rules: lines end
in ``\\r\\n``, ``\\n`` or ``\\r``; ``:`` starts a comment (``: ping``); ``data:`` lines of one event are joined
with ``\\n``; a blank line dispatches the event; an event without data is dropped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

DONE = "[DONE]"
MESSAGE = "message"
_EOL = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Event:
    """One dispatched event: its data (data lines joined by ``\\n``), its ``event:`` name, the last ``id:``."""

    data: str
    event: str = MESSAGE
    id: Optional[str] = None

    @property
    def done(self) -> bool:
        """The OpenAI-style end of stream, ``data: [DONE]``."""
        return self.data.strip() == DONE


class SSEParser:
    """Turns the bytes of a stream, in any split, into the same events."""

    def __init__(self) -> None:
        self._partial: list[bytes] = []  # the current line's bytes so far
        self._skip_lf = False  # the last read ended in \r: a \n starting the next one ends the same line
        self._at_start = True
        self._data: list[str] = []
        self._event = ""
        self._last_id: Optional[str] = None

    @property
    def pending(self) -> bool:
        """Whether bytes of an unfinished line or lines of an undispatched event are held."""
        return bool(self._partial or self._data)

    def feed(self, data: bytes) -> list[Event]:
        """Parse the bytes of one read; returns the events it completed, in order (often none)."""
        if not data:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if data[:1] == b"\n":
                data = data[1:]
        if self._at_start:
            head = b"".join(self._partial) + data
            if len(head) < len(_BOM) and _BOM.startswith(head):
                self._partial = [head]
                return []
            self._at_start = False
            self._partial = []
            data = head[len(_BOM):] if head.startswith(_BOM) else head
        events: list[Event] = []
        start = 0
        for match in _EOL.finditer(data):
            piece = data[start:match.start()]
            if self._partial:
                self._partial.append(piece)
                piece = b"".join(self._partial)
                self._partial = []
            self._line(piece.decode("utf-8", errors="replace"), events)
            start = match.end()
        if start < len(data):
            self._partial.append(data[start:])
        self._skip_lf = data.endswith(b"\r")
        return events

    def close(self) -> list[Event]:
        """End of stream: the unfinished last line counts as a line, and an event the stream did not close
        with a blank line is returned too (the spec drops it; returning it lets the caller see what was sent)."""
        events: list[Event] = []
        if self._partial and not self._at_start:  # at the start it can only hold a partial BOM
            self._line(b"".join(self._partial).decode("utf-8", errors="replace"), events)
        self._partial = []
        self._line("", events)
        return events

    def _line(self, line: str, events: list[Event]) -> None:
        if not line:
            if self._data:
                events.append(Event("\n".join(self._data), self._event or MESSAGE, self._last_id))
            self._data = []
            self._event = ""
            return
        if line[0] == ":":
            return
        name, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
