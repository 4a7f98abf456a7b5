"""The front a person meets: output that fits the terminal, one JSON shape, the CSV columns people use, the
command line's help, and the small defects that cost trust (issue 23, items 5 and 6)."""
import csv
import io
import json
import logging
import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT, STANDIN, fixture, run_phasewrap
from wrapper.present import style

QUICK = ["--ready", "model loaded"]
FAST = ["--", *STANDIN, "--load-s", "0.05", "--ttft-s", "0.02", "--tokens", "4", "--interval-s", "0.01"]


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    env.update(extra)
    return env


def _lines(data: bytes) -> list:
    return data.decode("utf-8", "replace").splitlines()


# -- output that fits ----------------------------------------------------------------------------------------

def test_a_sweep_summary_fits_100_columns_at_columns_80():
    proc = run_phasewrap(["run", "-n", "3", "-L", "a=1,2", "-q", *QUICK, "--", *STANDIN, "--load-s", "0.05",
                          "--ttft-s", "0.02", "--tokens", "4", "--interval-s", "0.01", "-p", "Hi {a}"],
                         env=_env(COLUMNS="80"))
    assert proc.returncode == 0, proc.stderr.decode()
    lines = _lines(proc.stderr)
    assert any(line.startswith("load s") or " load s " in line for line in lines)  # the table is there
    too_wide = [line for line in lines if len(line) > 100]
    assert too_wide == []
    assert "\033[" not in proc.stderr.decode()  # a pipe gets no colour


def test_long_tag_values_and_long_runs_still_fit_100_columns():
    from wrapper.present.export import summary

    model = "/models/very/long/path/to/Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf"
    records = [{"run_id": f"r{ctx}{i}", "status": "ok", "tags": {"model": model, "ctx": ctx},
                "cache": {"label": "partial"}, "ms_per_token": 12.34,
                "phases": {"load_s": 1.0 + i / 10, "ttft_s": 0.1, "decode_s": 12.3456, "total_s": 123.456 + i}}
               for ctx in ("512", "131072") for i in range(3)]
    text = summary.render_runs(records, ("model", "ctx"), 80)
    assert max(map(len, text.splitlines())) <= 100
    assert "124.5" in text and "123.5–125.5" in text and "12.35–12.35" in text  # 4 significant digits
    assert "".join(line[:10] for line in text.splitlines()[4:11]).startswith(model)  # folded, not cut


def test_diagnosis_prose_folds_to_columns(tmp):
    jsonl = tmp / "runs.jsonl"
    assert run_phasewrap(["run", "-q", "--format", "none", "--jsonl", str(jsonl), *QUICK, *FAST]).returncode == 0
    for columns in ("60", "200"):
        proc = run_phasewrap(["diagnose", str(jsonl)], env=_env(COLUMNS=columns))
        lines = _lines(proc.stdout)
        assert lines and max(map(len, lines)) <= int(columns)
    narrow = _lines(run_phasewrap(["diagnose", str(jsonl)], env=_env(COLUMNS="60")).stdout)
    wide = _lines(run_phasewrap(["diagnose", str(jsonl)], env=_env(COLUMNS="200")).stdout)
    assert len(narrow) > len(wide)  # folded, not cut
    assert " ".join(" ".join(narrow).split()) == " ".join(" ".join(wide).split())


def test_not_checked_lines_only_with_verbose(tmp):
    jsonl = tmp / "runs.jsonl"
    assert run_phasewrap(["run", "-q", "--format", "none", "--gpu", "off", "--cpu", "off", "--jsonl", str(jsonl),
                          *QUICK, *FAST]).returncode == 0
    plain = run_phasewrap(["diagnose", str(jsonl)]).stdout.decode()
    verbose = run_phasewrap(["diagnose", "-v", str(jsonl)]).stdout.decode()
    assert "[not checked]" not in plain and "vram_used_peak_mib" not in plain
    assert plain.count("-v lists them") == 1
    assert "[not checked]" in verbose and "vram_used_peak_mib" in verbose and "-v lists them" not in verbose
    run = run_phasewrap(["run", "-q", "--gpu", "off", "--cpu", "off", *QUICK, *FAST]).stderr.decode()
    assert "[not checked]" not in run and "-v lists them" in run


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    painted = style.paint("load    0.100\nwarning: x", True)
    assert "\033[" in painted and style.paint("load 1\nwarning: x", False) == "load 1\nwarning: x"
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=False) as tty:
            monkeypatch.delenv("NO_COLOR", raising=False)
            monkeypatch.setenv("TERM", "xterm")
            assert style.colour_on(tty)
            monkeypatch.setenv("NO_COLOR", "1")
            assert not style.colour_on(tty)
        assert not style.colour_on(io.StringIO())
    finally:
        os.close(master)
        os.close(slave)


