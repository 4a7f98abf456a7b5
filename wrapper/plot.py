"""Pictures of runs: a phase timeline with resource panels, and base-vs-candidate phase bars.

Reading (``load_runs``: record JSONL, capture files, capture folders → ``RunView``), drawing (``*_bytes``:
runs → image bytes, no file I/O) and writing (``timeline``/``compare_bars``: bytes → the path, format from
its suffix) are kept apart. matplotlib is optional (``pip install 'phasewrap[plot]'``); it is imported only
when a picture is drawn, and only through ``matplotlib.figure.Figure``, so no global pyplot state or
interactive backend is ever touched. Text from the child (marker texts, commands, tags) is drawn with
``parse_math=False``: a ``$`` in it must not start mathtext.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import statistics
from dataclasses import dataclass, field
from typing import Optional, Sequence

from .capture import SUFFIX as CAPTURE_SUFFIX
from .capture import CaptureError, read_capture
from .export.summary import phase_bar
from .errors import UsageError
from .export.writer import show_path, write_file
from .record import SCHEMA as RECORD_SCHEMA

INSTALL_HINT = "pip install 'phasewrap[plot]'"
FORMATS = ("png", "svg", "html")
BASE_MARKERS = ("ready", "first_token", "last_token")

# (phase key, label, start marker or None for launch, end marker, colour)
PHASE_BANDS = (
    ("load_s", "load", None, "ready", "#8da0cb"),
    ("ttft_s", "TTFT", "ready", "first_token", "#fc8d62"),
    ("decode_s", "decode", "first_token", "last_token", "#66c2a5"),
)
# One colour per run when several are drawn; none of them is a phase colour.
RUN_COLOURS = ("#222222", "#d62728", "#1f77b4", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf")
LINE_STYLES = ("-", "--", ":", "-.")
# Where a metric may come from, best first (as in aggregate.py): one source per metric, never a mix.
SOURCE_RANK = ("nvml", "query-gpu", "dmon", "psutil", "pidstat")
TITLE_CHARS = 70  # what fits left of the phase legend at the top
ROW_NOTE_CHARS = 100  # what fits right of a row's label
CEILING_FAR = 2.5  # a ceiling this many times above the data's peak goes off scale, named in its legend
# The self-contained page: no script, no network; images only from data: URIs.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


class PlotUnavailable(UsageError, RuntimeError):
    """matplotlib is not installed."""


class PlotInputError(UsageError):
    """An input that can't be read as records or captures; the message names the file and the fix."""


@dataclass(frozen=True)
class Metric:
    key: str  # the values key in a Sample
    label: str  # legend label
    style: str  # line style
    rate: bool = False  # a cumulative counter, drawn as its rate per second
    ceiling: bool = False  # a limit (VRAM total): drawn, but not allowed to squash the data to the floor
    # "steps-pre": the reading averages the interval before it (CPU %, utilization, power), so it is drawn
    # flat over that interval instead of as a slope; "default": a reading of that instant (memory in use)
    drawstyle: str = "steps-pre"


@dataclass(frozen=True)
class Panel:
    name: str  # said in the "not drawn" note
    ylabel: str
    metrics: tuple  # the first metric decides whether the panel has data
    scale: float = 1.0
    ylim: Optional[tuple] = None
    one_core_line: bool = False
    unit: str = ""


PANELS = (
    Panel("GPU utilization", "GPU util %", (Metric("gpu_util_pct", "util", "-"),), ylim=(0, 105)),
    Panel("VRAM", "VRAM GiB", (Metric("vram_used_mib", "used", "-", drawstyle="default"),
                          Metric("vram_total_mib", "total", "--", ceiling=True, drawstyle="default")),
          scale=1 / 1024, unit="GiB"),
    Panel("power", "power W", (Metric("power_w", "power", "-"),)),
    Panel("CPU", "CPU %", (Metric("cpu_pct", "total", "-"), Metric("busiest_thread_pct", "busiest thread", "--")),
          one_core_line=True),
    Panel("disk read", "disk read MB/s",
          (Metric("disk_read_bytes_total", "read", "-", rate=True, drawstyle="default"),), scale=1e-6),
)


