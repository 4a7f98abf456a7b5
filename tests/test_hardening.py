"""Hostile input, odd children, shared storage (issue 24): nothing lost, nothing escapes, nothing hangs.

Each test here failed before its fix; the issue's item number is in the test's name."""
import csv
import io
import json
import os
import re
import subprocess
import sys

import pytest

from .conftest import PHASEWRAP, one_line_usage_error as _one_line_usage_error, run_phasewrap

QUIET = ["run", "--quiet", "--format", "none", "--gpu", "off", "--cpu", "off", "--no-env"]


def _record(**extra) -> dict:
    record = {"schema": "phasewrap.run/1", "run_id": "r1", "started_at": "2026-01-01T00:00:00Z", "status": "ok",
              "phases": {"load_s": 1.0, "ttft_s": 0.5, "decode_s": 2.0, "total_s": 3.5}, "tokens": {"output": 3}}
    record.update(extra)
    return record


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


def test_3_the_check_of_a_new_file_never_removes_another_writers_record(tmp, monkeypatch):
    """Eight runs sharing one --jsonl: a run's check of the new file must not delete it under a record another
    run appends meanwhile (the check once created the file itself and removed it)."""
    from wrapper.core import writer

    path = tmp / "runs.jsonl"
    real_close = os.close

    def close_then_another_run_appends(fd):
        real_close(fd)
        with open(path, "a") as fh:
            fh.write('{"run_id": "other"}\n')
    monkeypatch.setattr(writer.os, "close", close_then_another_run_appends)
    writer.check_writable("--jsonl", str(path))
    monkeypatch.undo()
    assert path.read_text() == '{"run_id": "other"}\n' and os.listdir(tmp) == ["runs.jsonl"]


def test_3_a_file_name_too_long_for_its_directory_is_refused(tmp):
    from wrapper.core.writer import OutputPathError, check_writable

    with pytest.raises(OutputPathError, match="cannot write"):
        check_writable("--jsonl", str(tmp / ("x" * 300 + ".jsonl")))


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


# 2, 4, 13. a record is validated once when read: a bad line is skipped with one line naming the file, the line
# and the field; the rest is used; non-finite numbers are null with a reason, and no output holds NaN

def _golden_record() -> dict:
    import gzip

    from .conftest import fixture

    with gzip.open(fixture("golden", "records.json.gz")) as fh:
        records = json.load(fh)["events/h200-transformers-cold-p512.events.jsonl"]
    return records[0] if isinstance(records, list) else records


def _cli(capfd, *argv) -> tuple[int, str, str]:
    """``phasewrap ARGV`` in this process (the readers are what is tested, not the start-up); the CLI's hold on
    the ``phasewrap`` logger is undone after, so later tests still see its records."""
    import logging

    from wrapper import cli

    logger = logging.getLogger("phasewrap")
    saved = (list(logger.handlers), logger.propagate, logger.level)
    try:
        code = cli.main(list(argv))
    finally:
        logger.handlers[:], logger.propagate, logger.level = saved[0], saved[1], saved[2]
    out, err = capfd.readouterr()
    return code, out, err


def _every_reader(capfd, tmp, path) -> dict:
    """Each record reader's (exit status, stdout, stderr) on ``path``."""
    out = {name: _cli(capfd, *argv) for name, argv in {
        "diagnose": ["diagnose", str(path)],
        "compare": ["compare", str(path), str(path)],
        "report": ["report", str(path), "-o", str(tmp / "r.html")],
        "merge": ["merge", str(path), "-o", str(tmp / "m.jsonl")],
        "plot": ["plot", str(path), "-o", str(tmp / "p.svg")]}.items()}
    out["report"] = out["report"][:2] + (out["report"][2] + (tmp / "r.html").read_text(),)
    out["merge"] = out["merge"][:2] + (out["merge"][2] + (tmp / "m.jsonl").read_text(),)
    return out


