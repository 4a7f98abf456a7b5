"""A sweep's diagnosis as an HTML section for the report: what each tag moved, then each variant's findings.

Pure: records in, an HTML fragment out (empty when the runs are not a sweep, i.e. no tag varies).
"""
from __future__ import annotations

import html
from typing import Sequence

from ..method.diagnose import diagnose
from ..method.sweep import variants


def render_html(records: Sequence[dict]) -> str:
    """``<section>`` with the sweep's findings as an ordered list; ``""`` for runs of one variant."""
    if len(variants(records)) < 2:
        return ""
    items = []
    for finding in diagnose(records):
        variant = f"<b>{html.escape(finding.variant)}</b>: " if finding.variant else ""
        items.append(f"<li>{variant}[{html.escape(finding.bottleneck)}] {html.escape(finding.statement)}"
                     f"<br><i>next:</i> {html.escape(finding.next_step)}</li>")
    return ('<section class="sweep"><h2>sweep diagnosis (per variant)</h2>\n<ol>' + "\n".join(items)
            + "</ol>\n</section>\n")
