"""The small frozen values every other module speaks.

Times are CLOCK_MONOTONIC nanoseconds (``time.monotonic_ns()``), the one clock of a run; the record
header carries one wall-clock anchor to align outside files.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

OUT = "out"
ERR = "err"
STREAMS = (OUT, ERR)
ANY = "any"  # a marker that matches on either stream
# the samplers' sources, in the order a figure is taken from when several gave it
GPU_SOURCES = ("nvml", "query-gpu", "dmon")
CPU_SOURCES = ("psutil", "pidstat")
STREAM_NAMES = {OUT: "stdout", ERR: "stderr", ANY: "stdout or stderr", "http": "the --request response"}


def stream_name(tag: str) -> str:
    """How people call a stream tag in a sentence: ``out`` → ``stdout``, ``any`` → ``stdout or stderr``."""
    return STREAM_NAMES.get(tag, tag)


@dataclass(frozen=True, slots=True)
class Chunk:
    """Bytes as one read() returned them, stamped right after the read."""

    t_ns: int
    stream: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Marker:
    """A named moment: the chunk that completed a match (or the token-stream rule)."""

    name: str
    t_ns: int
    stream: str
    text: str


@dataclass(frozen=True, slots=True)
class Sample:
    """One reading of one sampler.

    ``source`` names the sampler (``nvml``, ``dmon``, ``psutil``, ``pidstat``, ``query-gpu``);
    ``device`` says what was read (``gpu0``, ``gpu1``, ``proc``). ``values`` maps metric names that
    carry their unit (``gpu_util_pct``, ``vram_used_mib``, ``disk_read_bytes_total``) to numbers or
    ``None`` when the source could not read that metric at that moment.
    """

    t_ns: int
    source: str
    device: str
    values: Mapping[str, Optional[float]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RunStart:
    """The launch instant of a run, as its source shows it.

    ``t0_ns`` is the origin of every time of the run. ``wall_t0_s`` (epoch seconds at ``t0_ns``) is None when
    the source carries no wall-clock time; ``monotonic`` is False when the times are a recording's own
    (seconds since its first line), not this machine's CLOCK_MONOTONIC.
    """

    t0_ns: int
    wall_t0_s: Optional[float]
    pid: Optional[int] = None
    monotonic: bool = True


@dataclass(frozen=True, slots=True)
class RunEnd:
    """How the run ended, as far as its source shows it (a live exit, a capture's exit line, a log's end).

    ``status``: ok | failed | killed | timeout | interrupted | unknown. ``exit_code`` follows the shell
    convention (128+N when signal N ended the child) and is None when the source doesn't show it;
    ``t_ns`` is None when the end was not observed.
    """

    t_ns: Optional[int]
    status: str
    exit_code: Optional[int] = None
    signal: Optional[int] = None
    received_signal: Optional[int] = None
    stop_reason: Optional[str] = None


@dataclass(frozen=True, slots=True)
class RunWarning:
    """A warning about one run: ``kind`` is a stable word for programs, ``text`` the sentence for people."""

    kind: str
    text: str
