"""Where load went: the load window (launch → ready) cut into steps, each with the resource that bound it.

Two halves, one-way:

* ``LoadWatcher`` sits on the read thread while the child loads: it keeps a reference to each chunk (no copy,
  bounded in bytes) and, for a chunk that ends a line, tells the samplers so they read their cumulative
  counters (disk bytes, major faults, CPU time per thread, GPU energy) on their own thread right then. It does
  nothing else: no decoding, no regexes.
* Everything else is pure and runs after the run (or in ``analyze`` over a recording): chunks → lines →
  boundaries (the profile's ordered step markers, ``--mark``s, else every output line) → steps → short steps
  merged into the next → per-step figures from the samples → a ``kind`` with the figures as ``evidence``.

A step is named for what happens in it: the profile's step name or the mark's name; when lines cut the window,
the line that reports the step's work done ("… loaded", "took 2.1 s", "read from disk"), else the line that
announced it ("loading …", "starting …"), else both ("A → B"); the first step, before any line, is ``start-up``.
A line as a name has its log prefix stripped and numbers replaced by ``#`` (so one command's runs match).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Optional, Sequence

from .aggregate import aggregate, reading_index
from ..core.lazy_re import LazyPattern
from ..core.safe import strip_ansi
from ..model.events import CPU_SOURCES, Chunk, GPU_SOURCES, Marker, Sample

MIN_STEP_S = 0.020  # a step shorter than max(this, MIN_STEP_SHARE × load) merges into the next one
MIN_STEP_SHARE = 0.01
WATCH_BYTES = 4 << 20  # the load output kept for cutting steps; beyond it the watcher stops (and says so)
NAME_CHARS = 60
TEXT_CHARS = 160
RESERVED_MARKS = ("ready", "first_token", "last_token", "request_sent")

# How soon after a boundary its reading comes (the sampler thread wakes, reads /proc and NVML).
_BOUNDARY_SLACK_NS = 50_000_000
_MIB = 1048576
_NUMBER = LazyPattern(r"\d+(?:[.,:]\d+)*")
_BAR = LazyPattern(r"\|[^|]*\|.*$")  # a tqdm bar and its counters after the percentage
# A line that reports work done names the step it closes; one that announces work names the step it opens.
DONE_LINE = LazyPattern(
    r"\b(?:loaded|took|takes|done|finished|complete[ds]?|succeeded|ready|read from|ends?|ended|started|"
    r"initiali[sz]ed|created|built|compiled|captured|allocated|converted|answered|fetched|downloaded|"
    r"in \d+(?:\.\d+)? ?m?s)\b", re.IGNORECASE)
ANNOUNCE_LINE = LazyPattern(
    r"\b(?:loading|starting|start|begin|begins|beginning|initiali[sz]ing|creating|building|compiling|capturing|"
    r"reading|downloading|fetching|allocating|preparing|converting|warming up|waiting for|connecting)\b",
    re.IGNORECASE)
START_UP = "start-up"
SIDE_CHARS = 40  # each side of an "A → B" name

# Kind thresholds: stated once, quoted in the README.
DISK_MIB_S = 20.0  # sustained reads at least this fast (and at least DISK_MIN_MIB) make a step disk-bound
DISK_MIN_MIB = 4.0
FAULTS_PER_S = 200.0  # major faults per second, when read bytes are not measured
PEGGED_CORE = 0.7  # one thread this busy (share of one core) makes a step CPU-bound on that thread
MULTI_CORES = 1.5  # the tree busy on at least this many cores
WAIT_CORES = 0.25  # below this, with no disk and an idle GPU, the tree waited
WAIT_DISK_MIB_S = 5.0
UPLOAD_MIB = 256.0  # VRAM growing by at least this, at UPLOAD_MIB_S, is an upload to the GPU
UPLOAD_MIB_S = 200.0
GPU_BUSY_PCT = 40.0
KERNEL_IO_SHARE = 0.5  # a reading step whose CPU time is at least this much kernel time is in the I/O path
CPU_MIN_S = 0.1  # CPU time counts in 10 ms ticks: shorter steps can't tell busy from idle


# -- the read-thread half -------------------------------------------------------------------------------------

class LoadWatcher:
    """Keeps the load window's chunks and signals line ends to the samplers; O(1) per chunk plus a byte scan."""

    def __init__(self, on_line: Callable[[], None] = lambda: None, limit_bytes: int = WATCH_BYTES) -> None:
        self.chunks: list[Chunk] = []
        self.active = True
        self.truncated_ns: Optional[int] = None
        self._on_line = on_line
        self._left = limit_bytes

    def feed(self, chunk: Chunk) -> None:
        if not self.active:
            return
        data = chunk.data
        self._left -= len(data)
        if self._left < 0:
            self.active = False
            self.truncated_ns = chunk.t_ns
            return
        self.chunks.append(chunk)
        if b"\n" in data or b"\r" in data:
            self._on_line()

    def stop(self) -> None:
        """The load window ended (ready): nothing more to keep."""
        self.active = False


