"""phasewrap analyze: captures, events files, asciinema recordings, timed and plain logs, side files."""
import json
import os

from .conftest import STANDIN, fixture, run_phasewrap, json_record

H200_EVENTS = fixture("events", "h200-transformers-warm-p512.events.jsonl")


def _analyze_json(args):
    proc = run_phasewrap(["analyze", "--format", "json", *args])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_capture_reanalysis_equals_the_live_record(tmp):
    live = run_phasewrap(["run", "--quiet", "--format", "json", "--capture", str(tmp), "--ready", "model loaded",
                          "--tag", "quant=Q4", "--", *STANDIN, "--load-s", "0.2", "--ttft-s", "0.1", "--tokens", "8",
                          "-p", "a prompt to echo"])
    rec = json_record(live)
    [again] = _analyze_json(["--ready", "model loaded", str(tmp)])
    again.pop("source")
    assert again == rec


def test_capture_reanalysis_with_other_markers(tmp):
    run_phasewrap(["run", "--quiet", "--format", "none", "--capture", str(tmp), "--", *STANDIN, "--load-s", "0.2",
                   "--ttft-s", "0.1", "--tokens", "4"])
    [rec] = _analyze_json(["--ready", "model loaded", "--mark", "start@err=loading weights", str(tmp)])
    # the times of the chunks that hold the two lines, read from the capture itself
    [name] = os.listdir(tmp)
    chunks = [json.loads(line) for line in (tmp / name).read_text().splitlines() if line.startswith("[")]
    at = {text: next(round(c[0] / 1e9, 6) for c in chunks if c[1] == "err" and text in c[2])
          for text in ("loading weights", "model loaded")}
    assert rec["markers"]["start"]["t_s"] == at["loading weights"]
    assert rec["markers"]["ready"]["t_s"] == rec["phases"]["load_s"] == at["model loaded"]


def _cast_from_events(path, out):
    """An asciinema v2 recording of the H200 run: its chunks as output events (stdout and stderr merged)."""
    with open(path) as fh:
        header = json.loads(fh.readline())
        events = [json.loads(line) for line in fh]
    with open(out, "w") as fh:
        fh.write(json.dumps({"version": 2, "width": 120, "height": 40, "timestamp": header["wall_start"],
                             "command": " ".join(header["cmd"])}) + "\n")
        for e in events:
            if isinstance(e, list):
                fh.write(json.dumps([e[0], "o", e[2]]) + "\n")
    return [e for e in events if isinstance(e, list)]


def test_asciinema_recording_with_dmon_and_query_gpu(tmp):
    cast = tmp / "run.cast"
    events = _cast_from_events(H200_EVENTS, cast)
    [rec] = _analyze_json(["--ready", r"Loading weights:\s+100%", "--first-token", r"\w+\d* $",
                           str(cast), "--dmon", fixture("h200", "warm-p512.dmon.txt"),
                           "--query-gpu", fixture("h200", "warm-p512.query.csv")])
    ready_t = next(e[0] for e in events if "100%" in e[2])
    first_t = next(e[0] for e in events if e[1] == "out")
    last_t = [e[0] for e in events if e[1] == "out"][-1]
    assert abs(rec["phases"]["load_s"] - ready_t) <= 0.05
    assert abs(rec["phases"]["ttft_s"] - (first_t - ready_t)) <= 0.05
    assert abs(rec["phases"]["decode_s"] - (last_t - first_t)) <= 0.05
    for phase in ("load", "ttft", "decode"):
        assert rec["resources"][phase]["gpu_util_mean"] is not None
        assert rec["resources"][phase]["vram_used_peak_mib"] > 0
    # the model is on the GPU before the first token: VRAM during decode well above idle
    assert rec["resources"]["decode"]["vram_used_peak_mib"] > 8000
    # a recording shows no exit code: unknown, never a made-up 0
    assert (rec["status"], rec["exit_code"]) == ("unknown", None)
    assert [w["kind"] for w in rec["warning_details"]] == ["streams_merged"]


def test_events_file_with_pidstat(tmp):
    [rec] = _analyze_json(["--ready", r"Loading weights:\s+100%", H200_EVENTS, "--pidstat",
                           fixture("h200", "warm-p512.pidstat.txt")])
    assert rec["tokens"]["output"] == 64
    assert rec["resources"]["load"]["cpu_pct_mean"] > 50


