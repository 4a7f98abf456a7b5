"""Decode detail where decisions are made: compare shows p99 gap, stalls and energy per token side by side;
diagnose tells stuttering decode from steady-but-slow decode."""
import importlib
import json

from wrapper.method.diagnose import diagnose

from .conftest import STANDIN, read_jsonl, run_phasewrap

cmp = importlib.import_module("wrapper.method.compare")


def record(p50, p99, stalls=(), share=0.0, decode=8.0, total=10.0, energy_mj=None):
    return {
        "schema": "phasewrap.run/1", "run_id": "20261130T000000Z-aaaaaa", "status": "ok", "command": ["llama-completion", "-m", "m.gguf"],
        "phases": {"load_s": 1.0, "ttft_s": 1.0, "decode_s": decode, "total_s": total},
        "tokens": {"output": 100, "input": 10}, "ms_per_token": p50, "tokens_per_s": 1000 / p50,
        "decode_gaps_ms": {"n": 99, "mean": p50, "p50": p50, "p90": p50, "p99": p99, "max": p99, "per": "token"},
        "stalls": list(stalls), "stalls_total": len(stalls), "stall_share_of_decode": share,
        "resources": None if energy_mj is None else {"energy_per_output_token_mj": energy_mj},
        "cache": {"label": "warm"}, "tags": {}, "missing": [],
    }


def stall(t_s, gap_ms, **seen):
    return {"t_s": t_s, "gap_ms": gap_ms, "after": "x", "seen": {"gpu_util_mean": None, "cpu_pct_mean": None,
                                                                  "disk_read_mib": None, "major_faults": None, **seen}}


def test_compare_shows_p99_gap_stalls_and_energy_per_token():
    base = [record(10.0, 12.0, energy_mj=500.0) for _ in range(3)]
    cand = [record(10.0, 300.0, stalls=[stall(1, 300)] * 3, share=0.1, energy_mj=520.0) for _ in range(3)]
    result = cmp.compare(base, cand)
    assert result["phases"]["gap_p99_ms"]["base_median"] == 12.0 and result["phases"]["gap_p99_ms"]["diff"] == 288.0
    assert result["phases"]["stalls_total"]["cand_median"] == 3
    assert result["phases"]["energy_per_output_token_mj"]["ratio"] == 1.04
    lines = cmp.render_table(result).splitlines()
    assert lines[7].split()[:5] == ["gap_p99_ms", "12.0", "(3)", "300.0", "(3)"]
    assert lines[8].split()[:5] == ["stalls_total", "0.0", "(3)", "3.0", "(3)"]
    assert lines[9].split()[0] == "energy_per_output_token_mj"


def test_compare_hides_the_detail_rows_when_no_side_has_them():
    old = [{k: v for k, v in record(10.0, 12.0).items() if k not in ("decode_gaps_ms", "stalls_total")}] * 3
    assert "gap_p99_ms" not in cmp.render_table(cmp.compare(old, old))


def test_stuttering_decode_quotes_stall_times_and_what_the_samplers_saw():
    stalls = [stall(3.21, 301.0, gpu_util_mean=2.0, cpu_pct_mean=99.0), stall(5.5, 290.0, gpu_util_mean=1.0,
                                                                            cpu_pct_mean=97.0)]
    [finding] = [f for f in diagnose([record(10.0, 295.0, stalls, share=0.12)]) if f.rule == "decode_stutter"]
    assert finding.statement == ("2 stalls took 12% of decode: at 3.21 s a 301 ms gap (GPU 2%, CPU 99%); at 5.50 s "
                                 "a 290 ms gap (GPU 1%, CPU 97%); p50 gap 10.0 ms, p99 295.0 ms")
    assert finding.next_step.startswith("the GPU idles while the CPU works during the stalls")
    paged = [stall(2.0, 400.0, disk_read_mib=80.0, major_faults=1200.0)]
    [finding] = [f for f in diagnose([record(10.0, 400.0, paged, share=0.2)]) if f.rule == "decode_stutter"]
    assert "(80.0 MiB read from disk, 1200 major page faults)" in finding.statement
    assert "paged in or swapped" in finding.next_step


def test_steady_but_slow_decode():
    findings = diagnose([record(50.0, 55.0) for _ in range(3)])
    [finding] = [f for f in findings if f.rule == "decode_steady"]
    assert finding.statement.startswith("decode is steady: p50 gap 50.0 ms, p99 55.0 ms (median of 3 runs), stalls 0%")
    assert "memory bandwidth and batch size" in finding.next_step
    assert not [f for f in findings if f.rule == "decode_stutter"]


def test_real_stand_in_stalls_reach_diagnose(tmp_path):
    runs = tmp_path / "runs.jsonl"
    proc = run_phasewrap(["run", "--quiet", "--format", "none", "--jsonl", str(runs), "--ready", "model loaded", "--",
                          *STANDIN, "--load-s", "0.1", "--ttft-s", "0.05", "--tokens", "100", "--interval-s", "0.01",
                          "--stall-before", "40,80", "--stall-s", "0.3"])
    assert proc.returncode == 0, proc.stderr
    [rec] = read_jsonl(str(runs))
    assert all(set(s["seen"]) >= {"cpu_pct_mean", "disk_read_mib"} for s in rec["stalls"])
    out = run_phasewrap(["diagnose", str(runs)])
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.decode().split())  # the diagnosis folds to the terminal width
    assert "[stuttering decode (stalls)] 2 stalls took" in text
    for s in rec["stalls"]:
        assert f"at {s['t_s']:.2f} s a {s['gap_ms']:.0f} ms gap" in text


def test_html_report_carries_the_decode_gap_line(tmp_path):
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(record(10.0, 300.0, [stall(1.0, 300.0)], share=0.1)) + "\n")
    out = run_phasewrap(["report", str(runs), "-o", str(tmp_path / "r.html")])
    assert out.returncode == 0, out.stderr
    page = (tmp_path / "r.html").read_text()
    assert "decode gaps: p50 10.0 ms · p99 300.0 ms · max 300 ms · 1 stall (10% of decode)" in page
