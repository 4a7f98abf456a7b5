"""Option values checked where they are parsed, so bad input is one line naming the option, before anything runs.

Each ``check_*`` returns the value or raises ``ValueError`` with the message; each factory without ``check_``
wraps one as an argparse ``type=`` (the parser turns the error into its one-line usage error, exit 2).
"""
from __future__ import annotations

import argparse
import math
import os
import re
from typing import Callable
from urllib.parse import urlsplit

# Upper bounds: beyond them a value is a typo, and a huge one overflows the clocks and timers it feeds.
MAX_TIMEOUT_S = 1e6  # ~11.6 days
MAX_GRACE_S = 3600.0
MAX_INTERVAL_S = 60.0  # sampling less often than once a minute sees nothing of a phase
PICTURE_SUFFIXES = (".png", ".svg", ".html")


_INT = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = ("inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan", "+nan", "-nan")


def parse_number(convert, text: str):
    """``int(text)`` or ``float(text)``, strictly as documented: ASCII digits only (Python's own parsers also
    take ``"١"``, ``" 3"`` and ``"1_0"``); a float may be written ``inf``/``nan`` (refused later as not finite).
    Raises ValueError."""
    pattern = _INT if convert is int else _DECIMAL
    if not (pattern.fullmatch(text) or (convert is float and text.lower() in _NON_FINITE)):
        raise ValueError(f"not an ASCII number: {text!r}")
    return convert(text)


def check_seconds(option: str, value, maximum: float) -> float:
    """A finite number of seconds, > 0 and <= ``maximum``."""
    if isinstance(value, str):
        try:
            value = parse_number(float, value)
        except ValueError:
            raise ValueError(f"{option} expects seconds, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{option} expects a finite number of seconds, got {value!r}")
    if not 0 < value <= maximum:
        raise ValueError(f"{option} must be > 0 and at most {maximum:g} seconds, got {value!r}")
    return float(value)


def check_url(option: str, text: str) -> str:
    """An ``http://HOST:PORT[/PATH]`` base URL: a host and a port, as documented."""
    try:
        parts = urlsplit(text)
        port = parts.port  # raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise ValueError(f"{option}: {text!r} is not a URL ({exc}); give http://HOST:PORT") from None
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"{option}: {text!r} is not an http://HOST:PORT URL (https is not supported)")
    if port is None:
        raise ValueError(f"{option}: {text!r} has no port; give http://HOST:PORT")
    return text


def check_picture(option: str, path: str) -> str:
    """A picture file name whose suffix says the format; ``-`` (stdout, PNG) too."""
    if path == "-":
        return path
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in PICTURE_SUFFIXES:
        raise ValueError(f"{option}: {path!r}: unknown picture format {suffix or '(no suffix)'!r}; use a file "
                         "name ending in .png, .svg or .html")
    return path


def check_suffix(option: str, path: str, suffixes: tuple) -> str:
    """An output file name ending in one of ``suffixes`` (as the README lists them); ``-`` (stdout) too."""
    if path != "-" and not path.lower().endswith(suffixes):
        raise ValueError(f"{option}: {path!r}: give a file name ending in {' or '.join(suffixes)} (or - for stdout)")
    return path


def check_regex(option: str, text: str) -> str:
    try:
        re.compile(text)
    except re.error as exc:
        raise ValueError(f"{option}: invalid regex {text!r} ({exc}); fix the pattern or quote it for the "
                         "shell") from None
    return text


def check_input_file(option: str, path: str) -> str:
    """A file that exists and can be read."""
    if not os.path.isfile(path):
        what = ("is a directory" if os.path.isdir(path) else "is not a regular file" if os.path.exists(path)
                else "does not exist")
        raise ValueError(f"{option}: {path} {what}; give the file recorded beside the run")
    if not os.access(path, os.R_OK):
        raise ValueError(f"{option}: cannot read {path} (permission denied)")
    return path


def _argparse_type(check: Callable, option: str, *args) -> Callable[[str], object]:
    def parse(text: str):
        try:
            return check(option, text, *args)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def seconds(option: str, maximum: float) -> Callable[[str], float]:
    return _argparse_type(check_seconds, option, maximum)


def check_bytes(option: str, value) -> float:
    """A positive, finite number of bytes (``3.24e9``)."""
    try:
        n = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{option} expects a number of bytes (e.g. 3.24e9), got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(n) or n <= 0:
        raise ValueError(f"{option} must be a positive number of bytes, got {value!r}")
    return n


def check_peak(option: str, text: str) -> tuple:
    """``RESOURCE=GBPS`` (see ``derive.limits.parse_peak``)."""
    from .derive.limits import parse_peak

    return parse_peak(text)


def n_bytes(option: str) -> Callable[[str], float]:
    return _argparse_type(check_bytes, option)


def peak(option: str) -> Callable[[str], tuple]:
    return _argparse_type(check_peak, option)


def url(option: str) -> Callable[[str], str]:
    return _argparse_type(check_url, option)


def picture(option: str) -> Callable[[str], str]:
    return _argparse_type(check_picture, option)


def suffix(option: str, *suffixes: str) -> Callable[[str], str]:
    return _argparse_type(check_suffix, option, suffixes)


def regex(option: str) -> Callable[[str], str]:
    return _argparse_type(check_regex, option)


def input_file(option: str) -> Callable[[str], str]:
    return _argparse_type(check_input_file, option)