@dataclass
class RunView:
    """One run as the pictures need it: its record (None for a capture cut short before it was written),
    and from a capture the stamped chunks and resource samples (monotonic ns, ``t0_ns`` = launch)."""

    run_id: str
    source: str
    record: Optional[dict] = None
    t0_ns: Optional[int] = None
    chunks: list = field(default_factory=list)
    samples: list = field(default_factory=list)
    from_capture: bool = False

    def seconds(self, t_ns: int) -> float:
        return (t_ns - self.t0_ns) / 1e9

    def marker_s(self, name: str) -> Optional[float]:
        marker = ((self.record or {}).get("markers") or {}).get(name)
        return None if not marker else marker.get("t_s")

    def phase_s(self, key: str) -> Optional[float]:
        return ((self.record or {}).get("phases") or {}).get(key)

    def end_s(self) -> float:
        """Where the run's time axis ends: the exit, else the last thing seen."""
        total = self.phase_s("total_s")
        if total is not None:
            return total
        times = [self.seconds(c.t_ns) for c in self.chunks] + [self.seconds(s.t_ns) for s in self.samples]
        marks = [m.get("t_s") for m in ((self.record or {}).get("markers") or {}).values() if m]
        return max([t for t in times + marks if t is not None], default=0.0)

    def token_times_s(self) -> list[float]:
        """Arrival of every token-stream chunk from first_token to last_token (captures only)."""
        first = ((self.record or {}).get("markers") or {}).get("first_token")
        last_s = self.marker_s("last_token")
        if not first or first.get("t_s") is None or self.t0_ns is None:
            return []
        end = last_s if last_s is not None else math.inf
        out = []
        for chunk in self.chunks:
            t = self.seconds(chunk.t_ns)
            if chunk.stream == first["stream"] and first["t_s"] - 1e-6 <= t <= end + 1e-6:
                out.append(t)
        return out

    def bands(self) -> list[tuple[str, str, float, float, str]]:
        """(phase key, label, start s, end s, colour) of each phase the record measured, in run order."""
        out = []
        for key, label, start_name, end_name, colour in PHASE_BANDS:
            start = 0.0 if start_name is None else self.marker_s(start_name)
            end = self.marker_s(end_name)
            if start is not None and end is not None and self.phase_s(key) is not None:
                out.append((key, label, start, end, colour))
        return out

    def unmeasured(self) -> list[str]:
        """``"load n/a (why)"`` for each of load / TTFT / decode the record could not measure."""
        if self.record is None:
            return []
        reasons = {m.get("field"): m.get("reason") for m in self.record.get("missing", [])}
        return [f"{label} n/a ({reasons.get(key) or 'not measured'})"
                for key, label, *_ in PHASE_BANDS if self.phase_s(key) is None]

    def custom_markers(self) -> list[tuple[str, float, str]]:
        """(name, t_s, text) of every named mark other than ready / first_token / last_token."""
        markers = (self.record or {}).get("markers") or {}
        return sorted(((name, m["t_s"], m.get("text") or "") for name, m in markers.items()
                       if name not in BASE_MARKERS and m and m.get("t_s") is not None), key=lambda x: x[1])

    @property
    def cache(self) -> Optional[str]:
        rec = self.record or {}
        value = rec.get("cache", (rec.get("tags") or {}).get("cache"))
        if isinstance(value, dict):
            value = next((value[k] for k in ("label", "state", "guess") if value.get(k)), None)
        return None if value is None else str(value)

    def label(self) -> str:
        """Row label: the run id's short form, the cache label, the tags."""
        parts = [short_id(self.run_id)]
        if self.cache:
            parts.append(self.cache)
        tags = (self.record or {}).get("tags") or {}
        parts += [f"{k}={v}" for k, v in tags.items() if k != "cache"]
        if self.record is None:
            parts.append("(capture cut short: no record)")
        return " · ".join(parts)


