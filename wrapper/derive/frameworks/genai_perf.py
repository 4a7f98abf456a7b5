"""NVIDIA GenAI-Perf (perf_analyzer's LLM front end): its rich ``LLM Metrics`` table.

The header row ``┃ Statistic ┃ avg ┃ min ┃ max ┃ p99 ┃ …`` names the columns (they vary by version and flags); each
row ``│ Request latency (ns) │ 4,110,623,430 │ …`` -> ``extra.<label in snake case, unit kept>`` {column: value},
e.g. ``extra.request_latency_ns.avg``, ``extra.num_output_token.p99``. Values stay in the unit printed. Only the
header is a routing key: from it the parser is shown every line until one is neither a row nor the header's rule.
"""
from __future__ import annotations

import re

from .base import FamilyParser
from .units import number

NAME = "genai-perf"
_HEADER = re.compile(r"^\s*┃\s*Statistic\s*┃(.*)┃\s*$")
_ROW = re.compile(r"^\s*│\s*([^│]+?)\s*│(.*)│\s*$")


def _key(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


class Parser(FamilyParser):
    NAME = NAME

    def __init__(self) -> None:
        super().__init__()
        self._columns: list[str] | None = None

    def feed(self, text: str, line: str) -> None:
        if text.startswith(("genai-perf ", "genai_perf ")) and self.evidence == 0:
            self.evidence += 1  # its own command line ("genai-perf -m … --backend vllm"): not the backend's log
            return
        m = _HEADER.match(text)
        if m is not None:
            self._columns = [c.strip() for c in m[1].split("┃")]
            self.runs.close()  # a new table is a new run
            self.evidence += 1
            self.greedy = True  # its rows hold no routing key: every line is shown until the table ends
            return
        m = _ROW.match(text)
        if m is None or self._columns is None:
            self.greedy = self.greedy and "━" in text  # the rule under the header keeps the table open
            return
        cells = [c.strip() for c in m[2].split("│")]
        values = {col: number(cell) for col, cell in zip(self._columns, cells) if number(cell) is not None}
        if values:
            self.runs.put_extra(_key(m[1]), values)
