"""Records as JSON Lines / JSON: never ``NaN``/``Infinity`` (not JSON; a reader would refuse the line)."""
from __future__ import annotations

import json
import math

from ...core.safe import json_text


def _finite(value):
    """``value`` with every non-finite float as null: a figure that is no number is not measured."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _dumps(value, **kwargs) -> str:
    """JSON text that is valid UTF-8 and safe on a terminal (``safe.json_text``), without NaN."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, **kwargs)
    except ValueError:  # a non-finite float: the rare case pays for the walk
        text = json.dumps(_finite(value), ensure_ascii=False, allow_nan=False, **kwargs)
    return json_text(text)


def line(record: dict) -> str:
    """One record on one line, newline included."""
    return _dumps(record, separators=(",", ":")) + "\n"


def lines(records) -> str:
    """Records as JSON Lines."""
    return "".join(line(r) for r in records)


def pretty(records) -> str:
    """One record as indented JSON; several as a JSON array."""
    return _dumps(records, indent=2) + "\n"


def pretty_stream(records):
    """``pretty(list(records))`` in pieces, one per record as it comes (a long analyze never holds them all)."""
    first = True
    for record in records:
        body = _dumps(record, indent=2).replace("\n", "\n  ")
        yield ("[\n  " if first else ",\n  ") + body
        first = False
    yield "[]\n" if first else "\n]\n"
