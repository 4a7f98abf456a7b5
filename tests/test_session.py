"""Repeated runs, cold/warm labels, sweeps, compare and diagnose through the real CLI."""
import json
import os

import pytest

from wrapper.measure.env import args_sha256

from .conftest import STANDIN, read_jsonl, run_phasewrap

MIB = 1 << 20


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "weights.bin"
    block = os.urandom(MIB)
    with open(path, "wb") as fh:
        for _ in range(300):
            fh.write(block)
    return str(path)


def test_cold_runs_read_from_disk_and_warm_runs_do_not(model_file, tmp):
    log = tmp / "runs.jsonl"
    common = ["--quiet", "--format", "none", "--jsonl", str(log), "--ready", "model loaded", "--model-file", model_file]
    child = ["--", *STANDIN, "--read", model_file, "--load-s", "0.1", "--ttft-s", "0.05", "--tokens", "3"]
    assert run_phasewrap(["run", "-n", "3", "--cold", *common, *child]).returncode == 0
    assert run_phasewrap(["run", "-n", "2", *common, *child]).returncode == 0
    records = read_jsonl(log)
    assert [r["cache"]["label"] for r in records] == ["cold", "cold", "cold", "warm", "warm"]
    for r in records[:3]:
        assert r["resources"]["load"]["disk_read_mib"] >= 250, r["resources"]["load"]
    for r in records[3:]:
        assert r["resources"]["load"]["disk_read_mib"] <= 30
    assert records[0]["env"]["model_files"][0]["size_bytes"] == 300 * MIB


def test_sweep_runs_every_value_n_times(tmp):
    log = tmp / "runs.jsonl"
    proc = run_phasewrap(["run", "-n", "2", "-L", "N=6,12", "--quiet", "--jsonl", str(log), "--ready", "model loaded",
                          "--", *STANDIN, "--load-s", "0.05", "--ttft-s", "0.02", "--tokens", "{N}",
                          "--interval-s", "0.005"])
    assert proc.returncode == 0
    records = read_jsonl(log)
    assert [(r["tags"]["N"], r["tokens"]["output"]) for r in records] == [("6", 6), ("6", 6), ("12", 12), ("12", 12)]
    table = proc.stderr.decode()
    assert "\n6    " in table and "\n12   " in table  # one row per value


def test_warmup_runs_are_recorded_but_not_counted(tmp):
    log = tmp / "runs.jsonl"
    proc = run_phasewrap(["run", "-n", "2", "--warmup", "1", "--quiet", "--jsonl", str(log), "--", *STANDIN,
                          "--load-s", "0.02", "--ttft-s", "0.02", "--tokens", "2"])
    assert proc.returncode == 0
    assert [r["warmup"] for r in read_jsonl(log)] == [True, False, False]
    assert "2 measured run(s), 1 warm-up(s) not counted" in proc.stderr.decode()


def test_compare_names_every_difference_and_warns(tmp):
    base, cand = tmp / "base.jsonl", tmp / "cand.jsonl"
    base_args, cand_args = ([*STANDIN, "--load-s", "0.02", "--ttft-s", "0.02", "--tokens", tokens, "--interval-s",
                             "0.005"] for tokens in ("4", "8"))
    for path, tag, args in ((base, "quant=Q8_0", base_args), (cand, "quant=Q4_K_M", cand_args)):
        assert run_phasewrap(["run", "-n", "2", "--quiet", "--format", "none", "--jsonl", str(path), "--tag", tag,
                              "--", *args]).returncode == 0
    proc = run_phasewrap(["compare", str(base), str(cand), "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [(c["condition"], c["base"], c["cand"]) for c in result["conditions"]] == [
        ("arguments", [f"sha256 {args_sha256(base_args)[:12]}"], [f"sha256 {args_sha256(cand_args)[:12]}"]),
        ("tag quant", ["Q8_0"], ["Q4_K_M"])]
    assert result["conditions"][0]["detail"] == ["--tokens: 4 → 8"]
    assert result["warnings"][0] == ("change one thing at a time: 2 conditions differ: arguments, tag quant; "
                                     "the difference can't be pinned on one")
    table = run_phasewrap(["compare", str(base), str(cand)]).stdout.decode()
    assert "decode_s" in table


def test_diagnose_names_decode_and_load_with_cpu_signal(tmp):
    decode_log, load_log = tmp / "decode.jsonl", tmp / "load.jsonl"
    run_phasewrap(["run", "--quiet", "--format", "none", "--jsonl", str(decode_log), "--ready", "model loaded", "--",
                   *STANDIN, "--load-s", "0.05", "--ttft-s", "0.05", "--tokens", "60", "--interval-s", "0.03"])
    run_phasewrap(["run", "--quiet", "--format", "none", "--jsonl", str(load_log), "--ready", "model loaded", "--",
                   *STANDIN, "--load-s", "2.0", "--load-mode", "burn", "--ttft-s", "0.05", "--tokens", "3"])
    decode = json.loads(run_phasewrap(["diagnose", "--format", "json", str(decode_log)]).stdout)
    assert decode[0]["rule"] == "decode_dominant"
    load = json.loads(run_phasewrap(["diagnose", "--format", "json", str(load_log)]).stdout)
    rules = [f["rule"] for f in load]
    assert rules[0].startswith("load")
    # one core burning: the load step measured as cpu-single (schedstat counts its wait for a CPU on a busy
    # machine), and the busiest-thread rule when the thread got its core
    assert rules[0] == "load_step_cpu_single" or "load_one_core" in rules


def test_bad_records_file_is_one_line_exit_2(tmp):
    bad = tmp / "bad.jsonl"
    bad.write_text('{"schema": "phasewrap.run/9", "run_id": "x"}\n')
    proc = run_phasewrap(["diagnose", str(bad)])
    assert proc.returncode == 2
    assert len(proc.stderr.decode().strip().splitlines()) == 1
    empty = tmp / "empty.jsonl"
    empty.write_text("")
    assert run_phasewrap(["compare", str(empty), str(bad)]).returncode == 2


def test_corrupted_line_is_skipped_and_counted(tmp):
    log = tmp / "runs.jsonl"
    assert run_phasewrap(["run", "--quiet", "--format", "none", "--jsonl", str(log), "--", *STANDIN, "--load-s",
                          "0.02", "--ttft-s", "0.02", "--tokens", "3"]).returncode == 0
    with open(log, "a") as fh:
        fh.write('{"schema": "phasewrap.run/1", "run_id": "cut-off\n')
    proc = run_phasewrap(["diagnose", str(log)])
    assert proc.returncode == 0
    err = proc.stderr.decode()
    assert err == f"phasewrap: warning: {log}: line 2 skipped: invalid JSON at column 41: Unterminated string\n"