# -- pure: chunks → lines → boundaries → steps ----------------------------------------------------------------

@dataclass(frozen=True)
class Line:
    """A line (or a progress-bar update ended by ``\\r``) and the time of the read that completed it."""

    t_ns: int
    stream: str
    text: str


@dataclass(frozen=True)
class Boundary:
    t_ns: int
    name: str
    text: str
    stream: str
    source: str  # "profile" | "mark" | "line" | "ready"


@dataclass
class Step:
    name: str
    start_ns: int
    end_ns: int
    ended_by: Boundary
    merged: list = field(default_factory=list)

    @property
    def dur_ns(self) -> int:
        return self.end_ns - self.start_ns


def lines_of(chunks: Iterable[Chunk]) -> list[Line]:
    """Complete lines per stream, each at the read that completed it; a ``\\r`` progress update counts as a
    line at the read that wrote it (tqdm redraws with ``\\r``)."""
    partial: dict[str, str] = {}
    out: list[Line] = []
    for chunk in chunks:
        text = partial.get(chunk.stream, "") + chunk.data.decode("utf-8", "replace")
        *done, rest = text.split("\n")
        for line in done:
            segment = _last_segment(line)
            if segment:
                out.append(Line(chunk.t_ns, chunk.stream, segment))
        if "\r" in rest:
            segment = _last_segment(rest)
            if segment:
                out.append(Line(chunk.t_ns, chunk.stream, segment))
            rest = rest.rsplit("\r", 1)[1]
        partial[chunk.stream] = rest[-4096:]
    return out


def _last_segment(line: str) -> str:
    for segment in reversed(line.split("\r")):
        segment = strip_ansi(segment).strip()
        if segment:
            return segment[:TEXT_CHARS * 2]
    return ""


def step_name(text: str) -> str:
    """A line as a step name: log prefix stripped, numbers as ``#``, a progress bar cut at its bar."""
    from .frameworks import strip_prefix  # the prefix table: only once steps are named

    rest, _ = strip_prefix(text)
    rest = _BAR.sub("", rest.strip())
    name = _NUMBER.sub("#", rest).strip()
    return name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"


def _trim(text: str) -> str:
    text = text.strip()
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS - 1] + "…"


