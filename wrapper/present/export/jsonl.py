"""Records as JSON Lines / JSON."""
from __future__ import annotations

import json


def line(record: dict) -> str:
    """One record on one line, newline included."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def lines(records) -> str:
    """Records as JSON Lines."""
    return "".join(line(r) for r in records)


def pretty(records) -> str:
    """One record as indented JSON; several as a JSON array."""
    return json.dumps(records, ensure_ascii=False, indent=2) + "\n"


def pretty_stream(records):
    """``pretty(list(records))`` in pieces, one per record as it comes (a long analyze never holds them all)."""
    first = True
    for record in records:
        body = json.dumps(record, ensure_ascii=False, indent=2).replace("\n", "\n  ")
        yield ("[\n  " if first else ",\n  ") + body
        first = False
    yield "[]\n" if first else "\n]\n"
