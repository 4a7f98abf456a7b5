"""TensorRT-LLM runtime: KV cache allocation and engine figures (out-of-memory comes from warn_rules).

One dict. ``extra``: ``kv_cache_gib`` and ``kv_cache_max_tokens`` (``[MemUsageChange] Allocated 78.30 GiB for max
tokens in paged KV cache (3731744).``), ``kv_cache_bytes`` (v0.8 ``Allocate 69524783104 bytes for k/v cache.``),
``kv_cache_tokens`` (``Using 132608 tokens in paged KV cache.``), ``kv_blocks_per_seq_max``, ``tokens_per_block``,
``kv_primary_blocks``, ``kv_secondary_blocks`` (``Max KV cache blocks per sequence: …``), ``engine_mib``
(``Loaded engine size: … MiB``). ``version`` from ``TensorRT-LLM version: …``.
"""
from __future__ import annotations

import re

from .base import FamilyParser

NAME = "tensorrt-llm"

_RULES = (
    (re.compile(r"Allocated ([\d.]+) GiB for max tokens in paged KV cache \((\d+)\)"),
     (("kv_cache_gib", float), ("kv_cache_max_tokens", int))),
    (re.compile(r"Allocate (\d+) bytes for k/v cache"), (("kv_cache_bytes", int),)),
    (re.compile(r"Using (\d+) tokens in paged KV cache"), (("kv_cache_tokens", int),)),
    (re.compile(r"Max KV cache blocks per sequence: (\d+).*?tokens per block=(\d+), primary blocks=(\d+), "
                r"secondary blocks=(\d+)"),
     (("kv_blocks_per_seq_max", int), ("tokens_per_block", int), ("kv_primary_blocks", int),
      ("kv_secondary_blocks", int))),
    (re.compile(r"Loaded engine size: (\d+) MiB"), (("engine_mib", int),)),
)
_VERSION = re.compile(r"TensorRT-LLM version: (\S+)")
_EVIDENCE = ("[TensorRT-LLM]", "tensorrt_llm", "TensorRT-LLM")


class Parser(FamilyParser):
    NAME = NAME
    KEYS = ("KV cache", "k/v cache", "engine size", "TensorRT-LLM version")
    EVIDENCE_KEYS = _EVIDENCE

    def feed(self, text: str, line: str) -> None:
        for rx, fields in _RULES:
            m = rx.search(text)
            if m is not None:
                for (key, kind), value in zip(fields, m.groups()):
                    self.runs.fill_extra(key, kind(value))
                break
        m = _VERSION.search(text)
        if m is not None:
            self.runs.version = m[1]
        if any(e in line for e in _EVIDENCE):
            self.evidence += 1
