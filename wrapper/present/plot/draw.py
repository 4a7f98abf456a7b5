"""Drawing: runs → image bytes (PNG, SVG, or an HTML page with the SVG inline), no file I/O.

matplotlib is optional (``pip install 'phasewrap[plot]'``); it is imported only when a picture is drawn, and only
through ``matplotlib.figure.Figure``, so no global pyplot state or interactive backend is ever touched. Text from
the child (marker texts, commands, tags) is drawn with ``parse_math=False``: a ``$`` in it must not start mathtext.
"""
from __future__ import annotations

import io
import os
import statistics
from typing import Optional, Sequence

from ...errors import UsageError
from ...model import phases as phase_table
from .page import html_page, inline_svg
from .runs import PHASE_BANDS, RunView, short_id
from .series import Panel, panel_plan, series_of

INSTALL_HINT = "pip install 'phasewrap[plot]'"
FORMATS = ("png", "svg", "html")
# One colour per run when several are drawn; none of them is a phase, step-kind or stall colour (red = stall).
RUN_COLOURS = ("#222222", "#1f77b4", "#9467bd", "#17becf", "#bcbd22", "#e377c2", "#7f7f7f", "#393b79")
LINE_STYLES = ("-", "--", ":", "-.")
TITLE_CHARS = 50  # what fits left of the phase legend at the top
ROW_NOTE_CHARS = 100  # what fits right of a row's label
CEILING_FAR = 2.5  # a ceiling this many times above the data's peak goes off scale, named in its legend
STALL_COLOUR = "#e31a1c"  # stalls on the token ticks


class PlotUnavailable(UsageError, RuntimeError):
    """matplotlib is not installed."""



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



def _figure_bytes(fig, fmt: str, title: str) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png" if fmt == "png" else "svg", dpi=110)
    data = buf.getvalue()
    if fmt == "html":  # inline SVG: sharp at any width, text stays text-sized when zoomed
        return html_page(title, inline_svg(data, title)).encode("utf-8")
    return data



def _run_colour(index: int, n_runs: int) -> Optional[str]:
    return RUN_COLOURS[index % len(RUN_COLOURS)] if n_runs > 1 else None


def _draw_phase_row(ax, view: RunView, colour: Optional[str], x_max: float) -> None:
    ax.set_ylim(0, 1)
    ax.set_yticks([])
    for spine in ("left", "right", "top"):
        ax.spines[spine].set_visible(False)
    ax.set_title(view.label(), loc="left", fontsize=9, color=colour or "black", parse_math=False, pad=3)
    limits = (view.record or {}).get("limits") or {}
    for key, label, start, end, band_colour in view.bands():
        ax.broken_barh([(start, end - start)], (0.38, 0.62), facecolors=band_colour, edgecolor="white", lw=0.5)
        floor_share = (limits.get(key[:-2]) or {}).get("efficiency")
        if floor_share:  # the hardware's floor for this phase, drawn from its start along the band's foot
            ax.broken_barh([(start, floor_share * (end - start))], (0.38, 0.07), facecolors="black", alpha=0.55,
                           gid=f"floor-{key[:-2]}")
        text = f"{label} {end - start:.2f} s"
        if (end - start) / x_max > 0.007 * len(text):  # only where the words fit inside the band
            ax.text((start + end) / 2, 0.55, text, ha="center", va="center", fontsize=8, parse_math=False)
    _draw_load_steps(ax, view, x_max)
    unmeasured = "; ".join(view.unmeasured())
    if unmeasured:
        ax.set_title(_cut(unmeasured, ROW_NOTE_CHARS), loc="right", fontsize=7, color="#555555", parse_math=False,
                     pad=3)
    stalls = view.stalls_s()
    if stalls:  # on the token ticks: where no token came for ≥ max(5 × the median gap, 50 ms)
        ax.broken_barh([(start, end - start) for start, end in stalls], (0.02, 0.32), facecolors=STALL_COLOUR,
                       alpha=0.6, gid="stalls")
    ticks = view.token_times_s()
    if ticks:
        ax.vlines(ticks, 0.04, 0.32, color="black", lw=0.6)
    elif not view.has_stream:
        ax.text(0.0, 0.17, "token arrivals need a capture (run --capture DIR)", fontsize=7, color="grey",
                va="center")
    total = view.phase_s("total_s")
    if total is not None:
        ax.axvline(total, color="black", lw=1.2)
    for name, t_s, _text in view.custom_markers():
        ax.axvline(t_s, color="#444444", lw=0.9, ls="--")
        ax.text(t_s, 0.97, f" {name}", fontsize=7, va="top", ha="left", color="#333333", parse_math=False,
                bbox={"facecolor": "white", "alpha": 0.7, "lw": 0, "pad": 0.5})


