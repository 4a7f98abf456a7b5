"""The library as a notebook or an ops script uses it: ``import wrapper as phasewrap``, nothing else."""
import json
import os
import re
import subprocess
import sys

from .conftest import ROOT, STANDIN, run_phasewrap, json_record

API = ["run", "analyze", "compare", "diagnose", "plan", "merge", "by_host", "diagnose_by_host", "env", "plot",
       "report", "read_records", "file_dates", "RunRecords", "check", "baselines", "UsageError", "StartError",
       "GpuBusy", "__version__"]


def _python(code: str, cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=180)


def test_all_names_the_api_and_import_loads_nothing_else(tmp):
    out = _python("import sys, wrapper; print(wrapper.__all__); "
                  "print(sorted(m for m in sys.modules if m.startswith('wrapper')))", tmp)
    assert out.returncode == 0, out.stderr
    names, loaded = out.stdout.splitlines()
    assert names == repr(API)
    assert loaded == "['wrapper']"


def test_documented_api_runs_a_standin_twice_like_the_cli(tmp):
    """Two records with every key the CLI's record has, CPU figures in them, and findings from diagnose."""
    script = f"""
import json, wrapper as phasewrap
records = phasewrap.run({STANDIN + ["--load-s", "0.3", "--ttft-s", "0.05", "--tokens", "5"]!r}, ready="model loaded",
                        runs=2)
findings = phasewrap.diagnose(records)
print(json.dumps({{"records": records, "exit_status": records.exit_status,
                  "rules": [f.rule for f in findings]}}))
"""
    out = _python(script, tmp)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    cli = run_phasewrap(["run", "--quiet", "--format", "json", "--ready", "model loaded", "--", *STANDIN,
                         "--load-s", "0.3", "--ttft-s", "0.05", "--tokens", "5"])
    assert cli.returncode == 0, cli.stderr
    cli_record = json_record(cli)
    assert len(got["records"]) == 2 and got["exit_status"] == 0
    for rec in got["records"]:
        assert list(rec) == list(cli_record)
        assert rec["status"] == "ok" and rec["tokens"]["output"] == cli_record["tokens"]["output"]
        assert rec["resources"]["samplers"]["psutil"]["available"] is True
        assert rec["resources"]["load"]["cpu_pct_mean"] is not None
        assert rec["resources"]["load"]["rss_peak_mib"] > 0
    assert [r["repeat"] for r in got["records"]] == [{"index": 0, "of": 2}, {"index": 1, "of": 2}]
    # the stand-in sleeps through its load: its one load step is measured as a wait
    assert got["rules"] and got["rules"][0] in ("load_step_wait", "load_dominant", "decode_dominant", "ttft_dominant")


def test_errors_are_the_documented_exceptions(tmp):
    script = """
import wrapper as phasewrap
for call in (lambda: phasewrap.run(["no-such-program-here"]), lambda: phasewrap.run(["true"], ready="("),
             lambda: phasewrap.run(["true"], runs=0), lambda: phasewrap.analyze("missing.log"),
             lambda: phasewrap.diagnose("missing.jsonl")):
    try:
        call()
    except (phasewrap.StartError, phasewrap.UsageError) as exc:
        print("UsageError" if isinstance(exc, phasewrap.UsageError) else type(exc).__name__, "|", exc)
"""
    out = _python(script, tmp)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "StartError | no-such-program-here: command not found; check the name or give its full path",
        "UsageError | phasewrap run: --ready: invalid regex '(' (missing ), unterminated subpattern at position 0); "
        "fix the pattern or quote it for the shell",
        "UsageError | phasewrap run: runs must be a whole number >= 1, got 0",
        "UsageError | phasewrap analyze: missing.log: no such file or directory",
        "UsageError | missing.jsonl: no such file or directory",
    ]


def test_the_library_names_are_the_functions_after_the_layers_are_imported():
    import importlib

    import wrapper

    for module in ("sources.analyze", "method.compare", "method.diagnose", "present.plot", "method.merge"):
        importlib.import_module(f"wrapper.{module}")
    for name in ("analyze", "compare", "diagnose", "plot", "merge"):
        assert callable(getattr(wrapper, name)) and getattr(wrapper, name).__module__ == "wrapper.api"


def test_readme_library_examples_run(tmp):
    """Every python block of the README's Library section, run in order from a folder holding samples/."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    section = readme[readme.index("## Library"):readme.index("## The run record")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 4
    os.symlink(os.path.join(ROOT, "samples"), tmp / "samples")
    out = _python("\n".join(blocks), tmp)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["ok", "ok"]
    assert lines[2] == "exit status: 0"
    assert lines[-2] == ("could not start: no-such-program-here: command not found; check the name or give its "
                         "full path")
    assert lines[-1] == "phasewrap analyze: no-such-file.log: no such file or directory"
    assert len(open(tmp / "runs.jsonl").read().splitlines()) == 2
    assert len(os.listdir(tmp / "caps")) == 2


def test_a_run_that_prints_nothing_loads_no_framework_parser_nor_plotting(tmp):
    """Start-up: the log parsers load after the child exits, and only for output; plotting only for --plot."""
    out = subprocess.run([sys.executable, "-X", "importtime", os.path.join(ROOT, "bin", "phasewrap"), "run",
                          "--format", "none", "--gpu", "off", "--", "true"], cwd=tmp, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert out.returncode == 0, out.stderr
    loaded = {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "wrapper.sources.runner" in loaded
    assert not {m for m in loaded if m.startswith(("wrapper.derive.frameworks", "wrapper.present.plot", "wrapper.method.compare",
                                                    "wrapper.method.diagnose", "wrapper.sources.request", "matplotlib"))}


def test_a_library_caller_is_not_left_a_subreaper(tmp):
    """During a run phasewrap adopts the child's orphans (to name an escaped daemon); a notebook that called run()
    must not go on adopting its other children's orphans afterwards (they would stay zombies)."""
    script = """
import ctypes, sys, wrapper as phasewrap
prctl = ctypes.CDLL(None, use_errno=True).prctl
def subreaper():
    flag = ctypes.c_int(-1)
    assert prctl(37, ctypes.byref(flag), 0, 0, 0) == 0  # PR_GET_CHILD_SUBREAPER
    return flag.value
before = subreaper()
phasewrap.run([sys.executable, "-c", "print('hi')"], gpu="off", cpu="off")
print(before, subreaper())
"""
    out = _python(script, tmp)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "0"]
