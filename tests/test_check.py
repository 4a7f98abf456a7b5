"""The regression gate: thresholds, the noise rule and the can't-tell outcome on hand-made records with exact
figures, then `phasewrap check` on recorded stand-in runs (exit statuses), and the baseline store."""
import json
import os
import random

import pytest

from wrapper.method import check as gate
from wrapper.method import stats

from .conftest import STANDIN, read_jsonl, run_phasewrap

ENV = {"host": "node1", "cpu_model": "Xeon", "cpu_cores_logical": 16, "gpu_count": 1,
       "gpus": [{"index": 0, "name": "NVIDIA H200"}], "gpu_driver": "580.1", "cuda_version": "13.0"}


def rec(ttft=0.1, load=1.0, i=0, env=ENV, **extra):
    return {"schema": "phasewrap.run/1", "run_id": f"r{i}", "status": "ok", "env": env,
            "phases": {"load_s": load, "ttft_s": ttft, "decode_s": 1.0, "total_s": 2.5},
            "cache": {"label": "warm"}, **extra}


def side(ttfts, **kw):
    return [rec(t, i=i, **kw) for i, t in enumerate(ttfts)]


BASE5 = [0.100, 0.101, 0.099, 0.102, 0.098]


def judge(text, base, cand):
    return gate.check(base, cand, [gate.parse_threshold(text)])["metrics"][0]


# -- the threshold grammar ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,key,op,kind,limit", [
    ("ttft>+5%", "ttft_s", ">", "relative", 0.05),
    ("tokens_per_s<-10%", "tokens_per_s", "<", "relative", -0.1),
    ("load > +0.5s", "load_s", ">", "change", 0.5),
    ("ttft>+20ms", "ttft_s", ">", "change", 0.02),
    ("load>2s", "load_s", ">", "bound", 2.0),
    ("load>2", "load_s", ">", "bound", 2.0),
    ("decode_gap_p99>+20%", "gap_p99_ms", ">", "relative", 0.2),
    ("gap_p99_ms>0.05s", "gap_p99_ms", ">", "bound", 50.0),
    ("energy_per_token>+1J", "energy_per_output_token_mj", ">", "change", 1000.0),
    ("decode.efficiency<0.6", "decode.efficiency", "<", "bound", 0.6),
    ("step:context + warm-up>+10%", "step:context + warm-up", ">", "relative", 0.1),
])
def test_thresholds_parse(text, key, op, kind, limit):
    t = gate.parse_threshold(text)
    assert (t.text, t.metric.key, t.op, t.kind) == (text, key, op, kind)
    assert t.limit == pytest.approx(limit, rel=1e-12)


@pytest.mark.parametrize("text,says", [
    ("ttft=5%", "'ttft=5%': not a threshold; write METRIC>VALUE"),
    ("ttft>5%", "'ttft>5%': a relative change needs its sign: 'ttft>+5%'"),
    ("speed>+5%", "'speed>+5%': unknown metric 'speed'; use one of decode, decode_efficiency, decode_floor_ms,"),
    ("ttft>+5J", "'ttft>+5J': unit 'J' does not fit ttft_s (s); units: s, ms"),
    ("stalls>3x", "'stalls>3x': unit 'x' does not fit stalls_total (count); units: none (a plain number)"),
    ("ttft>", "'ttft>': not a threshold"),
])
def test_bad_thresholds_are_named(text, says):
    with pytest.raises(ValueError) as exc:
        gate.parse_threshold(text)
    assert str(exc.value).startswith(says)


# -- the decision ---------------------------------------------------------------------------------------------

def test_thirty_percent_slower_ttft_fails_beyond_threshold_and_noise():
    row = judge("ttft>+10%", side(BASE5), side([t * 1.3 for t in BASE5]))
    p = 2 / 252  # 5 vs 5 fully separated: the exact two-sided p
    assert row["outcome"] == "fail" and row["why"] == "beyond the threshold and beyond noise"
    assert (row["base_median"], row["cand_median"], row["base_n"], row["cand_n"]) == (0.1, 0.13, 5, 5)
    assert row["value"] == pytest.approx(0.3) and row["crossed"] is True
    assert row["noise"] == stats.differs(BASE5, [t * 1.3 for t in BASE5]) and row["noise"]["p"] == p


