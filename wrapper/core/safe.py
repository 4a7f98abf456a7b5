"""Text from the child, a log or the environment, made safe once before it reaches a terminal, a file name or a
CSV cell. Every presenter goes through these; the record (JSON) keeps the exact text.

- ``terminal``: ANSI/OSC escape sequences removed; every other C0 control but newline and tab, DEL and the C1
  controls (U+0080–U+009F, e.g. the 8-bit CSI ``\\x9b`` and OSC ``\\x9d``) shown as ``\\xNN``, and so are bytes
  that weren't UTF-8 (a file name in another encoding).
- ``json_text``: JSON whose strings hold such characters as ``\\uXXXX`` escapes (the exact text, safe to print).
- ``path_component``: a placeholder value (``{host}``, ``{sweep_id}``) as one safe file-name component.
- ``csv_cell``: a cell that a spreadsheet won't run as a formula (OWASP's advice: a leading ``'``).
"""
from __future__ import annotations

import re

# CSI (ESC [ … final), OSC (ESC ] … BEL or ST), and two-character escapes (ESC @ … _)
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_UNDECODED = re.compile(r"[\udc80-\udcff]")  # bytes that weren't UTF-8, as Python keeps them (surrogateescape)
_JSON_RAW = re.compile(r"[\x7f-\x9f\ud800-\udfff]")  # what json.dumps(ensure_ascii=False) leaves unescaped
_UNSAFE = re.compile(f"{_CONTROL.pattern}|{_UNDECODED.pattern}")  # what terminal() changes (ESC is a control)
_PATH_BAD = re.compile(r"[^A-Za-z0-9._+-]")
PATH_COMPONENT_CHARS = 100
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences."""
    return ANSI.sub("", text)


def terminal(text: str) -> str:
    """``text`` that can't move the cursor, retitle the window, ring or erase: escapes removed, other controls
    (but newline and tab) shown as ``\\xNN``."""
    if _UNSAFE.search(text) is None:  # most text: one scan instead of three
        return text
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", ANSI.sub("", text))
    return _UNDECODED.sub(lambda m: f"\\x{ord(m.group()) - 0xdc00:02x}", text)


def json_text(text: str) -> str:
    """JSON text (from ``json.dumps(ensure_ascii=False)``) with DEL, the C1 controls and lone surrogates (a file
    name's bytes that aren't UTF-8) written as ``\\uXXXX`` escapes: still the exact string to a JSON reader, and
    valid UTF-8 that no terminal obeys. They can only occur inside JSON strings, so the escape is always valid."""
    if text.isascii() and "\x7f" not in text:  # two C scans, no regex: most records
        return text
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def one_line(text: str) -> str:
    """``terminal`` text on one line: newlines and tabs become spaces."""
    return terminal(text).replace("\n", " ").replace("\t", " ")


def path_component(value: str) -> str:
    """One file-name component from any text: every character outside ``[A-Za-z0-9._+-]`` becomes ``_``, a
    leading dot too (no hidden files, no ``..``), at most ``PATH_COMPONENT_CHARS`` characters; empty → ``_``."""
    out = _PATH_BAD.sub("_", value)[:PATH_COMPONENT_CHARS]
    if out.startswith("."):
        out = "_" + out[1:]
    return out or "_"


def csv_cell(value: str) -> str:
    """A text cell a spreadsheet reads as text: one that starts with ``=``, ``+``, ``-``, ``@``, tab or CR gets a
    leading ``'`` (a negative number stays a number: it is not text)."""
    if value.startswith(_FORMULA_START) and not _is_number(value):
        return "'" + value
    return value


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return value.strip() == value and value.lower() not in ("nan", "-nan", "inf", "-inf", "+inf", "infinity",
                                                            "-infinity", "+infinity")