def test_timestamped_llama_log_fills_reported_and_phases():
    [rec] = _analyze_json(["--profile", "llama.cpp",
                           fixture("logs", "llama.cpp__cli-cuda-v100-b4662-timestamped-full-run.log")])
    assert rec["source"]["kind"] == "log (relative times)"
    assert rec["reported"]["framework"] == "llama.cpp"
    # llama.cpp printed "prompt eval time = 9.32 ms / 7 tokens". The first token is in the one chunk of lines
    # stamped 0.00.849.365 (the `generate:` line and the untimed text after it); once every marker is found the
    # rest of the log is counted a line a chunk without being read: 1 + the lines from 0.02.503.009 on
    with open(fixture("logs", "llama.cpp__cli-cuda-v100-b4662-timestamped-full-run.log"), encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    later = next(i for i, line in enumerate(lines) if line.startswith("0.02.503.009 "))
    assert rec["tokens"] == {"output": 256, "source": "reported", "input": 7, "chunks": 1 + len(lines) - later}
    assert rec["phases"]["load_s"] == 0.849365  # 0.00.849.365 I generate: n_ctx = 2048 …
    assert rec["phases"]["total_s"] == 2.50302  # 0.02.503.020 I llama_perf_context_print: total time = …
    assert rec["status"] == "unknown"


def test_plain_log_gives_reported_phases_per_run():
    records = _analyze_json([fixture("logs", "llama.cpp__cli-perf-lines-user-trimmed-two-runs.log")])
    assert len(records) == 2
    assert all(r["phases_source"] == "reported" for r in records)
    # llama.cpp's own lines: prompt eval 81388.87 / 109641.06 ms, eval 24015.13 / 83881.20 ms over 802 / 795 runs
    assert [(r["phases"]["ttft_s"], r["phases"]["decode_s"]) for r in records] == [(81.38887, 24.01513),
                                                                                  (109.64106, 83.8812)]
    assert [(r["tokens"]["input"], r["tokens"]["output"]) for r in records] == [(32163, 802), (32163, 795)]
    assert [r["phases"]["load_s"] for r in records] == [None, None]  # not printed in this trimmed log
    # the log doesn't show how the runs ended: unknown, with no exit code made up
    assert [(r["status"], r["exit_code"]) for r in records] == [("unknown", None), ("unknown", None)]
    assert [r["run_id"] for r in records] == ["llama.cpp__cli-perf-lines-user-trimmed-two-runs.log#1",
                                              "llama.cpp__cli-perf-lines-user-trimmed-two-runs.log#2"]


def test_unknown_log_is_not_an_error(tmp):
    log = tmp / "x.log"
    log.write_text("hello\nnothing to see\n")
    [rec] = _analyze_json([str(log)])
    assert rec["reported"]["framework"] == "unknown"
    assert rec["phases"] == {"load_s": None, "ttft_s": None, "decode_s": None, "total_s": None}
    assert rec["missing"][0] == {"field": "phases", "reason": "the log has no timestamps and no framework timings "
                                 "were recognised"}
    assert [m["field"] for m in rec["missing"][1:]] == ["model", "hardware", "limits"]  # no floors either
    assert (rec["status"], rec["exit_code"], rec["started_at"], rec["t0_monotonic_ns"]) == ("unknown", None, None, None)


def test_binary_file_is_one_line_exit_2(tmp):
    blob = tmp / "blob.bin"
    blob.write_bytes(b"\x00\x01\x02" * 100)
    proc = run_phasewrap(["analyze", str(blob)])
    assert proc.returncode == 2
    err = proc.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "blob.bin" in err[0] and "binary" in err[0]
    assert proc.stdout == b""


def test_truncated_and_corrupted_capture_still_analyzed(tmp):
    run_phasewrap(["run", "--quiet", "--format", "none", "--capture", str(tmp), "--ready", "model loaded", "--",
                   *STANDIN, "--load-s", "0.1", "--ttft-s", "0.05", "--tokens", "6"])
    [name] = os.listdir(tmp)
    lines = (tmp / name).read_text().splitlines()
    chunk_lines = [i for i, line in enumerate(lines) if line.startswith("[")]
    cut = lines[: chunk_lines[-2]]  # drop the last chunks, samples, exit and record: a crash mid-run
    cut.insert(3, "{not json")
    broken = tmp / "broken"
    broken.mkdir()
    (broken / name).write_text("\n".join(cut) + "\n")
    [rec] = _analyze_json(["--ready", "model loaded", str(broken / name)])
    assert rec["status"] == "interrupted"
    assert rec["exit_code"] is None  # the capture never saw the exit: no code is made up
    assert rec["phases"]["load_s"] is not None
    assert [w["kind"] for w in rec["warning_details"]] == ["capture_cut_off", "capture_lines_skipped"]
    assert rec["warnings"] == [w["text"] for w in rec["warning_details"]]
    assert "without an exit line" in rec["warnings"][0] and "first: line 4" in rec["warnings"][1]


def test_unknown_capture_schema_is_exit_2(tmp):
    bad = tmp / "x.capture.jsonl"
    bad.write_text('{"type": "header", "schema": "phasewrap.capture/9", "t0_monotonic_ns": 1}\n')
    proc = run_phasewrap(["analyze", str(bad)])
    assert proc.returncode == 2
    assert b"unknown schema" in proc.stderr and b"x.capture.jsonl:1" in proc.stderr


def test_csv_output(tmp):
    proc = run_phasewrap(["analyze", "--format", "csv", fixture("logs", "llama.cpp__cli-perf-lines-user-trimmed-two-runs.log")])
    rows = proc.stdout.decode().splitlines()
    assert rows[0].startswith("date_time,run_id,source,quant,ctx,input_tokens,output_tokens,load_s") and len(rows) == 3


def test_ts_seconds_log_unrolls_minute_wraps(tmp):
    """`ts '%.S'` stamps lines with seconds within the minute; shifted by 20 s, the H200 run crosses a minute."""
    with open(H200_EVENTS) as fh:
        header = json.loads(fh.readline())
        events = [json.loads(line) for line in fh]
    lines = []
    for e in events:
        if isinstance(e, list):
            t = header["wall_start"] + 20 + e[0]
            lines += [f"{t % 60:09.6f} {part}" for part in e[2].replace("\r", "\n").split("\n") if part]
    log = tmp / "ts.log"
    log.write_text("\n".join(lines) + "\n")
    [rec] = _analyze_json(["--ready", r"Loading weights:\s+100%", "--first-token", r"^\w+\d* ", str(log)])
    assert rec["source"]["kind"] == "log (seconds times)"
    chunks = [e for e in events if isinstance(e, list)]
    ready_t = next(e[0] for e in chunks if "100%" in e[2])
    first_t = next(e[0] for e in chunks if e[1] == "out")
    assert abs(rec["phases"]["load_s"] - (ready_t - chunks[0][0])) <= 0.001
    assert abs(rec["phases"]["ttft_s"] - (first_t - ready_t)) <= 0.001


def test_h200_llama_completion_run_measured_beside_reported():
    """The real CUDA llama-completion run: phases from the chunks, llama.cpp's own figures beside them."""
    [rec] = _analyze_json([fixture("events", "h200-llama-completion-warm-ngl99.events.jsonl")])
    assert rec["profile"] == "llama.cpp"
    assert rec["phases"]["load_s"] == 0.808579
    assert rec["phases"]["ttft_s"] == round(0.994552 - 0.808579, 6)
    assert rec["phases"]["decode_s"] == round(1.32605 - 0.994552, 6)
    rep = rec["reported"]
    assert (rep["load_ms"], rep["prompt_eval_ms"], rep["prompt_tokens"], rep["eval_ms"], rep["eval_tokens"]) == (
        443.24, 183.92, 1761, 328.31, 127)
    assert rec["tokens"]["output"] == 128 and rec["tokens"]["source"] == "reported"
    decode = {row["phase"]: row for row in rec["reported_vs_measured"]}["decode_s"]
    assert 0.95 <= decode["ratio"] <= 1.05 and not decode["flagged"]


def test_analyze_never_imports_the_launcher_nor_runner_privates():
    """A re-analysis goes through the public pipeline: nothing of the live launcher is even loaded."""
    import ast
    import subprocess
    import sys

    from .conftest import ROOT

    probe = ("import sys, wrapper.sources.analyze; "
             "print(sorted(m for m in ('wrapper.measure.launch', 'wrapper.sources.runner') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    tree = ast.parse(open(os.path.join(ROOT, "wrapper", "sources", "analyze.py"), encoding="utf-8").read())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not imported & {"launch", "runner"}


def test_the_schema_name_is_written_in_one_module():
    import ast

    from .conftest import ROOT

    holders = []
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "wrapper")):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                tree = ast.parse(open(path, encoding="utf-8").read())
                if any(isinstance(n, ast.Constant) and n.value == "phasewrap.run/1" for n in ast.walk(tree)):
                    holders.append(os.path.relpath(path, ROOT))
    assert holders == ["wrapper/derive/record.py"]


