"""Durations as logs print them, converted to milliseconds: the grammar lives in ``units`` (one place for every
number a log prints); these names stay importable from here for the parsers that use them."""
from __future__ import annotations

from .units import duration_ms, go_duration_ms, scaled, seconds_to_ms

__all__ = ["duration_ms", "go_duration_ms", "scaled", "seconds_to_ms"]
