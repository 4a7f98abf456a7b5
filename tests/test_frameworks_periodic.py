"""Periodic lines folded by the block reader (base.Periodic, blocks.BlockFeeder._stretch) give what feeding every
line gives: real vLLM and SGLang logs, their periodic lines repeated past the series cap with other lines among
them (odd, malformed, two keys, warnings, escapes, separators, figures, a second start-up)."""
from __future__ import annotations

import io
import os
import random
import re

import pytest

from wrapper.derive import frameworks
from wrapper.derive.frameworks import FAMILIES, base, blocks, routes

from .conftest import fixture

needs_re2 = pytest.mark.skipif(not blocks.available(), reason="google-re2 is not installed (the fast extra)")

# Lines that must interrupt a stretch of periodic lines or be read inside it, each a way the fold could go wrong
# (per family: the other family's lines would make it claim the log within the detection window).
ODD = {
    "vllm": (
        "INFO 05-07 04:56:20 [loggers.py:271] Engine 000: Avg prompt throughput: n/a tokens/s",  # regex fails
        "Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s; out of memory",  # warning
        "Avg prompt throughput: 3.0 tokens/s, Avg generation throughput: 9999.0 tokens/s Avg prompt throughput: x",
        "SpecDecoding metrics: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s",
        "\x1b[32mINFO\x1b[0m Avg prompt throughput: 4.0 tokens/s, Avg generation throughput: 8888.0 tokens/s",
        "Avg prompt throughput: 5.0 tokens/s, Avg generation throughput: 7777.0 tokens/s\rprogress 50%",
        "Avg prompt throughput: 6.0 tokens/s,\u2028Avg generation throughput: 6666.0 tokens/s",
    ),
    "sglang": (
        "Decode batch. #running-req: 1, latency: 0.5 s, gen throughput (token/s): 5555.0",  # its unless word
        "Decode batch. gen throughput (token/s): oops",
        "Decode batch. #running-req: 1, gen throughput (token/s): 4444.0 Decode batch. gen throughput (token/s): 1",
        "[TP0] Decode batch. #running-req: 1, gen throughput (token/s): 3333.0, cannot allocate memory",
    ),
}
COMMON = (
    "request 17 done in 812.5 ms, 93 tokens",  # a figure line no family reads: the general reader's
    "Warmup took 1.25 s",
    "\x1b[2K\rLoading 45%",
    # a fixed-width table whose rows the gate does not find (the reader asks for them: wants_every_line)
    "Engine       Ctx  TTFT(ms)  Decode(ms)\nlattice     1009    10207        1513\nmlx         1000      384         406",
)


def _periodic_lines(text: str) -> list:
    """The log's lines a family folds: its periodic key and its whole figures regex (a line a terminal wrapped
    mid-word holds the key but is no such line, nor is one with a progress bar glued before it)."""
    kinds = [kind for family in FAMILIES for kind in family.parser.PERIODIC]
    return [line for line in text.splitlines() if "%|" not in line
            and any(k.key in line and k.figures.search(line.encode("utf-8", "surrogateescape")) for k in kinds)]


def _varied(line: str, i: int) -> str:
    """The line with its numbers changed (so maxima and last values move)."""
    return re.sub(r"\d+\.\d+", lambda m: f"{float(m[0]) * (1 + (i * 7919) % 13 / 10):.2f}", line)