def test_timed_log_with_several_requests_gives_each_earlier_one_a_record():
    name = "llama-server__2026-timestamped-draft-acceptance-then-next-task-n_gen-progress.log"
    first, last = _analyze_json([fixture("logs", name)])
    assert first["run_id"] == name + "#1" and first["phases_source"] == "reported"
    assert first["reported"]["extra"]["task_id"] == 160 and first["reported"]["eval_tokens"] == 96
    assert first["source"]["kind"] == "log (relative times)"
    assert last["reported"]["extra"]["task_id"] == 202 and last.get("phases_source") != "reported"


def test_h200_llama_cast_alone_takes_profile_and_prompt_from_its_header_command(tmp):
    """An asciinema recording of the real H200 llama-completion run, analyzed with no options: the header's
    command (as asciinema writes it, the prompt quoted) gives the profile and the prompt, so the merged stream's
    echo and log lines are told from the tokens."""
    import shlex

    src = fixture("events", "h200-llama-completion-warm-ngl99.events.jsonl")
    with open(src) as fh:
        header = json.loads(fh.readline())
        events = [e for e in map(json.loads, fh) if isinstance(e, list)]
    cast = tmp / "llama.cast"
    with open(cast, "w") as fh:
        fh.write(json.dumps({"version": 2, "width": 120, "height": 40, "timestamp": header["wall_start"],
                             "command": shlex.join(header["cmd"])}) + "\n")
        for t_s, _stream, text in events:
            fh.write(json.dumps([t_s, "o", text]) + "\n")
    [rec] = _analyze_json([str(cast)])
    assert rec["profile"] == "llama.cpp" and rec["source"]["kind"] == "asciinema"
    # the truth, from the same run's separate streams (test_h200_llama_completion_run_measured_beside_reported)
    ready, first, last = 0.808579, 0.994552, 1.32605
    assert abs(rec["phases"]["load_s"] - ready) <= 0.05
    assert abs(rec["phases"]["ttft_s"] - (first - ready)) <= 0.05
    assert abs(rec["phases"]["decode_s"] - (last - first)) <= 0.05
    assert rec["markers"]["first_token"]["t_s"] == first  # not the echo at 0.808941, nor a log line
    rep = rec["reported"]
    assert (rep["load_ms"], rep["prompt_eval_ms"], rep["prompt_tokens"], rep["eval_ms"], rep["eval_tokens"]) == (
        443.24, 183.92, 1761, 328.31, 127)