def test_width_comes_from_columns_else_80_without_a_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "123")
    assert style.width(2) == 123
    monkeypatch.delenv("COLUMNS")
    r, w = os.pipe()
    try:
        assert style.width(w) == 80
    finally:
        os.close(r)
        os.close(w)


def test_progress_says_run_elapsed_and_eta_and_is_off_in_a_pipe():
    shown = run_phasewrap(["run", "-n", "3", "-q", "--progress", *QUICK, *FAST]).stderr.decode()
    assert "run 1/3" in shown and "run 3/3" in shown
    third = next(line for line in shown.splitlines() if "run 3/3" in line)
    assert " elapsed, ETA " in third
    assert "run 1/3" not in run_phasewrap(["run", "-n", "3", "-q", *QUICK, *FAST]).stderr.decode()


def test_a_ready_marker_not_seen_gets_a_hint_while_waiting(caplog):
    from wrapper.sources.runner import RunConfig, execute, prepare

    child = "import time; print('loading', flush=True); time.sleep(1.0)"
    prep = prepare(RunConfig(command=[sys.executable, "-c", child], ready="model loadd", quiet=True))
    with caplog.at_level(logging.INFO, logger="phasewrap"):
        record, _ = execute(prep, ready_hint_s=0.3)
    hints = [r.getMessage() for r in caplog.records if "still waiting" in r.getMessage()]
    assert record["status"] == "ok" and hints
    assert hints[0].startswith("still waiting for the ready marker /model loadd/ on stdout or stderr after 0.3 s")


# -- one JSON shape ------------------------------------------------------------------------------------------

def _parse_records(stdout: bytes) -> list:
    """The same code for one run and for three."""
    records = json.loads(stdout)
    assert isinstance(records, list)
    return records


def test_format_json_is_one_array_for_one_run_and_for_three_and_stdout_parses():
    one = run_phasewrap(["run", "--format", "json", *QUICK, *FAST])  # no -q: the child's output goes to stderr
    three = run_phasewrap(["run", "--format", "json", "-n", "3", *QUICK, *FAST])
    assert [len(_parse_records(p.stdout)) for p in (one, three)] == [1, 3]
    assert b"standin" in one.stderr or b"model loaded" in one.stderr  # passed through, on stderr
    lines = run_phasewrap(["run", "--format", "jsonl", "-n", "2", *QUICK, *FAST]).stdout.decode().splitlines()
    assert [json.loads(line)["status"] for line in lines] == ["ok", "ok"]


def test_format_json_refuses_a_second_writer_on_stdout():
    proc = run_phasewrap(["run", "--format", "json", "--jsonl", "-", *QUICK, *FAST])
    assert proc.returncode == 2 and b"both write to stdout" in proc.stderr and proc.stdout == b""


# -- CSV as people use it --------------------------------------------------------------------------------------