def test_beyond_noise_but_under_the_threshold_passes():
    row = judge("ttft>+10%", side(BASE5), side([t * 1.05 for t in BASE5]))
    assert row["noise"]["beyond_noise"] is True and row["crossed"] is False
    assert row["outcome"] == "pass" and row["why"] == "within the threshold"


def test_beyond_the_threshold_within_noise_passes():
    base = [0.10, 0.20, 0.10, 0.20, 0.10, 0.20]
    cand = [0.12, 0.22, 0.12, 0.22, 0.12, 0.22]  # median +13 %, but the sides interleave
    row = judge("ttft>+10%", side(base), side(cand))
    assert row["crossed"] is True and row["noise"]["beyond_noise"] is False
    assert row["outcome"] == "pass" and row["why"] == "beyond the threshold but within noise"


@pytest.mark.parametrize("n", [2, 3])
def test_too_few_runs_cant_tell_even_for_a_big_regression(n):
    row = judge("ttft>+10%", side(BASE5[:n]), side([t * 2 for t in BASE5[:n]]))
    assert row["outcome"] == "cant_tell"
    assert row["why"] == (f"too few runs to tell: {n} vs {n}; a change needs at least 4 runs a side "
                          "(Mann-Whitney U at 0.05; 5 or more to see small differences)")


def test_four_a_side_can_tell():
    row = judge("ttft>+10%", side(BASE5[:4]), side([t * 2 for t in BASE5[:4]]))
    assert row["outcome"] == "fail" and row["noise"]["p"] == 2 / 70


def test_change_and_bound():
    base, cand = side(BASE5, load=1.0), side(BASE5, load=2.5)
    assert judge("load>+1s", base, cand)["outcome"] == "fail"
    assert judge("load>+1s", base, cand)["value"] == 1.5
    assert judge("load>+2s", base, cand)["outcome"] == "pass"
    # a bound looks at the candidate's runs only: all 5 above 2 s, sign test p = 1/32
    row = judge("load>2s", side(BASE5[:1], load=9.0), cand)
    assert row["outcome"] == "fail" and row["value"] == 2.5 and row["noise"]["p"] == 1 / 32
    assert judge("load>3s", base, cand)["outcome"] == "pass"
    four = judge("load>2s", base, cand[:4])
    assert four["outcome"] == "cant_tell" and four["why"].startswith("too few runs to tell: 4 candidate run(s)")


def test_efficiency_fails_from_the_limits_and_cant_tell_while_null_or_absent():
    low = side(BASE5, limits={"decode": {"efficiency": 0.5}})
    assert judge("decode.efficiency<0.6", low, low)["outcome"] == "fail"
    assert judge("decode.efficiency<0.4", low, low)["outcome"] == "pass"
    for cand in (side(BASE5, limits={"decode": {"efficiency": None}}), side(BASE5), side(BASE5, limits=None)):
        row = judge("decode.efficiency<0.6", low, cand)
        assert row["outcome"] == "cant_tell" and row["cand_n"] == 0
        assert row["why"] == "not measured on the candidate side (no run of it has this figure)"


def test_load_step_by_name():
    def steps(dur):
        return [{"name": "weights", "dur_s": dur, "kind": "disk"}, {"name": "warm-up", "dur_s": 0.1, "kind": "gpu"}]
    base = side(BASE5, load_steps=steps(1.0))
    cand = side(BASE5, load_steps=steps(1.5))
    row = judge("step:weights>+20%", base, cand)
    assert row["outcome"] == "fail" and row["value"] == 0.5 and row["label"] == "step 'weights'"
    assert judge("step:warm-up>+20%", base, cand)["outcome"] == "pass"
    assert judge("step:tokenizer>+20%", base, cand)["outcome"] == "cant_tell"


