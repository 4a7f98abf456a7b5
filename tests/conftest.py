import json
import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
PHASEWRAP = [sys.executable, os.path.join(ROOT, "bin", "phasewrap")]
STANDIN = [sys.executable, os.path.join(ROOT, "samples", "standin.py")]


def poll(condition, timeout_s: float, every_s: float = 0.01) -> bool:
    """True as soon as ``condition()`` holds; False if it still doesn't after ``timeout_s`` (tests wait on a
    deadline, never a fixed sleep)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every_s)
    return True


def fixture(*parts: str) -> str:
    return os.path.join(FIXTURES, *parts)


# Real runs kept once under events/ and sse/; the parser tests read them under their shared-set names.
RUN_FIXTURES = {
    "warm-ngl99.events.jsonl": ("events", "h200-llama-completion-warm-ngl99.events.jsonl"),
    "server.events.jsonl": ("events", "h200-llama-server.events.jsonl"),
    "cold-p512.events.jsonl": ("events", "h200-transformers-cold-p512.events.jsonl"),
    "warm-p512.events.jsonl": ("events", "h200-transformers-warm-p512.events.jsonl"),
    "server-stream.txt": ("sse", "h200-llama-server-completion.sse"),
    "server-openai-stream.txt": ("sse", "h200-llama-server-v1-completions.sse"),
}
ALL_LOG_NAMES = sorted([n for n in os.listdir(os.path.join(FIXTURES, "logs")) if n.endswith(".log")]
                       + list(RUN_FIXTURES))


def log_fixture(name: str):
    """A real log by its name in tests/fixtures/logs/INDEX.md."""
    from pathlib import Path

    return Path(FIXTURES, *RUN_FIXTURES[name]) if name in RUN_FIXTURES else Path(FIXTURES, "logs", name)


def run_phasewrap(args, **kwargs) -> subprocess.CompletedProcess:
    """Run bin/phasewrap as a real process; stdout/stderr captured as bytes."""
    kwargs.setdefault("timeout", 120)
    return subprocess.run(PHASEWRAP + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, **kwargs)


def json_record(proc: subprocess.CompletedProcess) -> dict:
    """The one record of `run --format json`: stdout is one JSON array (the child's stdout went to stderr)."""
    [record] = json.loads(proc.stdout)
    return record


def read_jsonl(path: str) -> list:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


try:
    import matplotlib  # noqa: F401 (only asking whether the plot extra is installed)
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False
needs_mpl = pytest.mark.skipif(not HAVE_MPL, reason="matplotlib not installed: pip install 'phasewrap[plot]'")
PLOT_TINY = fixture("plot", "tiny.capture.jsonl")
PLOT_COLD = fixture("plot", "h200-cold.capture.jsonl")
PLOT_WARM = fixture("plot", "h200-warm.capture.jsonl")


@pytest.fixture
def tmp(tmp_path):
    return tmp_path


def events_lines(name: str, streams=("err", "out")) -> list:
    """Lines of an ``*.events.jsonl`` run: each stream's chunks joined, then split (stderr first by default)."""
    text = {stream: "" for stream in streams}
    with open(log_fixture(name), encoding="utf-8") as fh:
        for raw in fh:
            item = json.loads(raw)
            if isinstance(item, list) and item[1] in text:
                text[item[1]] += item[2]
    return [line for stream in streams for line in text[stream].splitlines(keepends=True)]


def one_line_usage_error(proc, *needles) -> str:
    """The one stderr line of a refused input (exit 2, no traceback), holding every needle; returned."""
    err = proc.stderr.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]
