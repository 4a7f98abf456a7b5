"""Pictures into files: the format follows the file's suffix, the bytes go through the one output writer."""
from __future__ import annotations

import os
from typing import Sequence

from ...errors import UsageError
from ...core.writer import show_path, write_file
from .draw import _check_format, compare_bars_bytes, timeline_bytes
from .runs import RunView


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



def timeline(runs: Sequence[RunView], path: str) -> str:
    """Draw ``runs`` (see ``timeline_bytes``) into ``path``; the format follows its suffix. Returns path."""
    data = timeline_bytes(runs, format_of(path))
    write_file(path, data)
    return path



def compare_bars(base_records: Sequence[dict], cand_records: Sequence[dict], path: str,
                 labels: tuple[str, str] = ("base", "candidate")) -> str:
    """Draw ``compare_bars_bytes`` into ``path``; the format follows its suffix. Returns path."""
    data = compare_bars_bytes(base_records, cand_records, format_of(path), labels)
    write_file(path, data)
    return path