def short_id(run_id: str) -> str:
    """``20261130T005140Z-1861ad`` → ``1861ad``; other ids are cut to 12 characters."""
    head, _, tail = run_id.rpartition("-")
    return tail if head and tail else run_id[:12]


# ---------------------------------------------------------------------------------------------------- reading

def _view_from_capture(path: str) -> RunView:
    try:
        cap = read_capture(path)
    except CaptureError as exc:
        raise PlotInputError(str(exc)) from None
    run_id = cap.header.get("run_id") or (cap.record or {}).get("run_id") or os.path.basename(path)
    return RunView(run_id=run_id, source=path, record=cap.record, t0_ns=cap.header["t0_monotonic_ns"],
                   chunks=list(cap.chunks), samples=list(cap.samples), from_capture=True)


def _view_from_record(record: dict, source: str) -> RunView:
    return RunView(run_id=record["run_id"], source=source, record=record, t0_ns=record.get("t0_monotonic_ns"))


def views_from_records(records: Sequence[dict], source: str = "run") -> list[RunView]:
    """Views of records already in memory (no token ticks or samples: those live in captures)."""
    return [_view_from_record(record, source) for record in records]


def _records_from_file(path: str, text: str) -> list[dict]:
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            if number == 1:
                return _whole_file_record(path, text)
            raise PlotInputError(f"{path}:{number}: not JSON; expected one phasewrap record per line") from None
        if not isinstance(obj, dict) or obj.get("schema") != RECORD_SCHEMA:
            raise PlotInputError(f"{path}:{number}: not a {RECORD_SCHEMA} record; pass record JSONL "
                                 f"(run --jsonl FILE), capture files (*{CAPTURE_SUFFIX}) or a --capture folder")
        records.append(obj)
    return records


def _whole_file_record(path: str, text: str) -> list[dict]:
    """A single pretty-printed record (``run --format json > FILE``)."""
    try:
        obj = json.loads(text)
    except ValueError:
        raise PlotInputError(f"{path}: neither JSON lines nor one JSON record; pass record JSONL "
                             f"(run --jsonl FILE), capture files (*{CAPTURE_SUFFIX}) or a --capture folder") from None
    if not isinstance(obj, dict) or obj.get("schema") != RECORD_SCHEMA:
        raise PlotInputError(f"{path}: not a {RECORD_SCHEMA} record")
    return [obj]


def _load_file(path: str) -> list[RunView]:
    with open(path, "rb") as fh:
        first = fh.readline()
    try:
        head = json.loads(first)
    except ValueError:
        head = None
    if isinstance(head, dict) and head.get("type") == "header":
        return [_view_from_capture(path)]
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        text = fh.read()
    records = _records_from_file(path, text)
    if not records:
        raise PlotInputError(f"{path}: empty; expected phasewrap records (run --jsonl FILE) or a capture")
    return [_view_from_record(r, path) for r in records]


def load_runs(inputs: Sequence[str]) -> list[RunView]:
    """Runs from record JSONL files, capture files and capture folders (their ``*.capture.jsonl``).

    Input order is kept (a folder's captures in name order, which is launch order). A run met twice — its
    capture and its JSONL record — appears once: the capture's view, with the record filled in from the
    JSONL if the capture was cut short before its record line.
    """
    if not inputs:
        raise PlotInputError("no inputs; pass record JSONL files, capture files or --capture folders")
    views: list[RunView] = []
    by_id: dict[str, RunView] = {}
    for path in inputs:
        if os.path.isdir(path):
            names = sorted(n for n in os.listdir(path) if n.endswith(CAPTURE_SUFFIX))
            if not names:
                raise PlotInputError(f"{path}: no *{CAPTURE_SUFFIX} files in this folder; "
                                     "is it the folder given to run --capture?")
            found = [_view_from_capture(os.path.join(path, n)) for n in names]
        elif os.path.isfile(path):
            found = _load_file(path)
        else:
            raise PlotInputError(f"{path}: no such file or folder")
        for view in found:
            known = by_id.get(view.run_id)
            if known is None:
                by_id[view.run_id] = view
                views.append(view)
            elif view.from_capture and not known.from_capture:
                view.record = view.record or known.record
                views[views.index(known)] = by_id[view.run_id] = view
            elif known.record is None:
                known.record = view.record
    return views