def test_outcome_fail_wins_then_cant_tell():
    base, cand = side(BASE5), side([t * 1.3 for t in BASE5])
    thresholds = [gate.parse_threshold(t) for t in ("ttft>+10%", "decode.efficiency<0.6", "load>+10%")]
    result = gate.check(base, cand, thresholds)
    assert result["outcome"] == "fail" and result["counts"] == {"pass": 1, "fail": 1, "cant_tell": 1}
    assert gate.check(base, cand, thresholds[1:])["outcome"] == "cant_tell"
    assert gate.check(base, cand, thresholds[2:])["outcome"] == "pass"


def test_pooling_and_the_one_variable_guard_come_from_compare():
    other_gpu = dict(ENV, gpus=[{"index": 0, "name": "NVIDIA H100"}])
    warmup = rec(5.0, i=9, warmup=True)
    result = gate.check(side(BASE5) + [warmup], side(BASE5, env=other_gpu), [gate.parse_threshold("ttft>+10%")])
    assert result["runs"]["base"] == {"given": 6, "warmup": 1, "not_ok": 0, "compared": 5}
    assert result["warnings"][0] == ("the base ran on another GPU (1 × NVIDIA H200 → 1 × NVIDIA H100): a "
                                     "difference may be the machine's, not the change's; record the baseline on "
                                     "this machine")
    assert [c["condition"] for c in result["conditions"]] == ["gpus"]


def test_the_result_is_json():
    result = gate.check(side(BASE5), side(BASE5), [gate.parse_threshold(t) for t in gate.DEFAULT_FAIL_IF])
    assert json.loads(json.dumps(result)) == result
    assert [m["threshold"] for m in result["metrics"]] == list(gate.DEFAULT_FAIL_IF)


# -- on stand-in runs through the command line ----------------------------------------------------------------

STANDIN_ARGS = ["--load-s", "0.05", "--tokens", "5", "--interval-s", "0.01"]
POOL_RUNS = 20


