"""diagnose() on hand-made records: each rule fires on the figures it names, with exact statements, and says
what is missing instead of guessing."""
from wrapper.method.diagnose import Finding, diagnose, render

GIB = 1 << 30


def rec(load=None, ttft=None, decode=None, total=None, resources=None, cache=None, reported=None, tokens=None,
        ms=None, model_bytes=None, missing=(), warmup=None):
    return {
        "schema": "phasewrap.run/1", "status": "ok",
        "phases": {"load_s": load, "ttft_s": ttft, "decode_s": decode, "total_s": total},
        "missing": [{"field": f, "reason": r} for f, r in missing],
        "tokens": tokens or {"output": None, "source": None, "input": None},
        "ms_per_token": ms, "resources": resources, "cache": None if cache is None else {"label": cache},
        "reported": reported, "env": None if model_bytes is None else {"model_size_bytes": model_bytes},
        "warmup": warmup,
    }


# resources where no resource rule fires: busy GPU, spread CPU, VRAM with headroom
QUIET = {
    "load": {"cpu_busiest_thread_pct_max": 60.0, "cpu_pct_mean": 400.0, "disk_read_mib": 6000.0,
             "gpu_util_mean": 5.0},
    "ttft": {"cpu_pct_mean": 100.0, "gpu_util_mean": 95.0},
    "decode": {"gpu_util_mean": 90.0, "cpu_pct_mean": 100.0},
    "total": {"vram_used_peak_mib": 20000.0, "vram_total_mib": 143771.0},
}
REPORTED_CLEAN = {"warnings": [], "gpu_layers": {"offloaded": 33, "total": 33}}


def with_res(**changes):
    res = {phase: dict(metrics) for phase, metrics in QUIET.items()}
    for key, value in changes.items():
        phase, metric = key.split("__")
        res[phase][metric] = value
    return res


def test_cold_load_with_disk_reads_is_disk_bound():
    runs = [rec(load=25.6, ttft=1.74, decode=4.2, total=32.0, resources=QUIET, cache="cold", model_bytes=7 * GIB,
                reported=REPORTED_CLEAN)]
    assert diagnose(runs) == [Finding(
        "load_disk", "disk (cold page cache)",
        "load 25.60 s is 80% of the 32.00 s total, on a cold page cache; 6000 MiB read from disk during load "
        "(234 MiB/s; model files 7168 MiB)",
        "the disk is the limit: compare a warm run (--warmup 1), put the model on faster local storage (NVMe), or "
        "keep it in the page cache between runs")]


def test_cold_load_with_little_disk_read_is_not_the_disk():
    runs = [rec(load=20.0, ttft=1.0, decode=4.0, total=26.0, resources=with_res(load__disk_read_mib=100.0),
                cache="cold", model_bytes=7 * GIB, reported=REPORTED_CLEAN)]
    [finding] = diagnose(runs)
    assert finding.rule == "load_cold_little_read"
    assert finding.statement == ("load 20.00 s is 77% of the 26.00 s total, on a cold page cache, yet only 100 MiB "
                                 "read from disk during load (5 MiB/s; model files 7168 MiB): the disk is not the "
                                 "limit")


def test_warm_but_slow_load_is_deserialization_median_over_runs():
    runs = [rec(load=v, ttft=0.7, decode=4.4, total=v + 5.2, resources=with_res(load__disk_read_mib=3.0), cache="warm",
                reported=REPORTED_CLEAN) for v in (15.4, 15.0, 16.1)]
    runs.append(rec(load=40.0, total=45.0, cache="warm", warmup=True))
    [finding] = diagnose(runs)
    assert finding == Finding(
        "load_warm_slow", "deserialization / format conversion",
        "load 15.40 s is 75% of the 20.60 s total (median of 3 runs), although the model files were in the page "
        "cache (warm): the disk is not the limit",
        "use a format the backend maps directly (GGUF with mmap, safetensors) instead of one converted at load "
        "(pickle .bin, on-the-fly quantization, dtype casts); don't pass --no-mmap; check the quant type is native "
        "to the backend")


def test_load_with_unknown_cache_state_asks_for_cold_and_warm_runs():
    [finding] = diagnose([rec(load=8.0, ttft=0.5, decode=1.5, total=10.0, resources=QUIET,
                              reported=REPORTED_CLEAN)])
    assert finding.rule == "load_dominant"
    assert finding.statement == "load 8.00 s is 80% of the 10.00 s total; page cache state: not measured"
    assert finding.next_step.startswith("separate disk from deserialization: run once cold (--cold)")