# ---------------------------------------------------------------------------------------------------- series

def _series(view: RunView, metric: Metric, scale: float) -> list[tuple[str, list[float], list[float]]]:
    """(device, times s, values) per device for one metric, from the best source that measured it."""
    by_source: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for s in view.samples:
        value = s.values.get(metric.key)
        if value is not None:
            by_source.setdefault(s.source, {}).setdefault(s.device, []).append((s.t_ns, float(value)))
    if not by_source:
        return []
    rank = {name: i for i, name in enumerate(SOURCE_RANK)}
    source = min(by_source, key=lambda src: (rank.get(src, len(rank)), src))
    out = []
    for device, points in sorted(by_source[source].items()):
        points.sort()
        if metric.rate:
            xs, ys = [], []
            for (t1, v1), (t2, v2) in zip(points, points[1:]):
                if t2 > t1:
                    xs += [view.seconds(t1), view.seconds(t2)]
                    ys += [(v2 - v1) / ((t2 - t1) / 1e9) * scale] * 2  # flat over the interval it covers
        else:
            xs = [view.seconds(t) for t, _ in points]
            ys = [v * scale for _, v in points]
        if xs:
            out.append((device, xs, ys))
    return out


def _not_drawn_reason(panel: Panel, views: list[RunView]) -> str:
    if not any(v.from_capture for v in views):
        return "records only: time series need a capture, run --capture DIR"
    if not any(v.samples for v in views):
        return "no resource samples in the capture"
    return f"no {panel.metrics[0].key} samples"


def panel_plan(views: Sequence[RunView]) -> tuple[list[Panel], Optional[str]]:
    """The panels some run has data for, and a note naming the others and why (None when all are drawn)."""
    drawn = [p for p in PANELS if any(_series(v, p.metrics[0], p.scale) for v in views)]
    by_reason: dict[str, list[str]] = {}
    for panel in PANELS:
        if panel not in drawn:
            by_reason.setdefault(_not_drawn_reason(panel, list(views)), []).append(panel.name)
    if not by_reason:
        return drawn, None
    return drawn, "not drawn: " + "; ".join(f"{', '.join(names)} ({why})" for why, names in by_reason.items())


# ---------------------------------------------------------------------------------------------------- drawing

def _figure_class():
    """matplotlib's Figure, or PlotUnavailable saying how to install it."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise PlotUnavailable(f"plotting needs matplotlib, which is not installed ({exc}); "
                              f"install it with: {INSTALL_HINT}") from None
    return Figure


def _check_format(fmt: str) -> str:
    fmt = fmt.lower().lstrip(".")
    if fmt not in FORMATS:
        raise UsageError(f"unknown picture format {fmt!r}; use a file name ending in .png, .svg or .html")
    return fmt


def format_of(path: str) -> str:
    """``png``, ``svg`` or ``html`` from the path's suffix (``-``, stdout: png); ValueError naming the path
    otherwise."""
    if path == "-":
        return "png"
    suffix = os.path.splitext(path)[1]
    try:
        return _check_format(suffix)
    except ValueError:
        raise UsageError(f"{show_path(path)}: unknown picture format {suffix or '(no suffix)'!r}; "
                         "use a file name ending in .png, .svg or .html") from None


def _figure_bytes(fig, fmt: str, title: str) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg" if fmt == "svg" else "png", dpi=110)
    data = buf.getvalue()
    if fmt == "html":
        return html_page(title, f'<img alt="{html.escape(title)}" src="{png_data_uri(data)}">').encode("utf-8")
    return data


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def html_page(title: str, body: str, style: str = "") -> str:
    """A self-contained page: no script, no network (the CSP forbids both); ``body`` is already HTML."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
            f"<title>{html.escape(title)}</title>\n"
            f"<style>body{{font-family:sans-serif;margin:1.5em}}img{{max-width:100%}}{style}</style>\n"
            f"</head><body>\n{body}\n</body></html>\n")


