"""Output files on full disks, closed stderr, foreign files and odd names: nothing lost, nothing half-written.

The full disk is real: a 64 KiB tmpfs (mounting needs root; without it those tests skip and say why) and
/dev/full, which fails every write with ENOSPC.
"""
import contextlib
import json
import os
import subprocess
import sys
import uuid

import pytest

from .conftest import PHASEWRAP, STANDIN, needs_mpl, read_jsonl, run_phasewrap

QUICK = [*STANDIN, "--load-s", "0.02", "--ttft-s", "0.02", "--tokens", "3", "--interval-s", "0.01"]
QUIET = ["run", "--quiet", "--format", "none", "--gpu", "off", "--cpu", "off", "--no-env"]


@contextlib.contextmanager
def small_fs(tmp, size="64k", options=""):
    """A real tmpfs of ``size`` mounted under ``tmp``; skips the test when mounting is not permitted."""
    path = tmp / f"fs-{uuid.uuid4().hex[:6]}"
    path.mkdir()
    opts = f"size={size}" + (f",{options}" if options else "")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(path)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({proc.stderr.decode().strip() or 'mount failed'}); "
                    "needs root")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(directory, leave_bytes=0):
    """Fill the file system of ``directory`` up; with ``leave_bytes``, free that much again (page-rounded)."""
    fd = os.open(directory / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    if leave_bytes:
        size = os.path.getsize(directory / "filler")
        os.truncate(directory / "filler", max(0, size - leave_bytes))


def stderr_lines(proc):
    return [line for line in proc.stderr.decode("utf-8", "replace").splitlines() if line.strip()]


def test_full_disk_jsonl_is_one_line_error_whole_lines_and_later_appends_are_clean(tmp):
    with small_fs(tmp) as fs:
        log = fs / "runs.jsonl"
        assert run_phasewrap(QUIET + ["--jsonl", str(log), "--", *QUICK]).returncode == 0
        before = log.read_bytes()
        # 4 KiB free, a record of ~12 KB: the write stops part-way (ENOSPC) and must be cut back
        fill(fs, leave_bytes=4096)
        big = "x" * 12000
        procs = [run_phasewrap(QUIET + ["--jsonl", str(log), "--tag", f"pad={big}", "--", *QUICK]) for _ in range(2)]
        for proc in procs:
            assert proc.returncode == 74, proc.stderr
            errors = [l for l in stderr_lines(proc) if "--jsonl" in l]
            assert errors == [f"phasewrap: --jsonl: cannot write {log} (No space left on device); free some space; "
                              "nothing of this record was written there"]
            assert b"Traceback" not in proc.stderr
            assert log.read_bytes() == before  # no partial line left behind
        os.unlink(fs / "filler")
        assert run_phasewrap(QUIET + ["--jsonl", str(log), "--tag", "after=1", "--", *QUICK]).returncode == 0
        records = read_jsonl(log)
        assert len(records) == 2 and records[1]["tags"] == {"after": "1"}


def test_dev_full_jsonl_keeps_the_childs_run_and_csv(tmp):
    csv_path = tmp / "runs.csv"
    proc = run_phasewrap(QUIET + ["--jsonl", "/dev/full", "--csv", str(csv_path), "--", *QUICK])
    assert proc.returncode == 74
    assert stderr_lines(proc)[0] == ("phasewrap: --jsonl: cannot write /dev/full (No space left on device); free "
                                     "some space; nothing of this record was written there")
    assert b"Traceback" not in proc.stderr
    assert len(csv_path.read_text().splitlines()) == 2  # the other output still got its row


def test_append_after_a_cut_off_line_starts_on_a_fresh_line(tmp):
    log = tmp / "runs.jsonl"
    log.write_text('{"schema": "phasewrap.run/1", "cut off her')
    assert run_phasewrap(QUIET + ["--jsonl", str(log), "--", *QUICK]).returncode == 0
    lines = log.read_text().splitlines()
    assert lines[0] == '{"schema": "phasewrap.run/1", "cut off her'
    assert json.loads(lines[1])["status"] == "ok"


def test_capture_on_a_full_disk_is_a_warning_and_the_healthy_jsonl_gets_the_record(tmp):
    log = tmp / "runs.jsonl"
    with small_fs(tmp) as fs:
        fill(fs, leave_bytes=4096)
        proc = run_phasewrap(["run", "--quiet", "--format", "none", "--capture", str(fs), "--jsonl", str(log),
                              "--", *STANDIN, "--load-s", "0.05", "--ttft-s", "0.05", "--tokens", "3000",
                              "--interval-s", "0.0002"])
        assert proc.returncode == 0, proc.stderr
        assert b"Traceback" not in proc.stderr
        rec = read_jsonl(log)[0]
        assert rec["status"] == "ok" and rec["phases"]["decode_s"] is not None
        assert rec["child"]["stdout_bytes"] > 12000  # the run was read to its end, past the failure
        capture = fs / f"{rec['run_id']}.capture.jsonl"
        warning = [w for w in rec["warnings"] if w.startswith("--capture")]
        assert warning == [f"--capture: writing {capture} stopped (No space left on device); the capture holds "
                           "the output up to then, this record has the whole run"]
        text = capture.read_text()
        assert text.endswith("\n") and all(json.loads(line) for line in text.splitlines())  # whole lines only


def test_capture_dir_with_no_room_for_a_file_is_a_warning(tmp):
    log = tmp / "runs.jsonl"
    with small_fs(tmp, options="nr_inodes=2") as fs:
        (fs / "taken").write_text("")  # the root and this file use both inodes
        proc = run_phasewrap(QUIET + ["--capture", str(fs), "--jsonl", str(log), "--", *QUICK])
        assert proc.returncode == 0, proc.stderr
        rec = read_jsonl(log)[0]
        assert f"--capture: cannot create a capture in {fs} (No space left on device); none was written" \
            in rec["warnings"]


@pytest.mark.parametrize("runs", ["1", "3"])
def test_closed_stderr_keeps_the_childs_status_and_every_record(tmp, runs):
    log = tmp / "runs.jsonl"
    child = f"{sys.executable} -c 'import sys; print(\"hi\"); sys.exit(3)'"
    script = f"{' '.join(PHASEWRAP)} run -n {runs} --jsonl {log} -- {child} 2>&-"
    proc = subprocess.run(["bash", "-c", script], stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    assert proc.returncode == 3
    assert [r["exit_code"] for r in read_jsonl(log)] == [3] * int(runs)


def _started(tmp):
    marker = tmp / "child-started"
    return marker, [sys.executable, "-c", f"open({str(marker)!r}, 'w')"]


@pytest.mark.parametrize("content", [b"name,age\nann,3\n", b"\x7fELF\x02\x01\x01\0\0\0\xff\xfe", b"\xff\xfe,a\n"])
def test_csv_onto_a_foreign_or_binary_file_is_refused_before_the_run(tmp, content):
    path = tmp / "other.csv"
    path.write_bytes(content)
    marker, child = _started(tmp)
    proc = run_phasewrap(QUIET + ["--csv", str(path), "--", *child])
    assert proc.returncode == 2
    lines = stderr_lines(proc)
    assert len(lines) == 1 and lines[0].startswith(f"--csv: {path} ") and "give a new file name" in lines[0]
    assert path.read_bytes() == content
    assert not marker.exists()


def test_csv_onto_its_own_log_still_appends(tmp):
    path = tmp / "log.csv"
    for _ in range(2):
        assert run_phasewrap(QUIET + ["--csv", str(path), "--", *QUICK]).returncode == 0
    assert len(path.read_text().splitlines()) == 3


def test_report_with_a_non_utf8_input_name_writes_it_escaped(tmp):
    records = tmp / "runs.jsonl"
    assert run_phasewrap(QUIET + ["--jsonl", str(records), "--", *QUICK]).returncode == 0
    odd = os.path.join(os.fsencode(tmp), b"r\xff.jsonl")
    os.rename(records, odd)
    out = tmp / "report.html"
    out.write_text("old report " * 7000)
    proc = subprocess.run(PHASEWRAP + ["report", os.fsdecode(odd), "-o", str(out)], capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 0, proc.stderr
    page = out.read_text(encoding="utf-8")
    assert "r\\xff.jsonl" in page and page.startswith("<!DOCTYPE html>")


def test_failing_report_leaves_the_existing_output_untouched(tmp):
    records = tmp / "runs.jsonl"
    assert run_phasewrap(QUIET + ["--jsonl", str(records), "--", *QUICK]).returncode == 0
    with small_fs(tmp) as fs:
        out = fs / "report.html"
        old = b"an older report\n" * 1000
        out.write_bytes(old)
        fill(fs)
        proc = run_phasewrap(["report", str(records), "-o", str(out)])
        assert proc.returncode == 2
        assert stderr_lines(proc) == [f"phasewrap report: report -o: cannot write {out} (No space left on device); "
                                      "free some space or choose another location"]
        assert out.read_bytes() == old
        assert sorted(os.listdir(fs)) == ["filler", "report.html"]  # no temp file left


def test_report_onto_a_read_only_file_system_is_one_line(tmp):
    records = tmp / "runs.jsonl"
    assert run_phasewrap(QUIET + ["--jsonl", str(records), "--", *QUICK]).returncode == 0
    with small_fs(tmp, options="ro") as fs:
        proc = run_phasewrap(["report", str(records), "-o", str(fs / "r.html")])
        assert proc.returncode == 2
        assert stderr_lines(proc) == [f"phasewrap report: report -o: cannot write {fs / 'r.html'} (Read-only file "
                                      "system); choose a writable location"]


def test_report_to_stdout(tmp):
    records = tmp / "runs.jsonl"
    assert run_phasewrap(QUIET + ["--jsonl", str(records), "--", *QUICK]).returncode == 0
    proc = run_phasewrap(["report", str(records), "-o", "-"])
    assert proc.returncode == 0 and proc.stdout.startswith(b"<!DOCTYPE html>")


@needs_mpl
def test_plot_to_stdout_and_onto_a_full_disk(tmp):
    records = tmp / "runs.jsonl"
    assert run_phasewrap(QUIET + ["--jsonl", str(records), "--", *QUICK]).returncode == 0
    proc = run_phasewrap(["plot", str(records), "-o", "-"])
    assert proc.returncode == 0 and proc.stdout.startswith(b"\x89PNG\r\n")
    with small_fs(tmp) as fs:
        out = fs / "t.png"
        out.write_bytes(b"old")
        fill(fs)
        proc = run_phasewrap(["plot", str(records), "-o", str(out)])
        assert proc.returncode == 2 and b"Traceback" not in proc.stderr
        assert out.read_bytes() == b"old"


def test_dash_appends_records_to_stdout_and_creates_no_file(tmp):
    proc = run_phasewrap(QUIET + ["-n", "2", "--csv", "-", "--", *QUICK], cwd=tmp)
    rows = proc.stdout.decode().splitlines()
    assert proc.returncode == 0 and len(rows) == 3 and rows[0].startswith("date_time,")  # one header
    proc = run_phasewrap(QUIET + ["--jsonl", "-", "--", *QUICK], cwd=tmp)
    assert json.loads(proc.stdout)["status"] == "ok"
    assert not (tmp / "-").exists()


def test_pretty_stream_is_pretty_in_pieces():
    from wrapper.present.export import jsonl

    for records in ([], [{"a": 1}], [{"a": {"b": [1, 2]}}, {"c": "x\ny", "d": None}]):
        assert "".join(jsonl.pretty_stream(iter(records))) == jsonl.pretty(records)
