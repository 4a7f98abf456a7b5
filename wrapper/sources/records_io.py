"""Reading run records back from files, selecting them by tag, and the conditions under which runs pool.

Accepted files: JSON Lines (what ``run --jsonl`` appends), a JSON array of records, or one or more pretty-printed
record objects one after another (what ``run --format json`` prints, redirected). A line that is not valid
JSON or not a record is skipped and reported as (line number, reason); a file with no record at all, or a
record of an unknown schema version, is an error whose message names the file, the line and the fix.
"""
from __future__ import annotations

import json
import logging
from typing import Iterable, Optional, Sequence

from ..errors import UsageError
from ..model.accessors import cache_label, is_warmup
from ..derive.record import SCHEMA

SCHEMA_FAMILY = SCHEMA.rsplit("/", 1)[0] + "/"  # phasewrap.run/: the family whose other versions are refused


class RecordsError(UsageError):
    """The file can't be read as run records; the one-line message names the file, the line and the fix."""


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _classify(value, name: str, line: int, records: list, skipped: list) -> None:
    """Put one decoded JSON value in ``records`` or ``skipped``; raise on a record of another schema version."""
    if isinstance(value, list):
        for item in value:
            _classify(item, name, line, records, skipped)
        return
    if not isinstance(value, dict):
        skipped.append((line, f"not a run record: a JSON {type(value).__name__}, not an object"))
        return
    schema = value.get("schema")
    if schema == SCHEMA:
        problem = _shape_problem(value)
        if problem:
            skipped.append((line, f"not a usable run record: {problem}"))
        else:
            records.append(value)
    elif isinstance(schema, str) and schema.startswith(SCHEMA_FAMILY):
        raise RecordsError(f"{name}: line {line}: unknown schema {schema!r}: this phasewrap reads {SCHEMA}; "
                           f"use the phasewrap version that wrote the file, or upgrade phasewrap")
    elif schema is None:
        skipped.append((line, 'not a run record: no "schema" key'))
    else:
        skipped.append((line, f"not a run record: schema {schema!r}"))


def _shape_problem(record: dict) -> Optional[str]:
    """What makes a record of the right schema unusable (every reader relies on these keys); None if nothing."""
    if not isinstance(record.get("run_id"), str) or not record["run_id"]:
        return 'no "run_id" string'
    phases = record.get("phases")
    if not isinstance(phases, dict):
        return '"phases" is not an object'
    for key, value in phases.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return f'"phases.{key}" is not a number or null'
    for key in ("missing", "warnings"):
        if key in record and not isinstance(record[key], list):
            return f'"{key}" is not a list'
    return None


def _whole(text: str, name: str) -> Optional[tuple[list, list]]:
    """Decode ``text`` as JSON values one after another; ``None`` if any part is not valid JSON."""
    decoder = json.JSONDecoder()
    records: list = []
    skipped: list = []
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos == end:
            return records, skipped
        try:
            value, next_pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            return None
        _classify(value, name, _line_of(text, pos), records, skipped)
        pos = next_pos


def _by_line(text: str, name: str) -> tuple[list, list]:
    records: list = []
    skipped: list = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as e:
            msg = e.msg[:-len(" starting at")] if e.msg.endswith(" starting at") else e.msg
            skipped.append((number, f"invalid JSON at column {e.colno}: {msg}"))
            continue
        _classify(value, name, number, records, skipped)
    return records, skipped


def parse_records(text: str, name: str = "<records>") -> tuple[list[dict], list[tuple[int, str]]]:
    """(records, skipped) from the text of a records file; ``name`` is used in error messages.

    Raises ``RecordsError`` for an empty text, a text with no record in it, or a record of an unknown schema
    version (``phasewrap.run/N`` other than 1).
    """
    if not text.strip():
        raise RecordsError(f"{name}: line 1: empty file, no run records: write some with "
                           f"`phasewrap run --jsonl {name} -- CMD`")
    parsed = _whole(text, name)
    records, skipped = parsed if parsed is not None else _by_line(text, name)
    if not records:
        line, reason = skipped[0]
        raise RecordsError(f"{name}: line {line}: {reason}; no run record (schema {SCHEMA}) in the file: point to "
                           f"a file written by `phasewrap run --jsonl FILE`")
    return records, skipped


def read_records(path: str) -> tuple[list[dict], list[tuple[int, str]]]:
    """(records, skipped) from a file: ``skipped`` lists (line number, reason) for each line left out.

    Raises ``RecordsError`` when the file can't be read, is empty, holds no record, or holds a record of an
    unknown schema version.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        raise RecordsError(f"{path}: can't read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        line = _line_of(e.object.decode("utf-8", "replace"), e.start)
        raise RecordsError(f"{path}: line {line}: not UTF-8 text: point to a JSONL file of run records") from None
    return parse_records(text, path)


def load_records(path: str) -> list[dict]:
    """The records of a file, for every subcommand that reads them: each line left out is one warning on the
    ``phasewrap`` logger naming the file, the line and why; ``RecordsError`` as ``read_records``."""
    records, skipped = read_records(path)
    log = logging.getLogger("phasewrap")
    for number, why in skipped:
        log.warning("%s: line %d skipped: %s", path, number, why)
    return records


def parse_tag_filters(items: Iterable[str]) -> dict[str, str]:
    """``["model=7b", "gpu=h200"]`` → ``{"model": "7b", "gpu": "h200"}``; ``RecordsError`` on a missing ``=``."""
    out = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise RecordsError(f"tag filter {item!r}: expected KEY=VALUE, e.g. model=7b")
        out[key] = value
    return out


def select(records: Sequence[dict], tag_filters: dict) -> list[dict]:
    """The records whose tags match every ``KEY=VALUE`` filter (values compared as text)."""
    def matches(record: dict) -> bool:
        tags = record.get("tags") or {}
        return all(key in tags and str(tags[key]) == str(value) for key, value in tag_filters.items())
    return [r for r in records if matches(r)]


def pool_key(record: dict) -> Optional[tuple[tuple[str, Optional[str]], ...]]:
    """What runs must share to be pooled in one statistic: ``(("cache", label),)``; ``None`` for a warm-up
    run, which is never pooled. Runs with different cache labels (cold / warm / partial / unmeasured) never pool.
    """
    if is_warmup(record):
        return None
    return (("cache", cache_label(record)),)


def describe_key(key: tuple) -> str:
    """``(("cache", "warm"),)`` → ``"cache=warm"`` (``None`` shows as ``unknown``)."""
    return ", ".join(f"{name}={'unknown' if value is None else value}" for name, value in key)


def group(records: Sequence[dict]) -> dict[tuple, list[dict]]:
    """Records by ``pool_key``, in first-seen order; warm-up runs are left out."""
    out: dict[tuple, list[dict]] = {}
    for record in records:
        key = pool_key(record)
        if key is not None:
            out.setdefault(key, []).append(record)
    return out
