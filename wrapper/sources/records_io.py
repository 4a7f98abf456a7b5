"""Reading run records back from files, selecting them by tag, and the conditions under which runs pool.

Accepted files: JSON Lines (what ``run --jsonl`` appends), a JSON array of records, or one or more pretty-printed
record objects one after another (what ``run --format json`` prints, redirected). A line that is not valid
JSON or not a record is skipped and reported as (line number, reason); a file with no record at all, or a
record of an unknown schema version, is an error whose message names the file, the line and the fix.
"""
from __future__ import annotations

import json
import logging
import math
import re
from typing import Iterable, Optional, Sequence

from ..core.writer import show_path
from ..errors import UsageError
from ..model.accessors import cache_label, is_warmup
from ..derive.record import SCHEMA
from . import inputs
from .inputs import InputError, open_input, read_lines

SCHEMA_FAMILY = SCHEMA.rsplit("/", 1)[0] + "/"  # phasewrap.run/: the family whose other versions are refused
_UNDECODED = re.compile("[\udc80-\udcff]")  # bytes that weren't UTF-8, as surrogateescape keeps them
MAX_DEPTH = 64  # a record is 4 levels deep; a deeper value is damage, and would overflow a reader's recursion

_KINDS = {"str": lambda v: isinstance(v, str), "num": lambda v: isinstance(v, (int, float)) and not isinstance(
    v, bool), "bool": lambda v: isinstance(v, bool), "obj": lambda v: isinstance(v, dict),
    "list": lambda v: isinstance(v, list), "null": lambda v: v is None}
_KIND_NAMES = {"str": "a string", "num": "a number", "bool": "true/false", "obj": "an object", "list": "a list",
               "null": "null"}
_N, _S, _O, _SCALAR = "num|null", "str|null", "obj|null", "str|num|bool|null"
# The shape every reader relies on, checked once when a record is read: key → "kind|kind", a dict (an object
# or null whose keys are checked in turn; "*" any key, "key!" a key that must be there), or a one-item list (a
# list or null whose items are of that kind).
SHAPE = {
    "run_id": "str", "status": _S, "started_at": _S, "error": _S, "note": _S, "profile": _S, "phases_source": _S,
    "exit_code": _N, "ms_per_token": _N, "tokens_per_s": _N, "tpot_ms": _N, "stall_share_of_decode": _N,
    "stalls_total": _N, "t0_monotonic_ns": _N, "warmup": "bool|obj|null", "cache": "obj|str|null",
    "command": ["str"], "warnings": ["str"], "missing": [{"field!": "str", "reason": _S}],
    "warning_details": [{"kind!": "str", "text": _S}], "stalls": [{"t_s!": "num", "gap_ms!": "num", "after": _S}],
    "load_steps": [{"name!": "str", "kind!": "str", "start_s!": "num", "end_s!": "num", "dur_s!": "num",
                    "evidence!": "str", "merged": ["str"], "resources": {"disk_read_mib": _N}, "ended_by": _O}],
    "reported_vs_measured": [{"phase!": "str", "reported_s": _N, "measured_s": _N, "diff_s": _N, "ratio": _N}],
    "phases": {"*": _N},
    "tags": {"*": _SCALAR},
    "tokens": {"input": _N, "output": _N, "chunks": _N, "source": _S},
    "fleet": {"host": _S, "shard": _N, "shards": _N, "sweep_id": _S, "scheduler": _S, "job_id": _S,
              "plan_index": _N, "plan_size": _N, "unavailable": _O},
    "markers": {"*": {"t_s!": "num", "stream": _S, "text": _S}},
    "resources": {"*": "obj|num|str|null"},
    "decode_gaps_ms": {"*": "num|str|null"},
    "repeat": {"index": _N, "of": _N},
    "env": _O, "reported": _O, "source": _O, "child": _O, "reasoning": _O,
}


class RecordsError(UsageError):
    """The file can't be read as run records; the one-line message names the file, the line and the fix."""


class _NonFinite:
    """A ``NaN``/``Infinity``/``-Infinity`` met while decoding: read as null, with a reason in ``missing``."""

    def __init__(self, text: str) -> None:
        self.text = text


_BEYOND = "a number beyond the float range"  # 1e999: the C decoder makes it inf, its text is gone
_DECODER = json.JSONDecoder(parse_constant=_NonFinite)  # NaN/Infinity: the only calls back into Python


def _decode(text: str, pos: int = 0):
    """(value, end) as ``raw_decode``; a value nested past Python's recursion limit raises ``_TooDeep``."""
    try:
        return _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise _TooDeep() from None


class _TooDeep(Exception):
    pass


