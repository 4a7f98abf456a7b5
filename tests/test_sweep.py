"""Sweeps as sweeps (issue 23, item 3): diagnose, report and the -n/-L summary work per variant and say which
tag moved which phase; compare doesn't count a tag's own argument change as a second condition; too few runs
for a significance test is said once."""
import json

from wrapper.method import sweep
from wrapper.method.diagnose import diagnose

from .conftest import STANDIN, read_jsonl, run_phasewrap
from .test_diagnose import rec


def _variant(ttft_s, tags, n=4):
    runs = []
    for i in range(n):
        r = rec(load=1.0 + i * 0.01, ttft=ttft_s + i * 0.01, decode=0.5 + i * 0.01, total=1.6 + ttft_s + i * 0.03)
        r["tags"] = dict(tags)
        runs.append(r)
    return runs


def test_each_variant_is_diagnosed_on_its_own_and_the_tag_that_moved_a_phase_is_named():
    runs = _variant(0.1, {"ctx": "512", "host": "a"}) + _variant(3.0, {"ctx": "8192", "host": "a"})
    assert list(sweep.variants(runs)) == ["ctx=512", "ctx=8192"]  # host is the same everywhere: no variant
    findings = diagnose(runs)
    assert findings[0].rule == "sweep_effect"
    assert findings[0].statement == ("ctx=512 → 8192 moved ttft 0.115 → 3.015 s, total 1.745 → 4.645 s; "
                                     "not load, decode")
    by_variant = [(f.variant, f.rule) for f in findings[1:]]
    # ctx=512 is load-bound, ctx=8192 prompt-bound: a pooled median would have hidden one of them
    assert ("ctx=512", "load_dominant") in by_variant and ("ctx=8192", "ttft_dominant") in by_variant
    assert [f.rule for f in findings].count("not_checked") <= 1
    assert "too few" not in findings[0].statement  # 4 runs a variant: a test was run


def test_too_few_runs_for_a_test_is_said_once():
    runs = _variant(0.1, {"ctx": "512"}, n=3) + _variant(3.0, {"ctx": "8192"}, n=3)
    lines = sweep.effect_lines(runs)
    assert sum("too few for a significance test" in line for line in lines) == 1
    assert lines[0] == "sweep: ctx=512 → 8192 moved ttft 0.110 → 3.010 s, total 1.730 → 4.630 s; not load, decode"


def test_live_sweep_summary_diagnose_compare_and_report_per_variant(tmp):
    log = str(tmp / "sweep.jsonl")
    # TTFTs far apart: with 3 runs a variant "moved" means the ranges don't overlap, and one run slowed by a busy
    # machine must not make them overlap (with 0.05 and 0.4 s this line once failed in a fresh-clone CI run)
    proc = run_phasewrap(["run", "-q", "-n", "3", "--jsonl", log, "--ready", "model loaded", "-L", "ttft=0.05,1.2",
                          "--", *STANDIN, "--load-s", "0.05", "--ttft-s", "{ttft}", "--tokens", "3"])
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert "sweep: ttft=0.05 → 1.2 moved ttft " in err
    assert err.count("too few for a significance test") == 1  # 3 runs a variant: said once, in the summary
    assert len(read_jsonl(log)) == 6
    findings = json.loads(run_phasewrap(["diagnose", "--format", "json", log]).stdout)
    assert findings[0]["rule"] == "sweep_effect" and findings[0]["variant"] is None
    assert {f["variant"] for f in findings[1:] if f["rule"] != "not_checked"} == {"ttft=0.05", "ttft=1.2"}
    out = run_phasewrap(["compare", log, "--base-tag", "ttft=0.05", "--cand-tag", "ttft=1.2"]).stdout.decode()
    assert "change one thing at a time" not in out and "tag ttft: 0.05 → 1.2" in out
    report = tmp / "r.html"
    assert run_phasewrap(["report", log, "-o", str(report)]).returncode == 0
    html = report.read_text()
    assert "sweep diagnosis (per variant)" in html and "<b>ttft=1.2</b>" in html
