"""Numbers phasewrap must not make up: each test runs a real child that prints its own clock where it matters."""
import json
import socket
import stat
import sys
import textwrap

from .conftest import json_record, run_phasewrap

QUIET = ["run", "--quiet", "--gpu", "off", "--cpu", "off", "--no-env"]
PASS = ["run", "--gpu", "off", "--cpu", "off", "--no-env"]  # the child's stderr (its stamps) passes through
TTFT_TOLERANCE_S = 0.030


def _child(body: str) -> list:
    """A python child; ``stamp(name)`` records its own monotonic clock, printed as JSON on stderr at exit."""
    code = ("import json, os, sys, time\nstamps = {}\n"
            "def stamp(name):\n    stamps[name] = time.monotonic_ns()\n"
            "def out(text):\n    os.write(1, text.encode())\n"
            "def err(text):\n    os.write(2, text.encode())\n"
            + textwrap.dedent(body)
            + "\nerr('\\nSTAMPS ' + json.dumps(stamps) + '\\n')\n")
    return [sys.executable, "-c", code]


def _stamps(proc) -> dict:
    line = [l for l in proc.stderr.decode().splitlines() if l.startswith("STAMPS ")][-1]
    return json.loads(line[len("STAMPS "):])


SPACED_ECHO = """
time.sleep(0.2)
err('model loaded\\n')
stamp('ready')
out(' Tell me a story ')
time.sleep(0.3)
stamp('first')
out(' Once')
for word in (' upon', ' a', ' time'):
    time.sleep(0.02)
    out(word)
"""


def _check_spaced_echo(proc):
    rec = json_record(proc)
    stamps = _stamps(proc)
    truth_s = (stamps["first"] - stamps["ready"]) / 1e9
    assert rec["markers"]["first_token"]["text"] == "Once"
    assert abs(rec["phases"]["ttft_s"] - truth_s) <= TTFT_TOLERANCE_S, (rec["phases"]["ttft_s"], truth_s)


def test_prompt_echo_with_surrounding_spaces_is_not_the_first_token_generic_profile():
    proc = run_phasewrap(PASS + ["--format", "json", "--ready", "model loaded", "--", *_child(SPACED_ECHO),
                                  "Tell me a story "])
    _check_spaced_echo(proc)


def test_prompt_echo_with_surrounding_spaces_is_not_the_first_token_llama_profile():
    proc = run_phasewrap(PASS + ["--format", "json", "--profile", "llama.cpp", "--ready", "model loaded", "--",
                                  *_child(SPACED_ECHO), "-p", "Tell me a story "])
    _check_spaced_echo(proc)


def test_ready_and_first_token_in_one_read_give_no_ttft_and_say_why():
    proc = run_phasewrap(QUIET + ["--format", "json", "--ready", "^> ", "--ready-stream", "out", "--",
                                  *_child("out('banner\\n> Hello there')\ntime.sleep(0.05)\nout(' more')\n")])
    rec = json_record(proc)
    assert rec["phases"]["ttft_s"] is None
    reasons = {m["field"]: m["reason"] for m in rec["missing"]}
    assert reasons["ttft_s"] == ("the ready line and the first token arrived in the same read, so the time "
                                 "between them can't be measured from the output")


def test_timed_out_runs_are_counted_and_named_but_kept_out_of_statistics(tmp):
    log = tmp / "runs.jsonl"
    proc = run_phasewrap(QUIET + ["-n", "3", "--timeout", "0.5", "--kill-grace", "0.5", "--jsonl", str(log), "--",
                                  "sleep", "3"])
    err = " ".join(proc.stderr.decode().split())  # the summary's prose lines fold to the terminal's width
    ids = [json.loads(line)["run_id"] for line in log.read_text().splitlines()]
    named = ", ".join(f"{i} (timeout)" for i in ids)
    assert (f"phasewrap: 0 measured run(s); 3 run(s) left out of the statistics, not complete: {named}"
            in err), err
    assert "0.50" not in err.split("measured run(s)")[1].split("diagnosis:")[0]  # no pooled totals