def test_ttft_dominant_quotes_prompt_tokens():
    runs = [rec(load=1.0, ttft=6.0, decode=2.0, total=9.5, resources=QUIET, reported=REPORTED_CLEAN,
                tokens={"input": 12000, "output": 64})]
    assert diagnose(runs) == [Finding(
        "ttft_dominant", "prompt processing (time to first token)",
        "ttft 6.00 s is 63% of the 9.50 s total; 12000 prompt tokens, 2000 tokens/s",
        "shorten the prompt or the context length (-c / max context), and reuse the prompt prefix across requests "
        "(a prefix / prompt cache)")]


def test_decode_dominant_with_idle_gpu():
    runs = [rec(load=1.0, ttft=0.2, decode=12.7, total=14.0, ms=100.0, tokens={"input": 10, "output": 128},
                resources=with_res(decode__gpu_util_mean=12.0), reported=REPORTED_CLEAN)]
    assert diagnose(runs) == [
        Finding("decode_dominant", "decode (per-token generation)",
                "decode 12.70 s is 91% of the 14.00 s total: 128 tokens at 100.00 ms/token (10.0 tokens/s)",
                "for throughput, batch more requests (concurrency / a larger batch); take per-token logging, "
                "streaming callbacks and per-token host synchronisation out of the generation loop"),
        Finding("decode_gpu_idle", "GPU mostly idle during decode (small batch, per-token synchronisation)",
                "during decode the GPU averaged 12% utilization",
                "the GPU waits on the host between tokens: batch more requests, avoid per-token host syncs (logging, "
                "callbacks, copying each token to the CPU), use CUDA graphs where the framework has them"),
    ]


def test_vram_nearly_full_and_cpu_offload_warnings():
    reported = {"gpu_layers": {"offloaded": 20, "total": 33}, "warnings": [
        {"kind": "offload_cpu", "line": "load_tensors: offloaded 20/33 layers to GPU"},
        {"kind": "oom", "line": "unrelated"},
        {"kind": "cpu_fallback", "line": "CUDA unavailable, falling back to CPU"}]}
    runs = [rec(load=1.0, ttft=0.2, decode=8.0, total=9.5, resources=with_res(total__vram_used_peak_mib=138000.0),
                reported=reported)]
    findings = diagnose(runs)
    assert [f.rule for f in findings] == ["decode_dominant", "vram_full", "cpu_offload"]
    assert findings[1].statement == "peak VRAM 138000 of 143771 MiB (96%)"
    assert findings[1].next_step.startswith("lower the context length or the concurrency")
    assert findings[2].statement == ('the framework reports work on the CPU: 20/33 layers on the GPU; '
                                     '"load_tensors: offloaded 20/33 layers to GPU"; '
                                     '"CUDA unavailable, falling back to CPU"')


def test_vram_from_the_fullest_phase_when_total_is_absent():
    res = with_res()
    del res["total"]
    res["load"].update(vram_used_peak_mib=70000.0, vram_total_mib=80000.0)
    res["decode"].update(vram_used_peak_mib=79000.0, vram_total_mib=80000.0)
    findings = diagnose([rec(load=1.0, ttft=0.2, decode=8.0, total=9.5, resources=res, reported=REPORTED_CLEAN)])
    assert findings[1].statement == "peak VRAM 79000 of 80000 MiB (99%) during decode"


def test_one_core_pegged_during_load():
    runs = [rec(load=9.0, ttft=0.5, decode=2.0, total=12.0, cache="warm", reported=REPORTED_CLEAN,
                resources=with_res(load__cpu_busiest_thread_pct_max=99.0, load__cpu_pct_mean=104.0,
                                   load__disk_read_mib=3.0))]
    findings = diagnose(runs)
    assert [f.rule for f in findings] == ["load_warm_slow", "load_one_core"]
    assert findings[1].statement == ("during load the busiest thread peaked at 99% while the process averaged 104% "
                                     "CPU: one core pegged")


def test_busy_cpu_idle_gpu_before_first_token():
    runs = [rec(load=1.0, ttft=3.0, decode=4.0, total=8.2, reported=REPORTED_CLEAN,
                resources=with_res(ttft__cpu_pct_mean=180.0, ttft__gpu_util_mean=3.0, load__disk_read_mib=3.0))]
    findings = diagnose(runs)
    assert [f.rule for f in findings] == ["decode_dominant", "ttft_cpu_preprocessing"]
    assert findings[1].statement == ("before the first token the process averaged 180% CPU while the GPU averaged 3% "
                                     "utilization")
    assert findings[1].bottleneck == "tokenization / preprocessing on the CPU"