def test_cast_command_split_like_the_shell():
    from wrapper.sources.analyze import _split_command

    assert _split_command("./llama-completion -m m.gguf -p 'the quick brown fox' -n 8") == [
        "./llama-completion", "-m", "m.gguf", "-p", "the quick brown fox", "-n", "8"]
    assert _split_command("./main -p 'unbalanced") == ["./main", "-p", "'unbalanced"]


def test_a_timed_log_streams_and_counts_what_it_did_not_read(tmp_path):
    """A timed log is read from the file in blocks (FileLines): the same records as from its lines in memory."""
    from wrapper.sources.analyze import _TimedLines, _prefix_stamps
    from wrapper.sources.filelines import FileLines

    lines = [f"2025-04-16T17:58:{i // 10 % 60:02d}.{i % 10}00000Z line {i}\r" if i % 7 else f"no time {i}"
             for i in range(5000)]
    path = tmp_path / "t.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()  # what the in-memory path reads
    stamp = _prefix_stamps("epoch", 0.0)
    for stop in (1, 40, 4999):
        in_memory, on_disk = _TimedLines(lines, stamp), _TimedLines(FileLines(str(path)), stamp)
        for timed in (in_memory, on_disk):
            for n, _chunk in enumerate(timed, 1):
                if n == stop:
                    break
        assert on_disk.rest() == in_memory.rest()
    assert FileLines(str(path)).count() == len(lines)