def _run_colour(index: int, n_runs: int) -> Optional[str]:
    return RUN_COLOURS[index % len(RUN_COLOURS)] if n_runs > 1 else None


def _draw_phase_row(ax, view: RunView, colour: Optional[str], x_max: float) -> None:
    ax.set_ylim(0, 1)
    ax.set_yticks([])
    for spine in ("left", "right", "top"):
        ax.spines[spine].set_visible(False)
    ax.set_title(view.label(), loc="left", fontsize=9, color=colour or "black", parse_math=False, pad=3)
    for _key, label, start, end, band_colour in view.bands():
        ax.broken_barh([(start, end - start)], (0.38, 0.62), facecolors=band_colour, edgecolor="white", lw=0.5)
        text = f"{label} {end - start:.2f} s"
        if (end - start) / x_max > 0.007 * len(text):  # only where the words fit inside the band
            ax.text((start + end) / 2, 0.55, text, ha="center", va="center", fontsize=8, parse_math=False)
    unmeasured = "; ".join(view.unmeasured())
    if unmeasured:
        ax.set_title(_cut(unmeasured, ROW_NOTE_CHARS), loc="right", fontsize=7, color="#555555", parse_math=False,
                     pad=3)
    ticks = view.token_times_s()
    if ticks:
        ax.vlines(ticks, 0.04, 0.32, color="black", lw=0.6)
    elif not view.from_capture:
        ax.text(0.0, 0.17, "token arrivals need a capture (run --capture DIR)", fontsize=7, color="grey",
                va="center")
    total = view.phase_s("total_s")
    if total is not None:
        ax.axvline(total, color="black", lw=1.2)
    for name, t_s, _text in view.custom_markers():
        ax.axvline(t_s, color="#444444", lw=0.9, ls="--")
        ax.text(t_s, 0.97, f" {name}", fontsize=7, va="top", ha="left", color="#333333", parse_math=False,
                bbox={"facecolor": "white", "alpha": 0.7, "lw": 0, "pad": 0.5})


def _shade_phases(ax, view: RunView, colour: Optional[str]) -> None:
    """Phases behind a resource panel: bands for one run, boundary lines (run colour) for several."""
    for _key, _label, start, end, band_colour in view.bands():
        if colour is None:
            ax.axvspan(start, end, color=band_colour, alpha=0.18, lw=0)
        else:
            ax.axvline(end, color=colour, lw=0.7, ls=":", alpha=0.8)
    if colour is None:
        for _name, t_s, _text in view.custom_markers():
            ax.axvline(t_s, color="#444444", lw=0.7, ls="--", alpha=0.6)


def _draw_panel(ax, panel: Panel, views: list[RunView]) -> None:
    n_runs = len(views)
    colour_i = 0
    data_peak, ceilings, ceiling_lines = 0.0, [], []
    for run_i, view in enumerate(views):
        run_colour = _run_colour(run_i, n_runs)
        _shade_phases(ax, view, run_colour)
        for metric in panel.metrics:
            series = _series(view, metric, panel.scale)
            for dev_i, (device, xs, ys) in enumerate(series):
                parts = [short_id(view.run_id)] if n_runs > 1 else []
                parts += [device] if len(series) > 1 else []
                parts.append(metric.label)
                if metric.ceiling:
                    colour, style = ("grey" if run_colour is None else run_colour), metric.style
                    ceilings.append(max(ys))
                elif run_colour is not None:
                    colour, style = run_colour, LINE_STYLES[(dev_i + (metric.style != "-")) % len(LINE_STYLES)]
                else:
                    colour, style = f"C{colour_i % 10}", metric.style
                    colour_i += 1
                if not metric.ceiling:
                    data_peak = max(data_peak, max(ys))
                lines = ax.plot(xs, ys, color=colour, ls=style, lw=1.2, label=" ".join(parts),
                                drawstyle=metric.drawstyle)
                if metric.ceiling:
                    ceiling_lines += lines
    if panel.one_core_line:
        ax.axhline(100, color="grey", lw=0.6, ls=":")
        ax.text(0.002, 100, "1 core", transform=ax.get_yaxis_transform(), fontsize=6, color="grey", va="bottom")
    if panel.ylim:
        ax.set_ylim(*panel.ylim)
    elif ceilings and data_peak > 0 and max(ceilings) > CEILING_FAR * data_peak:
        ax.set_ylim(0, data_peak * 1.3)
        for line in ceiling_lines:
            line.set_label("_off_scale")  # matplotlib leaves labels starting with "_" out of the legend
        values = " / ".join(sorted({f"{c:.1f}" for c in ceilings}))
        ax.plot([], [], color="grey", ls="--", label=f"total {values} {panel.unit}\n(above this scale)")
    else:
        ax.set_ylim(bottom=0)
    ax.set_ylabel(panel.ylabel, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(axis="y", lw=0.3, alpha=0.6)
    _handles, labels = ax.get_legend_handles_labels()
    if len(labels) > 1:
        ax.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(1.005, 1.0), frameon=False, borderaxespad=0)


