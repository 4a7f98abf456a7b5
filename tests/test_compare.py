"""compare() on hand-made records with exact expected figures, conditions and warnings."""
import hashlib
import importlib

from wrapper.measure.env import args_sha256

cmp = importlib.import_module("wrapper.method.compare")  # the module; wrapper.method.compare is the library function

ENV = {
    "cpu_model": "Intel(R) Xeon(R) Processor", "cpu_cores_logical": 16,
    "gpus": [{"index": 0, "name": "NVIDIA H200", "vram_total_mib": 143771.0}], "gpu_count": 1,
    "gpu_driver": "580.159.04", "cuda_version": "13.0",
    "executable": {"version": "version: 6123 (abc1234)", "sha256": "ab" * 32},
    "prompt_sha256": hashlib.sha256(b"Hello").hexdigest(),
}
CMD = ["llama-completion", "-m", "m.gguf", "-ngl", "99", "-n", "128", "-p", "Hello"]


def rec(total, load=None, ttft=None, decode=None, ms=None, command=CMD, env=ENV, cache="warm", tags=None,
        status="ok", warmup=None):
    return {"schema": "phasewrap.run/1", "status": status, "command": list(command), "env": env,
            "phases": {"load_s": load, "ttft_s": ttft, "decode_s": decode, "total_s": total}, "ms_per_token": ms,
            "cache": None if cache is None else {"label": cache}, "tags": tags or {}, "warmup": warmup}


def side(totals, **kw):
    return [rec(t, load=t / 2, ms=t * 10, **kw) for t in totals]


def test_one_argument_changed_faster_beyond_noise():
    base = side([10.0, 10.2, 9.9, 10.1, 10.4])
    cand = side([8.0, 8.1, 7.9, 8.3, 8.2], command=[*CMD[:4], "0", *CMD[5:]])
    result = cmp.compare(base, cand)
    p = 2 / 252  # 5 vs 5, fully separated: exact two-sided p
    assert result["phases"]["total_s"] == {
        "base_median": 10.1, "base_n": 5, "cand_median": 8.1, "cand_n": 5, "diff": -2.0, "ratio": 0.802,
        "verdict": {"test": "Mann-Whitney U (exact)", "p": p, "beyond_noise": True,
                    "why": f"Mann-Whitney U (exact), n=5 vs 5: p={p:.4g} < 0.05"}}
    assert result["phases"]["load_s"]["base_median"] == 5.05 and result["phases"]["load_s"]["diff"] == -1.0
    assert result["phases"]["ms_per_token"]["ratio"] == 0.802
    assert result["phases"]["ttft_s"] == {
        "base_median": None, "base_n": 0, "cand_median": None, "cand_n": 0, "diff": None, "ratio": None,
        "verdict": {"test": None, "p": None, "beyond_noise": None, "why": "no measured values on either side"}}
    assert result["conditions"] == [{
        "condition": "arguments", "base": [f"sha256 {args_sha256(CMD)[:12]}"],
        "cand": [f"sha256 {args_sha256(cand[0]['command'])[:12]}"], "detail": ["-ngl: 99 → 0"]}]
    assert result["warnings"] == []
    assert result["pool"] == {"base": "cache=warm", "cand": "cache=warm"}
    assert result["runs"] == {"base": {"given": 5, "warmup": 0, "not_ok": 0, "compared": 5},
                              "cand": {"given": 5, "warmup": 0, "not_ok": 0, "compared": 5}}


def test_overlapping_runs_are_within_noise():
    result = cmp.compare(side([10.0, 10.5, 9.5, 10.2]), side([10.1, 9.8, 10.4, 9.9], tags={"build": "b"}))
    verdict = result["phases"]["total_s"]["verdict"]
    assert verdict["beyond_noise"] is False and verdict["p"] > 0.5


def test_several_conditions_differ_is_loud():
    other_env = dict(ENV, gpus=[ENV["gpus"][0], dict(ENV["gpus"][0], index=1)], gpu_count=2,
                     gpu_driver="570.86.15", cuda_version="12.8")
    base = side([10.0, 10.1, 10.2])
    cand = side([5.0, 5.1, 5.2], env=other_env, cache="cold",
                command=["llama-completion", "-m", "m.gguf", "-ngl", "99", "-n", "64", "-p", "Hello"])
    result = cmp.compare(base, cand)
    assert [(c["condition"], c["base"], c["cand"]) for c in result["conditions"]] == [
        ("gpus", ["1 × NVIDIA H200"], ["2 × NVIDIA H200"]),
        ("driver", ["580.159.04 (CUDA 13.0)"], ["570.86.15 (CUDA 12.8)"]),
        ("max tokens", ["128"], ["64"]),
        ("cache", ["warm"], ["cold"]),
    ]
    assert result["warnings"] == [
        "change one thing at a time: 4 conditions differ: gpus, driver, max tokens, cache; the difference can't be "
        "pinned on one"]


