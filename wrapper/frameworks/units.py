"""Numbers and sizes as printed: ``nan``/``inf`` become ``None``, thousands separators are dropped."""
from __future__ import annotations

import math
import re

from .durations import scaled

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
_SIZE = re.compile(r"\s*([-+]?[\d.,]+)\s*([KMGT]i?B|kB|B)\s*")


def number(text: str | None) -> float | None:
    """``"1,234.5"`` -> ``1234.5``; ``"nan"``, ``"-inf"``, ``""`` and non-numbers -> ``None``."""
    if text is None:
        return None
    try:
        value = float(text.strip().replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def integer(text: str | None) -> int | None:
    """``"396,928"`` -> ``396928``; anything that is not a whole number -> ``None``."""
    if text is None:
        return None
    try:
        return int(text.strip().replace(",", ""))
    except ValueError:
        return None


def size_mib(text: str) -> float | None:
    """``"11.9 GiB"`` -> ``12185.6``; ``"0 B"`` -> ``0.0``; ``"936.0 MiB"`` -> ``936.0``; else ``None``."""
    m = _SIZE.fullmatch(text)
    if m is None:
        return None
    return scaled(m.group(1), _TO_MIB[m.group(2)])