def _timeline_figure(views: list[RunView]):
    Figure = _figure_class()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    drawn, note = panel_plan(views)
    heights = [0.75] * len(views) + [1.25] * len(drawn)
    fig = Figure(figsize=(11, 0.9 + sum(heights) + (0.25 if note else 0)), layout="constrained")
    axes = fig.subplots(len(heights), 1, sharex=True, gridspec_kw={"height_ratios": heights}, squeeze=False)[:, 0]
    x_max = max([v.end_s() for v in views] + [1e-3])
    for i, view in enumerate(views):
        _draw_phase_row(axes[i], view, _run_colour(i, len(views)), x_max)
    for ax, panel in zip(axes[len(views):], drawn):
        _draw_panel(ax, panel, views)
    axes[-1].set_xlim(0, x_max * 1.01)
    axes[-1].set_xlabel("seconds since launch", fontsize=8)
    for ax in axes:
        ax.tick_params(axis="x", labelbottom=ax is axes[-1], labelsize=7)
    legend = [Patch(color=c, label=label) for _k, label, _s, _e, c in PHASE_BANDS]
    legend += [Line2D([], [], color="black", lw=0.6, marker="|", ls="", markersize=8, label="token"),
               Line2D([], [], color="black", lw=1.2, label="exit"),
               Line2D([], [], color="#444444", lw=0.9, ls="--", label="mark")]
    fig.legend(handles=legend, loc="outside upper right", ncols=len(legend), fontsize=7, frameon=False)
    title = "phasewrap timeline"
    if len(views) == 1:
        title += ": " + _command_line((views[0].record or {}).get("command") or [], TITLE_CHARS)
    else:
        title += f": {len(views)} runs"
    fig.suptitle(title, x=0.01, ha="left", fontsize=10, parse_math=False)
    if note:
        fig.supxlabel(note, x=0.01, ha="left", fontsize=7, color="grey", parse_math=False)
    return fig


def _command_line(command: Sequence, limit: int) -> str:
    """The command as one short line: the program's base name, the arguments, cut at ``limit`` characters."""
    words = [str(a) for a in command]
    if words:
        words[0] = os.path.basename(words[0])
    return _cut(" ".join(words), limit)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def timeline_bytes(runs: Sequence[RunView], fmt: str = "png") -> bytes:
    """The timeline of ``runs`` as PNG, SVG or HTML (a page with the PNG embedded) bytes.

    Each run is a row of phase bands (load, TTFT, decode), token arrivals as ticks, named marks as dashed
    lines and its exit as a solid line; below, panels sharing the time axis for GPU utilization, VRAM,
    power, CPU and disk read rate, each left out (and named in a note) when no run has its data.
    """
    fmt = _check_format(fmt)
    views = list(runs)
    if not views:
        raise UsageError("timeline: no runs to draw")
    return _figure_bytes(_timeline_figure(views), fmt, "phasewrap timeline")


