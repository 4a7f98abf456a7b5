"""A capture keeps the options that shaped its analysis, so `analyze CAPTURE` gives the live record's phases, and
every subcommand that reads runs takes a capture folder as it takes the JSONL of the same runs."""
import json
import os
import socket
import subprocess
import sys

import pytest

import wrapper

from .conftest import ROOT

STANDIN = os.path.join(ROOT, "samples", "standin.py")
SERVER = os.path.join(ROOT, "samples", "standin_server.py")
PHASES = ("load_s", "ttft_s", "decode_s", "total_s")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, os.path.join(ROOT, "bin", "phasewrap"), *args], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120, cwd=cwd)


RUNS = {
    "generic": dict(ready="model loaded", command=[sys.executable, STANDIN, "--load-s", "0.2", "--ttft-s", "0.1",
                                                   "--tokens", "12", "--interval-s", "0.01", "-p", "Hello there"]),
    "llama.cpp": dict(profile="llama.cpp", command=[sys.executable, STANDIN, "--load-s", "0.2", "--ttft-s", "0.1",
                                                    "--tokens", "12", "--interval-s", "0.01", "-p", "Hello there"]),
    "marks": dict(ready="model loaded", marks={"weights": "loading weights"},
                  command=[sys.executable, STANDIN, "--load-steps", "sleep:0.1,sleep:0.1", "--ttft-s", "0.1",
                           "--tokens", "8", "--interval-s", "0.01", "-p", "Hello there"]),
    "server": dict(ready=r"listening on http://\S+", request="hi", max_tokens=8,
                   command=[sys.executable, SERVER, "--port", "{port}", "--load-s", "0.2", "--ttft-s", "0.1",
                            "--interval-s", "0.01"]),
    "vllm": dict(profile="vllm", ready=r"listening on http://\S+", request="hi", max_tokens=8, model="standin",
                 command=[sys.executable, SERVER, "--port", "{port}", "--load-s", "0.2", "--ttft-s", "0.1",
                          "--interval-s", "0.01"]),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_analyze_of_a_capture_gives_the_live_phases(name, tmp_path):
    options = dict(RUNS[name])
    command = [str(_free_port()) if part == "{port}" else part for part in options.pop("command")]
    live = wrapper.run(command, capture_dir=str(tmp_path), gpu="off", **options)
    assert live[0]["status"] == "ok", live[0]["warnings"]
    replayed = wrapper.analyze(str(tmp_path))
    assert len(replayed) == 1
    for key in PHASES:
        a, b = live[0]["phases"][key], replayed[0]["phases"][key]
        assert (a is None) == (b is None), key
        if a is not None:
            assert abs(a - b) <= 0.001, (key, a, b)
    assert replayed[0]["profile"] == live[0]["profile"]


def test_options_given_to_analyze_win_over_the_recorded_ones(tmp_path):
    command = [sys.executable, STANDIN, "--load-s", "0.2", "--ttft-s", "0.1", "--tokens", "5", "--interval-s", "0.01"]
    wrapper.run(command, capture_dir=str(tmp_path), gpu="off", ready="model loaded")
    again = wrapper.analyze(str(tmp_path), ready="loading weights")
    assert again[0]["markers"]["ready"]["text"].endswith("loading weights")


def test_diagnose_and_compare_take_capture_folders_as_they_take_the_jsonl(tmp_path):
    caps, jsonl = tmp_path / "caps", tmp_path / "runs.jsonl"
    command = [sys.executable, STANDIN, "--load-s", "0.2", "--ttft-s", "0.1", "--tokens", "6", "--interval-s", "0.01"]
    wrapper.run(command, runs=2, capture_dir=str(caps), jsonl=str(jsonl), gpu="off", ready="model loaded")
    from_folder, from_jsonl = _cli("diagnose", str(caps)), _cli("diagnose", str(jsonl))
    assert from_folder.returncode == 0, from_folder.stderr
    assert from_folder.stdout == from_jsonl.stdout
    folder_vs = _cli("compare", str(caps), str(caps), "--format", "json")
    jsonl_vs = _cli("compare", str(jsonl), str(jsonl), "--format", "json")
    assert folder_vs.returncode == 0, folder_vs.stderr
    assert json.loads(folder_vs.stdout)["phases"] == json.loads(jsonl_vs.stdout)["phases"]
