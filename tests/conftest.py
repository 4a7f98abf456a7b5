import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
PHASEWRAP = [sys.executable, os.path.join(ROOT, "bin", "phasewrap")]
STANDIN = [sys.executable, os.path.join(ROOT, "samples", "standin.py")]


def fixture(*parts: str) -> str:
    return os.path.join(FIXTURES, *parts)


def run_phasewrap(args, **kwargs) -> subprocess.CompletedProcess:
    """Run bin/phasewrap as a real process; stdout/stderr captured as bytes."""
    kwargs.setdefault("timeout", 120)
    return subprocess.run(PHASEWRAP + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, **kwargs)


def json_record(proc: subprocess.CompletedProcess) -> dict:
    """The record printed by --format json at the end of stdout (after any passthrough when not --quiet)."""
    text = proc.stdout.decode("utf-8", "replace")
    return json.loads(text[text.index("{\n  \"schema\""):])


def read_jsonl(path: str) -> list:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture
def tmp(tmp_path):
    return tmp_path