# Load steps: a strip along the top of the load band, one colour per kind (named in the figure's second legend);
# none of them is red, which marks stalls. Dark ones carry white labels.
STEP_KIND_COLOURS = {"disk": "#8c510a", "cpu-single": "#e6ab02", "cpu-multi": "#fee08b", "gpu-upload": "#7570b3",
                     "gpu-compute": "#1b7837", "wait": "#c7c7c7", "unknown": "#f7f7f7"}
DARK_STEP_KINDS = ("disk", "gpu-upload", "gpu-compute")
UNKNOWN_KIND_COLOUR = STEP_KIND_COLOURS["unknown"]


def _draw_load_steps(ax, view: RunView, x_max: float) -> None:
    for name, kind, start, end in view.load_steps():
        ax.broken_barh([(start, end - start)], (0.78, 0.22), facecolors=STEP_KIND_COLOURS.get(kind, UNKNOWN_KIND_COLOUR),
                       edgecolor="black", lw=0.4)
        text = f"{name} ({kind})"
        if (end - start) / x_max > 0.006 * len(text):  # label only where it fits
            ax.text((start + end) / 2, 0.89, text, ha="center", va="center", fontsize=6, parse_math=False,
                    color="white" if kind in DARK_STEP_KINDS else "black")


def _step_kind_legend(fig, views: list[RunView]) -> None:
    """A legend row naming the colour of each load-step kind the drawn runs have (none without steps)."""
    from matplotlib.patches import Patch

    kinds = list(dict.fromkeys(kind for view in views for _name, kind, _s, _e in view.load_steps()))
    if not kinds:
        return
    handles = [Patch(facecolor=STEP_KIND_COLOURS.get(kind, UNKNOWN_KIND_COLOUR), edgecolor="black", lw=0.4,
                     label=kind) for kind in kinds]
    fig.legend(handles=handles, loc="outside lower right", ncols=len(handles), fontsize=7, frameon=False,
               title="load-step kinds", title_fontsize=7, alignment="right")


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
            series = series_of(view, metric, panel.scale)
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
    legend = [Patch(color=p.colour, label=p.label) for p in PHASE_BANDS]
    legend += [Line2D([], [], color="black", lw=0.6, marker="|", ls="", markersize=8, label="token"),
               Patch(color=STALL_COLOUR, alpha=0.6, label="stall"),
               Line2D([], [], color="black", lw=1.2, label="exit"),
               Line2D([], [], color="#444444", lw=0.9, ls="--", label="mark")]
    fig.legend(handles=legend, loc="outside upper right", ncols=len(legend), fontsize=7, frameon=False)
    _step_kind_legend(fig, views)
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
    """The timeline of ``runs`` as PNG, SVG or HTML (a page with the SVG inline) bytes.

    Each run is a row of phase bands (load, TTFT, decode), token arrivals as ticks, named marks as dashed
    lines and its exit as a solid line; below, panels sharing the time axis for GPU utilization, VRAM,
    power, CPU and disk read rate, each left out (and named in a note) when no run has its data.
    """
    fmt = _check_format(fmt)
    views = list(runs)
    if not views:
        raise UsageError("timeline: no runs to draw")
    return _figure_bytes(_timeline_figure(views), fmt, "phasewrap timeline")



COMPARED_PHASES = tuple((p.label, p.key) for p in phase_table.PHASES)
LABEL_CHARS = 40  # a side's label (its file or tag set) in the legend and title
NOISE_COLOURS = {True: "black", False: "#777777", None: "#777777"}
NOISE_WORDS = {True: "beyond noise", False: "within noise", None: "no verdict"}