def boundaries(lines: Sequence[Line], marks: Mapping[str, Marker], profile_steps: Sequence[tuple],
               t0_ns: int, ready: Marker) -> tuple[list[Boundary], str]:
    """The step boundaries inside (launch, ready), ready last; and which rule made them.

    ``profile_steps``: the profile's ordered ``(name, regex)`` pairs, the regex matching the line that ENDS the
    step ``name`` (``None``: the step ended by ready). An entry fires once, at its first matching line, and
    only after the entries before it that fired (order is the framework's); the user's marks are added; when
    neither gives a boundary inside the window, every line does.
    """
    inside = [ln for ln in lines if t0_ns <= ln.t_ns < ready.t_ns]
    # Lines read together with the ready line, before it, ended the last step (same instant as ready).
    for ln in lines:
        if ln.t_ns == ready.t_ns and ln.stream == ready.stream:
            if ready.text and ready.text in ln.text:
                break
            inside.append(ln)
    found: list[Boundary] = []
    pos = 0
    compiled = [(name, None if rx is None else re.compile(rx)) for name, rx in profile_steps]
    for ln in inside:
        for j in range(pos, len(compiled)):
            name, rx = compiled[j]
            if rx is not None and rx.search(ln.text):
                found.append(Boundary(ln.t_ns, name, _trim(ln.text), ln.stream, "profile"))
                pos = j + 1
                break
    for name, mk in marks.items():
        if name not in RESERVED_MARKS and mk is not None and t0_ns <= mk.t_ns < ready.t_ns:
            found.append(Boundary(mk.t_ns, name, _trim(mk.text), mk.stream, "mark"))
    rule = "profile" if any(b.source == "profile" for b in found) else "mark" if found else "line"
    if rule == "line":
        found = [Boundary(ln.t_ns, step_name(ln.text) or "(blank line)", _trim(ln.text), ln.stream, "line")
                 for ln in inside]
    found.sort(key=lambda b: b.t_ns)
    last_name = None
    for name, rx in compiled[pos:]:
        if rx is None or rx.search(ready.text):
            last_name = name
            break
    found.append(Boundary(ready.t_ns, last_name or step_name(ready.text) or "until ready", _trim(ready.text),
                          ready.stream, "ready"))
    return (_named_by_lines(found) if rule == "line" else found), rule


def _named_by_lines(bounds: list[Boundary]) -> list[Boundary]:
    """Line boundaries renamed for the step each ends: its closing line when that reports work done, else its
    opening line when that announces work, else both; before the first line, the process start-up. The ready
    line ends the whole load, so it names the last step only when the line that opened it announced nothing."""
    from dataclasses import replace

    out, opener = [], None
    for b in bounds:
        closer = b.text
        done = bool(DONE_LINE.search(closer))  # "Loading weights took 2.1 s" reports, though it names the work
        announced = opener is not None and bool(ANNOUNCE_LINE.search(opener)) and not DONE_LINE.search(opener)
        if done and not (b.source == "ready" and announced):
            name = b.name
        elif announced:
            name = step_name(opener)
        elif opener is None:
            name = START_UP
        else:
            name = f"{_side(opener)} → {_side(closer)}"
        out.append(replace(b, name=name or b.name))
        opener = closer
    return out


def _side(text: str) -> str:
    name = step_name(text)
    return name if len(name) <= SIDE_CHARS else name[:SIDE_CHARS - 1] + "…"


def cut(bounds: Sequence[Boundary], t0_ns: int) -> list[Step]:
    """One step per boundary, from the previous one (launch for the first); names made unique by ``(2)``…"""
    steps, start, seen = [], t0_ns, {}
    for b in bounds:
        n = seen[b.name] = seen.get(b.name, 0) + 1
        steps.append(Step(b.name if n == 1 else f"{b.name} ({n})", start, b.t_ns, b))
        start = b.t_ns
    return steps


def merge_short(steps: list[Step], load_ns: int) -> list[Step]:
    """Steps shorter than max(20 ms, 1 % of load) merge into the next; a short last one into the one before,
    which keeps its name and what ended it and lasts to the window's end."""
    limit = max(MIN_STEP_S * 1e9, MIN_STEP_SHARE * load_ns)
    out: list[Step] = []
    carry: Optional[Step] = None
    for step in steps:
        if carry is not None:
            step = Step(step.name, carry.start_ns, step.end_ns, step.ended_by, carry.merged + [carry.name] + step.merged)
            carry = None
        if step.dur_ns < limit:
            carry = step
            continue
        out.append(step)
    if carry is not None:
        if out:
            prev = out[-1]
            # what ended the step before still names it; it now lasts to the end of the window
            out[-1] = Step(prev.name, prev.start_ns, carry.end_ns, prev.ended_by, prev.merged + [carry.name] + carry.merged)
        else:
            out.append(carry)
    return out


# -- pure: per-step figures and the kind --------------------------------------------------------------------