def test_prompt_and_executable_and_tags():
    new_env = dict(ENV, executable={"version": "version: 6200 (def5678)", "sha256": "ef" * 32})
    base = side([1.0, 1.1, 1.2], tags={"model": "7b", "run": "x"})
    cand = side([1.0, 1.1, 1.2], env=dict(new_env, prompt_sha256="00" * 32), tags={"model": "13b", "run": "x"})
    conds = {c["condition"]: (c["base"], c["cand"]) for c in cmp.compare(base, cand)["conditions"]}
    assert conds == {
        "executable": (["version: 6123 (abc1234) · sha256 abababababab"],
                       ["version: 6200 (def5678) · sha256 efefefefefef"]),
        "prompt": (["sha256 185f8db32271"], ["sha256 000000000000"]),
        "tag model": (["7b"], ["13b"]),
    }


def test_prompt_from_arguments_when_env_is_missing():
    base = side([1.0, 1.1, 1.2], env=None)
    cand = side([1.0, 1.1, 1.2], env=None, command=[*CMD[:-1], "Bye"])
    result = cmp.compare(base, cand)
    hello = hashlib.sha256(b"Hello").hexdigest()[:12]
    bye = hashlib.sha256(b"Bye").hexdigest()[:12]
    assert result["conditions"] == [{"condition": "prompt", "base": [f"sha256 {hello}"], "cand": [f"sha256 {bye}"],
                                     "detail": None}]
    assert result["warnings"] == []


def test_condition_recorded_on_one_side_only_is_named():
    result = cmp.compare(side([1.0, 1.1, 1.2], env=None), side([1.0, 1.1, 1.2]))
    assert result["conditions"] == []
    assert [u["condition"] for u in result["unknown_conditions"]] == ["cpu", "gpus", "driver", "executable"]
    assert result["unknown_conditions"][0] == {"condition": "cpu", "missing_on": "base"}
    assert result["warnings"][0] == "can't tell whether cpu matches: not recorded on the base side"


def test_nothing_differs_asks_for_tags():
    result = cmp.compare(side([1.0, 1.1, 1.2]), side([1.0, 1.1, 1.3]))
    assert result["warnings"] == ["no recorded condition differs between the sides: tag the runs with what changed "
                                  "(--tag KEY=VALUE) so the comparison can name it"]


def test_mixed_cache_labels_are_never_pooled():
    base = side([30.0], cache="cold") + side([10.0, 10.1, 10.2])
    cand = side([9.0, 9.1, 9.2, 9.3])
    result = cmp.compare(base, cand)
    assert result["pool"] == {"base": "cache=warm", "cand": "cache=warm"}
    assert result["phases"]["total_s"]["base_n"] == 3 and result["phases"]["total_s"]["base_median"] == 10.1
    assert result["runs"]["base"]["compared"] == 3
    assert ("base mixes page-cache states (cache=cold × 1, cache=warm × 3): runs with different cache labels are "
            "never pooled; only cache=warm is compared, compare the others separately") in result["warnings"]
    assert result["conditions"] == []


def test_sides_without_a_common_cache_label_use_their_largest_pool():
    base = side([30.0, 31.0], cache="cold") + side([10.0], cache="partial")
    cand = side([9.0, 9.1, 9.2])
    result = cmp.compare(base, cand)
    assert result["pool"] == {"base": "cache=cold", "cand": "cache=warm"}
    assert [c["condition"] for c in result["conditions"]] == ["cache"]


def test_warmup_and_failed_runs_are_left_out_and_small_n_is_flagged():
    base = side([50.0], warmup=True) + side([10.0, 11.0]) + side([1.0], status="timeout")
    cand = side([5.0, 6.0], tags={"flash": "on"})
    result = cmp.compare(base, cand)
    assert result["runs"]["base"] == {"given": 4, "warmup": 1, "not_ok": 1, "compared": 2}
    assert result["phases"]["total_s"]["verdict"] == {
        "test": "range overlap", "p": None, "beyond_noise": True,
        "why": "n=2 vs 2 (< 3 on a side, no test): ranges [10, 11] vs [5, 6] don't overlap"}
    assert result["warnings"] == [
        "base: 1 run(s) left out, status not ok (timeout × 1)",
        "can't tell whether tag flash matches: not recorded on the base side",
        "too few runs for a significance test (2 base, 2 cand; it needs 3 per side): the verdicts only say whether "
        "the ranges overlap; run -n 3 or more (5 or more to see small differences)",
    ]


