"""Numbers, sizes and durations as logs print them — the one place that reads them, whatever the locale.

Numbers: ``1,234.5`` and ``1.234,5`` (thousands separators either way), ``285,92`` (a decimal comma: what a
program's ``printf("%.2f")`` gives under a ``de_DE``/``fr_FR`` locale), ``1 234,5`` with a (narrow) no-break
space or an apostrophe (``1'234.5``) between groups. A lone comma followed by exactly three digits (``1,234``) is
read as a thousands separator unless the caller knows the text uses decimal commas (``decimal_comma=True``).
``nan``/``inf`` and anything that is not a number give ``None``.

Durations -> milliseconds: ``12.5 ms``, ``3.2 s``, ``0.5 sec``, ``2 seconds``, ``850 µs``/``us``/``μs``, ``ns``,
``min``, and Go's ``time.Duration.String()`` / Rust's ``Debug`` grammar (``2m27.98s``, ``1h2m3s``,
``891.933µs``, ``18.016616627s``). Sizes -> MiB: ``B``, ``KiB``…``TiB``, ``kB``/``KB``…``TB`` (powers of ten).

Arithmetic goes through ``Decimal`` so ``5.088275983s`` becomes exactly ``5088.275983`` ms, not a float neighbour.
"""
from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation

from ...core.lazy_re import LazyPattern

# Group separators other than "," and "." that locales print: NO-BREAK SPACE, NARROW NO-BREAK SPACE, apostrophe.
_GROUP_SEPARATORS = ("\u00a0", "\u202f", "'", "\u2019")
_THOUSANDS_COMMA = LazyPattern(r"[-+]?\d{1,3}(?:,\d{3})+")
_THOUSANDS_DOT = LazyPattern(r"[-+]?\d{1,3}(?:\.\d{3})+")
_SPACED_GROUPS = LazyPattern(r"[-+]?\d{1,3}(?: \d{3})+(?:[.,]\d+)?")


def decimal_text(text: str | None, decimal_comma: bool | None = None) -> str | None:
    """The number in ``text`` as plain ``[-]digits[.digits]`` (or ``nan``/``inf`` as written), separators
    resolved; ``None`` when ``text`` is not one number. ``decimal_comma``: True when the text is known to use
    decimal commas, False when commas are known to group thousands, None to judge from the text."""
    if text is None:
        return None
    s = text.strip()
    for sep in _GROUP_SEPARATORS:
        if sep in s:
            s = s.replace(sep, "")
    if " " in s and _SPACED_GROUPS.fullmatch(s):
        s = s.replace(" ", "")
    comma, dot = "," in s, "." in s
    if comma and dot:
        if s.rfind(",") > s.rfind("."):  # 1.234,5
            s = s.replace(".", "").replace(",", ".")
        else:  # 1,234.5
            s = s.replace(",", "")
    elif comma:
        if decimal_comma is False or (decimal_comma is None and _THOUSANDS_COMMA.fullmatch(s)):
            s = s.replace(",", "")
        elif s.count(",") == 1:
            s = s.replace(",", ".")
        else:
            return None
    elif dot and decimal_comma and _THOUSANDS_DOT.fullmatch(s):
        s = s.replace(".", "")
    return s


def _decimal(text: str | None, decimal_comma: bool | None = None) -> Decimal | None:
    s = decimal_text(text, decimal_comma)
    if s is None:
        return None
    try:
        value = Decimal(s)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def number(text: str | None, decimal_comma: bool | None = None) -> float | None:
    """``"1,234.5"`` -> ``1234.5``; ``"285,92"`` -> ``285.92``; ``"nan"``, ``"-inf"``, ``""`` -> ``None``."""
    if text is None:
        return None
    if "," not in text and "_" not in text and not (decimal_comma and _THOUSANDS_DOT.fullmatch(text.strip())):
        try:  # the common case, a plain number: float() reads it as Decimal would
            value = float(text)
        except ValueError:
            pass
        else:
            return value if math.isfinite(value) else None
    value = _decimal(text, decimal_comma)
    return None if value is None else float(value)


def integer(text: str | None, decimal_comma: bool | None = None) -> int | None:
    """``"396,928"`` -> ``396928``; ``"1.024"`` with ``decimal_comma=True`` -> ``1024``; a fraction -> ``None``."""
    if text is not None and text.strip().isdigit():
        return int(text)
    value = _decimal(text, decimal_comma)
    if value is None or value != value.to_integral_value():
        return None
    return int(value)


def scaled(text: str | None, factor: int | str | Decimal, decimal_comma: bool | None = None) -> float | None:
    """``float(Decimal(text) * factor)``: unit conversion without float noise; ``None`` when not a finite number."""
    value = _decimal(text, decimal_comma)
    if value is None:
        return None
    return float(value * Decimal(factor))


def seconds_to_ms(text: str | None, decimal_comma: bool | None = None) -> float | None:
    """A number of seconds as printed (``"3.106979"``, ``"1,234.5"``, ``"3,5"``) -> milliseconds, exactly."""
    return scaled(text, 1000, decimal_comma)


# -- durations -------------------------------------------------------------------------------------------------


def clock_s(*fields: str | None) -> float:
    """The seconds a clock's fields say, most significant first: ``clock_s("0", "05", "43.2")`` is 343.2 (h, m, s),
    ``clock_s(*"01:12".split(":"))`` 72.0; a field not printed (``None``, an optional hours group) counts 0."""
    total = 0.0
    for field in fields:
        total = total * 60 + float(field or 0)
    return total

