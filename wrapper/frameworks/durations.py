"""Durations as logs print them, converted to milliseconds.

Go's ``time.Duration.String()`` (ollama: ``891.933µs``, ``2m27.98s``, ``1h2m3s``) and Rust's ``Debug`` for
``Duration`` (TGI: ``18.016616627s``) share one grammar: numbers with unit suffixes, largest unit first.
Arithmetic goes through ``Decimal`` so ``5.088275983s`` becomes exactly ``5088.275983`` ms, not a float neighbour.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_UNIT_MS = {
    "h": Decimal(3_600_000),
    "m": Decimal(60_000),
    "s": Decimal(1000),
    "ms": Decimal(1),
    "us": Decimal("0.001"),
    "\u00b5s": Decimal("0.001"),  # MICRO SIGN, what Go prints
    "\u03bcs": Decimal("0.001"),  # GREEK SMALL LETTER MU, seen after copy and paste
    "ns": Decimal("0.000001"),
}
# "ms" must come before "m" so that "847ms" is not read as 847 minutes followed by garbage.
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s|us|\u00b5s|\u03bcs|ns)")
_WHOLE = re.compile(r"[-+]?(?:\d+(?:\.\d+)?(?:ms|h|m|s|us|\u00b5s|\u03bcs|ns))+")


def go_duration_ms(text: str) -> float | None:
    """``"2m27.98s"`` -> ``147980.0``; ``"0s"``/``"0"`` -> ``0.0``; anything else -> ``None``."""
    text = text.strip()
    if text in ("0", "-0", "+0"):
        return 0.0
    if not _WHOLE.fullmatch(text):
        return None
    total = sum((Decimal(n) * _UNIT_MS[u] for n, u in _PART.findall(text)), Decimal(0))
    return float(-total if text.startswith("-") else total)


def seconds_to_ms(text: str) -> float | None:
    """A number of seconds as printed (``"3.106979"``, ``"1,234.5"``) -> milliseconds, exactly."""
    return scaled(text, 1000)


def scaled(text: str, factor: int | str | Decimal) -> float | None:
    """``float(Decimal(text) * factor)``: unit conversion without float noise; ``None`` when not a finite number."""
    try:
        value = Decimal(text.strip().replace(",", "")) * Decimal(factor)
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    return float(value)