def test_jsonl_gives_the_records_of_json_one_a_line():
    logs = [fixture("logs", n) for n in sorted(os.listdir(fixture("logs")))[:6]]
    want = _analyze_json(logs)
    proc = run_phasewrap(["analyze", "--format", "jsonl", *logs])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(want) > 1 and [json.loads(line) for line in lines] == want


def test_csv_streams_the_rows_render_gives_for_all_records():
    """analyze --format csv writes each row as its record comes (the header is the first record's), the same
    text as rendering every record at once."""
    from wrapper import api
    from wrapper.present.export import csvlog

    logs = [fixture("logs", n) for n in sorted(os.listdir(fixture("logs")))[:8]]
    records = _analyze_json(logs)
    proc = run_phasewrap(["analyze", "--format", "csv", *logs])
    assert proc.returncode == 0, proc.stderr
    want, _dropped = csvlog.render(records, None, source=True, dates=api.file_dates(records))
    out = proc.stdout.decode() if isinstance(proc.stdout, bytes) else proc.stdout
    assert out == want and out.count("\n") == len(records) + 1
    assert "".join(csvlog.stream(records, source=True, date_of=api.file_date())) == want


def test_lines_are_counted_as_splitlines_splits_them(tmp_path, monkeypatch):
    """FileLines.count counts LFs where a block holds no other line break, and decodes where it does: the same
    count as splitting the decoded text, for every break splitlines knows (and bytes that only look like one)."""
    from wrapper.sources import filelines

    breaks = [b"\n", b"\r\n", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", "\x85".encode(), "\u2028".encode(),
              "\u2029".encode(), b"\x85", b"\xa8", b"\xe2\x80", b"\xc2"]
    for brk in breaks:
        for data in (b"", brk, b"a" + brk, b"a" + brk + b"b", b"a\nb" + brk + b"c\n", b"\n\n" + brk + brk):
            assert filelines._line_count(data) == len(data.decode("utf-8", "surrogateescape").splitlines()), data
    monkeypatch.setattr(filelines, "BLOCK_BYTES", 64)  # many blocks, some with a rare break, some without
    data = b"".join(b"line %d" % i + breaks[i % len(breaks) if i % 5 == 0 else 0] for i in range(400))
    path = tmp_path / "mixed.log"
    path.write_bytes(data)
    assert filelines.FileLines(str(path)).count() == len(data.decode("utf-8", "surrogateescape").splitlines())


def test_a_timed_log_waiting_for_its_ready_line_skips_what_cannot_change_the_record(tmp_path, monkeypatch):
    """Past the load window (4 MiB; 64 KiB here), a timed log's lines that no pending marker's regex finds go unread
    until one does (``PhaseTracker.waiting``), but for their count and bytes: the records are those of reading every
    line, with the ready line found after them, with no ready line at all, and with a ready regex that needs its
    line's start (then every line is read)."""
    from wrapper import api
    from wrapper.derive import loadsteps
    from wrapper.derive.markers import PhaseTracker
    from wrapper.sources import analyze

    monkeypatch.setattr(analyze, "watcher_for", lambda prep: loadsteps.LoadWatcher(limit_bytes=64 << 10))
    unread = []
    monkeypatch.setattr(PhaseTracker, "unread", lambda self, stream, lines, data_bytes, real=PhaseTracker.unread: (
        unread.append(lines), real(self, stream, lines, data_bytes)))
    body = [f"2025-04-16T17:{i // 6000 % 60:02d}:{i // 100 % 60:02d}.{i % 100:02d}0000Z worker {i}: queue=3 "
            f"{'é' if i % 11 == 0 else ''}busy" for i in range(8000)]
    tail = ["2025-04-16T17:59:59.990000Z model ready to serve", "2025-04-16T17:59:59.995000Z hello",
            "2025-04-16T17:59:59.999000Z world"]
    for n, (lines, ready, skips) in enumerate([(body + tail, "ready to serve", True), (body, "ready to serve", True),
                                               (body + tail, "^model ready", False)]):
        path = tmp_path / f"t{n}.log"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        fast = api.analyze([str(path)], ready=ready, profile="generic")
        assert (unread.pop() > 4000) == skips
        with monkeypatch.context() as m:
            m.setattr(PhaseTracker, "waiting", lambda self: None)
            every = api.analyze([str(path)], ready=ready, profile="generic")
        assert unread.pop() == 0 and fast == every
        assert (fast[-1]["markers"]["ready"] is not None) == (lines is not body)