def _needs_repair(value) -> bool:
    """Whether ``value`` holds a ``_NonFinite`` or nests deeper than ``MAX_DEPTH``: one cheap pass without
    building paths (most records hold neither), raising ``_TooDeep`` for the depth."""
    stack = [(value, 0)]
    found = False
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _TooDeep()
        for item in (node.values() if type(node) is dict else node):
            kind = type(item)
            if kind is dict or kind is list:
                stack.append((item, depth + 1))
            elif kind is _NonFinite or (kind is float and not math.isfinite(item)):
                found = True
    return found


def _finite(value, where: list, path: str = "", depth: int = 0):
    """``value`` with each ``_NonFinite`` as None (its path and text added to ``where``); raises ``_TooDeep``
    past ``MAX_DEPTH`` levels (deeper values would overflow the readers' own recursion)."""
    if depth > MAX_DEPTH:
        raise _TooDeep()
    if isinstance(value, _NonFinite) or (isinstance(value, float) and not math.isfinite(value)):
        where.append((path, value.text if isinstance(value, _NonFinite) else _BEYOND))
        return None
    if isinstance(value, dict):
        return {k: _finite(v, where, f"{path}.{k}" if path else k, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v, where, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return value


def _classify(value, name: str, line: int, records: list, skipped: list) -> None:
    """Put one decoded JSON value in ``records`` or ``skipped``; raise on a record of another schema version."""
    if isinstance(value, list):  # a JSON array of records; an array in it is no record (and may nest deep)
        for item in value:
            if isinstance(item, list):
                skipped.append((line, "not a run record: a JSON array inside an array"))
            else:
                _classify(item, name, line, records, skipped)
        return
    if not isinstance(value, dict):
        skipped.append((line, f"not a run record: a JSON {type(value).__name__}, not an object"))
        return
    schema = value.get("schema")
    if schema == SCHEMA:
        _validated(value, name, line, records, skipped)
    elif isinstance(schema, str) and schema.startswith(SCHEMA_FAMILY):
        raise RecordsError(f"{name}: line {line}: unknown schema {schema!r}: this phasewrap reads {SCHEMA}; "
                           f"use the phasewrap version that wrote the file, or upgrade phasewrap")
    elif schema is None:
        skipped.append((line, 'not a run record: no "schema" key'))
    else:
        skipped.append((line, f"not a run record: schema {_shown(schema)}"))


def _validated(value: dict, name: str, line: int, records: list, skipped: list) -> None:
    record, problem = check_record(value, name, line)
    if record is None:
        skipped.append((line, problem))
    else:
        records.append(record)


def check_record(value, name: str, line: int) -> tuple[Optional[dict], Optional[str]]:
    """(the record, None) or (None, why it is left out): the one check every record passes when read (from a
    records file or a capture): finite numbers (a non-finite one is null, with a reason in ``missing``),
    bounded depth, the shape every reader relies on (``SHAPE``)."""
    if not isinstance(value, dict):
        return None, "not a run record: not an object"
    where: list = []
    try:
        record = _finite(value, where) if _needs_repair(value) else value
    except _TooDeep:
        return None, f"nested deeper than {MAX_DEPTH} levels"
    problem = _shape_problem(record)
    if problem:
        return None, f"not a usable run record: {problem}"
    if where:
        record.setdefault("missing", [])
    for path, text in where:
        logging.getLogger("phasewrap").warning("%s: line %d: %s is %s, not a finite number: read as null",
                                               name, line, path, text)
        record["missing"].append({"field": path, "reason": f"{text} in {name} line {line} is not a finite number"})
    return record, None


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind_ok(value, kind, nullable: bool = True) -> bool:
    if isinstance(kind, dict):
        return isinstance(value, dict) or (nullable and value is None)
    if isinstance(kind, list):
        return isinstance(value, list) or (nullable and value is None)
    return any(_KINDS[k](value) for k in kind.split("|"))


def _value_problem(value, kind, field: str, nullable: bool = True) -> Optional[str]:
    if not _kind_ok(value, kind, nullable):
        return f'"{field}" is {_shown(value)}, not {_describe(kind, nullable)}'
    if isinstance(kind, dict) and value:
        return _shape_problem(value, kind, f"{field}.")
    if isinstance(kind, list) and value:
        for i, item in enumerate(value):
            problem = _value_problem(item, kind[0], f"{field}[{i}]", nullable=False)
            if problem:
                return problem
    return None


def _shape_problem(record: dict, shape: Optional[dict] = None, prefix: str = "") -> Optional[str]:
    """What makes a record of the right schema unusable (a key readers rely on holds another type, or a
    required ``key!`` is absent); None if nothing. Keys not in ``SHAPE`` are left alone."""
    if shape is None:
        if not isinstance(record.get("run_id"), str) or not record["run_id"]:
            return 'no "run_id" string'
        if not isinstance(record.get("phases"), dict):
            return '"phases" is not an object'
        shape = SHAPE
    for key, value in record.items():
        kind = shape.get(key, shape.get(key + "!", shape.get("*")))
        problem = None if kind is None else _value_problem(value, kind, f"{prefix}{key}")
        if problem:
            return problem
    absent = [k[:-1] for k in shape if k.endswith("!") and k[:-1] not in record]
    return f'"{prefix}{absent[0]}" is absent' if absent else None


def _describe(kind, nullable: bool = True) -> str:
    if isinstance(kind, (dict, list)):
        return ("an object" if isinstance(kind, dict) else "a list") + (" or null" if nullable else "")
    return " or ".join(_KIND_NAMES[k] for k in kind.split("|"))


def _whole(text: str, name: str) -> Optional[tuple[list, list]]:
    """Decode ``text`` as JSON values one after another; ``None`` if any part is not valid JSON."""
    records: list = []
    skipped: list = []
    pos, end = 0, len(text)
    line, counted = 1, 0  # the line of ``pos``, counted incrementally (once per character, not per record)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos == end:
            return records, skipped
        try:
            value, next_pos = _decode(text, pos)
        except (ValueError, _TooDeep):
            return None
        line += text.count("\n", counted, pos)
        counted = pos
        _classify(value, name, line, records, skipped)
        pos = next_pos


def _by_line(text: str, name: str) -> tuple[list, list]:
    records: list = []
    skipped: list = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        bad = _UNDECODED.search(line)
        if bad is not None:  # a byte that is not UTF-8 (kept by surrogateescape): a record cut mid-character
            skipped.append((number, f"not UTF-8 text at column {bad.start() + 1}"))
            continue
        try:
            value = _DECODER.decode(line)
        except RecursionError:
            skipped.append((number, f"nested deeper than {MAX_DEPTH} levels"))
            continue
        except json.JSONDecodeError as e:
            msg = e.msg[:-len(" starting at")] if e.msg.endswith(" starting at") else e.msg
            skipped.append((number, f"invalid JSON at column {e.colno}: {msg}"))
            continue
        except ValueError as e:  # an integer of more digits than Python converts
            skipped.append((number, f"invalid JSON: {e}"))
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
    utf8 = _UNDECODED.search(text) is None
    parsed = _whole(text, name) if utf8 else None
    records, skipped = parsed if parsed is not None else _by_line(text, name)
    if not records:  # name the first line that is not UTF-8: a binary file's real cause
        line, reason = next((s for s in skipped if s[1].startswith("not UTF-8")), skipped[0])
        raise RecordsError(f"{name}: line {line}: {reason}; no run record (schema {SCHEMA}) in the file: point to "
                           f"a file written by `phasewrap run --jsonl FILE`")
    return records, skipped


def read_records(path: str) -> tuple[list[dict], list[tuple[int, str]]]:
    """(records, skipped) from a file (``-``: stdin): ``skipped`` lists (line number, reason) for each line
    left out (invalid JSON or UTF-8, longer than ``inputs.MAX_LINE_BYTES``, not a usable record).

    Raises ``RecordsError`` when the file is not a regular file or can't be read, is empty, holds no record,
    or holds a record of an unknown schema version.
    """
    try:
        with open_input(path) as fh:
            lines, too_long = read_lines(fh)
    except InputError as e:
        raise RecordsError(str(e)) from None
    except OSError as e:
        raise RecordsError(f"{show_path(path)}: can't read: {e.strerror}") from None
    name = show_path(path)
    text = b"".join(lines).decode("utf-8", "surrogateescape")
    long_lines = [(n, f"longer than {inputs.MAX_LINE_BYTES} bytes") for n in too_long]
    try:
        records, skipped = parse_records(text, name)
    except RecordsError:
        if not long_lines:
            raise
        raise RecordsError(f"{name}: line {too_long[0]}: longer than {inputs.MAX_LINE_BYTES} bytes; no run record in "
                           "the file") from None
    return records, sorted(skipped + long_lines)


def load_records(path: str) -> list[dict]:
    """The records of a file, for every subcommand that reads them: each line left out is one warning on the
    ``phasewrap`` logger naming the file, the line and why; ``RecordsError`` as ``read_records``."""
    records, skipped = read_records(path)
    log = logging.getLogger("phasewrap")
    for number, why in skipped:
        log.warning("%s: line %d skipped: %s", show_path(path), number, why)
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
