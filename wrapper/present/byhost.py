"""``--by host`` as people read it: the table (``method.byhost.table``) as text, HTML and a picture."""
from __future__ import annotations

import html
from typing import Sequence

from ..method.byhost import PHASES, group, table


def _cell(row: dict, key: str) -> str:
    value = row["median"][key]
    if value is None:
        return "n/a"
    text = f"{value:.3f}" if key in PHASES else f"{value:.1f}"
    ratio = row["vs_fleet"][key]
    if ratio is not None:
        text += f" ({ratio - 1:+.0%})"
    return text + (" !" if row["outlier"].get(key) else "")



def render(result: dict) -> str:
    """The table as text: per host the median of each key and its difference to the median host;
    ``!`` marks an outlier, explained below the table."""
    from tabulate import tabulate

    keys = result["keys"]
    rows = [[row["host"], row["runs"], *(_cell(row, k) for k in keys)] for row in result["hosts"]]
    lines = ["by host: medians (difference to the median host; ! = outlier)",
             tabulate(rows, headers=["host", "runs", *keys], tablefmt="simple", disable_numparse=True)]
    by_host = {row["host"]: row for row in result["hosts"]}
    for host, key in result["outliers"]:
        row = by_host[host]
        lines.append(f"outlier: {host} {key} {row['median'][key]:.3f} is {row['vs_fleet'][key] - 1:+.0%} vs the "
                     f"median host; against the other hosts' runs: {row['why'][key]}")
    if len(result["hosts"]) < 2:
        lines.append("only one host in these records: nothing to set it against")
    elif not result["outliers"]:
        lines.append("no host stands out beyond noise and 10 %")
    return "\n".join(lines) + "\n"



def render_html(result: dict) -> str:
    """The table as an HTML section (every value escaped)."""
    keys = result["keys"]
    head = "".join(f"<th>{html.escape(k)}</th>" for k in ["host", "runs", *keys])
    body = []
    for row in result["hosts"]:
        cells = "".join(f'<td class="{"outlier" if row["outlier"].get(k) else "num"}">{html.escape(_cell(row, k))}'
                        "</td>" for k in keys)
        body.append(f"<tr><td>{html.escape(row['host'])}</td><td>{row['runs']}</td>{cells}</tr>")
    notes = "".join(f"<li>{html.escape(line)}</li>" for line in render(result).splitlines()[2:]
                    if line.startswith(("outlier", "only", "no host")))
    return (f"<section><h2>By host</h2><table><tr>{head}</tr>{''.join(body)}</table><ul>{notes}</ul>"
            "</section>\n")



def bars_bytes(records: Sequence[dict], fmt: str = "png") -> bytes:
    """Per-phase bars, one per host: the median with min-max whiskers; an outlier's bar is red."""
    from .plot.draw import _check_format, _figure_bytes, _figure_class, _stats

    fmt = _check_format(fmt)
    groups = group(records)
    result = table(records, PHASES)
    flagged = set(result["outliers"])
    Figure = _figure_class()
    fig = Figure(figsize=(max(6.0, 1.6 * len(PHASES) * max(1, len(groups)) / 2), 4.2), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / max(1, len(groups))
    for h_i, (host, mine) in enumerate(groups.items()):
        for p_i, key in enumerate(PHASES):
            st = _stats(mine, key)
            x = p_i - 0.4 + (h_i + 0.5) * width
            if st is None:
                ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize=7, color="grey")
                continue
            med, lo, hi = st
            colour = "#d62728" if (host, key) in flagged else "#3b75af"
            ax.bar(x, med, width * 0.9, color=colour)
            ax.errorbar(x, med, yerr=[[med - lo], [hi - med]], color="black", capsize=2, lw=0.8)
            ax.annotate(host, (x, hi), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                        fontsize=6, rotation=90, annotation_clip=False)
    ax.set_xticks(range(len(PHASES)), list(PHASES))
    ax.set_ylabel("seconds (median; whiskers min–max; red = outlier)", fontsize=8)
    ax.grid(axis="y", lw=0.3, alpha=0.6)
    ax.set_title(f"phase times by host ({len(groups)} hosts)", fontsize=10, loc="left", parse_math=False)
    return _figure_bytes(fig, fmt, "phasewrap: phase times by host")