class _Series:
    """Sorted readings per (source, device, metric)."""

    def __init__(self, samples: Iterable[Sample]):
        rows: dict[tuple, list] = {}
        for s in samples:
            for metric, value in s.values.items():
                if value is not None:
                    rows.setdefault((s.source, s.device, metric), []).append((s.t_ns, value))
        self.series = {k: ([t for t, _ in sorted(v, key=lambda p: p[0])], [x for _, x in sorted(v, key=lambda p: p[0])])
                       for k, v in rows.items()}

    def pick(self, metric: str, sources: tuple) -> tuple[Optional[str], list]:
        for src in sources:
            found = [v for (s, _d, m), v in sorted(self.series.items()) if s == src and m == metric]
            if found:
                return src, found
        return None, []

    def change(self, metric: str, sources: tuple, start: int, end: int, slack_ns: int,
               zero_at_start: bool = False) -> Optional[float]:
        """Sum over devices of (reading standing for ``end`` − reading standing for ``start``); with
        ``zero_at_start`` the start's reading is 0 (a process tree's counters at launch: they start at fork)."""
        _, found = self.pick(metric, sources)
        if not found:
            return None
        total = 0.0
        for times, values in found:
            i_end = reading_index(times, end, slack_ns)
            if i_end is None:
                return None
            i_start = None if zero_at_start else reading_index(times, start, slack_ns)
            total += values[i_end] - (0.0 if zero_at_start else values[i_start] if i_start is not None else values[0])
        return total

    def between(self, metric: str, sources: tuple, start: int, end: int, slack_ns: int,
                from_first: bool = False) -> Optional[list]:
        """Readings after the one standing for ``start`` (all of them with ``from_first``) up to the one
        standing for ``end``."""
        _, found = self.pick(metric, sources)
        if not found:
            return None
        out = []
        for times, values in found:
            i_end = reading_index(times, end, slack_ns)
            i_start = None if from_first else reading_index(times, start, slack_ns)
            if i_end is None:
                continue
            out += values[(i_start if i_start is not None else -1) + 1:i_end + 1]
        return out


def _r(x: Optional[float], nd: int = 3) -> Optional[float]:
    return None if x is None else round(x, nd)


def figures(steps: Sequence[Step], samples: Sequence[Sample], infos: Sequence[dict], t0_ns: int) -> list[dict]:
    """Per step: the phase aggregates over its window plus exact counter differences at its bounds. The
    ``psutil`` counters of the child's tree are 0 at launch (they start at fork): the first step counts from 0,
    not from the sampler's first reading."""
    windows = {str(i): (s.start_ns, s.end_ns) for i, s in enumerate(steps)}
    agg = aggregate(samples, windows, infos)
    series = _Series(samples)
    usable = {i["name"]: i for i in infos if i.get("available") and "name" in i}
    boundary_slack = {name: (_BOUNDARY_SLACK_NS if info.get("boundary_readings") else 0) for name, info in usable.items()}
    cpu_src, _ = series.pick("cpu_pct", CPU_SOURCES)
    gpu_src, _ = series.pick("vram_used_mib", GPU_SOURCES)
    resolution = max((usable[s].get("resolution_s") or 0 for s in (cpu_src, gpu_src) if s in usable), default=None)
    out = []
    for i, step in enumerate(steps):
        a = agg[str(i)]
        dur_s = step.dur_ns / 1e9
        slack = boundary_slack.get(cpu_src or "", 0)
        launch = step.start_ns == t0_ns and cpu_src == "psutil"
        span = (step.start_ns, step.end_ns, slack, launch)
        cpu_s = series.change("cpu_s_total", ("psutil",), *span)
        sys_s = series.change("cpu_sys_s_total", ("psutil",), *span)
        read_b = series.change("disk_read_bytes_total", (cpu_src,), *span) if cpu_src else None
        faults = series.change("major_faults_total", (cpu_src,), *span) if cpu_src else None
        # Boundary readings: each covers the time since the one before; a merged step takes the largest one
        # (a lower bound when another thread was busiest in another piece).
        busiest_each = series.between("busiest_thread_cpu_s", ("psutil",), *span)
        busiest_pct = (max(busiest_each) / dur_s * 100 if busiest_each and dur_s > 0
                       else a["cpu_busiest_thread_pct_max"])
        demand_each = series.between("busiest_thread_demand_s", ("psutil",), *span)
        demand_pct = max(demand_each) / dur_s * 100 if demand_each and dur_s > 0 else None
        cpu_pct = cpu_s / dur_s * 100 if cpu_s is not None and dur_s > 0 else a["cpu_pct_mean"]
        rss = series.change("rss_mib", CPU_SOURCES, step.start_ns, step.end_ns, 0)
        vram = series.change("vram_used_mib", GPU_SOURCES, step.start_ns, step.end_ns, 0)
        read = None if read_b is None else read_b / _MIB
        out.append({
            "disk_read_mib": _r(read),
            "disk_read_mib_s": _r(read / dur_s) if read is not None and dur_s > 0 else None,
            "major_faults": faults,
            "cpu_s": _r(cpu_s),
            "cpu_kernel_share": _r(sys_s / cpu_s, 2) if sys_s is not None and cpu_s else None,
            "cpu_pct_mean": _r(cpu_pct, 1),
            "cpu_busiest_thread_pct": _r(busiest_pct, 1),
            "cpu_busiest_thread_demand_pct": _r(demand_pct, 1),
            "rss_growth_mib": _r(rss),
            "vram_growth_mib": _r(vram),
            "vram_growth_mib_s": _r(vram / dur_s) if vram is not None and dur_s > 0 else None,
            "gpu_util_mean": _r(a["gpu_util_mean"], 1),
            "power_mean_w": _r(a["power_mean_w"], 1),
            "energy_j": _r(a["energy_j"]),
            "samples": a["samples"],
            "resolution_s": resolution,
            "approximate": bool(a["approximate"]) or (resolution is not None and resolution >= 1.0),
            "cpu_source": cpu_src,
            "exact_counters": cpu_src is not None and boundary_slack.get(cpu_src, 0) > 0,
        })
    return out