def test_a_side_mixing_arguments_is_warned():
    base = side([1.0, 1.1]) + side([1.2], command=[*CMD[:4], "50", *CMD[5:]])
    result = cmp.compare(base, side([1.0, 1.1, 1.2]))
    assert "base runs differ among themselves in their arguments (pooled anyway)" in result["warnings"]


def test_argument_diff_lines():
    assert cmp.argument_diff(["a", "-m", "x.gguf", "--mlock", "-c", "4096", "in.txt"],
                             ["b", "-m", "y.gguf", "-c", "4096", "--flash-attn", "on", "-t", "8"]) == [
        "-m: x.gguf → y.gguf", "- --mlock", "+ --flash-attn on", "+ -t 8", "positional: in.txt → (none)"]
    assert cmp.split_args(["x", "--temp=-0.5", "--top-k", "-1", "-ngl", "99", "--", "-z"]) == (
        {"--temp": ["-0.5"], "--top-k": ["-1"], "-ngl": ["99"]}, ["-z"])


def test_render_table():
    base = side([10.0, 10.2, 9.9, 10.1, 10.4])
    cand = side([8.0, 8.1, 7.9, 8.3, 8.2], command=[*CMD[:4], "0", *CMD[5:]])
    text = cmp.render_table(cmp.compare(base, cand))
    assert text == (
        "metric        base median (n)    cand median (n)    diff    ratio    verdict\n"
        "------------  -----------------  -----------------  ------  -------  "
        "---------------------------------------\n"
        "load_s        5.050 (5)          4.050 (5)          -1.000  0.802    beyond noise (p=0.00794)\n"
        "ttft_s        n/a (0)            n/a (0)            n/a     n/a      n/a (no measured values on either side)\n"
        "decode_s      n/a (0)            n/a (0)            n/a     n/a      n/a (no measured values on either side)\n"
        "total_s       10.100 (5)         8.100 (5)          -2.000  0.802    beyond noise (p=0.00794)\n"
        "ms_per_token  101.00 (5)         81.00 (5)          -20.00  0.802    beyond noise (p=0.00794)\n"
        "conditions that differ:\n"
        "  arguments:\n"
        "    -ngl: 99 → 0\n")


def test_render_table_names_conditions_and_warnings():
    other_env = dict(ENV, gpus=[ENV["gpus"][0], dict(ENV["gpus"][0], index=1)], gpu_count=2)
    base = side([10.0, 10.1, 10.2]) + side([30.0], cache="cold")
    cand = side([5.0, 5.1, 5.2], env=other_env, command=[*CMD[:6], "64", *CMD[7:]])
    text = cmp.render_table(cmp.compare(base, cand))
    assert text.split("\n")[7:] == [
        "conditions that differ:",
        "  gpus: 1 × NVIDIA H200 → 2 × NVIDIA H200",
        "  max tokens: 128 → 64",
        "warning: change one thing at a time: 2 conditions differ: gpus, max tokens; the difference can't be pinned "
        "on one",
        "warning: base mixes page-cache states (cache=warm × 3, cache=cold × 1): runs with different cache labels "
        "are never pooled; only cache=warm is compared, compare the others separately",
        "",
    ]


def test_a_swept_tags_own_argument_change_is_the_tag_not_a_second_condition():
    def sweep_side(value, tag):
        return side([1.0, 1.1, 1.2], tags={"ttft": tag},
                    command=["python3", "standin.py", "--ttft-s", value, "--ctx=" + value + "k", "--tokens", "5"])
    result = cmp.compare(sweep_side("0.1", "0.1"), sweep_side("0.3", "0.3"))
    assert [c["condition"] for c in result["conditions"]] == ["tag ttft"]
    assert not any("change one thing at a time" in w for w in result["warnings"])
    # an argument the tag does not explain is still a second condition
    other = side([1.0, 1.1, 1.2], tags={"ttft": "0.3"},
                 command=["python3", "standin.py", "--ttft-s", "0.3", "--ctx=0.3k", "--tokens", "9"])
    result = cmp.compare(sweep_side("0.1", "0.1"), other)
    assert [c["condition"] for c in result["conditions"]] == ["arguments", "tag ttft"]
    assert result["warnings"][0].startswith("change one thing at a time: 2 conditions differ: arguments, tag ttft")
