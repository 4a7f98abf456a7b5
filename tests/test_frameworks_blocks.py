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


@pytest.mark.parametrize("name", LOGS[::7])
def test_reading_a_file_into_one_buffer_gives_what_feeding_its_reads_gives(name, monkeypatch):
    import io

    with open(fixture("logs", name), "rb") as fh:
        data = fh.read()
    monkeypatch.setattr(blocks, "HEAD_BYTES", 256)
    parser = frameworks.new_parser()
    feeder = blocks.BlockFeeder(parser)
    for _ in feeder.read(io.BytesIO(data + data), block_bytes=1021):
        pass
    feeder.close()
    assert parser.results() == _by_lines(data + data)


def test_a_line_longer_than_the_limit_is_cut_alike_by_both_readers(monkeypatch):
    import io

    monkeypatch.setattr(blocks, "MAX_LINE_BYTES", 5000)
    data = b"x" * 12000 + b" eval time = 5.0 ms\n" + b"llama_perf_context_print:        eval time =  458.31 ms /  10 runs\n"
    fed = []
    for read in (False, True):
        parser = frameworks.new_parser()
        feeder = blocks.BlockFeeder(parser)
        lines = []
        monkeypatch.setattr(parser, "feed_line", lines.append)
        if read:
            for _ in feeder.read(io.BytesIO(data), block_bytes=3000):
                pass
        else:
            for i in range(0, len(data), 3000):
                feeder.feed(data[i:i + 3000])
        feeder.close()
        fed.append(lines)
    assert fed[0] == fed[1] and len(fed[0][0]) < 12000


@pytest.mark.skipif(not blocks.available(), reason="google-re2 is not installed (the fast extra)")
def test_the_warning_phrases_prefilter_finds_every_line_that_states_a_warning():
    """The block prefilter looks for the phrases, not warn_rules.KEYS: every corpus line (and every phrase in
    other capitalisations) that classify gives a kind for is found."""
    import re2

    from wrapper.derive.frameworks import prefixes, warn_rules

    search = re2.compile(warn_rules.prefilter_pattern()).search
    lines = [line for name in LOGS for line in open(fixture("logs", name), encoding="utf-8",
                                                    errors="surrogateescape").read().splitlines()]
    phrases = warn_rules._OOM + warn_rules._CPU_FALLBACK + warn_rules._OFFLOAD_CPU
    lines += [f"x {p.upper()} y" for p in phrases] + [f"{p.title()}!" for p in phrases]
    lines += ["tensor t cannot be used with preferred buffer type CUDA_Host, using CPU instead",
              "got OOM here", "layer 3 but Flash Attention is assigned to device CPU"]
    stated = [line for line in lines if warn_rules.classify(prefixes.strip_text(line)) is not None]
    assert len(stated) > 60
    missed = [line for line in stated if search(line.encode("utf-8", "surrogateescape")) is None]
    assert missed == []


@pytest.mark.skipif(not blocks.available(), reason="google-re2 is not installed (the fast extra)")
def test_the_bytes_gate_finds_every_line_the_general_readers_gate_finds():
    """blocks._FIGURE_GATE mirrors generic.GATE on bytes: a line the reader's gate lets through must be a
    candidate, or the block reader would give other figures than line-by-line reading (every corpus line, and
    lines made for the non-ASCII edges: other scripts' digits, Unicode spaces, µ/μ, box-drawing bars)."""
    from wrapper.derive.frameworks import generic

    search = blocks.gate()
    lines = [line for name in LOGS for line in open(fixture("logs", name), encoding="utf-8",
                                                    errors="surrogateescape").read().splitlines()]
    lines += ["\u0665 ms", "\u0663\u0664 tok", "5\u00a0ms", "5\u202fms", "5\x1fms", "12 \u00b5s", "12 \u03bcs",
              "Input Tokens \u2502 2,575", "\u2503 Metric \u2503 avg \u2503", "x \u2551 y", "Mean TTFT (ms): 1.0",
              "Throughput (T/s) 0.80", "Request throughput (req/s): 0.85", "7.82 tps", "load (s): 3", "mem (%): 4",
              "weights (MiB): 5", "size (GB): 6", "\udce2\udc94 3 ms", "Successful requests: 1780",
              "Clients: 1\u00a0", "x=5\u3000", "a: 1\r", "ctx_tokens,prefill_tps,gen_tps", "2048,370.57,31.25",
              "12.77user 8.83system 0:16.39elapsed 131%CPU", "Concurrency:\t48.06 \x1f", "ttft_s", "  ttft_s :\u00a0",
              "    p25 = 0.0088", "\u00e9 = 5", "http_reqs: 63  2.049418/s", "derived floor: 11.0 RPS", "Speedup: 1.12x", "D1  21.3 tok/s  1.44x",
              "\u663e\u5b58\u5360\u7528\uff1a14881MiB", "CPU +0, GPU 10184 (MiB)", "MemoryUsed.Megabytes:4818.03|#Level:Host", "x.Percent:0.0|#a",
              "recon_loss:0.03 val_loss:0.04 max memory 6822.4", "kernels/gfx906: 0 blobs, 0 hashes",
              "remote: Enumerating objects: 81513, done.", "remote: Total 81513 (delta 48), reused 41 (delta 41)",
              "Scores: ['0.803', '0.793']", "             1,963      context-switches                 #   20.425 /sec",
              "Energy consumed: 3364.62 Joules", "==2919== D   refs:       66,429  (54,246 rd   + 12,183 wr)",
              "  16,    10648,   1.503, 0.1334, 0.0888,   11449,   11138,    8433", "Loaded 9400000 embeddings", "256, 0.0069244384765625, 0.004845798271379462"]
    read = [line for line in lines if generic.GATE.search(line, 0, generic.GATE_CHARS) is not None]
    assert len(read) > 1000
    data = [line.encode("utf-8", "surrogateescape") for line in read]
    assert [line for line in data if search(line, 0, len(line)) is None] == []
    # A line str.splitlines ends at a separator other than LF is, in the block's bytes, followed by more text
    # on the same LF line: the "label: number" at its end must still be found there.
    for sep in ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"):
        for line in ("Successful requests: 1780", "p25 = 0.0088", "inter_token_latency_s"):
            joined = f"{line}{sep}next words".encode("utf-8")
            assert search(joined, 0, len(joined)) is not None, (line, sep)
