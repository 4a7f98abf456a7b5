"""Sharded sweeps: the plan, --shard I/N|auto from the scheduler's variables, the fleet key, output-path
placeholders and merge — on real stand-in runs."""
import json
import os
import socket

import pytest

from wrapper.method import fleet, merge
from wrapper.errors import UsageError

from .conftest import STANDIN, read_jsonl, run_phasewrap

# A 4-value × 2-run sweep on the stand-in: the token count is the swept value.
SWEEP = ["-L", "t=2,3,4,5", "-n", "2"]
CHILD = ["--", *STANDIN, "--load-s", "0.05", "--ttft-s", "0.05", "--tokens", "{t}", "--interval-s", "0.01"]
QUIET = ["--ready", "model loaded", "--format", "none", "--gpu", "off", "--no-env", "-q"]


def clean_env(**extra) -> dict:
    """This environment without any scheduler variable, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SLURM_") and k not in ("JOB_COMPLETION_INDEX", "JOB_NAME")}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def slurm_env(task: int, job: int = 4242) -> dict:
    return clean_env(SLURM_ARRAY_TASK_ID=task, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_MAX=3,
                     SLURM_ARRAY_JOB_ID=job, SLURM_JOB_ID=job + 1 + task)


@pytest.mark.parametrize("total,shards", [(8, 4), (7, 3), (5, 5), (10, 4), (1, 1), (9, 2)])
def test_shards_are_disjoint_and_cover_the_plan(total, shards):
    items = fleet.plan(total, 1)
    seen = [it.index for s in range(shards) for it in fleet.select(items, s, shards)]
    assert seen == list(range(total))
    sizes = [len(fleet.select(items, s, shards)) for s in range(shards)]
    assert max(sizes) - min(sizes) <= 1
    assert [fleet.shard_of(i, total, shards) for i in range(total)] == [
        s for s in range(shards) for _ in fleet.select(items, s, shards)]


def test_plan_is_variant_major():
    assert [(it.index, it.variant, it.repeat) for it in fleet.plan(2, 3)] == [
        (0, 0, 0), (1, 0, 1), (2, 0, 2), (3, 1, 0), (4, 1, 1), (5, 1, 2)]


def test_shard_from_slurm_variables():
    s = fleet.parse_shard("auto", None, {"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5",
                                         "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_JOB_ID": "100",
                                         "SLURM_JOB_ID": "103"})
    assert s == fleet.Shard(2, 4, "slurm", "103", "100")
    s = fleet.parse_shard("auto", None, {"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3"})
    assert (s.index, s.count, s.scheduler) == (1, 3, "slurm")


def test_shard_from_kubernetes_index():
    s = fleet.parse_shard("auto", 4, {"JOB_COMPLETION_INDEX": "3", "JOB_NAME": "sweep-a", "HOSTNAME": "pod-3"})
    assert s == fleet.Shard(3, 4, "kubernetes", "pod-3", "sweep-a")
    with pytest.raises(UsageError, match="--shards N"):
        fleet.parse_shard("auto", None, {"JOB_COMPLETION_INDEX": "0"})
    with pytest.raises(UsageError, match="not below --shards 2"):
        fleet.parse_shard("auto", 2, {"JOB_COMPLETION_INDEX": "2"})


@pytest.mark.parametrize("text,message", [
    ("4/4", "need 0 <= I < N"), ("1-4", "expected I/N"), ("a/b", "expected I/N"), ("0/0", "need 0 <= I < N")])
def test_bad_shard_text(text, message):
    with pytest.raises(UsageError, match=message):
        fleet.parse_shard(text, None, {})


def test_placeholders_expand():
    info = {"host": "gpu7", "shard": 2, "sweep_id": "s1"}
    assert fleet.expand("r/{sweep_id}/{host}-{shard}-{run_id}.jsonl", info, "RID") == "r/s1/gpu7-2-RID.jsonl"
    assert fleet.expand("keep-{other}.jsonl", info, "RID") == "keep-{other}.jsonl"


def test_shard_auto_without_scheduler_exits_2_naming_the_variables(tmp):
    proc = run_phasewrap(["run", "--shard", "auto", *QUIET, *SWEEP, *CHILD], env=clean_env(), cwd=tmp)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert len(err.strip().splitlines()) == 1
    for name in ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MAX", "JOB_COMPLETION_INDEX"):
        assert name in err


def test_four_slurm_tasks_cover_the_plan_once_and_merge(tmp):
    out = tmp / "out"
    out.mkdir()
    for task in range(4):
        proc = run_phasewrap(["run", "--shard", "auto", "--jsonl", str(out / "{host}-{shard}.jsonl"),
                              "--capture", str(tmp / "caps" / "{sweep_id}" / "{shard}"), *QUIET, *SWEEP, *CHILD],
                             env=slurm_env(task))
        assert proc.returncode == 0, proc.stderr.decode()
    host = socket.gethostname()
    files = sorted(os.listdir(out))
    assert files == [f"{host}-{s}.jsonl" for s in range(4)]
    records = [r for f in files for r in read_jsonl(out / f)]
    assert sorted(r["fleet"]["plan_index"] for r in records) == list(range(8))
    for r in records:
        s = r["fleet"]["shard"]
        assert r["fleet"] == {"host": host, "shard": s, "shards": 4, "sweep_id": "4242", "scheduler": "slurm",
                              "job_id": str(4243 + s), "plan_index": r["fleet"]["plan_index"], "plan_size": 8}
        assert r["fleet"]["plan_index"] in (2 * s, 2 * s + 1)
        assert r["tags"] == {"t": str(s + 2)}  # contiguous shards: shard s holds value s, both runs
        assert r["command"][-4:-2] == ["--tokens", str(s + 2)]
        assert os.path.exists(tmp / "caps" / "4242" / str(s) / (r["run_id"] + ".capture.jsonl"))
    # a duplicated line (a task retried) and a cut-off last line (a task killed mid-write)
    with open(out / f"{host}-1.jsonl", "a") as fh:
        fh.write(json.dumps(records[0]) + "\n" + '{"schema": "phasewrap.run/1", "run_id": "cut')
    proc = run_phasewrap(["merge", str(out), "-o", str(tmp / "merged.jsonl")])
    assert proc.returncode == 0, proc.stderr.decode()
    merged = read_jsonl(tmp / "merged.jsonl")
    assert len(merged) == 8
    assert sorted(r["run_id"] for r in merged) == sorted(r["run_id"] for r in records)
    err = proc.stderr.decode()
    assert "8 record(s) from 4 file(s); 1 duplicate(s) dropped" in err
    assert f"{host}-1.jsonl: line 4: invalid JSON" in err
    assert "shards 0, 1, 2, 3 present" in err
    assert "missing" not in err

    # a failed task: its plan items are reported and the exit status is 1
    os.unlink(out / f"{host}-2.jsonl")
    proc = run_phasewrap(["merge", str(out), "-o", "-"])
    assert proc.returncode == 1
    assert len(proc.stdout.decode().splitlines()) == 6
    err = proc.stderr.decode()
    assert "missing: sweep 4242 plan item 4 (shard 2/4)" in err
    assert "missing: sweep 4242 plan item 5 (shard 2/4)" in err
    assert "--shard 2/4" in err


def test_kubernetes_index_shard_and_run_id_placeholder(tmp):
    env = clean_env(JOB_COMPLETION_INDEX=1, JOB_NAME="ctx-sweep")
    proc = run_phasewrap(["run", "--shard", "auto", "--shards", "2", "--jsonl", str(tmp / "{run_id}.jsonl"),
                          *QUIET, *SWEEP, *CHILD], env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    files = sorted(os.listdir(tmp))
    assert len(files) == 4  # shard 1 of 2: items 4-7, one file per run
    for name in files:
        (r,) = read_jsonl(tmp / name)
        assert name == r["run_id"] + ".jsonl"
        assert r["fleet"]["scheduler"] == "kubernetes" and r["fleet"]["sweep_id"] == "ctx-sweep"
        assert r["fleet"]["shard"] == 1 and r["tags"]["t"] in ("4", "5")


def test_warmups_are_per_shard_and_one_machine_gets_a_fleet_key(tmp):
    proc = run_phasewrap(["run", "--shard", "1/2", "--warmup", "1", "--sweep-id", "mine",
                          "--jsonl", str(tmp / "r.jsonl"), *QUIET, *SWEEP, *CHILD], env=clean_env())
    assert proc.returncode == 0, proc.stderr.decode()
    records = read_jsonl(tmp / "r.jsonl")
    assert [(r["tags"]["t"], r["warmup"], r["fleet"]["plan_index"]) for r in records] == [
        ("4", True, None), ("4", False, 4), ("4", False, 5), ("5", True, None), ("5", False, 6), ("5", False, 7)]
    assert {r["fleet"]["sweep_id"] for r in records} == {"mine"}
    proc = run_phasewrap(["run", "--jsonl", str(tmp / "one.jsonl"), *QUIET, *CHILD[:1], *CHILD[1:]],
                         env=clean_env())
    (r,) = read_jsonl(tmp / "one.jsonl")
    assert r["fleet"]["shard"] == 0 and r["fleet"]["shards"] == 1 and r["fleet"]["scheduler"] is None
    assert r["fleet"]["unavailable"]["scheduler"].startswith("not run by a scheduler")
    assert r["fleet"]["sweep_id"].startswith("sweep-")


def test_plan_prints_the_split():
    proc = run_phasewrap(["plan", *SWEEP, "--shards", "3", "--format", "json", *CHILD])
    assert proc.returncode == 0, proc.stderr.decode()
    rows = json.loads(proc.stdout)
    assert [(r["index"], r["shard"], r["tags"]["t"], r["repeat"]) for r in rows] == [
        (0, 0, "2", 0), (1, 0, "2", 1), (2, 1, "3", 0), (3, 1, "3", 1), (4, 1, "4", 0), (5, 2, "4", 1),
        (6, 2, "5", 0), (7, 2, "5", 1)]
    assert rows[0]["command"][-4:] == ["--tokens", "2", "--interval-s", "0.01"]
    proc = run_phasewrap(["plan", *SWEEP, "--shards", "4", *CHILD])
    text = proc.stdout.decode()
    assert text.startswith("plan: 8 recorded run(s) in 4 shard(s)\n")
    assert "shard 3/4: items 6-7 (2 run(s))" in text
    proc = run_phasewrap(["plan", *SWEEP, "--shards", "9", *CHILD])
    assert proc.returncode == 2 and b"at most 8 shards" in proc.stderr


def test_merge_reports_hosts_that_differ_in_environment():
    def record(run_id, host, driver):
        return {"schema": "phasewrap.run/1", "run_id": run_id, "fleet": {"host": host},
                "env": {"gpu_driver": driver, "cuda_version": "12.4", "gpus": [{"name": "NVIDIA H200"}]}}

    result = merge.merge([("a", [record("1", "n1", "550.54"), record("2", "n2", "550.54")]),
                          ("b", [record("3", "n3", "560.28"), record("1", "n1", "550.54")])])
    assert result.duplicates == 1
    assert result.host_differences == [{"condition": "driver", "values": {
        "n1": "550.54 (CUDA 12.4)", "n2": "550.54 (CUDA 12.4)", "n3": "560.28 (CUDA 12.4)"}}]
    assert "hosts differ in driver" in merge.summary(result, 2)


def test_merge_of_nothing_is_a_usage_error(tmp):
    (tmp / "empty").mkdir()
    proc = run_phasewrap(["merge", str(tmp / "empty"), "-o", str(tmp / "m.jsonl")])
    assert proc.returncode == 2 and b"no run records found" in proc.stderr
    proc = run_phasewrap(["merge", str(tmp / "nope"), "-o", str(tmp / "m.jsonl")])
    assert proc.returncode == 2 and b"no such file or directory" in proc.stderr


def _host_records(tmp):
    """Nine real stand-in runs as if from three hosts: node-a and node-b load in 0.4 s, node-slow in 1.2 s."""
    for name, load in (("fast", "0.4"), ("slow", "1.2")):
        proc = run_phasewrap(["run", "-n", "6" if name == "fast" else "3", "--jsonl", str(tmp / f"{name}.jsonl"),
                              *QUIET, "--", *STANDIN, "--load-s", load, "--ttft-s", "0.05", "--tokens", "3",
                              "--interval-s", "0.01"], env=clean_env())
        assert proc.returncode == 0, proc.stderr.decode()
    fast, slow = read_jsonl(tmp / "fast.jsonl"), read_jsonl(tmp / "slow.jsonl")
    for i, r in enumerate(fast):
        r["fleet"]["host"] = "node-a" if i % 2 else "node-b"
    for r in slow:
        r["fleet"]["host"] = "node-slow"
    path = tmp / "merged.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in fast + slow))
    return path, fast + slow


def test_by_host_names_the_slow_node(tmp):
    path, records = _host_records(tmp)
    proc = run_phasewrap(["compare", "--by", "host", "--format", "json", str(path)])
    assert proc.returncode == 0, proc.stderr.decode()
    result = json.loads(proc.stdout)
    assert [(h["host"], h["runs"]) for h in result["hosts"]] == [("node-b", 3), ("node-a", 3), ("node-slow", 3)]
    assert ["node-slow", "load_s"] in result["outliers"]
    # load is what differs by design; decode and TTFT of 3 tokens are noise on a loaded VM, so only load is asserted
    assert [host for host, key in result["outliers"] if key == "load_s"] == ["node-slow"]
    slow = result["hosts"][2]
    own = sorted(r["phases"]["load_s"] for r in records if r["fleet"]["host"] == "node-slow")
    assert slow["median"]["load_s"] == own[1]
    text = run_phasewrap(["compare", "--by", "host", str(path)]).stdout.decode()
    assert "outlier: node-slow load_s" in text
    text = run_phasewrap(["diagnose", "--by", "host", str(path)]).stdout.decode()
    assert text.startswith("by host: medians")
    assert [line for line in text.splitlines() if line.startswith("host node")] == [
        "host node-b:", "host node-a:", "host node-slow:"]
    proc = run_phasewrap(["report", "--by", "host", str(path), "-o", str(tmp / "r.html")])
    assert proc.returncode == 0, proc.stderr.decode()
    page = (tmp / "r.html").read_text()
    assert "<h2>By host</h2>" in page and '<td class="outlier">' in page and "node-slow" in page


def test_plot_by_host_draws_bars(tmp):
    from .conftest import HAVE_MPL

    if not HAVE_MPL:
        pytest.skip("matplotlib not installed: pip install 'phasewrap[plot]'")
    path, _ = _host_records(tmp)
    proc = run_phasewrap(["plot", "--by", "host", str(path), "-o", str(tmp / "hosts.png")])
    assert proc.returncode == 0, proc.stderr.decode()
    assert (tmp / "hosts.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
