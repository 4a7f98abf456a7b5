"""Pure: the stamps of the token-stream reads → inter-chunk gaps, their distribution and the stalls among them.

A gap is the time between two successive token-stream reads from the first token to the last (phasewrap's
CLOCK_MONOTONIC stamps, taken right after each read returns; for ``--request`` runs, the reads that completed
a content event). When a read holds several tokens the gaps are per read (AIPerf's inter-chunk latency,
vLLM's per-chunk ITL list), and the record says so with ``per: "read"``.

A stall is a gap of at least max(5 × the median gap, 50 ms). At most ``STALLS_LISTED`` are listed (the longest,
in time order); ``stalls_total`` counts all of them.
"""
from __future__ import annotations

from array import array
from collections import deque
from typing import Mapping, Optional, Sequence

STALL_FACTOR = 5.0
STALL_MIN_NS = 50_000_000  # also the read loop's threshold for keeping the text before a gap
STALLS_LISTED = 20
AFTER_CHARS = 40
AFTER_BYTES = AFTER_CHARS * 4  # enough bytes for 40 characters of UTF-8
RECENT_READS = 16  # reads kept for the text before a stall (``after``): 40 characters are rarely more
KEEP_TEXT_MAX = 10_000  # gaps ≥ STALL_MIN_NS whose preceding text is kept: bounds memory on pathological runs
PERCENTILES = (("p50", 50), ("p90", 90), ("p99", 99))


