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
import math
import os
from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..errors import UsageError
from ..model.events import Chunk, Sample
from ..core.writer import show_path, write_whole
from .inputs import open_input, read_lines
from .records_io import check_record

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


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _header_problem(header: dict) -> Optional[str]:
    """Why a capture header can't place the run on a clock; None if it can."""
    if not _is_int(header.get("t0_monotonic_ns")):
        return f"t0_monotonic_ns is {header.get('t0_monotonic_ns')!r}, not whole nanoseconds"
    wall = header.get("wall_t0_s")
    if isinstance(wall, bool) or not isinstance(wall, (int, float)) or not math.isfinite(wall):
        return f"wall_t0_s is {wall!r}, not a finite number of seconds"
    command = header.get("command")
    if command is not None and not (isinstance(command, list) and all(isinstance(a, str) for a in command)):
        return "command is not a list of strings"
    return None


def _chunk(obj: list, t0: int) -> Chunk:
    t_ns, stream, payload = obj
    if not _is_int(t_ns) or stream not in ("out", "err"):
        raise ValueError("not [t_ns, out|err, text]")
    if isinstance(payload, dict):
        return Chunk(t0 + t_ns, stream, base64.b64decode(payload["b64"], validate=True))
    return Chunk(t0 + t_ns, stream, payload.encode("utf-8", "surrogateescape"))


def _take(cap: Capture, obj, t0: int) -> None:
    """One capture line into ``cap``; ValueError / KeyError / TypeError / AttributeError for a malformed one."""
    if isinstance(obj, list):
        cap.chunks.append(_chunk(obj, t0))
    elif obj.get("type") == "sample":
        if not _is_int(obj["t_ns"]) or not isinstance(obj["values"], dict):
            raise ValueError("not a sample")
        cap.samples.append(Sample(t0 + obj["t_ns"], obj["source"], obj["device"], obj["values"]))
    elif obj.get("type") == "exit":
        if not _is_int(obj["t_ns"]) or not isinstance(obj.get("status"), (str, type(None))) \
                or not isinstance(obj.get("signal"), (int, str, type(None))):
            raise ValueError("not an exit line")
        cap.exit = obj
    elif obj.get("type") == "record":
        record, _problem = check_record(obj["record"], cap.path, 0)
        if record is None:
            raise ValueError("not a usable record")
        cap.record = record
    else:
        cap.extra[obj["type"]] = obj


def read_capture(path: str) -> Capture:
    """Parse a capture; a bad first line raises CaptureError, a bad later line is skipped and counted."""
    lines = iter_lines(path)
    try:
        number, first = next(lines)
    except StopIteration:
        raise CaptureError(f"{path}: empty file; expected a phasewrap capture header on line 1") from None
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):
        raise CaptureError(f"{path}:1: not JSON; expected a phasewrap capture header") from None
    if not isinstance(header, dict) or header.get("type") != "header":
        raise CaptureError(f"{path}:1: no capture header; is this a phasewrap --capture file?")
    if header.get("schema") != SCHEMA:
        raise CaptureError(f"{path}:1: unknown schema {header.get('schema')!r}; this phasewrap reads {SCHEMA}")
    problem = _header_problem(header)
    if problem:
        raise CaptureError(f"{path}:1: capture header: {problem}; the file is damaged")
    cap = Capture(path=path, header=header)
    for number, line in lines:
        if not line.strip():
            continue
        try:
            _take(cap, json.loads(line, parse_constant=_no_constant), header["t0_monotonic_ns"])
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            cap.skipped_lines.append(number)
    return cap


def _no_constant(text: str):
    raise ValueError(f"{text} is not a number")