def _long_log(name: str, seed: int) -> bytes:
    with open(fixture("logs", name), encoding="utf-8", errors="surrogateescape") as fh:
        text = fh.read()
    periodic = _periodic_lines(text)
    rng = random.Random(seed)
    out = [text.rstrip("\n")]
    for i in range(4 * base.SERIES_MAX):
        out.append(_varied(rng.choice(periodic), i))
        if rng.random() < 0.3:
            out.append(f'INFO:     172.31.0.1:{40000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
        if rng.random() < 0.01:
            out.append(rng.choice(ODD[name.split("__")[0]] + COMMON))
    out.append(text.rstrip("\n"))  # the server started again: its start-up lines after days of metrics
    out += [_varied(rng.choice(periodic), i) for i in range(50)]
    return ("\n".join(out) + "\n").encode("utf-8", "surrogateescape")


LOGS = sorted(n for n in os.listdir(fixture("logs"))
              if n.startswith(("vllm__", "sglang__")) and n.endswith(".log")
              and _periodic_lines(open(fixture("logs", n), encoding="utf-8", errors="surrogateescape").read()))


def test_there_are_real_logs_with_periodic_lines_of_both_families():
    assert any(n.startswith("vllm__") for n in LOGS) and any(n.startswith("sglang__") for n in LOGS)


@needs_re2
@pytest.mark.parametrize("name", LOGS)
def test_folding_gives_what_feeding_every_line_gives(name, monkeypatch):
    data = _long_log(name, seed=len(name))
    want = frameworks.parse_lines(data.decode("utf-8", "surrogateescape"))
    monkeypatch.setattr(blocks, "HEAD_BYTES", 256)
    folds = []
    real_fold = frameworks.StreamParser.fold
    monkeypatch.setattr(frameworks.StreamParser, "fold",
                        lambda self, kind, items: (folds.append(len(items)), real_fold(self, kind, items)))
    for piece in (65521, 1 << 20):
        parser = frameworks.new_parser()
        feeder = blocks.BlockFeeder(parser)
        for i in range(0, len(data), piece):
            feeder.feed(data[i:i + piece])
        feeder.close()
        assert parser.results() == want
    assert sum(folds) > base.SERIES_MAX  # the fold did the work, not a fallback line by line
    parser = frameworks.new_parser()
    feeder = blocks.BlockFeeder(parser)
    for _ in feeder.read(io.BytesIO(data), block_bytes=40000):
        pass
    feeder.close()
    assert parser.results() == want


@needs_re2
def test_a_fold_that_cannot_be_exact_feeds_the_lines():
    """A metrics line whose numbers the regex can't read sits among readable ones: the same result."""
    good = "INFO 05-07 04:56:17 [loggers.py:271] Engine 000: Avg prompt throughput: %d.5 tokens/s, " \
           "Avg generation throughput: %d.8 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 17.5%%"
    lines = ["INFO 05-07 04:50:00 [api_server.py:1] vLLM API server version 0.9.1"]
    lines += [good % (i % 97, i % 89) for i in range(3 * base.SERIES_MAX)]
    lines.insert(2 * base.SERIES_MAX, "INFO Engine 000: Avg prompt throughput: 1.2.3 tokens/s")
    data = ("\n".join(lines) + "\n").encode()
    parser = frameworks.new_parser()
    feeder = blocks.BlockFeeder(parser)
    feeder.feed(data)
    feeder.close()
    assert parser.results() == frameworks.parse_lines(data.decode())
    assert parser.results()[0]["extra"]["engine_metrics"]["lines"] == 3 * base.SERIES_MAX


@pytest.mark.parametrize("family", [f for f in FAMILIES if f.parser.PERIODIC], ids=lambda f: f.name)
def test_every_periodic_line_starts_at_its_key_and_is_routed(family):
    """The fold counts a kind's key against its regex's matches: each match must start at the key."""
    for kind in family.parser.PERIODIC:
        assert kind.figures.pattern.startswith(re.escape(kind.key).encode()) or \
            kind.figures.pattern.startswith(kind.key.encode())
        assert kind.key in routes.ROUTES[family.name].keys
        assert callable(getattr(family.parser, kind.fold)) and callable(getattr(family.parser, kind.ready))


@needs_re2
def test_a_bar_glued_before_each_metrics_line_folds_as_it_feeds(monkeypatch):
    """An offline run's tqdm bar that lost its carriage returns, glued before metrics lines once the series is
    full: the bar's figures are the general reader's, whether the lines come one by one or in blocks (the bar's
    "Processed prompts" is vLLM's own key: such a line is fed, never folded)."""
    name = next(n for n in LOGS if n.startswith("vllm__"))
    periodic = _periodic_lines(open(fixture("logs", name), encoding="utf-8", errors="surrogateescape").read())
    bar = "Processed prompts:   0%|    | {}/10000 [00:35<42:17,  3.92it/s, est. speed input: {}.45 toks/s, output: 1.5 toks/s]"
    glued = [bar.format(i, i % 500) + _varied(periodic[i % len(periodic)], i) for i in range(300)]
    data = _long_log(name, seed=7).rstrip(b"\n") + ("\n" + "\n".join(glued) + "\n").encode()
    want = frameworks.parse_lines(data.decode("utf-8", "surrogateescape"))
    assert ("speed input", 298.45) in {(f["label"], f["value"]) for r in want for f in r["figures"]}
    monkeypatch.setattr(blocks, "HEAD_BYTES", 256)
    parser = frameworks.new_parser()
    feeder = blocks.BlockFeeder(parser)
    for i in range(0, len(data), 65521):
        feeder.feed(data[i:i + 65521])
    feeder.close()
    assert parser.results() == want