def percentile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default) over sorted values."""
    if len(ordered) == 1:
        return float(ordered[0])
    pos = (len(ordered) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _after(raw: Optional[bytes]) -> Optional[str]:
    if raw is None:
        return None
    text = " ".join(raw.decode("utf-8", errors="replace").split())
    return text[-AFTER_CHARS:].lstrip()


class GapStamps:
    """What the read loop keeps for the gaps: one stamp per token-stream read (8 bytes each: 8 MB for a million
    reads), and the last bytes before each gap of ≥ 50 ms (the only gaps that can be stalls), at most
    ``KEEP_TEXT_MAX`` of them. ``add`` costs an append and a comparison."""

    __slots__ = ("stamps", "texts", "_recent", "complete")

    def __init__(self) -> None:
        self.stamps = array("q")
        self.texts: dict[int, bytes] = {}
        self._recent: deque = deque(maxlen=RECENT_READS)  # the last reads' final bytes
        self.complete = True  # False once reads were counted without being stamped (analyze's fast-forward)

    def add(self, t_ns: int, data: bytes) -> None:
        """One read stamped ``t_ns`` holding ``data``; reads with the same stamp (events of one read) are one."""
        stamps = self.stamps
        if stamps:
            gap = t_ns - stamps[-1]
            if gap == 0:
                self._recent.append(data[-AFTER_BYTES:])
                return
            if gap >= STALL_MIN_NS and len(self.texts) < KEEP_TEXT_MAX:
                self.texts[len(stamps)] = b"".join(self._recent)[-AFTER_BYTES:]
        stamps.append(t_ns)
        self._recent.append(data[-AFTER_BYTES:])

    def clear(self) -> None:
        self.stamps = array("q")
        self.texts = {}
        self._recent.clear()

    @classmethod
    def of(cls, stamps: Sequence[int], texts: Mapping[int, bytes]) -> "GapStamps":
        """Stamps and texts kept elsewhere (a server's stream, a capture) in this shape."""
        kept = cls()
        kept.stamps = array("q", stamps)
        kept.texts = dict(texts)
        return kept


SEEN_KEYS = ("gpu_util_mean", "cpu_pct_mean", "cpu_busiest_thread_pct_max", "disk_read_mib", "major_faults")


def _decode_reads(stamps_ns: Sequence[int], last_ns: Optional[int]) -> Sequence[int]:
    """The reads from the first token to the last (later ones: trailing whitespace, the end marker)."""
    if last_ns is not None:
        end = len(stamps_ns)
        while end and stamps_ns[end - 1] > last_ns:
            end -= 1
        stamps_ns = stamps_ns[:end]
    return stamps_ns


def _stalls(gaps: list) -> tuple[list, list]:
    """(every stalled gap's index, the listed ones: the longest STALLS_LISTED in time order)."""
    threshold = max(STALL_FACTOR * percentile(sorted(gaps), 50), STALL_MIN_NS)
    stalled = [i for i, g in enumerate(gaps) if g >= threshold]  # gap i ends at read i + 1
    return stalled, sorted(sorted(stalled, key=lambda i: -gaps[i])[:STALLS_LISTED])


def stall_windows(stamps_ns: Sequence[int], last_ns: Optional[int]) -> list[tuple[int, int]]:
    """(start, end) ns of each listed stall, in the order ``decode_gaps`` lists them: the windows in which the
    samplers' readings are quoted beside the stall (``seen``)."""
    stamps_ns = _decode_reads(stamps_ns, last_ns)
    if len(stamps_ns) < 2:
        return []
    gaps = [stamps_ns[i] - stamps_ns[i - 1] for i in range(1, len(stamps_ns))]
    return [(stamps_ns[i], stamps_ns[i + 1]) for i in _stalls(gaps)[1]]


def decode_gaps(stamps_ns: Sequence[int], last_ns: Optional[int], t0_ns: int, *,
                counted_tokens: Optional[int] = None, texts: Optional[Mapping[int, bytes]] = None,
                seen: Sequence[dict] = ()) -> dict:
    """The gap fields of a record from the stamps of the token reads (first token first, in order).

    Reads after ``last_ns`` (the last token: trailing whitespace, the end marker) are left out. Returns
    ``{"decode_gaps_ms": {n, mean, p50, p90, p99, max, per} | None, "stalls": [...] | None, "stalls_total",
    "stall_share_of_decode", "reason"}``; ``reason`` says why the gaps are null. ``texts`` maps the index of a
    read to the bytes that preceded it (for ``after``). ``counted_tokens``: the framework's own output count; when it
    equals the number of reads, each read was one token and the gaps are per token. ``seen``: per listed stall (in
    ``stall_windows`` order), the resource statistics of its window; the ``SEEN_KEYS`` of each go into its ``seen``.
    """
    stamps_ns = _decode_reads(stamps_ns, last_ns)
    if len(stamps_ns) < 2:
        return {"decode_gaps_ms": None, "stalls": None, "stalls_total": None, "stall_share_of_decode": None,
                "reason": "fewer than 2 token-stream reads: no gap between reads"}
    gaps = [(stamps_ns[i] - stamps_ns[i - 1]) for i in range(1, len(stamps_ns))]
    ordered = sorted(gaps)
    ms = [g / 1e6 for g in ordered]
    dist = {"n": len(gaps), "mean": round(sum(ms) / len(ms), 3)}
    for name, q in PERCENTILES:
        dist[name] = round(percentile(ms, q), 3)
    dist["max"] = round(ms[-1], 3)
    dist["per"] = "token" if counted_tokens == len(stamps_ns) else "read"
    stalled, listed = _stalls(gaps)
    texts = texts or {}
    stalls = [{"t_s": round((stamps_ns[i + 1] - t0_ns) / 1e9, 6), "gap_ms": round(gaps[i] / 1e6, 3),
               "after": _after(texts.get(i + 1))} for i in listed]
    if len(seen) == len(stalls):
        for stall, window in zip(stalls, seen):
            stall["seen"] = {key: _rounded(window.get(key)) for key in SEEN_KEYS}
    decode_ns = stamps_ns[-1] - stamps_ns[0]
    share = sum(gaps[i] for i in stalled) / decode_ns if decode_ns else None
    return {"decode_gaps_ms": dist, "stalls": stalls, "stalls_total": len(stalled),
            "stall_share_of_decode": None if share is None else round(share, 4), "reason": None}


def _rounded(value):
    return round(value, 3) if isinstance(value, float) else value


def summary_line(record: dict) -> Optional[str]:
    """``decode gaps: p50 10.1 ms · p99 12.0 ms · max 301 ms · 3 stalls (12% of decode)``, or None without gaps."""
    dist = record.get("decode_gaps_ms")
    if not dist:
        return None
    total = record.get("stalls_total") or 0
    share = record.get("stall_share_of_decode")
    stalls = f"{total} stall{'' if total == 1 else 's'}"
    if total and share is not None:
        stalls += f" ({share:.0%} of decode)"
    per = " (per read)" if dist.get("per") == "read" else ""
    return (f"decode gaps{per}: p50 {dist['p50']:.1f} ms · p99 {dist['p99']:.1f} ms · max {dist['max']:.0f} ms"
            f" · {stalls}")
