"""Decode gaps on real llama.cpp: the median gap between token reads against llama.cpp's own ms per token."""
import os

import pytest

from .test_llama import PROMPT, exe, models, pytestmark, run_until  # noqa: F401 (the fixture and the skip marks)

ATTEMPTS = 4
BUSY_LOAD_PER_CORE = 1.0


def test_p50_gap_agrees_with_llama_cpp_ms_per_token(models):  # noqa: F811
    """One thread (-t 1): with several, a machine shared with other work makes llama.cpp's thread barrier stall for
    whole scheduler slices. On a machine whose run queue is longer than its cores, each token's time depends on the
    scheduler and the median drifts from llama.cpp's mean: the check is then skipped, saying so with the figures."""
    found = []
    for _ in range(ATTEMPTS):
        _, rec = run_until(["run", "--quiet", "--format", "json", "--", exe("llama-completion"), "-m", models["mid"],
                            "-p", PROMPT, "-n", "64", "-no-cnv", "--seed", "1", "-t", "1"],
                           lambda r: bool(r["reported"]) and r["reported"].get("eval_ms") is not None)
        rep, gaps = rec["reported"], rec["decode_gaps_ms"]
        own_ms = rep["eval_ms"] / rep["eval_tokens"]
        assert gaps["n"] >= 32, gaps  # one read per token, or near it
        assert rec["tpot_ms"] == rec["ms_per_token"]
        found.append((gaps["p50"], round(own_ms, 3)))
        if abs(gaps["p50"] - own_ms) <= 0.25 * own_ms:
            return
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    if load > BUSY_LOAD_PER_CORE:
        pytest.skip(f"load {load:.1f} per core: the machine is shared; (p50 gap ms, llama.cpp ms/token): {found}")
    pytest.fail(f"p50 gap vs llama.cpp's own ms per token, beyond 25 % in {ATTEMPTS} runs: {found}")
