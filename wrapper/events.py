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