def test_resource_signals_of_an_immaterial_phase_are_ignored():
    runs = [rec(load=10.0, ttft=0.1, decode=4.0, total=14.2, cache="warm", reported=REPORTED_CLEAN,
                resources=with_res(ttft__cpu_pct_mean=180.0, ttft__gpu_util_mean=3.0, load__disk_read_mib=3.0))]
    assert [f.rule for f in diagnose(runs)] == ["load_warm_slow"]


def test_no_phases_and_no_resources_says_exactly_what_is_missing():
    runs = [rec(total=1.36, missing=[("load_s", "ready marker /x/ never appeared on err"),
                                     ("ttft_s", "needs the ready marker"), ("decode_s", "only one token chunk")])]
    findings = diagnose(runs)
    assert findings == [
        Finding("phases_missing", "unknown (phase timings missing)",
                "can't rank the phases: 1.36 s of the 1.36 s total is in no measured phase (load_s: ready marker /x/ "
                "never appeared on err; ttft_s: needs the ready marker; decode_s: only one token chunk)",
                "give the markers that split the run: --ready REGEX for the end of load and --first-token REGEX (or a "
                "--profile that knows this framework)"),
        Finding("not_checked", "not checked",
                "the records carry no resource samples (no `resources`); these checks were not run for lack of data: "
                "VRAM headroom (needs resources.*.vram_used_peak_mib and vram_total_mib); CPU offload (needs the "
                "framework's own figures: reported.warnings / reported.gpu_layers); one core pegged during load "
                "(needs resources.load.cpu_busiest_thread_pct_max and cpu_pct_mean); CPU busy / GPU idle before the "
                "first token (needs resources.ttft.cpu_pct_mean and gpu_util_mean); GPU idle during decode (needs "
                "resources.decode.gpu_util_mean)",
                "run with GPU and CPU sampling available (NVML / nvidia-smi, psutil) and a framework profile that "
                "parses its log, then diagnose again"),
    ]


def test_a_small_measured_phase_is_not_called_dominant_when_the_rest_is_unmeasured():
    runs = [rec(decode=0.08, total=1.36, missing=[("load_s", "no ready marker"), ("ttft_s", "needs the ready marker")],
                resources=QUIET, reported=REPORTED_CLEAN)]
    [finding] = diagnose(runs)
    assert finding.rule == "phases_missing"
    assert finding.statement == ("can't rank the phases: 1.28 s of the 1.36 s total is in no measured phase "
                                 "(load_s: no ready marker; ttft_s: needs the ready marker)")


def test_no_total_at_all():
    [first, _] = diagnose([rec()])
    assert first.statement == ("no phase timings to rank (load_s: not measured; ttft_s: not measured; decode_s: not "
                               "measured; total_s: not measured)")


def test_some_resources_missing_are_named():
    res = with_res()
    del res["ttft"]
    findings = diagnose([rec(load=1.0, ttft=0.2, decode=8.0, total=9.5, resources=res, reported=REPORTED_CLEAN)])
    assert findings[-1].statement == ("these checks were not run for lack of data: CPU busy / GPU idle before the "
                                      "first token (needs resources.ttft.cpu_pct_mean and gpu_util_mean)")


def test_no_records():
    assert diagnose([rec(warmup=True)]) == [Finding(
        "no_data", "unknown (no runs)", "no run records to diagnose (warm-up runs are left out)",
        "record runs first: phasewrap run --jsonl FILE -- CMD")]


def test_render():
    text = render([Finding("r", "disk", "load 1 s", "buy an NVMe"), Finding("s", "VRAM", "96%", "lower -c")])
    assert text == "1. [disk] load 1 s\n   next: buy an NVMe\n2. [VRAM] 96%\n   next: lower -c\n"


def test_resources_shaped_like_aggregate_output():
    """Windows carry ``samples``/``approximate``/``reason`` and a ``samplers`` entry beside them: only figures count."""
    res = with_res(decode__gpu_util_mean=12.0)
    for window in res.values():
        window.update(samples=40, approximate=False)
    res["ttft"] = {"cpu_pct_mean": None, "gpu_util_mean": None, "samples": 0, "approximate": True,
                   "reason": "the window has no end: no first token"}
    res["samplers"] = {"nvml": {"name": "nvml", "available": True, "interval_s": 0.1}}
    findings = diagnose([rec(load=1.0, ttft=0.2, decode=8.0, total=9.5, resources=res, reported=REPORTED_CLEAN)])
    assert [f.rule for f in findings] == ["decode_dominant", "decode_gpu_idle", "not_checked"]
    assert findings[-1].statement == ("these checks were not run for lack of data: CPU busy / GPU idle before the "
                                      "first token (needs resources.ttft.cpu_pct_mean and gpu_util_mean)")