def test_2_a_line_that_is_not_utf8_is_skipped_and_the_good_records_kept(tmp, capfd):
    from wrapper.sources.records_io import read_records

    good = _golden_record()
    path = tmp / "u.jsonl"
    path.write_bytes(json.dumps(good).encode() + b"\nx\xff\n" + json.dumps({**good, "run_id": "r2"}).encode()
                     + b"\n")
    records, skipped = read_records(str(path))
    assert [r["run_id"] for r in records] == [good["run_id"], "r2"]
    assert skipped == [(2, "not UTF-8 text at column 2")]
    for name, (code, out, err) in _every_reader(capfd, tmp, path).items():
        assert code == 0, (name, err)
        assert f"{path}: line 2" in err and "not UTF-8 text" in err, (name, err)
    merged = [json.loads(line) for line in (tmp / "m.jsonl").read_text().splitlines()]
    assert len(merged) == 2


ODD_FIELDS = [("env", 5), ("tokens", "x"), ("tokens", {"output": "x"}), ("reported", [1]), ("tags", "str"),
              ("tags", {"k": [1]}), ("markers", 3), ("markers", {"ready": 1}), ("stalls", "s"), ("stalls", [1]),
              ("fleet", "h"), ("fleet", {"host": 5}), ("resources", 1), ("missing", [1]), ("warnings", [1]),
              ("command", "ls"), ("status", 1), ("load_steps", {}), ("cache", 1), ("phases", {"load_s": "1"})]


@pytest.mark.parametrize("key,value", ODD_FIELDS)
def test_4_a_record_with_an_odd_field_type_is_skipped_naming_the_field(tmp, key, value):
    from wrapper.sources.records_io import read_records

    good = _golden_record()
    path = tmp / "odd.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "run_id": "bad", key: value}) + "\n")
    records, skipped = read_records(str(path))
    assert [r["run_id"] for r in records] == [good["run_id"]]
    assert len(skipped) == 1 and skipped[0][0] == 2 and f'"{key}' in skipped[0][1], skipped


@pytest.mark.parametrize("key,value", [("env", 5), ("tokens", {"output": "x"}), ("reported", [1]), ("tags", "str"),
                                       ("markers", 3), ("stalls", "s"), ("fleet", "h")])
def test_4_no_reader_crashes_on_an_odd_record_beside_good_ones(tmp, capfd, key, value):
    good = _golden_record()
    path = tmp / "odd.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "run_id": "bad", key: value}) + "\n")
    for name, (code, out, err) in _every_reader(capfd, tmp, path).items():
        assert code == 0 and "Traceback" not in err, (name, err)
        assert f"{path}: line 2" in err and f'"{key}' in err, (name, err)


def test_4_a_line_nested_100000_deep_is_skipped(tmp, capfd):
    good = _golden_record()
    path = tmp / "deep.jsonl"
    path.write_text(json.dumps(good) + "\n" + "[" * 100000 + "]" * 100000 + "\n"
                    + '{"schema": "phasewrap.run/1", "run_id": "d", "phases": {}, "env": ' + "[" * 500 + "]" * 500
                    + "}\n")
    for name, (code, out, err) in _every_reader(capfd, tmp, path).items():
        assert code == 0 and "Recursion" not in err, (name, err)
        for line in (2, 3):
            assert f"{path}: line {line}" in err and "nested deeper than" in err, (name, err)


NON_FINITE = re.compile(r"\b(nan|inf|infinity)\b", re.I)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_13_non_finite_numbers_are_null_with_a_reason_and_never_reach_an_output(tmp, capfd, text):
    from wrapper.sources.records_io import read_records

    good = _golden_record()
    bad = json.dumps({**good, "run_id": "r13"}).replace('"load_s": ', f'"load_s": {text}, "was": ', 1)
    path = tmp / "n.jsonl"
    path.write_text(json.dumps(good) + "\n" + bad + "\n")
    records, skipped = read_records(str(path))
    assert skipped == [] and records[1]["phases"]["load_s"] is None
    shown = "a number beyond the float range" if text == "1e999" else text
    assert {"field": "phases.load_s", "reason": f"{shown} in {path} line 2 is not a finite number"} \
        in records[1]["missing"]
    for name, (code, out, err) in _every_reader(capfd, tmp, path).items():
        assert code == 0, (name, err)
        shown = [line for line in (out + err).splitlines() if "not a finite number" not in line]
        assert not [line for line in shown if NON_FINITE.search(line)], name