def _record(path, runs, ttft_s):
    proc = run_phasewrap(["run", "-q", "--format", "none", "--gpu", "off", "-n", str(runs), "--ready",
                          "model loaded", "--jsonl", str(path), "--", *STANDIN, *STANDIN_ARGS, "--ttft-s",
                          str(ttft_s)], timeout=300)
    assert proc.returncode == 0, proc.stderr
    return read_jsonl(path)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """20 runs of one stand-in configuration (TTFT 0.1 s) and 5 of the same with TTFT 0.13 s (30 % slower)."""
    where = tmp_path_factory.mktemp("check")
    return {"same": _record(where / "same.jsonl", POOL_RUNS, 0.1), "slow": _record(where / "slow.jsonl", 5, 0.13),
            "dir": where}


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def _check(args, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_STEP_SUMMARY", "PHASEWRAP_BASELINE_DIR")}
    return run_phasewrap(["check", *args], env={**env, **kw.pop("env", {})}, **kw)


def test_standin_thirty_percent_slower_ttft_exits_1(recorded, tmp):
    base = _write(tmp / "base.jsonl", recorded["same"][:5])
    cand = _write(tmp / "cand.jsonl", recorded["slow"])
    proc = _check([base, cand, "--fail-if", "ttft>+10%", "--format", "json"])
    assert proc.returncode == 1, proc.stderr
    row = json.loads(proc.stdout)["metrics"][0]
    assert row["outcome"] == "fail" and 0.2 < row["value"] < 0.4 and row["noise"]["p"] < 0.05


def test_standin_same_configuration_passes_20_of_20(recorded, tmp):
    """20 random splits of 20 runs of one configuration into two sides of 5: every check exits 0."""
    statuses = []
    for repetition in range(20):
        runs = list(recorded["same"])
        random.Random(repetition).shuffle(runs)
        base = _write(tmp / f"base{repetition}.jsonl", runs[:5])
        cand = _write(tmp / f"cand{repetition}.jsonl", runs[5:10])
        statuses.append(_check([base, cand, "--fail-if", "ttft>+10%"]).returncode)
    assert statuses == [0] * 20


def test_standin_two_runs_a_side_cant_tell_exits_4(recorded, tmp):
    base = _write(tmp / "base.jsonl", recorded["same"][:2])
    for cand_runs in (recorded["slow"][:2], recorded["same"][2:4]):
        cand = _write(tmp / "cand.jsonl", cand_runs)
        proc = _check([base, cand, "--fail-if", "ttft>+10%"])
        assert proc.returncode == 4, proc.stderr
        assert b"can't tell" in proc.stdout and b"too few runs to tell: 2 vs 2" in proc.stdout


def test_library_check_gives_what_the_cli_prints(recorded, tmp):
    import wrapper as phasewrap

    base = _write(tmp / "base.jsonl", recorded["same"][:5])
    cand = _write(tmp / "cand.jsonl", recorded["slow"])
    proc = _check([base, cand, "--fail-if", "ttft>+10%", "--fail-if", "load>2s", "--format", "json"])
    assert json.loads(proc.stdout) == phasewrap.check(base, cand, fail_if=["ttft>+10%", "load>2s"],
                                                      step_summary=None)


def test_tag_selection_from_one_file(recorded, tmp):
    tagged = ([dict(r, tags={"build": "a"}) for r in recorded["same"][:5]]
              + [dict(r, tags={"build": "b"}) for r in recorded["slow"]])
    both = _write(tmp / "both.jsonl", tagged)
    proc = _check([both, "--base-tag", "build=a", "--cand-tag", "build=b", "--fail-if", "ttft>+10%"])
    assert proc.returncode == 1, proc.stderr
    assert b"base: " + both.encode() + b" [build=a] (5 run(s)" in proc.stdout
    # the stand-in runs differ in their arguments and in the tag: the one-variable guard says so, on stderr too
    # when stdout carries JSON
    proc = _check([both, "--base-tag", "build=a", "--cand-tag", "build=b", "--fail-if", "ttft>+10%",
                   "--format", "json"])
    warnings = json.loads(proc.stdout)["warnings"]
    assert warnings[0].startswith("change one thing at a time: 2 conditions differ: arguments, tag build")
    assert proc.stderr.decode().splitlines() == [f"phasewrap: warning: {w}" for w in warnings]


@pytest.mark.parametrize("args,says", [
    (["--fail-if", "ttft>10%"], "--fail-if: 'ttft>10%': a relative change needs its sign"),
    (["--fail-if", "ttft>+5J"], "--fail-if: 'ttft>+5J': unit 'J' does not fit"),
    (["--baseline", "nope"], "--baseline: no baseline 'nope' in"),
    (["--baseline", "../x"], "--baseline: '../x' is not a baseline name"),
])
def test_bad_input_exits_2_naming_it(recorded, tmp, args, says):
    cand = _write(tmp / "cand.jsonl", recorded["slow"])
    files = [cand] if "--baseline" in args else [cand, cand]
    proc = _check([*files, *args, "--baseline-dir", str(tmp / "store")])
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.startswith(says) and err.count("\n") == 1, err


def test_junit_path_checked_before_anything(recorded, tmp):
    cand = _write(tmp / "cand.jsonl", recorded["slow"])
    proc = _check([cand, cand, "--junit", str(tmp / "no" / "such" / "dir.xml")])
    assert proc.returncode == 2 and proc.stderr.decode().startswith("--junit: directory ")


# -- baselines ------------------------------------------------------------------------------------------------

def _run_saving(tmp, name, ttft_s, *extra, env=None):
    return run_phasewrap(["run", "-q", "--format", "none", "--gpu", "off", "-n", "5", "--ready", "model loaded",
                          "--save-baseline", name, *extra, "--", *STANDIN, *STANDIN_ARGS, "--ttft-s", str(ttft_s)],
                         cwd=tmp, env=env, timeout=300)


def test_save_list_and_check_against_a_baseline(recorded, tmp):
    env = {k: v for k, v in os.environ.items() if k != "PHASEWRAP_BASELINE_DIR"}
    proc = _run_saving(tmp, "main", 0.1, env=env)
    assert proc.returncode == 0, proc.stderr
    store = tmp / ".phasewrap" / "baselines"  # the default store, under the working directory
    assert sorted(os.listdir(store)) == ["main.jsonl"]  # one file, no temp file left beside it
    saved = read_jsonl(store / "main.jsonl")
    assert len(saved) == 5 and all(r["schema"] == "phasewrap.run/1" for r in saved)
    assert f"baseline main saved: {os.path.join('.phasewrap', 'baselines', 'main.jsonl')} (5 record(s))" in \
        proc.stderr.decode()

    listed = run_phasewrap(["baselines", "--format", "json"], cwd=tmp, env=env)
    rows = json.loads(listed.stdout)
    assert [(r["name"], r["records"], r["runs_ok"], r["problem"]) for r in rows] == [("main", 5, 5, None)]
    assert rows[0]["path"] == os.path.join(".phasewrap", "baselines", "main.jsonl")
    table = run_phasewrap(["baselines"], cwd=tmp, env=env).stdout.decode()
    assert table.splitlines()[0].split() == ["name", "records", "runs", "ok", "cache", "hosts", "saved", "(UTC)",
                                             "problem"]

    slow = _write(tmp / "slow.jsonl", recorded["slow"])
    proc = _check(["--baseline", "main", slow, "--fail-if", "ttft>+10%"], cwd=tmp)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.decode().startswith("phasewrap check: FAIL\nbase: baseline main (5 run(s)")


def test_baseline_store_from_the_environment_and_replaced_whole(recorded, tmp):
    store = tmp / "elsewhere"
    env = {**os.environ, "PHASEWRAP_BASELINE_DIR": str(store)}
    assert _run_saving(tmp, "nightly.v2", 0.1, env=env).returncode == 0
    first = read_jsonl(store / "nightly.v2.jsonl")
    assert _run_saving(tmp, "nightly.v2", 0.1, "--tag", "again=1", env=env).returncode == 0
    second = read_jsonl(store / "nightly.v2.jsonl")
    assert len(second) == 5 and {r["run_id"] for r in first}.isdisjoint(r["run_id"] for r in second)
    assert all(r["tags"] == {"again": "1"} for r in second)
    assert sorted(os.listdir(store)) == ["nightly.v2.jsonl"]
    assert not (tmp / ".phasewrap").exists()


@pytest.mark.parametrize("name", ["../up", ".hidden", "a/b", "sp ace", ""])
def test_bad_baseline_names_refused_before_anything_runs(tmp, name):
    proc = run_phasewrap(["run", "-q", "--jsonl", str(tmp / "runs.jsonl"), "--save-baseline", name, "--",
                          *STANDIN, "--load-s", "0"], cwd=tmp)
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith(f"--save-baseline: {name!r} is not a baseline name: use letters, digits")
    assert not (tmp / "runs.jsonl").exists()


def test_help_states_the_defaults_and_exit_statuses():
    out = run_phasewrap(["check", "--help"]).stdout.decode()
    assert f"default: {' '.join(gate.DEFAULT_FAIL_IF)})" in out
    assert "Exit status: 0 pass, 1 regression, 2 bad input, 4 can't tell." in out


def test_no_input_and_an_unwritable_step_summary(tmp):
    proc = _check([])
    assert proc.returncode == 2 and proc.stderr.decode().startswith("phasewrap check: give BASE CAND")
    base = _write(tmp / "base.jsonl", side(BASE5))
    proc = _check([base, base], env={"GITHUB_STEP_SUMMARY": str(tmp / "no" / "summary.md")})
    assert proc.returncode == 4  # 5 vs 5 but the defaults' ms_per_token is not in these records
    assert proc.stderr.decode().startswith("phasewrap: warning: $GITHUB_STEP_SUMMARY: cannot write ")