def test_cold_and_warm_runs_are_not_pooled():
    warm = [rec(load=15.0, ttft=0.7, decode=4.4, total=20.5, resources=with_res(load__disk_read_mib=3.0), cache="warm",
                reported=REPORTED_CLEAN) for _ in range(3)]
    cold = rec(load=25.6, ttft=1.7, decode=4.4, total=32.0, resources=QUIET, cache="cold", reported=REPORTED_CLEAN)
    findings = diagnose([cold] + warm)
    assert [f.rule for f in findings] == ["load_warm_slow", "mixed_cache"]
    assert findings[0].statement.startswith("load 15.00 s is 73% of the 20.50 s total (median of 3 runs)")
    assert findings[1].statement == ("runs with different cache labels are never pooled: diagnosed cache=warm "
                                     "(3 runs), left out cache=cold × 1")


def test_measured_disk_reads_outrank_a_warm_cache_label():
    # warm before the run, yet 6000 MiB read during load (the program evicted or bypassed the page cache)
    runs = [rec(load=15.4, ttft=0.7, decode=4.4, total=20.6, resources=QUIET, cache="warm", reported=REPORTED_CLEAN)]
    [finding] = diagnose(runs)
    assert finding == Finding(
        "load_disk", "disk (reads measured during load)",
        "load 15.40 s is 75% of the 20.60 s total; the model files were in the page cache before the run (warm), yet "
        "6000 MiB were read from disk during load: the measured reads outrank that label (the program evicted or "
        "bypassed the page cache, or read other files)",
        "find what reads the disk during load: O_DIRECT or --no-mmap loaders, files evicted by the program itself, "
        "or files other than the model; keep them in the page cache")


def step(name, dur, kind, evidence, read=0.0, ended_by="a line"):
    return {"name": name, "dur_s": dur, "kind": kind, "evidence": evidence, "merged": [],
            "ended_by": {"text": ended_by, "stream": "err"}, "resources": {"disk_read_mib": read}}


def test_load_finding_comes_from_the_measured_kind_of_its_largest_step():
    runs = []
    for imports, weights in ((3.0, 12.0), (3.2, 12.4), (2.9, 11.8)):
        r = rec(load=imports + weights, ttft=0.7, decode=4.4, total=imports + weights + 5.1, resources=QUIET,
                cache="cold", reported=REPORTED_CLEAN)
        r["load_steps"] = [step("imports", imports, "cpu-single", "CPU 100 %"),
                           step("weights", weights, "gpu-upload", f"VRAM +8000 MiB at {8000 / weights:.0f} MiB/s")]
        runs.append(r)
    [finding] = diagnose(runs)
    assert finding == Finding(
        "load_step_gpu_upload", "load: upload to the GPU",
        "load 15.00 s is 75% of the 20.10 s total (median of 3 runs); its largest step 'weights' 12.00 s (80% of "
        "load) is gpu-upload: VRAM +8000 MiB at 667 MiB/s; then 'imports' 3.00 s: cpu-single",
        "a smaller quant format moves fewer bytes; check the PCIe link the upload runs over (nvidia-smi -q: link "
        "generation and width, current vs max)")


def test_an_unknown_largest_step_falls_back_to_the_cache_label_rules():
    r = rec(load=25.6, ttft=1.74, decode=4.2, total=32.0, resources=QUIET, cache="cold", model_bytes=7 * GIB,
            reported=REPORTED_CLEAN)
    r["load_steps"] = [step("weights", 25.0, "unknown", "too short to tell")]
    assert diagnose([r])[0].rule == "load_disk"


def test_a_one_core_load_step_is_not_reported_twice():
    r = rec(load=9.0, ttft=0.5, decode=2.0, total=12.0, cache="warm", reported=REPORTED_CLEAN,
            resources=with_res(load__cpu_busiest_thread_pct_max=99.0, load__cpu_pct_mean=104.0, load__disk_read_mib=3.0))
    r["load_steps"] = [step("convert", 8.5, "cpu-single", "CPU 99 % (busiest thread 99 %)")]
    assert [f.rule for f in diagnose([r])] == ["load_step_cpu_single"]