def timeline(runs: Sequence[RunView], path: str) -> str:
    """Draw ``runs`` (see ``timeline_bytes``) into ``path``; the format follows its suffix. Returns path."""
    data = timeline_bytes(runs, format_of(path))
    write_file(path, data)
    return path


COMPARED_PHASES = (("load", "load_s"), ("TTFT", "ttft_s"), ("decode", "decode_s"), ("total", "total_s"))


def _stats(records: Sequence[dict], key: str) -> Optional[tuple[float, float, float]]:
    """(median, min, max) of one phase over the records that measured it; None when none did."""
    values = [r["phases"][key] for r in records if (r.get("phases") or {}).get(key) is not None]
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def compare_bars_bytes(base_records: Sequence[dict], cand_records: Sequence[dict], fmt: str = "png",
                       labels: tuple[str, str] = ("base", "candidate")) -> bytes:
    """Per-phase bars, base beside candidate: the median, whiskers from min to max, the change in %."""
    fmt = _check_format(fmt)
    Figure = _figure_class()
    sides = ((labels[0], list(base_records), "#9e9e9e"), (labels[1], list(cand_records), "#3b75af"))
    if not sides[0][1] or not sides[1][1]:
        raise UsageError("compare_bars: both sides need at least one record")
    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.subplots()
    width = 0.38
    tops = [0.0] * len(COMPARED_PHASES)
    for side_i, (label, records, colour) in enumerate(sides):
        xs = [i + (side_i - 0.5) * width for i in range(len(COMPARED_PHASES))]
        stats = [_stats(records, key) for _name, key in COMPARED_PHASES]
        ax.bar(xs, [0 if st is None else st[0] for st in stats], width * 0.95, color=colour,
               label=f"{label} (n={len(records)})")
        for i, (x, st) in enumerate(zip(xs, stats)):
            if st is None:
                ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=7, color="grey")
                continue
            med, lo, hi = st
            ax.errorbar(x, med, yerr=[[med - lo], [hi - med]], color="black", capsize=3, lw=0.8)
            ax.annotate(f"{med:.2f}", (x, hi), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                        fontsize=7)
            tops[i] = max(tops[i], hi)
    y_max = max(tops + [1e-3]) * 1.25
    for i, (_name, key) in enumerate(COMPARED_PHASES):
        base, cand = _stats(sides[0][1], key), _stats(sides[1][1], key)
        if base and cand and base[0]:
            ax.text(i, tops[i] + 0.07 * y_max, f"{(cand[0] - base[0]) / base[0]:+.0%}", ha="center", va="bottom",
                    fontsize=8, fontweight="bold")
    ax.set_xticks(range(len(COMPARED_PHASES)), [name for name, _ in COMPARED_PHASES])
    ax.set_ylabel("seconds (median; whiskers min–max)", fontsize=8)
    ax.set_ylim(0, y_max)
    ax.legend(fontsize=8, frameon=False, loc="upper left")
    ax.grid(axis="y", lw=0.3, alpha=0.6)
    ax.set_title(f"{labels[0]} vs {labels[1]}: phase times", fontsize=10, loc="left", parse_math=False)
    return _figure_bytes(fig, fmt, f"phasewrap: {labels[0]} vs {labels[1]}")


def compare_bars(base_records: Sequence[dict], cand_records: Sequence[dict], path: str,
                 labels: tuple[str, str] = ("base", "candidate")) -> str:
    """Draw ``compare_bars_bytes`` into ``path``; the format follows its suffix. Returns path."""
    data = compare_bars_bytes(base_records, cand_records, format_of(path), labels)
    write_file(path, data)
    return path


def ascii_bar(record: dict) -> str:
    """The phase shares as one terminal line (``export.summary.phase_bar``), or why there is none."""
    bar = phase_bar(record)
    if bar is not None:
        return bar
    reason = next((m["reason"] for m in record.get("missing", []) if m.get("field") == "total_s"), None)
    return f"n/a ({reason or 'no total_s in the record'})"
