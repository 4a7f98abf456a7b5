"""Warnings any framework can print: out of memory, CPU fallback, layers or weights placed on CPU/disk.

Family parsers add their own, more specific rules (``offloaded 0/35 layers``, ``layers.offload=0``); these are the
phrases that mean the same thing whoever prints them. A line gets at most one warning; the family's rule wins.
Phrases are matched as lowercase substrings: case-insensitive regex alternations cost ~20x more per line.
"""
from __future__ import annotations

import re

# A line can only state a warning below if it contains one of these (case-sensitive gate on the raw line; each
# phrase below contains one of them in any capitalisation a framework uses). Deliberately not "CPU"/"GPU": they
# are on most lines of a verbose llama.cpp log.
KEYS = ("emory", "EMORY", "lloc", "LLOC", "OOM", "back to", "usable", "ompatible", "not available", "nitialize CUDA",
        "CUDA-capable", "device CPU", "offload", "Offload", "preferred buffer type")

_OOM = ("out of memory", "outofmemory", "out_of_memory", "failed to allocate", "unable to allocate",
        "cudamalloc failed", "bad_alloc", "not enough memory", "insufficient memory", "no available memory",
        "requires more system memory", "could not be allocated")
# "If you are running out of memory, consider …" (vLLM's CUDA graph advice) is not an out-of-memory event.
_NOT_OOM = "running out of memory"
_OOM_WORD = re.compile(r"\bOOM\b")
# llama.cpp's "tensor 'X' (q4_K) (and N others) cannot be used with preferred buffer type CUDA_Host, using CPU
# instead" is a fallback: the tensor was meant for a GPU backend's buffer (device or pinned host memory) and sits in
# plain CPU memory. Not when the preferred type is itself a CPU layout (CPU_REPACK, AMX, CPU_KLEIDIAI): that is a
# CPU-only build choosing between CPU formats. Not "layer 3 assigned to device CPU" either (placement, reported as
# offload_cpu through "offloaded N/M layers"); "… but Flash Attention is assigned to device CPU" is a fallback.
_PREFERRED = re.compile(r"cannot be used with preferred buffer type (\S+?),? using CPU")
_CPU_LAYOUTS = ("CPU", "AMX")
_CPU_FALLBACK = ("fall back to cpu", "falls back to cpu", "falling back to cpu", "fallback to cpu",
                 "fall back to the cpu", "falling back to the cpu", "no usable gpu", "no compatible gpu",
                 "gpu is not available", "cuda is not available", "failed to initialize cuda",
                 "no cuda-capable device")
_OFFLOAD_CPU = ("offloaded to the cpu", "offloaded to cpu", "offloaded to the disk", "offloaded to disk",
                "offload to cpu", "offloading to cpu", "offload_folder")


def prefilter_pattern() -> bytes:
    """A bytes pattern (for google-re2 in Latin-1 mode) found in every line ``classify`` gives a kind for, and in
    few others: the phrases themselves, not the much commoner ``KEYS`` ("memory", "alloc" are on most lines of a
    llama.cpp load), so a block reader looks at far fewer lines. Case-insensitive as ``str.lower`` is on them:
    ASCII letters, and the Kelvin sign, whose lower case is "k"."""
    phrases = _OOM + (_NOT_OOM,) + _CPU_FALLBACK + ("is assigned to device cpu",) + _OFFLOAD_CPU
    literal = b"|".join(re.escape(p.encode("ascii")).replace(b"k", b"(?:k|\xe2\x84\xaa)") for p in phrases)
    return b"(?i:" + literal + b")|OOM|preferred buffer type"


def classify(text: str) -> str | None:
    """The warning kind this line states, or ``None``."""
    low = text.lower()
    if _NOT_OOM in low:
        low = low.replace(_NOT_OOM, "")
    for phrase in _OOM:
        if phrase in low:
            return "oom"
    if "OOM" in text and _OOM_WORD.search(text):
        return "oom"
    for phrase in _CPU_FALLBACK:
        if phrase in low:
            return "cpu_fallback"
    if "is assigned to device cpu" in low and " but " in low:
        return "cpu_fallback"
    if "preferred buffer type" in text:
        m = _PREFERRED.search(text)
        if m is not None and not m[1].startswith(_CPU_LAYOUTS):
            return "cpu_fallback"
    for phrase in _OFFLOAD_CPU:
        if phrase in low:
            return "offload_cpu"
    return None
