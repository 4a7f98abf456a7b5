"""The regression gate on real llama.cpp runs: a baseline saved from llama-completion, a candidate with a model
ten times slower per token, and the same configuration against its own baseline."""
import json

from .conftest import run_phasewrap
from .test_llama import BIN, PROMPT, exe, models, pytestmark  # noqa: F401 (the fixture and the llama marks)


def _run(model, *extra):
    return run_phasewrap(["run", "-q", "--format", "none", "--gpu", "off", "-n", "5", *extra, "--",
                          exe("llama-completion"), "-m", model, "-p", PROMPT, "-n", "16", "-no-cnv", "--seed", "1"],
                         timeout=600)


def test_check_real_llama_completion_against_its_baseline(models, tmp):
    store = ["--baseline-dir", str(tmp / "store")]
    assert _run(models["tiny"], "--save-baseline", "tiny", *store).returncode == 0
    assert _run(models["tiny"], "--jsonl", str(tmp / "same.jsonl")).returncode == 0
    assert _run(models["mid"], "--jsonl", str(tmp / "mid.jsonl")).returncode == 0
    bounds = ["--fail-if", "load>60s", "--fail-if", "ttft>60s", "--fail-if", "ms_per_token>10000"]
    same = run_phasewrap(["check", "--baseline", "tiny", str(tmp / "same.jsonl"), *store, *bounds, "--format",
                          "json", "--no-step-summary"])
    assert same.returncode == 0, same.stdout + same.stderr
    rows = json.loads(same.stdout)["metrics"]
    assert [r["outcome"] for r in rows] == ["pass"] * 3
    assert all(r["cand_n"] >= 4 and r["base_n"] >= 4 for r in rows), rows  # every figure measured
    slower = run_phasewrap(["check", "--baseline", "tiny", str(tmp / "mid.jsonl"), *store, "--fail-if",
                            "ms_per_token>+100%", "--format", "json", "--no-step-summary"])
    assert slower.returncode == 1, slower.stdout + slower.stderr
    result = json.loads(slower.stdout)
    assert result["metrics"][0]["value"] > 1 and result["metrics"][0]["noise"]["beyond_noise"] is True
    assert "arguments" in [c["condition"] for c in result["conditions"]]  # -m tiny → mid, named
