"""The capture format (``phasewrap.capture/1``): one JSON Lines file per run, written as the run goes.

Line 1, the header::

    {"type": "header", "schema": "phasewrap.capture/1", "run_id": ..., "t0_monotonic_ns": ...,
     "wall_t0_s": <epoch seconds at launch>, "started_at": <ISO 8601 UTC>, "command": [...], ...}

Then one line per chunk read from the child, in arrival order, as a JSON array::

    [t_ns, "out"|"err", "text"]          the bytes were valid UTF-8
    [t_ns, "out"|"err", {"b64": "..."}]  anything else (base64 of the exact bytes)

``t_ns`` is nanoseconds since ``t0_monotonic_ns``. Then ``{"type": "sample", ...}`` lines (resource samples,
same clock), ``{"type": "exit", ...}`` and last ``{"type": "record", "record": {...}}``. Every line is
written with one ``write`` as it happens, so a crash of the wrapper or the child loses nothing already read;
a reader treats a missing exit/record line as a truncated capture and re-derives what it can.
"""
from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..errors import UsageError
from ..model.events import Chunk, Sample
from ..core.writer import show_path, write_whole
from .inputs import open_input, read_lines

SCHEMA = "phasewrap.capture/1"
SUFFIX = ".capture.jsonl"


class CaptureWriter:
    """Appends one run's capture lines to ``DIR/<run_id>.capture.jsonl`` (mode 0664 & ~umask: the umask is
    honoured and the file is never world-writable; the child's output is in it)."""

    def __init__(self, directory: str, run_id: str) -> None:
        self.path = os.path.join(directory, run_id + SUFFIX)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o664)
        self._t0_ns = 0
        self._size = 0
        self.failure: Optional[str] = None  # why writing stopped (full disk...): a warning for the record

    def header(self, header: dict) -> None:
        self._t0_ns = header["t0_monotonic_ns"]
        self._line({"type": "header", "schema": SCHEMA, **header})

    def chunk(self, chunk: Chunk) -> None:
        try:
            payload = chunk.data.decode("utf-8")
        except UnicodeDecodeError:
            payload = {"b64": base64.b64encode(chunk.data).decode("ascii")}
        self._write(json.dumps([chunk.t_ns - self._t0_ns, chunk.stream, payload], ensure_ascii=False))

    def samples(self, samples: list[Sample]) -> None:
        lines = [
            json.dumps(
                {"type": "sample", "t_ns": s.t_ns - self._t0_ns, "source": s.source, "device": s.device,
                 "values": dict(s.values)}
            )
            for s in samples
        ]
        if lines:
            self._write("\n".join(lines))

    def event(self, kind: str, payload: dict) -> None:
        self._line({"type": kind, **payload})

    def _line(self, obj: dict) -> None:
        self._write(json.dumps(obj, ensure_ascii=False))

    def _write(self, text: str) -> None:
        # A capture that can't be written (full disk) must not stop the run: the first failure cuts the file
        # back to its last whole line, says why in ``failure`` and turns the writer off.
        if self._fd < 0 or self.failure is not None:
            return
        data = (text + "\n").encode("utf-8", "surrogateescape")
        try:
            write_whole(self._fd, data, self._size)
        except OSError as exc:
            self.failure = (f"--capture: writing {show_path(self.path)} stopped ({exc.strerror}); the capture "
                            "holds the output up to then, this record has the whole run")
            return
        self._size += len(data)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class CaptureError(UsageError):
    """A capture file that can't be read; the message names the file and line."""


@dataclass
class Capture:
    """A capture read back: absolute monotonic times restored from the header's t0."""

    path: str
    header: dict
    chunks: list[Chunk] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    exit: Optional[dict] = None
    record: Optional[dict] = None
    extra: dict = field(default_factory=dict)  # other line types by type, e.g. "request"
    skipped_lines: list[int] = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        return self.exit is None


def iter_lines(path: str) -> Iterator[tuple[int, str]]:
    """(number, text) of each line; a line past ``inputs.MAX_LINE_BYTES`` comes as an empty one (skipped)."""
    with open_input(path) as fh:
        lines, _too_long = read_lines(fh)
    for number, raw in enumerate(lines, 1):
        yield number, raw.decode("utf-8", "surrogateescape")


def read_capture(path: str) -> Capture:
    """Parse a capture; a bad first line raises CaptureError, a bad later line is skipped and counted."""
    lines = iter_lines(path)
    try:
        number, first = next(lines)
    except StopIteration:
        raise CaptureError(f"{path}: empty file; expected a phasewrap capture header on line 1") from None
    try:
        header = json.loads(first)
    except ValueError:
        raise CaptureError(f"{path}:1: not JSON; expected a phasewrap capture header") from None
    if not isinstance(header, dict) or header.get("type") != "header":
        raise CaptureError(f"{path}:1: no capture header; is this a phasewrap --capture file?")
    if header.get("schema") != SCHEMA:
        raise CaptureError(f"{path}:1: unknown schema {header.get('schema')!r}; this phasewrap reads {SCHEMA}")
    t0 = header["t0_monotonic_ns"]
    cap = Capture(path=path, header=header)
    for number, line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if isinstance(obj, list):
                t_ns, stream, payload = obj
                data = base64.b64decode(payload["b64"]) if isinstance(payload, dict) else payload.encode(
                    "utf-8", "surrogateescape")
                cap.chunks.append(Chunk(t0 + int(t_ns), stream, data))
            elif obj.get("type") == "sample":
                cap.samples.append(Sample(t0 + int(obj["t_ns"]), obj["source"], obj["device"], obj["values"]))
            elif obj.get("type") == "exit":
                cap.exit = obj
            elif obj.get("type") == "record":
                cap.record = obj["record"]
            else:
                cap.extra[obj["type"]] = obj
        except (ValueError, KeyError, TypeError):
            cap.skipped_lines.append(number)
    return cap