def test_13_json_and_prometheus_outputs_never_hold_nan():
    from wrapper.present.export import jsonl, prometheus

    pytest.importorskip("prometheus_client")
    record = _record(ms_per_token=float("nan"), tokens_per_s=float("inf"))
    record["phases"]["load_s"] = float("-inf")
    for text in (jsonl.line(record), jsonl.pretty([record]), prometheus.serialize([record]).decode()):
        assert not NON_FINITE.search(text), text
    assert json.loads(jsonl.line(record))["phases"]["load_s"] is None


# 8. inputs are regular files (or -): a FIFO, a device, a folder holding a FIFO, a dangling symlink are refused
# by name; a line past the documented limit is skipped with a message

READERS = {"analyze": lambda p, tmp: ["analyze", p], "compare": lambda p, tmp: ["compare", p, p],
           "diagnose": lambda p, tmp: ["diagnose", p], "merge": lambda p, tmp: ["merge", p, "-o", str(tmp / "m.jsonl")],
           "plot": lambda p, tmp: ["plot", p, "-o", str(tmp / "p.svg")],
           "report": lambda p, tmp: ["report", p, "-o", str(tmp / "r.html")]}


def _not_regular(tmp, kind) -> tuple[str, str]:
    """(input path, the words its error must hold)."""
    if kind == "fifo":
        os.mkfifo(tmp / "in.jsonl")
        return str(tmp / "in.jsonl"), "is a FIFO, not a regular file"
    if kind == "zero":
        return "/dev/zero", "/dev/zero: is a character device, not a regular file"
    if kind == "dangling":
        os.symlink(tmp / "gone.jsonl", tmp / "in.jsonl")
        return str(tmp / "in.jsonl"), "dangling symlink"
    folder = tmp / "caps"
    folder.mkdir()
    os.mkfifo(folder / ("x.capture.jsonl" if kind == "fifo-in-capture-folder" else "x.jsonl"))
    return str(folder), "x."


@pytest.mark.parametrize("kind", ["fifo", "zero", "dangling"])
@pytest.mark.parametrize("command", sorted(READERS))
def test_8_an_input_that_is_not_a_regular_file_is_refused_by_name(tmp, kind, command):
    path, words = _not_regular(tmp, kind)
    proc = run_phasewrap(READERS[command](path, tmp), timeout=30)
    _one_line_usage_error(proc, words)


@pytest.mark.parametrize("command,kind", [("merge", "fifo-in-folder"), ("analyze", "fifo-in-capture-folder"),
                                          ("report", "fifo-in-capture-folder"), ("plot", "fifo-in-capture-folder")])
def test_8_a_folder_holding_a_fifo_is_refused_by_name(tmp, command, kind):
    path, words = _not_regular(tmp, kind)
    proc = run_phasewrap(READERS[command](path, tmp), timeout=30)
    _one_line_usage_error(proc, words, "is a FIFO, not a regular file")


def test_8_a_line_longer_than_the_limit_is_skipped_with_a_message(tmp, capfd, monkeypatch):
    from wrapper.sources import inputs
    from wrapper.sources.records_io import read_records

    monkeypatch.setattr(inputs, "MAX_LINE_BYTES", 65536)
    good = _golden_record()
    path = tmp / "long.jsonl"
    path.write_text(json.dumps(good) + "\n" + "x" * 100000 + "\n" + json.dumps({**good, "run_id": "r3"}) + "\n")
    records, skipped = read_records(str(path))
    assert [r["run_id"] for r in records] == [good["run_id"], "r3"]
    assert skipped == [(2, "longer than 65536 bytes")]


