"""--trace: the runs as Chrome trace-event JSON, checked against the format's documented rules.

The rules (Trace Event Format, the document chrome://tracing and Perfetto read): a JSON object with a
``traceEvents`` array (``displayTimeUnit`` "ms" or "ns" when given); every event has ``name``, ``ph``, ``ts``
(microseconds), ``pid`` and ``tid``; ``ph`` is one of the documented phase letters; a complete event (``X``) has a
non-negative ``dur``; an instant (``i``/``I``) has scope ``s`` g, p or t when given; a counter (``C``) has ``args``
whose values are numbers (one series each); a metadata event (``M``) is one of the documented names, with its
value in ``args`` (``name`` a string, ``sort_index`` a whole number); ``args`` is an object wherever it appears.
Complete events of one thread nest (a viewer draws them as a stack, so two may not partly overlap).
"""
import json

from tests.conftest import STANDIN, fixture, read_jsonl, run_phasewrap

from wrapper.present.export import trace
from wrapper.present.plot import load_runs

PHASE_LETTERS = set("BEXiICbnesftPOND") | {"M"}  # duration, complete, instant, counter, async, flow, object, meta…
METADATA = {"process_name": "name", "process_labels": "labels", "process_sort_index": "sort_index",
            "thread_name": "name", "thread_sort_index": "sort_index"}


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_event(e: dict) -> list[str]:
    problems = [f"missing {key}" for key in ("name", "ph", "ts", "pid", "tid") if key not in e]
    if problems:
        return problems
    ph = e["ph"]
    if ph not in PHASE_LETTERS:
        problems.append(f"unknown ph {ph!r}")
    if not isinstance(e["name"], str) or not is_number(e["ts"]):
        problems.append("name must be a string and ts a number")
    if not isinstance(e["pid"], int) or not isinstance(e["tid"], int):
        problems.append("pid and tid must be integers")
    if "args" in e and not isinstance(e["args"], dict):
        problems.append("args must be an object")
    if ph == "X" and not (is_number(e.get("dur")) and e["dur"] >= 0):
        problems.append("X needs a dur >= 0")
    if ph in "iI" and e.get("s", "t") not in ("g", "p", "t"):
        problems.append(f"instant scope {e.get('s')!r}")
    if ph == "C" and not (e.get("args") and all(is_number(v) for v in e["args"].values())):
        problems.append("C needs args of numbers")
    if ph == "M":
        key = METADATA.get(e["name"])
        value = (e.get("args") or {}).get(key) if key else None
        if key is None or value is None:
            problems.append(f"metadata {e['name']!r} without its args.{key}")
        elif key == "name" and not isinstance(value, str) or key == "sort_index" and not isinstance(value, int):
            problems.append(f"metadata {e['name']!r}: args.{key} of the wrong type")
    return problems


def check_nesting(events: list[dict]) -> list[str]:
    """Complete events of one thread either contain each other or don't touch (1 ns of rounding allowed)."""
    problems = []
    by_thread: dict = {}
    for e in events:
        if e["ph"] == "X":
            by_thread.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
    for thread, slices in by_thread.items():
        stack: list = []
        for start, end, name in sorted(slices, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1][1] <= start + 1e-3:
                stack.pop()
            if stack and end > stack[-1][1] + 1e-3:
                problems.append(f"{thread}: {name!r} overlaps {stack[-1][2]!r} without nesting")
            stack.append((start, end, name))
    return problems