def test_csv_of_runs_with_a_warmup_has_run_id_warmup_cache_total_and_says_which_row_warmed_up(tmp):
    path = tmp / "runs.csv"
    proc = run_phasewrap(["run", "-q", "-n", "2", "--warmup", "1", "--csv", str(path), "--tag", "quant=Q4_K_M",
                          *QUICK, *FAST])
    assert proc.returncode == 0, proc.stderr.decode()
    rows = list(csv.DictReader(path.open()))
    header = next(csv.reader(path.open()))
    assert header[:5] == ["date_time", "run_id", "quant", "ctx", "input_tokens"]
    for column in ("run_id", "warmup", "cache", "total_s", "status", "load_s", "ttft_s", "decode_s",
                   "ms_per_token", "vram_peak_mib", "output_tokens", "note"):
        assert column in header
    assert [r["warmup"] for r in rows] == ["true", "false", "false"]
    assert all(r["run_id"] and float(r["total_s"]) > 0 and r["quant"] == "Q4_K_M" and r["ctx"] == "" for r in rows)
    assert len({r["run_id"] for r in rows}) == 3


def test_a_csv_written_before_keeps_its_header(tmp):
    path = tmp / "old.csv"
    old = ("date_time,quant,input_tokens,output_tokens,load_s,ttft_s,decode_s,ms_per_token,vram_peak_mib,status,"
           "note\n")
    path.write_text(old)
    proc = run_phasewrap(["run", "-q", "--csv", str(path), "--tag", "quant=Q8_0", *QUICK, *FAST])
    assert proc.returncode == 0, proc.stderr.decode()
    lines = path.read_text().splitlines()
    assert lines[0] + "\n" == old and len(lines) == 2
    row = next(csv.DictReader(io.StringIO(path.read_text())))
    assert row["quant"] == "Q8_0" and row["status"] == "ok" and None not in row  # as many cells as columns


def test_analyze_csv_names_the_file_and_fills_date_time():
    log = fixture("llama-cpp-0.3.36", "completion.stderr")
    cap = fixture("captures", "generic")
    proc = run_phasewrap(["analyze", "--format", "csv", log, cap])
    assert proc.returncode == 0, proc.stderr.decode()
    rows = list(csv.DictReader(io.StringIO(proc.stdout.decode())))
    assert [os.path.basename(r["source"]) for r in rows] == ["completion.stderr",
                                                             os.listdir(cap)[0]]
    assert all(r["date_time"] for r in rows)
    assert rows[1]["date_time"] == "2026-12-01T18:21:46.699Z"  # the capture's own start, not a file time


def test_a_dropped_tag_warning_mentions_jsonl_only_when_there_is_one(tmp):
    path = tmp / "runs.csv"
    assert run_phasewrap(["run", "-q", "--format", "none", "--csv", str(path), *QUICK, *FAST]).returncode == 0
    without = run_phasewrap(["run", "-q", "--format", "none", "--csv", str(path), "--tag", "new=1", *QUICK, *FAST])
    assert "no column for tag(s) new" in without.stderr.decode() and "JSONL" not in without.stderr.decode()
    with_jsonl = run_phasewrap(["run", "-q", "--format", "none", "--csv", str(path), "--jsonl", str(tmp / "r.jsonl"),
                                "--tag", "new=1", *QUICK, *FAST])
    assert "in the JSONL record only" in with_jsonl.stderr.decode()


# -- the small defects -----------------------------------------------------------------------------------------

def test_no_python_none_in_the_summary_of_a_replayed_log():
    out = run_phasewrap(["analyze", fixture("llama-cpp-0.3.36", "completion.stderr")]).stdout.decode()
    assert "None" not in out and "exit" not in out.splitlines()[0]


def test_a_rate_without_tokens_per_s_is_shown_not_a_traceback():
    log = fixture("logs", "koboldcpp__2024-01-v1.56-contextlimit-processing-generation-total-ms-per-T.log")
    proc = run_phasewrap(["analyze", log])
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert "tokens: 1025 (reported) · 19.18 ms/token\n" in proc.stdout.decode()


def test_a_marker_never_seen_names_the_streams():
    proc = run_phasewrap(["run", "-q", "--ready", "never-printed", *FAST])
    err = proc.stderr.decode()
    assert "never appeared on stdout or stderr" in err and "appeared on any" not in err


def test_no_command_is_said_once():
    proc = run_phasewrap(["run"])
    assert proc.returncode == 2
    assert _lines(proc.stderr)[0].startswith("phasewrap run: no command given") and b"run: run:" not in proc.stderr


