"""check's reports as CI systems read them (JUnit XML against a schema and through a JUnit reader, Markdown
through a Markdown parser, GitHub's step summary), and the CI recipes in samples/ci/ through the schemas their
CI systems publish, the nightly script run for real."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from wrapper.method import check as gate
from wrapper.present.export import check_report

from .conftest import ROOT, STANDIN, fixture
from .test_check import BASE5, side

CI = os.path.join(ROOT, "samples", "ci")
THRESHOLDS = ("ttft>+10%", "decode.efficiency<0.6", "load>2s", "step:a|b <c>*_x>+5%")


def _result():
    base = side(BASE5, load_steps=[{"name": "a|b <c>*_x", "dur_s": 1.0, "kind": "disk"}])
    cand = side([t * 1.3 for t in BASE5], load_steps=[{"name": "a|b <c>*_x", "dur_s": 1.0, "kind": "disk"}])
    cand[0]["env"] = dict(cand[0]["env"], gpu_driver="570.\x1b[31m9")  # text from a machine reaches every report
    return gate.check(base, cand, [gate.parse_threshold(t) for t in THRESHOLDS],
                      {"base": "base.jsonl", "cand": "cand.jsonl"})


# -- JUnit ----------------------------------------------------------------------------------------------------

def test_junit_validates_against_the_schema_and_reads_back(tmp):
    import junitparser
    import xmlschema

    path = tmp / "check.xml"
    path.write_text(check_report.junit(_result()), encoding="utf-8")
    xmlschema.XMLSchema(fixture("junit", "junit.xsd")).validate(str(path))
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert len(suites) == 1 and suites[0].tests == 4 and suites[0].failures == 1 and suites[0].skipped == 1
    cases = {case.name: case for case in suites[0]}
    assert list(cases) == list(THRESHOLDS)
    assert cases["load>2s"].is_passed and cases["step:a|b <c>*_x>+5%"].is_passed
    (failure,) = cases["ttft>+10%"].result
    assert isinstance(failure, junitparser.Failure) and failure.type == "regression"
    assert failure.message.startswith("ttft_s: base median 0.100 s (5), candidate median 0.130 s (5), change "
                                      "+30.0% (+0.030 s), threshold > +10%; noise: Mann-Whitney U (exact), n=5 "
                                      "vs 5: p=0.007937 < 0.05; FAIL")
    (skipped,) = cases["decode.efficiency<0.6"].result
    assert isinstance(skipped, junitparser.Skipped) and skipped.message.endswith(
        "can't tell: not measured on the candidate side (no run of it has this figure)")
    assert cases["ttft>+10%"].classname == "phasewrap.check.ttft_s"
    assert "\x1b" not in path.read_text() and "570.\\x1b" not in path.read_text()  # the escape sequence is gone


def test_the_schema_refuses_what_readers_refuse(tmp):
    import xmlschema

    schema = xmlschema.XMLSchema(fixture("junit", "junit.xsd"))
    good = check_report.junit(_result())
    for bad in (good.replace('tests="4"', 'tests="four"', 1), good.replace("</testsuite>", "<bogus /></testsuite>"),
                good.replace('<testcase name="load&gt;2s"', "<testcase", 1),
                good.replace("<skipped ", '<failure message="two outcomes" /><skipped ', 1)):
        assert not schema.is_valid(bad)
    assert schema.is_valid(good)


# -- Markdown -------------------------------------------------------------------------------------------------

def _table(markdown_text):
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(markdown_text)
    kinds = [t.type for t in tokens]
    assert kinds.count("table_open") == 1
    rows, cells = [], None
    for token in tokens[kinds.index("table_open"):kinds.index("table_close")]:
        if token.type == "tr_open":
            cells = []
        elif token.type == "inline":
            cells.append("".join(child.content for child in token.children if child.type == "text"))
        elif token.type == "tr_close":
            rows.append(cells)
    return tokens, rows


def test_markdown_is_one_table_of_every_metric():
    text = check_report.markdown(_result())
    tokens, rows = _table(text)
    assert rows[0] == check_report.HEADERS
    assert [r[0] for r in rows[1:]] == list(THRESHOLDS)  # a | < > * _ in a step name stay inside their cell
    assert rows[1] == ["ttft>+10%", "0.100 s (5)", "0.130 s (5)", "+30.0% (+0.030 s)", "beyond noise (p=0.0079)",
                       "> +10%", "FAIL"]
    assert rows[2][-1] == "can't tell" and rows[3][-1] == "pass" and rows[3][4] == "within noise (sign test p=1)"
    assert tokens[0].type == "heading_open" and tokens[1].content == "phasewrap check: FAIL"
    assert "\x1b" not in text and "html_inline" not in [c.type for t in tokens for c in (t.children or [])]


def test_step_summary_appended_when_github_sets_it(tmp):
    from .test_check import _check, _write

    summary = tmp / "summary.md"
    summary.write_text("earlier step\n")
    base = _write(tmp / "base.jsonl", side(BASE5))
    cand = _write(tmp / "cand.jsonl", side([t * 1.3 for t in BASE5]))
    proc = _check([base, cand, "--fail-if", "ttft>+10%"], env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode == 1
    text = summary.read_text()
    assert text.startswith("earlier step\n### phasewrap check: FAIL\n")
    assert len(_table(text[len("earlier step\n"):])[1]) == 2
    again = _check([base, cand, "--fail-if", "ttft>+10%", "--format", "markdown", "--no-step-summary"],
                   env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert summary.read_text() == text and again.stdout.decode() == text[len("earlier step\n"):-1]


def test_terminal_table_lines():
    lines = check_report.table(_result()).splitlines()
    assert lines[0] == "phasewrap check: FAIL"
    assert lines[1] == "base: base.jsonl (5 run(s), cache=warm) · candidate: cand.jsonl (5 run(s), cache=warm)"
    assert lines[2].split()[:3] == ["metric", "base", "median"]
    assert "ttft>+10%: FAIL: beyond the threshold and beyond noise (Mann-Whitney U (exact), n=5 vs 5: " \
           "p=0.007937 < 0.05)" in lines
    assert any(line.startswith("warning: the base ran on another GPU driver") and "\\x1b" not in line and "\x1b" not in line
               for line in lines)


# -- the recipes ----------------------------------------------------------------------------------------------

def _jsonschema(schema, path):
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize("name,schema,breakage", [
    ("github-actions.yml", "vendor.github-workflows", ("    runs-on: [self-hosted, gpu]\n", "")),
    ("gitlab-ci.yml", "vendor.gitlab-ci", ("    when: always\n", "    when: sometimes\n")),
])
def test_ci_recipes_validate_against_their_published_schemas(tmp, name, schema, breakage):
    path = os.path.join(CI, name)
    proc = _jsonschema(schema, path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    assert breakage[0] in text and "phasewrap check " in text and "--junit check.xml" in text
    broken = tmp / name
    broken.write_text(text.replace(breakage[0], breakage[1]))
    assert _jsonschema(schema, broken).returncode == 1  # the schema does look at it


def _textfile_samples(path):
    from prometheus_client.parser import text_string_to_metric_families

    with open(path, encoding="utf-8") as fh:
        return [s for family in text_string_to_metric_families(fh.read()) for s in family.samples]


def test_nightly_script_saves_a_baseline_then_checks_and_writes_the_textfiles(tmp):
    script = os.path.join(CI, "nightly", "phasewrap-nightly.sh")
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    env.update(PHASEWRAP=f"{sys.executable} {os.path.join(ROOT, 'bin', 'phasewrap')}",
               PHASEWRAP_BASELINE_DIR=str(tmp / "store"), PHASEWRAP_OUT=str(tmp / "out"),
               PHASEWRAP_PROM_DIR=str(tmp / "prom"), PHASEWRAP_RUNS="5", PHASEWRAP_FAIL_IF="ttft>+50% decode.efficiency<0.1")
    args = ["bash", script, "--gpu", "off", "--ready", "model loaded", "--", *STANDIN, "--load-s", "0.05",
            "--ttft-s", "0.1", "--tokens", "3", "--interval-s", "0.01"]
    statuses = []
    for night in range(2):
        proc = subprocess.run(args, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
        statuses.append(proc.returncode)
        if night == 0:
            assert os.listdir(tmp / "store") == ["nightly.jsonl"] and "baseline nightly saved" in proc.stderr
    # the second night checks both thresholds; the efficiency isn't measured yet, so it can't tell: 4
    assert statuses == [0, 4], proc.stderr
    (report,) = [f for f in os.listdir(tmp / "out") if f.endswith(".check.json")]
    with open(tmp / "out" / report, encoding="utf-8") as fh:
        rows = json.load(fh)["metrics"]
    assert [(r["threshold"], r["outcome"]) for r in rows] == [("ttft>+50%", "pass"),
                                                              ("decode.efficiency<0.1", "cant_tell")]
    check = {s.name: s for s in _textfile_samples(tmp / "prom" / "phasewrap-check.prom")}
    assert check["phasewrap_check_status"].value == 4
    assert check["phasewrap_check_status"].labels == {"baseline": "nightly"}
    assert check["phasewrap_check_last_run_seconds"].value > 1.7e9
    phases = [s for s in _textfile_samples(tmp / "prom" / "phasewrap.prom") if s.name == "phasewrap_phase_seconds"]
    assert sorted(s.labels["phase"] for s in phases) == ["decode", "load", "total", "ttft"]
    reports = sorted(re.sub(r"^\d{8}T\d{6}Z", "NIGHT", r) for r in os.listdir(tmp / "out"))
    assert reports == ["NIGHT.check.json", "NIGHT.check.xml", "NIGHT.jsonl", "NIGHT.jsonl"]
    assert not [f for f in os.listdir(tmp / "prom") if f.startswith(".")]  # temp files renamed away


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_units_verify(tmp):
    with open(os.path.join(CI, "nightly", "phasewrap-nightly.service"), encoding="utf-8") as fh:
        service = fh.read()
    script = os.path.join(CI, "nightly", "phasewrap-nightly.sh")
    assert "ExecStart=/usr/local/bin/phasewrap-nightly.sh -- " in service
    (tmp / "phasewrap-nightly.service").write_text(service.replace("/usr/local/bin/phasewrap-nightly.sh", script))
    shutil.copy(os.path.join(CI, "nightly", "phasewrap-nightly.timer"), tmp)
    proc = subprocess.run(["systemd-analyze", "verify", "--man=no", str(tmp / "phasewrap-nightly.service"),
                           str(tmp / "phasewrap-nightly.timer")], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_json_report_is_the_result_as_json():
    result = _result()
    assert json.loads(check_report.to_json(result)) == json.loads(json.dumps(result))
