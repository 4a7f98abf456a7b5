"""The block reader (wrapper/derive/frameworks/blocks.py) gives what feeding every line gives, whatever the cuts."""
from __future__ import annotations

import os

import pytest

from wrapper.derive import frameworks
from wrapper.derive.frameworks import blocks

from .conftest import fixture

LOGS = sorted(n for n in os.listdir(fixture("logs")) if n.endswith(".log"))


def _by_lines(data: bytes) -> list:
    return frameworks.parse_lines(data.decode("utf-8", "surrogateescape"))


def _by_blocks(data: bytes, piece: int, use_prefilter: bool) -> list:
    parser = frameworks.new_parser()
    feeder = blocks.BlockFeeder(parser, use_prefilter=use_prefilter)
    for i in range(0, len(data), piece):
        feeder.feed(data[i:i + piece])
    feeder.close()
    return parser.results()


@pytest.mark.parametrize("name", LOGS)
def test_blocks_give_the_line_by_line_reports(name, monkeypatch):
    with open(fixture("logs", name), "rb") as fh:
        data = fh.read()
    want = _by_lines(data)
    monkeypatch.setattr(blocks, "HEAD_BYTES", 256)  # past the head quickly: the prefilter decides most lines
    assert _by_blocks(data, 997, use_prefilter=False) == want
    if blocks.available():
        assert _by_blocks(data, 4093, use_prefilter=True) == want
        assert _by_blocks(data + data, 1 << 20, use_prefilter=True) == _by_lines(data + data)


def test_a_long_log_hands_its_runs_out_as_they_end():
    block = b"llama_perf_context_print:        eval time =     458.31 ms /    10 runs   (   45.83 ms per token)\n"
    parser = frameworks.new_parser()
    feeder = blocks.BlockFeeder(parser)
    handed = []
    for _ in range(3 * frameworks.HOLD_REPORTS):
        feeder.feed(block)
        handed += parser.pop_finished()
    feeder.close()
    rest = parser.results()
    assert len(handed) > frameworks.HOLD_REPORTS and len(handed) + len(rest) == 3 * frameworks.HOLD_REPORTS
    assert all(r["eval_ms"] == 458.31 and r["framework"] == "llama.cpp" for r in handed + rest)


def test_progress_redrawn_with_cr_alone_is_cut_between_its_lines():
    bar = b"".join(b"Generating (%d / 4096 tokens)\r" % i for i in range(60000))  # 2 MB, no newline
    data = bar + b"CtxLimit:64/4096, Process:0.52s (1.2ms/T), Generate:10.20s (2.5ms/T), Total:10.72s\n"
    assert blocks.line_cut(b"a\r\nb") == 3 and blocks.line_cut(b"a\rb") == 2 and blocks.line_cut(b"ab\r") == 0
    assert _by_blocks(data, 1 << 20, use_prefilter=blocks.available()) == _by_lines(data)
