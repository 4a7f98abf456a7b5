"""LocalAI: its llama.cpp backend's lines arrive wrapped, ``… DEBUG GRPC stderr id="model-127.0.0.1:42043"
line="3.28.844.467 I slot print_timing: id  6 | task 170 | n_decoded = 374, tg = 5.49 t/s, …" caller={…}``, and
are read as llama-server's (same keys, see llama_server.py). Only LocalAI's own words (``GRPC stderr``,
``localai``) claim the log, so a plain llama-server log is never called LocalAI's."""
from __future__ import annotations

from . import routes
from .llama_server import Parser as LlamaServerParser

NAME = "localai"


class Parser(LlamaServerParser):
    NAME = NAME

    def feed(self, text: str, line: str) -> None:
        own = self.evidence
        super().feed(text, line)
        self.evidence = own + any(word in line for word in routes.LOCALAI_EVIDENCE)
