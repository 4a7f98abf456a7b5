"""The measurement-log CSV: one row per run, tags as columns, header written once.

Text cells (tag keys in the header, tag values, the note) go through ``safe.csv_cell`` so that a spreadsheet
never runs one as a formula (OWASP: a leading ``'``); the JSONL keeps the exact text. A cell holding a line
break, CR included, is quoted, so one run is always one row.
"""
from __future__ import annotations

import csv
import io
from typing import Callable, Iterable, Iterator, Optional

from ...core.safe import csv_cell
from ...model import phases as phase_table

# The columns every phasewrap CSV has had from the first version on: what makes a file one (header_problem).
FIRST_COLUMN = "date_time"
ALWAYS = {"input_tokens", "output_tokens", *(p.key for p in phase_table.TIMED), "ms_per_token", "vram_peak_mib",
          "status", "note"}
# Columns a file gets when phasewrap starts it (a file written before keeps its header: rows follow it, so the
# columns added later are simply absent there). The seed's record template column for column: date time
# (date_time), quant format (quant), context length (ctx), input/output tokens, load s, first-token s (ttft_s),
# generation s (decode_s), ms per token, VRAM peak (vram_peak_mib), notes (note).
HEAD = ["date_time", "run_id"]
TAGGED = ["quant", "ctx"]   # the template's quant format and context length: the run's --tag quant=… / ctx=…
TAIL = ["input_tokens", "output_tokens", *(p.key for p in phase_table.PHASES), "ms_per_token",
        "vram_peak_mib", "warmup", "cache", "status", "note"]
SOURCE = "source"           # analyze --format csv: the file the row was read from


def _vram_peak(record: dict) -> Optional[float]:
    total = ((record.get("resources") or {}).get("total") or {})
    return total.get("vram_used_peak_mib")


def _cell(value) -> str:
    return "" if value is None else csv_cell(str(value))


def _flag(value) -> Optional[str]:
    return None if value is None else ("true" if value else "false")


def row(record: dict, columns: list[str], date_time: Optional[str] = None) -> list[str]:
    """The cells of ``record`` under ``columns``; ``date_time`` stands in for a record without ``started_at``
    (a log without times: the file's modification time)."""
    phases = record["phases"]
    tokens = record.get("tokens") or {}
    values = {
        "date_time": record.get("started_at") or date_time,
        "run_id": record.get("run_id"),
        "source": (record.get("source") or {}).get("file"),
        "total_s": phases.get("total_s"),
        "warmup": _flag(record.get("warmup")),
        "cache": (record.get("cache") or {}).get("label"),
        "input_tokens": tokens.get("input"),
        "output_tokens": tokens.get("output"),
        "load_s": phases.get("load_s"),
        "ttft_s": phases.get("ttft_s"),
        "decode_s": phases.get("decode_s"),
        "ms_per_token": record.get("ms_per_token"),
        "vram_peak_mib": _vram_peak(record),
        "status": record["status"],
        "note": record.get("note"),
    }
    tags = {csv_cell(str(k)): v for k, v in (record.get("tags") or {}).items()}  # keyed as the header shows them
    return [_cell(values[c]) if c in values else _cell(tags.get(c)) for c in columns]


def columns_for(record: dict, source: bool = False) -> list[str]:
    """A new file's header: HEAD, the file name with ``source``, quant and ctx, the other tags sorted, TAIL (tag
    keys neutralised as every text cell is: ``safe.csv_cell``)."""
    tags = sorted(csv_cell(str(k)) for k in set(record.get("tags") or {}) - set(TAGGED))
    return HEAD + ([SOURCE] if source else []) + TAGGED + tags + TAIL


def _rows_text(rows: list[list[str]]) -> str:
    """CSV text, one line per row: the csv module quotes only the line terminator's characters under
    QUOTE_MINIMAL, so a row with a bare CR in a cell is written with every cell quoted."""
    buf = io.StringIO()
    plain = csv.writer(buf, lineterminator="\n")
    quoted = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for cells in rows:
        (quoted if any("\r" in c for c in cells) else plain).writerow(cells)
    return buf.getvalue()


def render(records: list[dict], header_line: Optional[str], source: bool = False,
           dates: Optional[list] = None) -> tuple[str, list[str]]:
    """CSV text to append and the tags left out because the existing header has no column for them.

    ``header_line``: the first line of the file appended to (None: a new file, the header comes first); its
    columns are kept as they are. ``source``: add the file name column (analyze). ``dates``: per record, the
    ``date_time`` for one without ``started_at``."""
    if header_line is None:
        columns = columns_for(records[0], source)
        out_rows = [columns]
    else:
        columns = next(csv.reader([header_line]))
        out_rows = []
    dropped = sorted({k for r in records for k in (r.get("tags") or {}) if csv_cell(str(k)) not in columns})
    out_rows += [row(r, columns, (dates or [None] * len(records))[i]) for i, r in enumerate(records)]
    return _rows_text(out_rows), dropped


def stream(records: Iterable[dict], source: bool = False,
           date_of: Optional[Callable[[dict], Optional[str]]] = None) -> Iterator[str]:
    """``render(records, None, source)`` of a new file in pieces, one per record as it comes (the header's
    columns come from the first record alone, so a long analyze never holds its records); ``date_of(record)``
    gives the ``date_time`` of one without ``started_at``."""
    columns = None
    for record in records:
        head = []
        if columns is None:
            columns = columns_for(record, source)
            head = [columns]
        yield _rows_text(head + [row(record, columns, date_of(record) if date_of else None)])


def header_problem(head: bytes) -> Optional[str]:
    """Why a file starting with ``head`` (its first bytes) is not a phasewrap measurement log; None if it is.

    Appending a row to someone else's CSV (or to a binary file) would corrupt it, so the run refuses first.
    """
    if not head:
        return None
    if b"\0" in head:
        return "is a binary file, not a CSV"
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    try:
        text = first.decode("utf-8")
    except UnicodeDecodeError:
        return "is not UTF-8 text, not a phasewrap CSV"
    columns = next(csv.reader([text]), [])
    if columns[:1] != [FIRST_COLUMN] or not ALWAYS <= set(columns):
        shown = text if len(text) <= 60 else text[:57] + "..."
        return f"has another header ({shown!r}), not a phasewrap measurement log"
    return None
