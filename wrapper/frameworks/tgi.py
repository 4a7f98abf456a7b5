"""Hugging Face text-generation-inference (TGI) launcher: ``Shard ready in 18.016616627s rank=0`` -> ``load_ms``.

The duration is Rust's ``Debug`` format, read like a Go duration. With several shards the first printed is kept
and ``extra["shards_ready"]`` counts them. One dict for the server's life.
"""
from __future__ import annotations

import re

from .base import FamilyParser
from .durations import go_duration_ms

NAME = "tgi"

_SHARD_READY = re.compile(r"Shard ready in (\S+)")
_EVIDENCE = ("text_generation_launcher", "text_generation_router", "text-generation-inference",
             "text_generation_server")


class Parser(FamilyParser):
    NAME = NAME
    KEYS = ("Shard ready in",)
    EVIDENCE_KEYS = _EVIDENCE

    def feed(self, text: str, line: str) -> None:
        m = _SHARD_READY.search(text)
        if m is not None:
            self.runs.fill("load_ms", go_duration_ms(m[1]))
            extra = self.runs.current["extra"]
            extra["shards_ready"] = extra.get("shards_ready", 0) + 1
        if m is not None or any(e in line for e in _EVIDENCE):
            self.evidence += 1