def classify(f: dict, dur_s: float) -> tuple[str, str]:
    """(kind, evidence) from a step's figures; ``unknown`` with the reason when the figures can't tell."""
    read, rate, faults = f["disk_read_mib"], f["disk_read_mib_s"], f["major_faults"]
    cpu, busiest, demand = f["cpu_pct_mean"], f["cpu_busiest_thread_pct"], f["cpu_busiest_thread_demand_pct"]
    vram, vram_rate, util = f["vram_growth_mib"], f["vram_growth_mib_s"], f["gpu_util_mean"]
    parts = []
    if read is not None:
        parts.append(f"read {read:.1f} MiB at {rate:.0f} MiB/s")
    if faults is not None:
        parts.append(f"{faults:.0f} major faults")
    kernel = f.get("cpu_kernel_share")
    if cpu is not None:
        thread_text = "" if busiest is None else f" (busiest thread {busiest:.0f} %" + (
            f", {demand:.0f} % with its wait for a CPU" if demand is not None and demand - busiest >= 10 else "") + ")"
        reading = read is not None and read >= DISK_MIN_MIB
        parts.append(f"CPU {cpu:.0f} %{thread_text}" + (f", {kernel:.0%} of it in the kernel"
                                                           if reading and kernel is not None and cpu else ""))
    if vram is not None:
        parts.append(f"VRAM {vram:+.0f} MiB" + (f" at {vram_rate:.0f} MiB/s" if vram_rate is not None else ""))
    if util is not None:
        parts.append(f"GPU util {util:.0f} %")
    if f["approximate"] and f["resolution_s"] and not f["exact_counters"]:
        parts.append(f"{f['resolution_s']:g} s sampling: approximate")
    evidence = "; ".join(parts) or "no samples"
    cores = None if cpu is None else cpu / 100
    # A thread that ran or waited to run the whole step was CPU-bound, even if other load starved it.
    thread = None if busiest is None else max(busiest, demand or 0) / 100
    if read is None and cpu is None and util is None and vram is None:
        return "unknown", "no sampler measured this step (CPU and GPU samplers off or unavailable)"
    coarse = f["resolution_s"] is not None and dur_s < f["resolution_s"] and not f["exact_counters"]
    if coarse:
        return "unknown", f"too short to tell: {dur_s:.3f} s, under the samplers' {f['resolution_s']:g} s resolution ({evidence})"
    pegged = thread is not None and thread >= PEGGED_CORE
    disk = (read is not None and read >= DISK_MIN_MIB and rate >= DISK_MIB_S) or (
        read is None and faults is not None and dur_s > 0 and faults / dur_s >= FAULTS_PER_S)
    # Reading from disk with no thread running most of the step, or with the CPU time mostly in the kernel (the
    # I/O path itself: block layer, page cache, copies): the reads bound it. A thread busy in user space while
    # reading (decompressing, converting) is CPU-bound.
    if disk and (not (busiest is not None and busiest / 100 >= PEGGED_CORE)
                 or (kernel is not None and kernel >= KERNEL_IO_SHARE)):
        return "disk", evidence
    if vram is not None and vram >= UPLOAD_MIB and (vram_rate or 0) >= UPLOAD_MIB_S and (util is None or util < GPU_BUSY_PCT):
        return "gpu-upload", evidence
    if util is not None and util >= GPU_BUSY_PCT:
        return "gpu-compute", evidence
    if cores is None:
        return "unknown", f"no CPU figures ({evidence})"
    if dur_s < CPU_MIN_S and demand is None:
        return "unknown", f"too short to tell: {dur_s:.3f} s (CPU time counts in 10 ms ticks; {evidence})"
    if pegged and cores < thread + 0.5:
        return "cpu-single", evidence
    if cores >= MULTI_CORES or (cores >= 1.0 and thread is not None and thread < PEGGED_CORE):
        return "cpu-multi", evidence
    if cores < WAIT_CORES and (rate is None or rate < WAIT_DISK_MIB_S) and (util is None or util < 10):
        return "wait", evidence
    if pegged:
        return "cpu-multi", evidence
    return "unknown", f"no resource stood out ({evidence})"