def test_missing_dependencies_fail_before_the_child_runs(tmp):
    probe = subprocess.run([sys.executable, "-S", "-c", "import importlib.util as u; "
                            "print(u.find_spec('psutil') is None and u.find_spec('tabulate') is None)"],
                           capture_output=True, text=True)
    if probe.stdout.strip() != "True":
        pytest.skip("psutil/tabulate are importable without site-packages here")
    marker = tmp / "ran"
    proc = subprocess.run([sys.executable, "-S", os.path.join(ROOT, "bin", "phasewrap"), "run", "--",
                           sys.executable, "-c", f"open({str(marker)!r}, 'w')"], capture_output=True, text=True)
    assert proc.returncode == 2 and not marker.exists()
    assert proc.stderr.strip().count("\n") == 0 and "pip install psutil tabulate" in proc.stderr


def test_the_standin_says_a_missing_disk_step_file_cleanly(tmp):
    proc = subprocess.run([*STANDIN, "--load-steps", f"disk:{tmp / 'w.bin'},cpu:0.1"], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no such file; make one first" in proc.stderr


# -- the command line ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, suggestion", [(["rn"], "did you mean run?"),
                                              (["run", "--jsnl", "x.jsonl", "--", "true"], "did you mean --jsonl?"),
                                              (["run", "--format", "jsn", "--", "true"], "did you mean json?"),
                                              (["diagnose", "--formt", "json", "x"], "did you mean --format?")])
def test_misspellings_get_did_you_mean(args, suggestion):
    proc = run_phasewrap(args)
    assert proc.returncode == 2 and suggestion in proc.stderr.decode()


def test_top_level_help_has_examples():
    out = run_phasewrap(["--help"]).stdout.decode()
    assert "examples:" in out and "phasewrap run -- llama-completion" in out and "completion" in out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_parse_in_their_shell(shell, tmp):
    proc = run_phasewrap(["completion", shell])
    assert proc.returncode == 0
    text = proc.stdout.decode()
    assert "jsonl" in text and "diagnose" in text and "completion" in text
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    script = tmp / f"phasewrap.{shell}"
    script.write_text(text)
    check = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    loaded = subprocess.run([shell, "-c", f"source {script}"], capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, env=_env(HOME=str(tmp)))
    assert loaded.returncode == 0 and loaded.stderr == "", loaded.stderr


def test_bash_completion_completes_subcommands_options_and_choices(tmp):
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    script = tmp / "c.bash"
    script.write_text(run_phasewrap(["completion", "bash"]).stdout.decode())

    def complete(*words):
        line = " ".join(["phasewrap", *words])
        driver = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words)}; _phasewrap; "
                  'printf "%s\\n" "${COMPREPLY[@]}"')
        return subprocess.run(["bash", "-c", driver], capture_output=True, text=True).stdout.split()

    assert "diagnose" in complete("dia")
    assert complete("run", "--jso") == ["--jsonl"]
    assert set(complete("run", "--format", "j")) == {"json", "jsonl"}
    assert complete("run", "--", "lla") == []  # the wrapped command: left to the shell's default


def test_the_summary_table_is_tabulate_s_simple_format_without_importing_it():
    import random
    import string

    from tabulate import tabulate

    from wrapper.present.style import simple_table

    rng = random.Random(7)
    for _ in range(2000):
        ncol, nrow = rng.randint(1, 8), rng.randint(0, 6)

        def cell():
            return "".join(rng.choice(string.ascii_letters + string.digits + " .%*-/") for _ in range(rng.randint(0, 12)))
        headers = [cell() for _ in range(ncol)]
        rows = [[cell() for _ in range(ncol)] for _ in range(nrow)]
        assert simple_table(rows, headers) == tabulate(rows, headers=headers, disable_numparse=True)
    wide = [["décode", "0.5"]]  # not plain ASCII: tabulate itself, with its character widths
    assert simple_table(wide, ["phase", "s"]) == tabulate(wide, headers=["phase", "s"], disable_numparse=True)
