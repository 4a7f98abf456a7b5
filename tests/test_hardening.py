"""Hostile input, odd children, shared storage (issue 24): nothing lost, nothing escapes, nothing hangs.

Each test here failed before its fix; the issue's item number is in the test's name."""
import csv
import io
import json
import os
import sys

import pytest

from .conftest import run_phasewrap

QUIET = ["run", "--quiet", "--format", "none", "--gpu", "off", "--cpu", "off", "--no-env"]


def _record(**extra) -> dict:
    record = {"schema": "phasewrap.run/1", "run_id": "r1", "started_at": "2026-01-01T00:00:00Z", "status": "ok",
              "phases": {"load_s": 1.0, "ttft_s": 0.5, "decode_s": 2.0, "total_s": 3.5}, "tokens": {"output": 3}}
    record.update(extra)
    return record


def _one_line_usage_error(proc, *needles) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# 1. a carriage return in a tag is quoted: one run is one row

def test_1_a_carriage_return_in_a_tag_or_note_stays_in_its_cell():
    from wrapper.present.export import csvlog

    text, _ = csvlog.render([_record(tags={"v": "a\rb", "w": "x\ny"}, note="n\rfake,row")], None)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 2
    head, row = rows
    assert row[head.index("v")] == "a\rb" and row[head.index("w")] == "x\ny" and row[head.index("note")] == "n\rfake,row"


def test_1_a_tag_with_a_carriage_return_appends_one_row(tmp):
    path = tmp / "r.csv"
    proc = run_phasewrap(QUIET + ["-L", "v=a\rb", "--csv", str(path), "--", "echo", "{v}"])
    assert proc.returncode == 0, proc.stderr
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 2 and rows[1][rows[0].index("v")] == "a\rb"


# 6. CSV formula injection: OWASP's leading quote; the JSONL keeps the exact text

def test_6_formula_cells_are_neutralised_and_the_header_still_matches():
    from wrapper.present.export import csvlog

    record = _record(tags={"x": '=HYPERLINK("http://e.invalid")', "@k": "1", "+p": "-x"}, note="@SUM(1)")
    text, dropped = csvlog.render([record], None)
    head, row = list(csv.reader(io.StringIO(text, newline="")))
    for cell in head + row:
        assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
        assert not (cell.startswith("-") and cell != "-x" and not cell.lstrip("-").replace(".", "").isdigit())
    assert row[head.index("x")] == '\'=HYPERLINK("http://e.invalid")' and row[head.index("note")] == "'@SUM(1)"
    assert row[head.index("'@k")] == "1" and row[head.index("'+p")] == "'-x"
    # a second run appended under that header finds its columns (nothing dropped)
    again, dropped = csvlog.render([record], text.splitlines()[0])
    assert dropped == [] and list(csv.reader([again.strip()]))[0] == row


# 3. writability is checked by opening for append, and what the check created is removed

def test_3_a_jsonl_under_proc_is_refused_before_the_child_runs(tmp):
    marker = tmp / "started"
    proc = run_phasewrap(QUIET + ["--jsonl", "/proc/new.jsonl", "--", sys.executable, "-c",
                                  f"open({str(marker)!r}, 'w')"])
    _one_line_usage_error(proc, "--jsonl: cannot write /proc/new.jsonl")
    assert not marker.exists()


def test_3_the_check_leaves_no_file_behind(tmp):
    from wrapper.core.writer import check_writable

    check_writable("--jsonl", str(tmp / "new.jsonl"))
    assert os.listdir(tmp) == []


# 5. placeholder values become one safe path component, never a path

@pytest.mark.parametrize("fleet,needle", [
    ({"sweep_id": "../../esc", "host": "h", "shard": 0}, "_._.._esc"),
    ({"sweep_id": "s", "host": "evil/../../host", "shard": 0}, "evil_.._.._host"),
    ({"sweep_id": "a\x1b[2Jb", "host": "h", "shard": 0}, "a__2Jb"),
])
def test_5_placeholders_are_filled_with_one_path_component(fleet, needle):
    from wrapper.method import fleet as fl

    path = fl.expand("out/{sweep_id}-{host}-{shard}-{run_id}.jsonl", fleet, "../r")
    assert path.startswith("out/") and "/" not in path[len("out/"):] and needle in path


@pytest.mark.parametrize("env", [{"JOB_NAME": "../../esc", "JOB_COMPLETION_INDEX": "0"},
                                 {"SLURM_ARRAY_JOB_ID": "../../esc", "SLURM_ARRAY_TASK_ID": "0",
                                  "SLURM_ARRAY_TASK_COUNT": "1"}])
def test_5_a_scheduler_sweep_id_cannot_write_outside_the_directory(tmp, env):
    out = tmp / "a" / "b"
    out.mkdir(parents=True)
    shards = ["--shards", "1"] if "JOB_NAME" in env else []
    proc = run_phasewrap(QUIET + ["--shard", "auto", *shards, "--jsonl", "a/b/{sweep_id}.jsonl", "--", "true"],
                         cwd=tmp, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr
    assert os.listdir(tmp) == ["a"] and os.listdir(out) == ["_._.._esc.jsonl"]


@pytest.mark.parametrize("shard,env", [("\u0663/4", {}), ("1 /4", {}),
                                        ("auto", {"SLURM_ARRAY_TASK_ID": "\u0661", "SLURM_ARRAY_TASK_COUNT": "4"}),
                                        ("auto", {"SLURM_ARRAY_TASK_ID": "1_0", "SLURM_ARRAY_TASK_COUNT": "40"}),
                                        ("auto", {"SLURM_ARRAY_TASK_ID": " 1", "SLURM_ARRAY_TASK_COUNT": "4"}),
                                        ("auto", {"SLURM_ARRAY_TASK_ID": "+1", "SLURM_ARRAY_TASK_COUNT": "4"})])
def test_principles_a_shard_index_is_ascii_digits(shard, env):
    from wrapper.method import fleet as fl

    with pytest.raises(fl.ShardError):
        fl.parse_shard(shard, None, env)