def load_steps(chunks: Sequence[Chunk], markers: Mapping[str, Marker], t0_ns: int,
               profile_steps: Sequence[tuple], samples: Sequence[Sample], infos: Sequence[dict],
               truncated_ns: Optional[int] = None) -> tuple[Optional[list], Optional[str]]:
    """The record's ``load_steps`` (or None) and the reason when None."""
    ready = markers.get("ready")
    if ready is None:
        return None, "no ready marker: the load window has no end"
    load_ns = ready.t_ns - t0_ns
    if load_ns <= 0:
        return None, "the ready marker came at launch: no load window"
    bounds, rule = boundaries(lines_of(chunks), markers, profile_steps, t0_ns, ready)
    steps = merge_short(cut(bounds, t0_ns), load_ns)
    figs = figures(steps, samples, infos, t0_ns)
    out = []
    for step, fig in zip(steps, figs):
        dur_s = step.dur_ns / 1e9
        kind, evidence = classify(fig, dur_s)
        resources = {k: v for k, v in fig.items() if k not in ("cpu_source", "exact_counters")}
        out.append({
            "name": step.name,
            "start_s": round((step.start_ns - t0_ns) / 1e9, 6),
            "end_s": round((step.end_ns - t0_ns) / 1e9, 6),
            "dur_s": round(dur_s, 6),
            "ended_by": {"text": step.ended_by.text, "stream": step.ended_by.stream},
            "boundary": rule if step.ended_by.source != "ready" else "ready",
            "kind": kind,
            "evidence": evidence,
            "merged": list(step.merged),
            "resources": resources,
        })
    if truncated_ns is not None and truncated_ns < ready.t_ns:
        out[-1]["evidence"] += (f"; the load output passed {WATCH_BYTES >> 20} MiB at "
                                f"{(truncated_ns - t0_ns) / 1e9:.3f} s: lines after it were not cut into steps")
    return out, None


def largest(steps: Optional[Sequence[dict]], n: int = 3) -> list[dict]:
    """The ``n`` longest steps, longest first."""
    return sorted(steps or [], key=lambda s: -s["dur_s"])[:n]


def summary_line(record: dict, n: int = 3) -> Optional[str]:
    """``load steps (largest 3 of 5): 'model load' 0.80 s disk · …``, or None without steps."""
    steps = record.get("load_steps")
    if not steps:
        return None
    top = largest(steps, n)
    listed = " · ".join(f"'{s['name']}' {s['dur_s']:.2f} s {s['kind']}" for s in top)
    return f"load steps (largest {len(top)} of {len(steps)}): {listed}"
