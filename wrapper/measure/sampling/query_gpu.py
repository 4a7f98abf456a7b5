"""Parser for recorded ``nvidia-smi --query-gpu=... --format=csv [-lms N]`` output.

Columns are mapped from the header (``memory.used [MiB]``: name, then the unit in brackets); values lose
their unit suffix (``76.49 W`` -> 76.49). ``[N/A]`` and ``[Not Supported]`` become ``None``.
"""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from ...model.events import Sample
from .anchor import local_to_epoch_ns, seconds_to_ns, wall_to_mono_ns

SOURCE = "query-gpu"

# query field (as nvidia-smi prints it in the header, and its short alias) -> values key; units as printed
QUERY_METRICS = {
    "utilization.gpu": "gpu_util_pct",
    "utilization.memory": "mem_util_pct",
    "memory.used": "vram_used_mib",
    "memory.total": "vram_total_mib",
    "power.draw": "power_w",
    "clocks.current.sm": "sm_clock_mhz",
    "clocks.sm": "sm_clock_mhz",
    "clocks.current.memory": "mem_clock_mhz",
    "clocks.mem": "mem_clock_mhz",
    "temperature.gpu": "temp_c",
}


def _value(text: str) -> Optional[float]:
    token = text.split(" ", 1)[0]
    if not token or token.startswith("[") or token == "N/A":
        return None
    return float(token)


def parse_query_gpu(
    lines: Iterable[str],
    anchor: tuple[int, int],
    *,
    utc_offset_s: Optional[int] = None,
    columns: Optional[Sequence[str]] = None,
) -> list[Sample]:
    """Samples from recorded query-gpu CSV; needs the ``timestamp`` column, and ``index`` to tell GPUs apart.

    ``anchor`` is ``(wall_ns, mono_ns)`` read together on the machine that ran nvidia-smi, which prints its
    local time (UTC offset ``utc_offset_s``; ``None``: this machine's zone). Output recorded with
    ``noheader`` needs ``columns``: the query's field names in order.
    """
    names = [c.strip() for c in columns] if columns is not None else None
    out: list[Sample] = []
    for line in lines:
        text = line.strip()
        if not text:
            continue
        fields = [f.strip() for f in text.split(",")]
        if fields[0] == "timestamp":
            names = [f.split(" [", 1)[0] for f in fields]
            continue
        if names is None:
            raise ValueError(
                "query-gpu CSV: data before any header line; record with --format=csv (not noheader) "
                "or pass columns=[...the --query-gpu fields...]"
            )
        if "timestamp" not in names:
            raise ValueError("query-gpu CSV: no timestamp column; record with --query-gpu=timestamp,...")
        if len(fields) != len(names):
            continue
        row = dict(zip(names, fields))
        date, clock = row["timestamp"].split(" ")
        year, month, day = date.split("/")
        hour, minute, second = clock.split(":")
        wall_ns = local_to_epoch_ns(
            int(year), int(month), int(day), int(hour), int(minute), seconds_to_ns(second), utc_offset_s
        )
        values = {key: _value(row[col]) for col, key in QUERY_METRICS.items() if col in row}
        out.append(Sample(wall_to_mono_ns(anchor, wall_ns), SOURCE, f"gpu{row.get('index', '')}", values))
    return out