def test_8_records_can_be_read_from_stdin(tmp):
    good = _golden_record()
    proc = subprocess.run(PHASEWRAP + ["diagnose", "-"], input=(json.dumps(good) + "\n").encode(),
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


# 12. malformed casts, events files and captures: one line, exit 2, no traceback; a capture's good lines kept

CAST_HEAD = '{"version": 2, "width": 80, "height": 24}\n'
EVENTS_HEAD = '{"wall_start": 1796149306.5, "cmd": ["llama-cli"]}\n'
CAPTURE_HEAD = {"type": "header", "schema": "phasewrap.capture/1", "run_id": "c1", "t0_monotonic_ns": 1000,
                "wall_t0_s": 1796149306.5, "started_at": "2026-12-01T18:21:46.699Z", "command": ["x"],
                "profile": "generic", "pty": False, "pid": 1}


@pytest.mark.parametrize("name,text,needle", [
    ("a.cast", CAST_HEAD + '[0.1, "o", "hi"]\n[1e999, "o", "x"]\n', "a.cast:3: "),
    ("b.cast", CAST_HEAD + '[0.1, "o", "hi"]\n[0.5, "o", 5]\n', "b.cast:3: "),
    ("c.cast", '{"version": 2, "width": 80, "height": 24, "timestamp": "x"}\n[0.1, "o", "hi"]\n', "c.cast:1: "),
    ("d.events.jsonl", '{"wall_start": 1, "cmd": 5}\n[0.1, "out", "hi"]\n', "d.events.jsonl:1: "),
    ("e.events.jsonl", EVENTS_HEAD + '[0.1, "out", "hi"]\n["a","out","x"]\n', "e.events.jsonl:3: "),
    ("f.events.jsonl", EVENTS_HEAD + '[0.1, "out", "hi"]\n{"t_end": "x"}\n', "f.events.jsonl:3: "),
    ("g.events.jsonl", '{"wall_start": NaN, "cmd": ["x"]}\n[0.1, "out", "hi"]\n', "g.events.jsonl:1: "),
    ("h.capture.jsonl", json.dumps({**CAPTURE_HEAD, "t0_monotonic_ns": "x"}) + "\n", "h.capture.jsonl:1: "),
    ("i.capture.jsonl", json.dumps({**CAPTURE_HEAD, "wall_t0_s": None}) + "\n", "i.capture.jsonl:1: "),
])
def test_12_a_malformed_recording_is_one_line_exit_2(tmp, name, text, needle):
    (tmp / name).write_text(text)
    _one_line_usage_error(run_phasewrap(["analyze", str(tmp / name)], timeout=60), needle)


def test_12_bad_capture_lines_are_skipped_and_the_good_ones_kept(tmp):
    from wrapper.sources.capture import read_capture

    lines = [CAPTURE_HEAD, [5, "out", "hi"], [1e999, "out", "x"], [6, "out", 5], [7, 3, "x"], ["8", "out", "x"],
             {"type": "sample", "t_ns": 1e999, "source": "s", "device": 0, "values": {}},
             {"type": "sample", "t_ns": 9, "source": "s", "device": 0, "values": 3},
             {"type": "record", "record": {"schema": "phasewrap.run/1", "run_id": "c1", "phases": {}, "env": 5}},
             {"type": "exit", "exit_code": 0}, {"type": "exit", "t_ns": 10, "exit_code": 0, "status": "ok"}]
    path = tmp / "c.capture.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines).replace("1e+999", "1e999") + "\n")
    cap = read_capture(str(path))
    assert [c.data for c in cap.chunks] == [b"hi"] and cap.samples == [] and cap.record is None
    assert cap.skipped_lines == [3, 4, 5, 6, 7, 8, 9, 10] and cap.exit["t_ns"] == 10
    proc = run_phasewrap(["analyze", "--format", "json", str(path)], timeout=60)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr


def test_12_report_on_a_capture_folder_with_a_dangling_symlink_is_one_line(tmp):
    folder = tmp / "caps"
    folder.mkdir()
    (folder / "a.capture.jsonl").write_text(json.dumps(CAPTURE_HEAD) + "\n")
    os.symlink(tmp / "gone", folder / "b.capture.jsonl")
    proc = run_phasewrap(["report", str(folder), "-o", str(tmp / "r.html")], timeout=60)
    _one_line_usage_error(proc, "b.capture.jsonl: a dangling symlink")


# 7. nothing from the child, a log or the environment reaches a terminal as a control character

RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HOSTILE = "\x9b2J\x9d0;title\x07\x08\x1b[31mred\x1b]0;t\x07"
HOSTILE_CHILD = ("import sys; sys.stderr.write('load \\x9b2J weights\\nmodel loaded\\x07\\x1b[2J\\n'); "
                 "sys.stderr.flush(); print('tok\\x9d0;evil\\x07 \\x08x' * 3, flush=True)")


def test_7_the_run_summary_and_json_hold_no_control_character_from_the_child(tmp):
    argv = ["run", "--quiet", "--gpu", "off", "--cpu", "off", "--ready", "model loaded", "--tag", f"t={HOSTILE}",
            "--note", HOSTILE, "--jsonl", str(tmp / "r.jsonl")]
    proc = run_phasewrap(argv + ["--", sys.executable, "-c", HOSTILE_CHILD])
    assert proc.returncode == 0, proc.stderr
    assert not RAW_CONTROL.search(proc.stderr.decode()), proc.stderr
    proc = run_phasewrap(argv[:1] + ["--format", "json"] + argv[1:] + ["--", sys.executable, "-c", HOSTILE_CHILD])
    text = proc.stdout.decode()
    assert not RAW_CONTROL.search(text.replace("\n", "")) and json.loads(text)[0]["note"] == HOSTILE
    recorded = [json.loads(line) for line in (tmp / "r.jsonl").read_text().splitlines()]
    assert [r["note"] for r in recorded] == [HOSTILE, HOSTILE]  # the JSONL keeps the exact text


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_7_analyze_output_holds_no_control_character_from_the_log(tmp, fmt):
    log = tmp / "a.cast"
    log.write_text(CAST_HEAD + json.dumps([0.1, "o", "load \x9b2J\r\n"]) + "\n"
                   + json.dumps([0.2, "o", f"tok{HOSTILE}\r\n"]) + "\n")
    proc = run_phasewrap(["analyze", "--ready", "load", "--format", fmt, str(log)], timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert not RAW_CONTROL.search((proc.stdout + proc.stderr).decode().replace("\n", "")), proc.stdout


def test_7_diagnose_and_compare_render_no_control_character(tmp, capfd):
    good = _golden_record()
    hostile = {**good, "run_id": f"r{HOSTILE}", "tags": {f"k{HOSTILE}": HOSTILE}, "note": HOSTILE,
               "load_steps": [{"name": f"step{HOSTILE}", "kind": "cpu-single", "start_s": 0.0, "end_s": 0.5,
                                "dur_s": 0.5, "evidence": HOSTILE}]}
    path = tmp / "h.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(hostile) + "\n")
    for argv in (["diagnose", str(path)], ["compare", str(path), str(path)], ["diagnose", "--by", "host", str(path)],
                 ["merge", str(path), "-o", "-"]):
        code, out, err = _cli(capfd, *argv)
        assert "line 2" not in err
        assert code == 0 and not RAW_CONTROL.search((out + err).replace("\n", "")), (argv, out + err)


def test_7_a_file_name_in_another_encoding_is_named_escaped(tmp):
    name = os.fsencode(str(tmp)) + b"/caf\xe9.jsonl"
    with open(name, "wb") as fh:
        fh.write(b"{}\n")
    proc = run_phasewrap(["diagnose", os.fsdecode(name)], timeout=60)
    line = _one_line_usage_error(proc, "caf\\xe9.jsonl")
    assert "Traceback" not in line


# 10. --request with no ready marker would wait forever: refused up front

def test_10_request_without_a_ready_marker_is_refused_before_the_start(tmp):
    marker = tmp / "started"
    proc = run_phasewrap(QUIET + ["--request", "hi", "--", sys.executable, "-c", f"open({str(marker)!r}, 'w')"],
                         timeout=30)
    _one_line_usage_error(proc, "--request needs --ready")
    assert not marker.exists()


# 9, 11. every process the run started is stopped, whatever process group it moved to; every descendant still
# alive at the end is named (a daemon that left the session with setsid is named, not stopped: test_signals)

def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _wait_dead(pid: int, within_s: float) -> bool:
    from .conftest import poll

    return poll(lambda: not _alive(pid), within_s)


def test_9_a_child_that_moved_into_phasewraps_group_is_stopped_by_the_timeout(tmp):
    import time

    pidfile = tmp / "child.pid"
    child = ("import os, time\n"
             "os.setpgid(0, os.getpgid(os.getppid()))\n"
             f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
             "time.sleep(20)\n")
    started = time.monotonic()
    proc = run_phasewrap(QUIET + ["--timeout", "1", "--kill-grace", "1", "--jsonl", str(tmp / "r.jsonl"), "--",
                                  sys.executable, "-c", child], timeout=60)
    elapsed_s = time.monotonic() - started
    pid = int(pidfile.read_text())
    try:
        assert elapsed_s < 10, elapsed_s
        assert json.loads((tmp / "r.jsonl").read_text())["status"] == "timeout"
        assert _wait_dead(pid, 2.0)
    finally:
        if _alive(pid):
            os.kill(pid, 9)


@pytest.mark.parametrize("move", ["own group", "phasewrap's group"])
def test_11_a_grandchild_in_another_group_is_named_and_stopped(tmp, move):
    pidfile = tmp / "grandchild.pid"
    target = "0" if move == "own group" else "os.getpgid(os.getppid())"
    child = ("import os, time\n"
             "ppgid = os.getpgid(os.getppid())\n"
             "if os.fork() == 0:\n"
             f"    os.setpgid(0, {target if move == 'own group' else 'ppgid'})\n"
             "    open('/proc/self/comm', 'w').write('ev\\x1b[2J\\x9bil')\n"
             "    null = os.open(os.devnull, os.O_RDWR)\n"
             "    for fd in (0, 1, 2):\n"
             "        os.dup2(null, fd)\n"
             f"    open({str(pidfile)!r} + '.tmp', 'w').write(str(os.getpid()))\n"
             f"    os.rename({str(pidfile)!r} + '.tmp', {str(pidfile)!r})\n"
             "    time.sleep(30)\n"
             "    os._exit(0)\n"
             f"while not os.path.exists({str(pidfile)!r}):\n"
             "    time.sleep(0.01)\n")
    proc = run_phasewrap(QUIET + ["--format", "table", "--jsonl", str(tmp / "r.jsonl"), "--",
                                  sys.executable, "-c", child], timeout=60)
    pid = int(pidfile.read_text())
    try:
        assert proc.returncode == 0, proc.stderr
        rec = json.loads((tmp / "r.jsonl").read_text())
        details = [w["text"] for w in rec["warning_details"] if w["kind"] == "escaped_process"]
        assert len(details) == 1 and details[0].startswith(f"pid {pid} (ev"), details
        assert not RAW_CONTROL.search(details[0]) and "stopped it" in details[0]
        assert not RAW_CONTROL.search(proc.stderr.decode())
        assert _wait_dead(pid, 2.0)
    finally:
        if _alive(pid):
            os.kill(pid, 9)


# 14. a server phasewrap stopped after a complete request: the run exits 0 unless it failed on its own

def test_14_a_server_killed_by_phasewraps_own_sigterm_exits_the_run_0(tmp):
    import socket

    from .conftest import STANDIN

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = [sys.executable, os.path.join(os.path.dirname(STANDIN[1]), "standin_server.py")]
    proc = run_phasewrap(QUIET + ["--ready", "listening on", "--request", "hi", "--max-tokens", "3", "--jsonl",
                                  str(tmp / "r.jsonl"), "--", *server, "--port", str(port), "--load-s", "0.1",
                                  "--ttft-s", "0.05", "--interval-s", "0.01", "--sigterm", "default"], timeout=60)
    rec = json.loads((tmp / "r.jsonl").read_text())
    assert rec["status"] == "ok" and rec["child"]["stop_reason"] == "request complete"
    assert rec["child"]["signal"] == 15  # the record keeps what happened
    assert proc.returncode == 0, proc.stderr


# Principles: strict option values, an empty command, any path in any encoding, the real cause

@pytest.mark.parametrize("option,value,needle", [
    ("-n", "\u0663", "--runs expects a whole number"), ("-n", " 3", "--runs expects a whole number"),
    ("-n", "3_0", "--runs expects a whole number"), ("--timeout", "\u0661", "--timeout expects seconds"),
    ("--interval", "1_0", "--interval expects seconds"), ("--url", "http://host", "--url: 'http://host' has no port"),
])
def test_principles_option_values_are_parsed_strictly(tmp, option, value, needle):
    marker = tmp / "started"
    extra = ["--request", "hi", "--ready", "x"] if option == "--url" else []
    proc = run_phasewrap(QUIET + [option, value, *extra, "--", sys.executable, "-c", f"open({str(marker)!r}, 'w')"])
    _one_line_usage_error(proc, needle)
    assert not marker.exists()


@pytest.mark.parametrize("argv,needle", [(QUIET + ["--"], "no command given"), (QUIET + ["--", ""], "no command given"),
                                         (["plan", "--"], "no command given"), (["plan"], "no command given"),
                                         (["env", "--", ""], "the command's name is empty")])
def test_principles_an_empty_command_is_a_usage_error(argv, needle):
    _one_line_usage_error(run_phasewrap(argv), needle)


def test_principles_a_directory_is_not_permission_denied(tmp):
    proc = run_phasewrap(QUIET + ["--", str(tmp)])
    err = proc.stderr.decode()
    assert proc.returncode == 127 and "is a directory" in err and "permission" not in err, err


def test_principles_a_program_at_a_path_in_another_encoding_runs_and_is_named_escaped(tmp):
    program = os.fsencode(str(tmp)) + b"/caf\xe9"
    with open(program, "w") as fh:
        fh.write("#!/bin/sh\necho hi\n")
    os.chmod(program, 0o755)
    jsonl = os.fsencode(str(tmp)) + b"/r\xe9.jsonl"
    proc = run_phasewrap(["run", "--quiet", "--gpu", "off", "--cpu", "off", "--no-env", "--jsonl",
                          os.fsdecode(jsonl), "--", os.fsdecode(program)])
    assert proc.returncode == 0, proc.stderr
    assert b"\xe9" not in proc.stderr
    with open(jsonl, "rb") as fh:
        record = json.loads(fh.read())
    assert record["command"] == [os.fsdecode(program)] and record["status"] == "ok"


def test_principles_a_side_file_that_is_a_device_is_named_as_such(tmp):
    log = tmp / "plain.log"
    log.write_text("hello\n")
    _one_line_usage_error(run_phasewrap(["analyze", "--dmon", "/dev/zero", str(log)]),
                          "--dmon: /dev/zero is not a regular file")


def test_8_plot_reads_records_from_stdin(tmp):
    good = _golden_record()
    proc = subprocess.run(PHASEWRAP + ["report", "-", "-o", str(tmp / "r.html")],
                          input=(json.dumps(good) + "\n").encode(), capture_output=True, timeout=60)
    assert proc.returncode == 0 and good["run_id"] in (tmp / "r.html").read_text(), proc.stderr


@pytest.mark.parametrize("argv,needle", [(["merge", "x.jsonl", "-o", "out.txt"], "-o: 'out.txt': give a file name ending in .jsonl"),
                                         (["report", "x.jsonl", "-o", "r.txt"], "-o: 'r.txt': give a file name ending in .html")])
def test_principles_an_output_extension_is_one_the_readme_lists(tmp, argv, needle):
    _one_line_usage_error(run_phasewrap(argv, cwd=tmp), needle)
    assert os.listdir(tmp) == []


def test_principles_an_output_fifo_without_a_reader_is_named_so(tmp):
    os.mkfifo(tmp / "out.jsonl")
    _one_line_usage_error(run_phasewrap(QUIET + ["--jsonl", str(tmp / "out.jsonl"), "--", "true"], timeout=30),
                          "a FIFO with no reader")


def test_4_arrays_nested_just_under_the_decoders_limit_are_skipped(tmp):
    from wrapper.sources.records_io import read_records

    path = tmp / "deep.jsonl"
    path.write_text(json.dumps(_golden_record()) + "\n" + "[" * 990 + "]" * 990 + "\n")
    records, skipped = read_records(str(path))
    # which of the two reasons depends on how deep the caller's stack already is; either way, no RecursionError
    assert len(records) == 1 and skipped in ([(2, "not a run record: a JSON array inside an array")],
                                             [(2, "nested deeper than 64 levels")])