def test_request_to_a_closed_port_is_a_failed_run_with_a_non_zero_exit():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # the "server" says it is ready and waits to be stopped (exit 0 on SIGTERM, as servers do); nothing listens
    # on the port
    proc = run_phasewrap(QUIET + ["--format", "json", "--ready", "listening", "--request", "hi", "--url",
                                  f"http://127.0.0.1:{port}", "--kill-grace", "1", "--",
                                  *_child("import signal\nsignal.signal(signal.SIGTERM, lambda *a: sys.exit(0))\n"
                                         "err('listening\\n')\ntime.sleep(30)\n")])
    rec = json_record(proc)
    assert rec["status"] == "failed"
    assert proc.returncode == 1
    assert any(w.startswith("--request:") for w in rec["warnings"])


def test_a_repeated_sweep_name_is_a_usage_error(tmp):
    marker = tmp / "started"
    proc = run_phasewrap(QUIET + ["-L", "x=1,2", "-L", "x=3", "--", sys.executable, "-c",
                                  f"open({str(marker)!r}, 'w')", "{x}"])
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == ("phasewrap run: -L x: given more than once; give all its values in one "
                                            "-L x=v1,v2,...")
    assert not marker.exists()


def test_a_run_mostly_outside_measured_phases_says_so_instead_of_a_dominant_phase():
    proc = run_phasewrap(QUIET + ["--format", "table", "--ready", "never printed", "--",
                                  *_child("time.sleep(0.6)\nout(' a')\ntime.sleep(0.05)\nout(' b')\n")])
    err = proc.stderr.decode()
    assert "dominant phase" not in err
    line = [l for l in err.splitlines() if l.startswith("mostly unmeasured: ")]
    assert len(line) == 1 and "of the run is in no measured phase" in line[0]


def test_last_token_marker_carries_its_text():
    proc = run_phasewrap(QUIET + ["--format", "json", "--ready", "model loaded", "--",
                                  *_child("err('model loaded\\n')\nfor w in (' alpha', ' beta', ' omega'):\n"
                                          "    time.sleep(0.03)\n    out(w)\n")])
    rec = json_record(proc)
    assert rec["markers"]["last_token"]["text"] == "omega"


def test_generic_profile_missing_ready_does_not_quote_other_frameworks_regexes(tmp):
    script = tmp / "x.py"
    script.write_text("print('hello world, some output')\n")
    proc = run_phasewrap(QUIET + ["--format", "json", "--", sys.executable, str(script)])
    rec = json_record(proc)
    reasons = {m["field"]: m["reason"] for m in rec["missing"]}
    assert rec["profile"] == "generic"
    assert reasons["load_s"] == "no ready marker: profile 'generic' has none; pass --ready REGEX"


def test_a_first_token_regex_that_never_matches_is_named_in_the_reason():
    proc = run_phasewrap(QUIET + ["--format", "json", "--ready", "model loaded", "--first-token", "NEVER", "--",
                                  *_child("err('model loaded\\n')\nout('tokens here')\n")])
    rec = json_record(proc)
    reasons = {m["field"]: m["reason"] for m in rec["missing"]}
    assert reasons["ttft_s"] == "first_token marker /NEVER/ never appeared on stdout or stderr after the ready marker"


def _fake_llama_cli(tmp, body: str) -> str:
    path = tmp / "llama-cli"
    code = _child(body)[2]
    path.write_text(f"#!{sys.executable}\n{code}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_llama_cli_no_tokens_warning_is_dropped_when_tokens_were_read(tmp):
    exe = _fake_llama_cli(tmp, "out('banner\\n> ')\ntime.sleep(0.05)\nfor w in (' one', ' two'):\n"
                               "    time.sleep(0.02)\n    out(w)\n")
    proc = run_phasewrap(QUIET + ["--format", "json", "--", exe, "-p", "hi there"])
    rec = json_record(proc)
    assert rec["tokens"]["output"] == 2
    assert not any("sees no tokens" in w for w in rec["warnings"])
    assert b"sees no tokens" not in proc.stderr  # warnings follow what the stream shows: tokens came


def test_llama_cli_no_tokens_warning_stays_when_no_tokens_were_read(tmp):
    exe = _fake_llama_cli(tmp, "out('banner\\n> ')\ntime.sleep(0.05)\n")
    proc = run_phasewrap(QUIET + ["--format", "json", "--", exe, "-p", "hi there"])
    rec = json_record(proc)
    assert any("sees no tokens" in w for w in rec["warnings"])
