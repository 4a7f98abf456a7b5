"""Module-level regexes compiled at their first use, not at import.

``re.compile`` runs Python code (the parser and compiler of ``re``): a grammar of a dozen patterns costs
milliseconds at every start-up, paid by each run even when its output never reaches the code that uses them
(a run whose lines hold no figure never needs the general reader's shapes).
"""
from __future__ import annotations

import re

_BOUND = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "pattern", "flags",
          "groups", "groupindex")


class LazyPattern:
    """``re.compile(pattern, flags)`` done at the first use of any of its attributes; from then on the compiled
    pattern's methods are this object's own attributes, so a call costs what it costs on the pattern."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str):
        # Reached only for a name not set yet: the first use. Compiling twice (two threads) is harmless.
        if name == "_args":  # not initialised (a copy being built): no pattern to compile
            raise AttributeError(name)
        compiled = re.compile(*self._args)
        for attr in _BOUND:
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)