def _stats(records: Sequence[dict], key: str) -> Optional[tuple[float, float, float]]:
    """(median, min, max) of one phase over the records that measured it; None when none did."""
    values = [r["phases"][key] for r in records if (r.get("phases") or {}).get(key) is not None]
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def _compared(records: Sequence[dict], pool: Optional[str]) -> list[dict]:
    """The records ``compare`` used for a side: ok, no warm-up, in the page-cache pool it chose."""
    from ...sources import records_io

    return next((group for key, group in records_io.group(records).items()
                 if records_io.describe_key(key) == pool), [])


def _draw_sides(ax, sides, width: float) -> list[float]:
    """The bars of both sides with min–max whiskers and the median written on top; returns each phase's top."""
    tops = [0.0] * len(COMPARED_PHASES)
    for side_i, (label, records, colour) in enumerate(sides):
        xs = [i + (side_i - 0.5) * width for i in range(len(COMPARED_PHASES))]
        stats = [_stats(records, key) for _name, key in COMPARED_PHASES]
        ax.bar(xs, [0 if st is None else st[0] for st in stats], width * 0.95, color=colour,
               label=f"{_cut(label, LABEL_CHARS)} (n={len(records)})")
        for i, (x, st) in enumerate(zip(xs, stats)):
            if st is None:
                ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=7, color="grey")
                continue
            med, lo, hi = st
            ax.errorbar(x, med, yerr=[[med - lo], [hi - med]], color="black", capsize=3, lw=0.8)
            ax.annotate(f"{med:.2f}", (x, hi), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                        fontsize=7)
            tops[i] = max(tops[i], hi)
    return tops


def compare_bars_bytes(base_records: Sequence[dict], cand_records: Sequence[dict], fmt: str = "png",
                       labels: tuple[str, str] = ("base", "candidate")) -> bytes:
    """Per-phase bars, base beside candidate, each side labelled (its file or tag set): the median, whiskers
    from min to max, and the change in % with ``compare``'s verdict under it (bold: beyond noise)."""
    from ...method.compare import compare

    fmt = _check_format(fmt)
    Figure = _figure_class()
    if not base_records or not cand_records:
        raise UsageError("compare_bars: both sides need at least one record")
    result = compare(base_records, cand_records)
    sides = ((labels[0], _compared(base_records, result["pool"]["base"]), "#9e9e9e"),
             (labels[1], _compared(cand_records, result["pool"]["cand"]), "#3b75af"))
    fig = Figure(figsize=(8, 4.4), layout="constrained")
    ax = fig.subplots()
    tops = _draw_sides(ax, sides, 0.38)
    y_max = max(tops + [1e-3]) * 1.35
    for i, (_name, key) in enumerate(COMPARED_PHASES):
        row = result["phases"][key]
        if row["ratio"] is None:
            continue
        beyond = row["verdict"]["beyond_noise"]
        ax.text(i, tops[i] + 0.06 * y_max, f"{row['ratio'] - 1:+.0%}\n{NOISE_WORDS[beyond]}", ha="center",
                va="bottom", fontsize=8 if beyond else 7, fontweight="bold" if beyond else "normal",
                color=NOISE_COLOURS[beyond], linespacing=1.1)
    ax.set_xticks(range(len(COMPARED_PHASES)), [name for name, _ in COMPARED_PHASES])
    ax.set_ylabel("seconds (median; whiskers min–max)", fontsize=8)
    ax.set_ylim(0, y_max)
    ax.legend(fontsize=8, frameon=False, loc="upper left")
    ax.grid(axis="y", lw=0.3, alpha=0.6)
    title = f"{_cut(labels[0], LABEL_CHARS)} vs {_cut(labels[1], LABEL_CHARS)}: phase times"
    ax.set_title(title, fontsize=10, loc="left", parse_math=False)
    fig.supxlabel("runs that ended ok, no warm-ups, one page-cache state; noise: Mann-Whitney U p < 0.05 with "
                  "3+ runs a side, else ranges apart", fontsize=7, color="grey")
    return _figure_bytes(fig, fmt, f"phasewrap: {labels[0]} vs {labels[1]}")