def validate(doc) -> list[str]:
    """Every way ``doc`` breaks the trace-event format's rules (empty: it is a valid trace file)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["not an object with a traceEvents array"]
    problems = [] if doc.get("displayTimeUnit", "ms") in ("ms", "ns") else ["displayTimeUnit"]
    for i, e in enumerate(doc["traceEvents"]):
        problems += [f"event {i}: {p}" for p in (check_event(e) if isinstance(e, dict) else ["not an object"])]
    return problems or check_nesting(doc["traceEvents"])


def test_the_validator_catches_what_the_format_forbids():
    good = {"name": "load", "ph": "X", "ts": 0, "dur": 5, "pid": 1, "tid": 1}
    assert validate({"traceEvents": [good]}) == []
    assert validate([good]) == ["not an object with a traceEvents array"]
    assert validate({"traceEvents": [{**good, "dur": -1}]}) == ["event 0: X needs a dur >= 0"]
    assert validate({"traceEvents": [{k: v for k, v in good.items() if k != "tid"}]}) == ["event 0: missing tid"]
    assert validate({"traceEvents": [{**good, "ph": "Q"}]}) == ["event 0: unknown ph 'Q'"]
    assert validate({"traceEvents": [{**good, "ph": "C", "args": {"value": "high"}}]}) == [
        "event 0: C needs args of numbers"]
    assert validate({"traceEvents": [{**good, "ph": "M", "name": "thread_name", "args": {}}]}) == [
        "event 0: metadata 'thread_name' without its args.name"]
    assert validate({"traceEvents": [good, {**good, "name": "half", "ts": 3, "dur": 5}]}) == [
        "(1, 1): 'half' overlaps 'load' without nesting"]


def test_a_capture_becomes_a_valid_trace_with_its_phases_steps_tokens_and_counters():
    (view,) = load_runs([fixture("plot", "h200-cold.capture.jsonl")])
    doc = json.loads(trace.serialize([view]))
    assert validate(doc) == []
    events = doc["traceEvents"]
    slices = {e["name"]: e for e in events if e["ph"] == "X" and e["cat"] == "phase"}
    phases = view.record["phases"]
    assert {name: round(e["dur"] / 1e6, 6) for name, e in slices.items()} == {
        "total": phases["total_s"], "load": phases["load_s"], "TTFT": phases["ttft_s"], "decode": phases["decode_s"]}
    assert slices["load"]["ts"] == 0 and slices["TTFT"]["ts"] == round(view.marker_s("ready") * 1e6, 3)
    tokens = [e for e in events if e["ph"] == "i" and e["name"] == "token"]
    assert [e["ts"] for e in tokens] == [round(t * 1e6, 3) for t in view.token_times_s()] and len(tokens) == 64
    counters = {e["name"] for e in events if e["ph"] == "C"}
    assert {"gpu_util_pct", "vram_used_mib", "cpu_pct", "power_w", "disk_read_mb_per_s"} <= counters
    names = {(e["tid"], e["args"]["name"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {(1, "phases"), (2, "load steps"), (3, "tokens"), (4, "markers")}
    (process,) = [e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"]
    assert process == f"run {view.label()}"


def test_a_counter_holds_from_where_its_reading_starts():
    """A CPU reading averages the interval before it, so its value starts at the previous reading; a memory
    reading is of its own instant; a rate covers the interval between two counter readings."""
    assert trace._counter_points([1.0, 2.0, 3.0], [10, 20, 30], False, "steps-pre") == [(1.0, 20), (2.0, 30)]
    assert trace._counter_points([1.0, 2.0], [10, 20], False, "default") == [(1.0, 10), (2.0, 20)]
    assert trace._counter_points([1.0, 2.0, 2.0, 3.0], [5, 5, 7, 7], True, "default") == [(1.0, 5), (2.0, 7)]


def test_run_trace_of_a_live_stand_in_run(tmp_path):
    """A real run: --trace writes the phases the record has, a token instant per chunk and the CPU counter, all
    from the live session (no --capture)."""
    out, records = tmp_path / "run.trace.json", tmp_path / "runs.jsonl"
    proc = run_phasewrap(["run", "-q", "--format", "none", "--ready", "model loaded", "--trace", str(out),
                          "--jsonl", str(records), "--"] + STANDIN
                         + ["--load-s", "0.3", "--ttft-s", "0.1", "--tokens", "12", "--interval-s", "0.02"])
    assert proc.returncode == 0, proc.stderr
    assert b"trace written to" in proc.stderr
    doc = json.loads(out.read_text())
    assert validate(doc) == []
    (record,) = read_jsonl(records)
    slices = {e["name"]: e for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") == "phase"}
    for phase, key in (("load", "load_s"), ("TTFT", "ttft_s"), ("decode", "decode_s"), ("total", "total_s")):
        # the record rounds its marker times and its phases to the µs each: 1 µs apart at most
        assert abs(slices[phase]["dur"] - record["phases"][key] * 1e6) <= 1.0 + 1e-6
    tokens = [e for e in doc["traceEvents"] if e["name"] == "token"]
    assert len(tokens) == record["tokens"]["output"] == 12
    assert any(e["ph"] == "C" and e["name"] == "cpu_pct" for e in doc["traceEvents"])
    assert doc["otherData"]["runs"] == [record["run_id"]]
