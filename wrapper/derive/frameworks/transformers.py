"""Hugging Face transformers / accelerate: no timings of its own, but offload warnings and the loading bar.

``Some parameters are on the meta device because they were offloaded to the cpu (and disk)`` -> warnings of
kind ``offload_cpu`` (from warn_rules). ``extra["weights_progress_elapsed_ms"]``: the elapsed field of the
finished ``Loading checkpoint shards`` (transformers 4) or ``Loading weights`` (transformers 5) tqdm bar, whole
seconds as printed. Timings a user script prints itself (``[workload] model loaded in …``) are not the
framework's and are not read.
"""
from __future__ import annotations

import re

from . import routes
from .base import FamilyParser, bar_elapsed_ms

NAME = "transformers"

_BARS = routes.TRANSFORMERS_BARS
# The routing keys are substrings; evidence is the library's name as a word (not KTransformers', not a path's
# "sentence_transformers", a file's "integrations/transformers.py", a Windows path's "site-packages\transformers\":
# another program's warning raised in it), its bars and its offload warning.
# A bar counts as a bar, with its percentage: stable-diffusion-webui prints "Loading weights [ce4b9ee0d3] from …".
_OWN = re.compile(r"(?<![\w/\\-])(?:transformers|accelerate)\b(?![/\\]|\.py\b)|\[transformers\]|offloaded to the cpu|meta device|"
                  r"(?:" + "|".join(re.escape(b) for b in _BARS) + r")\s*:?\s*\d{1,3}%")


class Parser(FamilyParser):
    NAME = NAME

    def feed(self, text: str, line: str) -> None:
        if _OWN.search(line) is not None and line.lstrip()[:1] != "|":  # a table's row compares it with others
            self.evidence += 1
        if text.startswith(_BARS):
            ms = bar_elapsed_ms(text)
            if ms is not None:
                self.runs.put_extra("weights_progress_elapsed_ms", ms)