_UNIT_MS = {
    "h": Decimal(3_600_000),
    "m": Decimal(60_000),
    "min": Decimal(60_000),
    "s": Decimal(1000),
    "ms": Decimal(1),
    "us": Decimal("0.001"),
    "\u00b5s": Decimal("0.001"),  # MICRO SIGN, what Go prints
    "\u03bcs": Decimal("0.001"),  # GREEK SMALL LETTER MU, seen after copy and paste
    "ns": Decimal("0.000001"),
}
# "ms" must come before "m" so that "847ms" is not read as 847 minutes followed by garbage.
_PART = LazyPattern(r"(\d+(?:\.\d+)?)(ms|h|m|s|us|\u00b5s|\u03bcs|ns)")
_WHOLE = LazyPattern(r"[-+]?(?:\d+(?:\.\d+)?(?:ms|h|m|s|us|\u00b5s|\u03bcs|ns))+")
_WORD_UNITS = {"sec": "s", "secs": "s", "second": "s", "seconds": "s", "msec": "ms", "msecs": "ms",
               "millis": "ms", "millisecond": "ms", "milliseconds": "ms", "mins": "min", "minute": "min", "minutes": "min",
               "hour": "h", "hours": "h", "usec": "us", "usecs": "us", "microseconds": "us", "nanoseconds": "ns"}
_SPACED = LazyPattern(r"([-+]?[\d.,'\u00a0\u202f]*\d)\s*([A-Za-z\u00b5\u03bc]+)")


def go_duration_ms(text: str) -> float | None:
    """``"2m27.98s"`` -> ``147980.0``; ``"0s"``/``"0"`` -> ``0.0``; anything else -> ``None``."""
    text = text.strip()
    if text in ("0", "-0", "+0"):
        return 0.0
    if not _WHOLE.fullmatch(text):
        return None
    total = sum((Decimal(n) * _UNIT_MS[u] for n, u in _PART.findall(text)), Decimal(0))
    return float(-total if text.startswith("-") else total)


# A duration said in parts, larger to smaller, spaced or in words: "7m 51s", "1 min 19 seconds", "2 hours, 3 minutes".
_SPOKEN_PART = LazyPattern(r"(\d+(?:\.\d+)?)\s?(hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s|ms)(?![A-Za-z])")
_SPOKEN_RANK = {"h": 3, "hr": 3, "hrs": 3, "hour": 3, "hours": 3, "m": 2, "min": 2, "mins": 2, "minute": 2,
                "minutes": 2, "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "ms": 0}
_RANK_MS = (Decimal(1), Decimal(1000), Decimal(60_000), Decimal(3_600_000))


def spoken_duration_ms(text: str) -> float | None:
    """``"7m 51s"`` -> ``471000.0``, ``"1 min 19 seconds"`` -> ``79000.0``: two or more parts, each unit smaller
    than the one before (so that a list such as ``"1.2s 1.3s"`` is never summed); ``None`` otherwise."""
    parts = _SPOKEN_PART.findall(text)
    ranks = [_SPOKEN_RANK[u.lower()] for _, u in parts]
    if len(parts) < 2 or any(a <= b for a, b in zip(ranks, ranks[1:])):
        return None
    return float(sum((Decimal(n) * _RANK_MS[r] for (n, _), r in zip(parts, ranks)), Decimal(0)))


def duration_ms(text: str, decimal_comma: bool | None = None) -> float | None:
    """Any duration a log prints -> milliseconds: ``"285,92 ms"`` -> ``285.92``, ``"1.5 s"`` -> ``1500.0``,
    ``"2 seconds"``, ``"850µs"``, ``"1m2.3s"`` -> ``62300.0``; ``None`` when it is not one duration."""
    text = text.strip()
    m = _SPACED.fullmatch(text)
    if m is not None:
        unit = _WORD_UNITS.get(m[2].lower(), m[2])
        factor = _UNIT_MS.get(unit)
        if factor is not None:
            return scaled(m[1], factor, decimal_comma)
    return go_duration_ms(text)


# -- sizes -----------------------------------------------------------------------------------------------------

# Factor from the printed unit to MiB. The decimal units (kB, MB, GB) are true powers of ten here; llama.cpp's
# old "MB" lines are MiB in disguise and are read by the llama.cpp parser directly, not through this table.
_TO_MIB = {
    "B": "0.00000095367431640625",
    "KiB": "0.0009765625",
    "MiB": 1,
    "GiB": 1024,
    "TiB": 1048576,
    "kB": "0.00095367431640625",
    "KB": "0.00095367431640625",
    "MB": "0.95367431640625",
    "GB": "953.67431640625",
    "TB": "953674.31640625",
}
_SIZE = LazyPattern(r"\s*([-+]?[\d.,'\u00a0\u202f]+)\s*([KMGT]i?B|kB|B)\s*")


def size_mib(text: str, decimal_comma: bool | None = None) -> float | None:
    """``"11.9 GiB"`` -> ``12185.6``; ``"0 B"`` -> ``0.0``; ``"936,0 MiB"`` -> ``936.0``; else ``None``."""
    m = _SIZE.fullmatch(text)
    if m is None:
        return None
    return scaled(m.group(1), _TO_MIB[m.group(2)], decimal_comma)
