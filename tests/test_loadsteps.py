"""Load steps: the load window cut at lines / profile markers / marks, short steps merged, each step's kind."""
import json
import os
import sys

import pytest

from tests.conftest import ROOT, STANDIN, fixture, json_record, run_phasewrap
from wrapper.derive import loadsteps
from wrapper.method import steps
from wrapper.model.events import Chunk, Marker, Sample
from wrapper.model.profiles import PROFILES

MS = 1_000_000
S = 1_000_000_000


def chunk(t_ms, text, stream="err"):
    return Chunk(t_ms * MS, stream, text.encode())


def ready_at(t_ms, text="model loaded", stream="err"):
    return Marker("ready", t_ms * MS, stream, text)


# -- chunks → lines → boundaries → steps ----------------------------------------------------------------------

def test_lines_are_stamped_by_the_read_that_completes_them_and_progress_redraws_count():
    lines = loadsteps.lines_of([
        chunk(10, "first li"), chunk(20, "ne\nsecond\nthi"), chunk(30, "rd\n"),
        chunk(40, "\rLoading weights:   0%| | 0/4"), chunk(50, "\rLoading weights: 100%| | 4/4\n"),
        chunk(60, "tok", "out"),
    ])
    assert [(ln.t_ns // MS, ln.text) for ln in lines] == [
        (20, "first line"), (20, "second"), (30, "third"), (40, "Loading weights:   0%| | 0/4"),
        (50, "Loading weights: 100%| | 4/4"),
    ]


def test_names_drop_log_prefixes_and_numbers_so_runs_of_one_command_match():
    assert loadsteps.step_name("0.00.184.564 I llama_completion: load the model and apply lora adapter, if any") == \
        "llama_completion: load the model and apply lora adapter, if…"
    assert loadsteps.step_name("[workload] imports done in 18.329s") == "[workload] imports done in #s"
    assert loadsteps.step_name("Loading weights:  42%|████▏     | 50/120 [00:02<00:04, 17.43it/s]") == \
        "Loading weights:  #%"


def test_without_profile_or_marks_every_line_cuts_a_step_named_for_what_happens_in_it():
    chunks = [chunk(100, "reading config\n"), chunk(400, "weights 1 of 2\nweights 2 of 2\n"), chunk(1000, "model loaded\n")]
    steps, reason = loadsteps.load_steps(chunks, {"ready": ready_at(1000)}, 0, (), [], [])
    assert reason is None
    assert [(s["name"], s["start_s"], s["end_s"], s["ended_by"]["text"]) for s in steps] == [
        ("start-up", 0.0, 0.1, "reading config"),  # before any line: the process start-up
        ("reading config", 0.1, 0.4, "weights 1 of 2"),  # opened by a line that announces work
        ("model loaded", 0.4, 1.0, "model loaded"),  # closed by a line that reports work done
    ]
    assert steps[2]["merged"] == ["weights # of # → weights # of #"]  # neither: both lines (0 s, merged)
    assert {s["boundary"] for s in steps} == {"line", "ready"}
    assert all(s["kind"] == "unknown" and "no sampler" in s["evidence"] for s in steps)


def _names(*lines):
    """The step names when each (ms, text) line cuts the load window; the last line is ready."""
    chunks = [chunk(t, text + "\n") for t, text in lines]
    steps, _ = loadsteps.load_steps(chunks, {"ready": ready_at(lines[-1][0], lines[-1][1])}, 0, (), [], [])
    return [s["name"] for s in steps]


def test_a_done_line_names_the_step_it_closes_an_announcing_line_the_one_it_opens():
    assert _names((100, "starting engine"), (500, "weights took 0.4 s"), (900, "begin warm-up"),
                  (1500, "server ready")) == ["start-up", "weights took # s", "weights took # s → begin warm-up",
                                              "begin warm-up"]
    # the ready line ends the whole load: the step a line announced keeps that line's name
    assert _names((100, "loading weights"), (900, "model loaded")) == ["start-up", "loading weights"]
    assert _names((100, "starting up"), (700, "Loading weights took 0.6 s"), (900, "server is up")) == [
        "start-up", "Loading weights took # s", "Loading weights took # s → server is up"]
    # a first line that reports work done names the first step
    assert _names((300, "weights read from disk"), (900, "ok go")) == ["weights read from disk",
                                                                       "weights read from disk → ok go"]


def test_profile_markers_fire_in_order_and_the_ready_step_takes_the_open_entry():
    steps = (("start", r"backend init"), ("model", r"threadpool init"), ("warm-up", r"threadpool init"),
             ("setup", None))
    lines = [loadsteps.Line(t * MS, "err", text) for t, text in
             ((50, "I llama backend init"), (90, "I other"), (700, "I cmn init: llama threadpool init, n_threads = 2"))]
    bounds, rule = loadsteps.boundaries(lines, {}, steps, 0, ready_at(800, "generate:"))
    assert rule == "profile"
    assert [(b.name, b.t_ns // MS) for b in bounds] == [("start", 50), ("model", 700), ("setup", 800)]


def test_user_marks_cut_when_the_profile_knows_no_line():
    marks = {"ready": ready_at(900), "weights": Marker("weights", 600 * MS, "err", "weights done"),
             "first_token": Marker("first_token", 950 * MS, "out", "x")}
    bounds, rule = loadsteps.boundaries([loadsteps.Line(100 * MS, "err", "noise")], marks, (), 0, marks["ready"])
    assert rule == "mark"
    assert [(b.name, b.t_ns // MS, b.source) for b in bounds] == [("weights", 600, "mark"),
                                                                    ("model loaded", 900, "ready")]


def test_short_steps_merge_into_the_next_and_a_short_last_one_into_the_one_before():
    b = loadsteps.Boundary
    bounds = [b(t * MS, name, name, "err", "line") for t, name in ((5, "a"), (500, "b"), (510, "c"), (1000, "d"),
                                                                  (1004, "e"))]
    steps = loadsteps.merge_short(loadsteps.cut(bounds, 0), 1004 * MS)
    # limit max(20 ms, 1 % of 1.004 s) = 20 ms: a (5 ms) joins b; c (10 ms) joins d; e (4 ms, last) joins d
    assert [(s.name, s.start_ns // MS, s.end_ns // MS, s.ended_by.name, s.merged) for s in steps] == [
        ("b", 0, 500, "b", ["a"]), ("d", 500, 1004, "d", ["c", "e"])]


def test_no_ready_no_steps_with_the_reason():
    assert loadsteps.load_steps([chunk(10, "x\n")], {}, 0, (), [], []) == (
        None, "no ready marker: the load window has no end")


# -- figures and kinds --------------------------------------------------------------------------------------

PSUTIL = {"name": "psutil", "available": True, "reason": None, "interval_s": 0.1, "resolution_s": 0.1,
          "boundary_readings": True}


def proc(t_ms, read_mib, cpu_s, busiest=None, demand=None, cpu_pct=None):
    values = {"disk_read_bytes_total": read_mib * 1048576.0, "major_faults_total": 0.0, "cpu_s_total": cpu_s}
    if busiest is not None:
        values.update(busiest_thread_cpu_s=busiest, busiest_thread_demand_s=demand)
    if cpu_pct is not None:
        values["cpu_pct"] = cpu_pct
    return Sample(t_ms * MS, "psutil", "proc", values)


def test_exact_counters_at_boundaries_give_each_step_its_kind():
    # boundary readings 2 ms after each line: launch, read 400 MiB (1 s), one core busy (1 s), asleep (1 s)
    samples = [proc(0, 0, 0.0, cpu_pct=0.0), proc(1002, 400, 0.2, 0.2, 0.4, cpu_pct=20.0),
               proc(2002, 400, 1.2, 0.99, 1.0, cpu_pct=99.0), proc(3002, 400, 1.21, 0.0, 0.0, cpu_pct=1.0)]
    chunks = [chunk(1000, "read\n"), chunk(2000, "converted\n"), chunk(3000, "model loaded\n")]
    steps, _ = loadsteps.load_steps(chunks, {"ready": ready_at(3000)}, 0, (), samples, [PSUTIL])
    assert [s["kind"] for s in steps] == ["disk", "cpu-single", "wait"]
    disk = steps[0]["resources"]
    assert (disk["disk_read_mib"], disk["disk_read_mib_s"], disk["cpu_s"], disk["cpu_pct_mean"]) == (400.0, 400.0, 0.2, 20.0)
    assert steps[0]["evidence"] == "read 400.0 MiB at 400 MiB/s; 0 major faults; CPU 20 % (busiest thread 20 %, 40 % with its wait for a CPU)"
    assert steps[1]["resources"]["cpu_busiest_thread_pct"] == 99.0


def test_a_starved_thread_still_counts_as_cpu_bound():
    figures = {"disk_read_mib": 0.0, "disk_read_mib_s": 0.0, "major_faults": 0.0, "cpu_pct_mean": 45.0,
               "cpu_busiest_thread_pct": 45.0, "cpu_busiest_thread_demand_pct": 99.0, "vram_growth_mib": None,
               "vram_growth_mib_s": None, "gpu_util_mean": None, "approximate": False, "resolution_s": 0.1,
               "exact_counters": True}
    kind, evidence = loadsteps.classify(figures, 0.8)
    assert kind == "cpu-single"
    assert evidence == "read 0.0 MiB at 0 MiB/s; 0 major faults; CPU 45 % (busiest thread 45 %, 99 % with its wait for a CPU)"


@pytest.mark.parametrize("change, kind", [
    ({"vram_growth_mib": 4000.0, "vram_growth_mib_s": 2000.0, "gpu_util_mean": 5.0}, "gpu-upload"),
    ({"gpu_util_mean": 90.0, "cpu_pct_mean": 100.0, "cpu_busiest_thread_pct": 100.0}, "gpu-compute"),
    ({"cpu_pct_mean": 380.0, "cpu_busiest_thread_pct": 99.0}, "cpu-multi"),
    ({"cpu_pct_mean": 50.0, "cpu_busiest_thread_pct": 30.0}, "unknown"),
    ({"disk_read_mib": 30.0, "disk_read_mib_s": 300.0, "cpu_pct_mean": 99.0, "cpu_busiest_thread_pct": 99.0},
     "cpu-single"),  # reading fast while one thread is pegged in user space: the thread is the limit
    ({"disk_read_mib": 30.0, "disk_read_mib_s": 300.0, "cpu_pct_mean": 99.0, "cpu_busiest_thread_pct": 99.0,
      "cpu_kernel_share": 0.9}, "disk"),  # pegged in the kernel's I/O path: the reads are the limit
])
def test_kinds_from_figures(change, kind):
    figures = {"disk_read_mib": 0.0, "disk_read_mib_s": 0.0, "major_faults": 0.0, "cpu_pct_mean": 3.0,
               "cpu_busiest_thread_pct": 3.0, "cpu_busiest_thread_demand_pct": None, "vram_growth_mib": 0.0,
               "vram_growth_mib_s": 0.0, "gpu_util_mean": 0.0, "approximate": False, "resolution_s": 0.1,
               "exact_counters": True}
    figures.update(change)
    assert loadsteps.classify(figures, 2.0)[0] == kind


def test_a_step_shorter_than_one_second_sampling_is_unknown_not_guessed():
    figures = {"disk_read_mib": 0.0, "disk_read_mib_s": 0.0, "major_faults": 0.0, "cpu_pct_mean": 3.0,
               "cpu_busiest_thread_pct": 3.0, "cpu_busiest_thread_demand_pct": None, "vram_growth_mib": None,
               "vram_growth_mib_s": None, "gpu_util_mean": None, "approximate": True, "resolution_s": 1.0,
               "exact_counters": False}
    kind, reason = loadsteps.classify(figures, 0.3)
    assert kind == "unknown" and reason.startswith("too short to tell: 0.300 s, under the samplers' 1 s resolution")


# -- a real child: the stand-in's three-step load ----------------------------------------------------------

def _on_tmpfs(path):
    best, fstype = "", None
    with open("/proc/mounts") as fh:
        for line in fh:
            _dev, mount, kind = line.split()[:3]
            if os.path.realpath(path).startswith(mount) and len(mount) > len(best):
                best, fstype = mount, kind
    return fstype in ("tmpfs", "ramfs")


def _disk_dir(tmp_path):
    """A folder on a real disk (page-cache eviction means nothing on tmpfs)."""
    if not _on_tmpfs(str(tmp_path)):
        return tmp_path
    where = tmp_path.__class__(os.path.join(ROOT, ".pytest-weights"))
    where.mkdir(exist_ok=True)
    return where


@pytest.fixture
def weights(tmp_path):
    """A 400 MiB file on a real disk."""
    path = _disk_dir(tmp_path) / "weights.bin"
    block = os.urandom(1 << 20)
    with open(path, "wb") as fh:
        for _ in range(400):
            fh.write(block)
    yield str(path)
    os.unlink(path)


def test_standin_three_step_load_is_cut_at_its_lines_with_measured_kinds(weights, tmp_path):
    stamps = tmp_path / "stamps.json"
    jsonl = tmp_path / "runs.jsonl"
    proc = run_phasewrap(["run", "--quiet", "--ready", "model loaded", "--model-file", weights, "--jsonl", str(jsonl),
                          "--", *STANDIN, "--load-steps", f"disk:{weights},cpu:0.8,sleep:0.6", "--tokens", "3",
                          "--stamps-file", str(stamps)])
    assert proc.returncode == 0, proc.stderr.decode()
    record = json.loads(jsonl.read_text().splitlines()[-1])
    child = json.loads(stamps.read_text())
    assert record["cache"]["label"] == "warm"  # just written: in the page cache before the run
    by_line = {s["ended_by"]["text"]: s for s in record["load_steps"]}
    lines = ("standin: weights read from disk", "standin: weights converted on one core", "standin: peer answered")
    for line, child_ns in zip(lines, child["load_steps_ns"]):
        step = by_line[line]
        assert step["name"] == line  # each step keeps the name of the line that reports it done
        end_ns = record["t0_monotonic_ns"] + round(step["end_s"] * 1e9)
        assert abs(end_ns - child_ns) <= 30 * MS, (line, (end_ns - child_ns) / MS)
    assert record["load_steps"][0]["name"] == "start-up"  # launch → "standin: loading weights"
    disk, cpu, wait = (by_line[line] for line in lines)
    assert disk["kind"] == "disk", disk
    assert disk["resources"]["disk_read_mib"] >= 380
    assert cpu["kind"].startswith("cpu-"), cpu
    assert wait["kind"] == "wait", wait
    assert wait["merged"] == ["model loaded"]  # the ready line came right after: one step
    findings = json.loads(run_phasewrap(["diagnose", "--format", "json", str(jsonl)]).stdout)
    load = findings[0]
    assert load["rule"].startswith("load_step_") and load["rule"] != "load_warm_slow", load
    # the pre-run label said warm; the measured reads say otherwise, and the finding says so
    assert "MiB were read from disk during load: the measured reads outrank that label" in load["statement"], load
    assert "the disk is not the limit" not in load["statement"]


def test_quick_start_load_step_is_named_after_the_line_that_announced_it(tmp_path):
    jsonl = tmp_path / "runs.jsonl"
    proc = run_phasewrap(["run", "--quiet", "--ready", "model loaded", "--jsonl", str(jsonl), "--", *STANDIN,
                          "--load-s", "0.8", "--ttft-s", "0.4", "--tokens", "40", "-p", "Hello there"])
    assert proc.returncode == 0, proc.stderr.decode()
    record = json.loads(jsonl.read_text())
    first, load = record["load_steps"]
    assert first["name"] == "start-up" and first["ended_by"]["text"] == "standin: loading weights"
    assert load["name"] == "standin: loading weights" and load["ended_by"]["text"] == "model loaded"
    assert 0.75 <= load["dur_s"] <= 0.9
    assert "'standin: loading weights' 0.8" in proc.stderr.decode()


# -- real llama.cpp: cold vs warm, the step that loads the tensors ------------------------------------------

LLAMA_BIN = os.environ.get("PHASEWRAP_LLAMA_BIN_DIR")


@pytest.mark.llama
@pytest.mark.skipif(not LLAMA_BIN, reason="PHASEWRAP_LLAMA_BIN_DIR is not set: run bin/build-llama-cpp (or .ci/run)")
def test_llama_cold_model_load_step_reads_the_file_from_disk_and_warm_does_not(tmp_path):
    model = _disk_dir(tmp_path) / "m335.gguf"
    made = subprocess_run([sys.executable, os.path.join(ROOT, "samples", "make_tiny_gguf.py"), "--size-mb", "335",
                           "-o", str(model)])
    assert made.returncode == 0, made.stderr
    size_mib = os.path.getsize(model) / 1048576
    command = [os.path.join(LLAMA_BIN, "llama-completion"), "-m", str(model), "-p", "the quick brown fox", "-n", "4",
               "-no-cnv"]
    try:
        cold, warm = (json_record(run_phasewrap(["run", "--quiet", "--format", "json", *flag, "--", *command],
                                                 timeout=300)) for flag in (["--cold"], []))
    finally:
        os.unlink(model)
    assert (cold["cache"]["label"], warm["cache"]["label"]) == ("cold", "warm")
    # llama.cpp at its default verbosity: the model and its context load between "load the model …" and
    # "threadpool init" (common/common.cpp); the warm-up run follows
    cold_step = steps.find(cold["load_steps"], "model load")
    warm_step = steps.find(warm["load_steps"], "model load")
    assert "llama threadpool init" in cold_step["ended_by"]["text"]
    assert cold_step["resources"]["disk_read_mib"] >= 0.6 * size_mib, cold_step
    assert cold_step["kind"] == "disk", cold_step
    # a warm load can begin and end between two readings of the child's counters (CI saw it once, on a 2-core
    # machine): then no reading bounds it, its disk figure is null and its kind unknown; when read, it is small
    warm_read = warm_step["resources"]["disk_read_mib"]
    assert (warm_read is None and warm_step["kind"] == "unknown") or (warm_read is not None and warm_read <= 30), warm_step
    assert steps.find(warm["load_steps"], "warm-up") is not None


def subprocess_run(argv):
    import subprocess

    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


# -- recorded H200 transformers runs, with their 1 s side files ------------------------------------------------

def _h200(which):
    proc = run_phasewrap(["analyze", "--format", "json", fixture("events", f"h200-transformers-{which}-p512.events.jsonl"),
                          "--pidstat", fixture("h200", f"{which}-p512.pidstat.txt"),
                          "--dmon", fixture("h200", f"{which}-p512.dmon.txt")])
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    return out[0] if isinstance(out, list) else out


def test_h200_transformers_imports_and_weights_are_separate_steps_and_cold_vs_warm_shows_which_moved():
    cold, warm = _h200("cold"), _h200("warm")
    for record in (cold, warm):
        assert record["profile"] == "transformers"
        assert [s["name"] for s in record["load_steps"]] == ["imports", "setup", "weights"]
        assert all(s["resources"]["approximate"] and s["resources"]["resolution_s"] == 1.0 for s in record["load_steps"])
    steps = {r: {s["name"]: s for s in rec["load_steps"]} for r, rec in (("cold", cold), ("warm", warm))}
    # exact bounds from the recorded reads: imports end at "[workload] imports done", weights run bar 0 % → 100 %
    assert (steps["cold"]["imports"]["end_s"], steps["cold"]["weights"]["start_s"], steps["cold"]["weights"]["end_s"]) \
        == (18.384264, 19.696818, 25.491854)
    assert steps["cold"]["imports"]["ended_by"]["text"] == "[workload] imports done in 18.329s"
    # cold: the 7 GB of weights come from disk; warm: nothing is read and the step is 4 s shorter
    assert steps["cold"]["weights"]["kind"] == "disk"
    assert steps["cold"]["weights"]["resources"]["disk_read_mib"] > 6000
    assert steps["warm"]["weights"]["resources"]["disk_read_mib"] == 0.0
    assert steps["warm"]["weights"]["kind"] != "disk"
    assert steps["cold"]["weights"]["dur_s"] - steps["warm"]["weights"]["dur_s"] > 4.0


def test_every_profile_step_regex_compiles_and_at_most_one_entry_is_ended_by_ready():
    import re

    for profile in PROFILES.values():
        for _name, regex in profile.load_steps:
            if regex is not None:
                re.compile(regex)
        assert sum(1 for _n, rx in profile.load_steps if rx is None) <= 1, profile.name


def test_compare_matches_h200_steps_by_name_and_says_which_moved():
    from wrapper.method.compare import compare, render_table

    cold, warm = _h200("cold"), _h200("warm")
    rows = {r["name"]: r for r in compare([cold], [warm])["load_steps"]}
    weights = rows["weights"]
    assert (weights["base_median_s"], weights["cand_median_s"], weights["diff_s"]) == (5.795036, 1.515064, -4.279972)
    assert weights["base_kind"] == "disk" and weights["cand_kind"] != "disk"
    assert weights["base_disk_read_mib"] > 6000 and weights["cand_disk_read_mib"] == 0.0
    text = render_table(compare([cold], [warm]))
    assert "  'weights': 5.795 s disk, read 7003 MiB → 1.515 s " in text


def test_report_lists_the_steps_and_the_plot_gets_their_bands():
    from wrapper.present.html_report import report_html
    from wrapper.present.plot.runs import views_from_records

    cold = _h200("cold")
    [view] = views_from_records([cold])
    assert view.load_steps() == [("imports", "cpu-single", 0.0, 18.384264), ("setup", "disk", 18.384264, 19.696818),
                                 ("weights", "disk", 19.696818, 25.491854)]
    page = report_html([view])
    table = page[page.index("<h3>load steps</h3>"):]
    assert "<td>weights</td>" in table and "<td>disk</td>" in table
    assert "<code>[workload] imports done in 18.329s</code>" in table


def _analyzed(path):
    proc = run_phasewrap(["analyze", "--format", "json", path])
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    return out[0] if isinstance(out, list) else out


@pytest.mark.parametrize("path, expected", [
    # llama.cpp b4662 (-v style log with --log-timestamps, CUDA): tensors, context, warm-up lines all printed
    (fixture("logs", "llama.cpp__cli-cuda-v100-b4662-timestamped-full-run.log"),
     [("model metadata", 0.0, 0.370865), ("model load", 0.370865, 0.764084), ("warm-up", 0.764084, 0.849365)]),
    # llama.cpp 0.3.36 on the H200 at its default verbosity: "threadpool init" ends the model load
    (fixture("events", "h200-llama-completion-warm-ngl99.events.jsonl"),
     [("start-up", 0.0, 0.245709), ("model load", 0.245709, 0.773603), ("warm-up", 0.773603, 0.808579)]),
    (fixture("events", "h200-llama-server.events.jsonl"),
     [("start-up", 0.0, 0.26489), ("model load", 0.26489, 0.794502), ("context + warm-up", 0.794502, 0.835887)]),
])
def test_real_llama_logs_are_cut_at_the_profile_steps(path, expected):
    record = _analyzed(path)
    assert [(s["name"], s["start_s"], s["end_s"]) for s in record["load_steps"]] == expected
    assert all(s["boundary"] in ("profile", "ready") for s in record["load_steps"])


@pytest.mark.parametrize("log, profile, fired", [
    ("vllm__v1-2025-08-enginecore-tp-workers-model-loading-took-GiB-and-seconds.log", "vllm",
     ["imports + config", "weights", "model init"]),
    ("vllm__v1-2025-06-sm120-compile-kv-cache-graph-capture-init-engine-num-gpu-b", "vllm",
     ["torch.compile", "KV cache", "CUDA graphs", "engine init"]),
    ("vllm__v1-2026-05-worker-tp-aot-compile-cache-torch-compile-took-initial-war", "vllm",
     ["torch.compile", "profiling / warm-up"]),
    ("sglang__2025-11-startup-load-weight-kv-cache-allocated-cuda-graph-begin.log", "sglang",
     ["torch distributed", "pre-load", "weights", "KV cache"]),
    ("ollama__server-2025-08-new-engine-kv-cache-total-memory-runner-started.log", "ollama",
     ["runner start", "model load"]),
    ("llama.cpp__cpu-tiny-lfm2moe-ot-exps-cpu-verbose-stderr.log", "llama.cpp",
     ["start-up", "backend init", "model metadata", "model load", "context + KV cache", "warm-up"]),
])
def test_profile_step_markers_fire_in_order_on_real_logs(log, profile, fired):
    """The lines of a real log (one per ms, in order) against the profile's steps: which entries fire."""
    [path] = [p for p in os.listdir(fixture("logs")) if p.startswith(log)]
    with open(fixture("logs", path), encoding="utf-8", errors="replace") as fh:
        lines = [loadsteps.Line(i * MS, "err", text) for i, text in enumerate(fh.read().splitlines()) if text.strip()]
    ready = Marker("ready", (len(lines) + 10) * 10 * MS, "err", "(end of the log)")
    bounds, rule = loadsteps.boundaries(lines, {}, PROFILES[profile].load_steps, 0, ready)
    assert rule == "profile"
    assert [b.name for b in bounds if b.source == "profile"] == fired


def test_analyze_of_a_capture_reproduces_the_live_steps_exactly(tmp_path):
    live = run_phasewrap(["run", "--quiet", "--format", "json", "--capture", str(tmp_path), "--ready", "model loaded",
                          "--", *STANDIN, "--load-steps", "cpu:0.3,sleep:0.3", "--tokens", "2"])
    assert live.returncode == 0, live.stderr.decode()
    replay = run_phasewrap(["analyze", "--format", "json", "--ready", "model loaded", str(tmp_path)])
    assert replay.returncode == 0, replay.stderr.decode()
    live_steps = json_record(live)["load_steps"]
    out = json.loads(replay.stdout)
    assert (out[0] if isinstance(out, list) else out)["load_steps"] == live_steps
    assert [s["name"] for s in live_steps][-2:] == ["standin: weights converted on one core", "standin: peer answered"]


def test_the_watcher_signals_line_ends_only_and_stops_at_its_byte_limit():
    signals = []
    watcher = loadsteps.LoadWatcher(lambda: signals.append(1), limit_bytes=10)
    for c in (chunk(1, "abc"), chunk(2, "d\n"), chunk(3, "\r50%"), chunk(4, "xxxxxx\n")):
        watcher.feed(c)
    assert len(signals) == 2 and [c.t_ns // MS for c in watcher.chunks] == [1, 2, 3]
    assert not watcher.active and watcher.truncated_ns == 4 * MS
    steps, _ = loadsteps.load_steps(watcher.chunks, {"ready": ready_at(10)}, 0, (), [], [], watcher.truncated_ns)
    assert steps[-1]["evidence"].endswith("lines after it were not cut into steps")


def test_compare_counts_a_merged_away_step_on_neither_side_and_says_where_it_went():
    def run(*steps):
        return {"load_steps": [{"name": n, "dur_s": d, "kind": k, "merged": m, "resources": {"disk_read_mib": r}}
                               for n, d, k, m, r in steps]}

    cold = [run(("model load", 0.23, "disk", ["start-up"], 347.0), ("warm-up", 0.10, "cpu-single", [], 0.0))] * 2
    warm = [run(("start-up", 0.04, "cpu-single", [], 0.0), ("model load", 0.07, "cpu-single", [], 0.0),
                ("warm-up", 0.19, "cpu-single", [], 0.0))] * 2
    rows = {r["name"]: r for r in steps.compare_steps(cold, warm)}
    assert (rows["start-up"]["base_n"], rows["start-up"]["base_merged_into"], rows["start-up"]["cand_n"]) == \
        (0, "model load", 2)
    assert (rows["model load"]["diff_s"], rows["model load"]["base_kind"], rows["model load"]["cand_kind"]) == \
        (-0.16, "disk", "cpu-single")
    assert steps.compare_lines(steps.compare_steps(cold, warm))[1:] == [
        "  'model load': 0.230 s disk, read 347 MiB → 0.070 s cpu-single, read 0 MiB (-0.160 s beyond noise)",
        "  'warm-up': 0.100 s cpu-single, read 0 MiB → 0.190 s cpu-single, read 0 MiB (+0.090 s beyond noise)",
        "  'start-up': merged into 'model load' → 0.040 s cpu-single, read 0 MiB (n/a)",
    ]
