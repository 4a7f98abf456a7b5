"""The fleet features against the real components: a one-node Slurm cluster running a job array,
node_exporter's textfile collector, an MLflow store, and the Kubernetes recipe's wiring."""
import json
import os
import shlex

import pytest

from . import services
from .conftest import PHASEWRAP, ROOT, STANDIN, read_jsonl, run_phasewrap

SWEEP = ["--ready", "model loaded", "--gpu", "off", "-q", "-L", "t=2,3,4,5", "-n", "2"]
CHILD = ["--", *STANDIN, "--load-s", "0.05", "--ttft-s", "0.05", "--tokens", "{t}", "--interval-s", "0.01"]
SBATCH_SCRIPT = os.path.join(ROOT, "samples", "fleet", "slurm-sweep.sbatch")
K8S_MANIFEST = os.path.join(ROOT, "samples", "fleet", "k8s-indexed-job.yaml")


@pytest.mark.skipif(services.missing_slurm() is not None, reason=str(services.missing_slurm()))
def test_slurm_job_array_runs_the_plan_once_and_merges():
    with services.slurm_cluster() as cluster:
        results = os.path.join(cluster.root, "results")
        env = {**cluster.env, "PHASEWRAP": shlex.join(PHASEWRAP), "PHASEWRAP_RESULTS": results}
        # the recipe from samples/, as is; --gres=none because the test node has no GPU to hand out
        proc = cluster.run(["sbatch", "--array=0-3", "--wait", "--gres=none", f"--chdir={cluster.root}",
                            f"--output={cluster.root}/task-%a.out", SBATCH_SCRIPT, *SWEEP, *CHILD],
                           env=env)
        logs = "".join(open(os.path.join(cluster.root, f)).read() for f in sorted(os.listdir(cluster.root))
                       if f.startswith("task-"))
        assert proc.returncode == 0, proc.stderr.decode() + logs
        job = proc.stdout.decode().split()[-1]  # "Submitted batch job N"
        files = sorted(f for f in os.listdir(results) if f.endswith(".jsonl"))
        assert [f.rsplit("-", 1)[0] for f in files] == [f"{job}-{s}" for s in range(4)]
        merged = os.path.join(cluster.root, "merged.jsonl")
        proc = run_phasewrap(["merge", *(os.path.join(results, f) for f in files), "-o", merged])
        assert proc.returncode == 0, proc.stderr.decode()
        assert "8 record(s) from 4 file(s); 0 duplicate(s) dropped" in proc.stderr.decode()
        records = read_jsonl(merged)
    assert len(records) == 8 and len({r["run_id"] for r in records}) == 8
    assert sorted(r["fleet"]["plan_index"] for r in records) == list(range(8))
    assert sorted({r["fleet"]["shard"] for r in records}) == [0, 1, 2, 3]
    for r in records:
        assert r["fleet"]["scheduler"] == "slurm" and r["fleet"]["sweep_id"] == job
        assert r["fleet"]["shards"] == 4 and r["fleet"]["job_id"] is not None
        assert r["tags"] == {"t": str(r["fleet"]["shard"] + 2)}
        assert r["command"][-4:-2] == ["--tokens", str(r["fleet"]["shard"] + 2)]
        assert r["status"] == "ok" and r["phases"]["load_s"] is not None


def _samples(text: str) -> list:
    from prometheus_client.parser import text_string_to_metric_families

    return [s for family in text_string_to_metric_families(text) for s in family.samples]


@pytest.mark.skipif(services.missing_node_exporter() is not None, reason=str(services.missing_node_exporter()))
def test_prom_textfile_is_scraped_by_node_exporter(tmp):
    pytest.importorskip("prometheus_client", reason="pip install 'phasewrap[prometheus]'")
    textfiles = tmp / "textfile"
    textfiles.mkdir()
    proc = run_phasewrap(["run", "--prom-textfile", str(textfiles), "--jsonl", str(tmp / "r.jsonl"),
                          "--tag", "model=standin", "--format", "none", *SWEEP[:4], "-L", "t=3,6", *CHILD])
    assert proc.returncode == 0, proc.stderr.decode()
    records = read_jsonl(tmp / "r.jsonl")
    assert sorted(os.listdir(textfiles)) == ["phasewrap.prom"]  # the temporary file was renamed away
    own = [s for s in _samples((textfiles / "phasewrap.prom").read_text()) if s.name.startswith("phasewrap_")]
    assert {s.labels["phase"] for s in own if s.name == "phasewrap_phase_seconds"} == {
        "load", "ttft", "decode", "total"}
    with services.node_exporter(str(textfiles)) as url:
        scraped = _samples(services.scrape(url))
    assert not [s for s in scraped if s.name == "node_textfile_scrape_error" and s.value != 0]
    for r in records:
        labels = {"profile": "generic", "host": r["fleet"]["host"], "cache": "unknown", "tag_model": "standin",
                  "tag_t": r["tags"]["t"]}
        for phase in ("load", "ttft", "decode", "total"):
            (sample,) = [s for s in scraped if s.name == "phasewrap_phase_seconds"
                         and s.labels == {**labels, "phase": phase}]
            assert sample.value == r["phases"][phase + "_s"]
        (tps,) = [s for s in scraped if s.name == "phasewrap_tokens_per_second" and s.labels == labels]
        assert tps.value == r["tokens_per_s"]
        (tokens,) = [s for s in scraped if s.name == "phasewrap_output_tokens" and s.labels == labels]
        assert tokens.value == r["tokens"]["output"]


def test_mlflow_store_holds_a_parent_per_sweep_and_a_child_per_run(tmp, monkeypatch):
    pytest.importorskip("mlflow", reason="pip install 'phasewrap[mlflow]'")
    from mlflow.tracking import MlflowClient

    from .conftest import HAVE_MPL

    store = tmp / "mlruns"
    uri = f"file:{store}"
    proc = run_phasewrap(["run", "--mlflow", uri, "--sweep-id", "s-1", "--jsonl", str(tmp / "r.jsonl"),
                          "--capture", str(tmp / "caps"), "--format", "none", *SWEEP[:4], "-L", "t=3,6", *CHILD],
                         env={k: v for k, v in os.environ.items() if k != "MLFLOW_ALLOW_FILE_STORE"})
    assert proc.returncode == 0, proc.stderr.decode()
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # phasewrap sets it for a file: URI; so must we
    assert b"INFO" not in proc.stderr  # MLflow's own chatter stays out of the user's stderr
    records = {r["run_id"]: r for r in read_jsonl(tmp / "r.jsonl")}
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("phasewrap")
    runs = client.search_runs([experiment.experiment_id])
    parents = [r for r in runs if r.data.tags.get("phasewrap.kind") == "sweep"]
    children = [r for r in runs if r.data.tags.get("phasewrap.kind") == "run"]
    assert len(parents) == 1 and parents[0].data.tags["phasewrap.sweep_id"] == "s-1"
    assert len(children) == 2
    for child in children:
        record = records[child.data.tags["phasewrap.run_id"]]
        assert child.data.tags["mlflow.parentRunId"] == parents[0].info.run_id
        for key in ("load_s", "ttft_s", "decode_s", "total_s", "tokens_per_s"):
            assert child.data.metrics[key] == record["phases"].get(key, record.get(key))
        assert child.data.params["tag.t"] == record["tags"]["t"]
        assert child.data.params["command"] == " ".join(record["command"])
        assert child.data.params["cache"] == "unknown"
        assert child.data.params["env.host"] == record["env"]["host"]
        artifacts = {a.path for a in client.list_artifacts(child.info.run_id)}
        expected = {"record.json", record["run_id"] + ".capture.jsonl"} | ({"timeline.png"} if HAVE_MPL else set())
        assert artifacts == expected
        local = client.download_artifacts(child.info.run_id, "record.json", str(tmp))
        with open(local) as fh:
            assert json.load(fh)["run_id"] == record["run_id"]


def test_mlflow_without_uri_uses_a_local_store_in_the_working_directory(tmp):
    pytest.importorskip("mlflow", reason="pip install 'phasewrap[mlflow]'")
    pytest.importorskip("sqlalchemy", reason="pip install 'phasewrap[mlflow]'")
    from mlflow.tracking import MlflowClient

    proc = run_phasewrap(["run", "--mlflow", "--jsonl", "r.jsonl", "--format", "none", *SWEEP[:4], "-L", "t=4",
                          *CHILD], cwd=tmp)
    assert proc.returncode == 0, proc.stderr.decode()
    (record,) = read_jsonl(tmp / "r.jsonl")
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp}/mlflow.db")
    (child,) = [r for r in client.search_runs([client.get_experiment_by_name("phasewrap").experiment_id])
                if r.data.tags.get("phasewrap.kind") == "run"]
    assert child.data.metrics["output_tokens"] == record["tokens"]["output"]
    assert child.data.metrics["load_s"] == record["phases"]["load_s"]


def test_mlflow_unreachable_server_is_a_usage_error(tmp):
    pytest.importorskip("mlflow", reason="pip install 'phasewrap[mlflow]'")
    port = services.free_port()  # nothing listens there
    proc = run_phasewrap(["run", "--mlflow", f"http://127.0.0.1:{port}", "--format", "none", *SWEEP[:4], "-L", "t=4",
                          *CHILD],
                         env={**os.environ, "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "0",
                              "MLFLOW_HTTP_REQUEST_TIMEOUT": "5"}, cwd=tmp)
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("--mlflow: cannot open the tracking store http://127.0.0.1:")


def test_kubernetes_manifest_is_an_indexed_job_wired_to_the_shards():
    yaml = pytest.importorskip("yaml", reason="pip install pyyaml (the test extra)")
    with open(K8S_MANIFEST) as fh:
        job = yaml.safe_load(fh)
    assert job["kind"] == "Job" and job["apiVersion"] == "batch/v1"
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    (container,) = spec["template"]["spec"]["containers"]
    args = container["args"]
    assert args[:3] == ["run", "--shard", "auto"]
    assert int(args[args.index("--shards") + 1]) == spec["completions"] == spec["parallelism"]
    env = {e["name"]: e["valueFrom"]["fieldRef"]["fieldPath"] for e in container["env"]}
    assert env["JOB_COMPLETION_INDEX"] == "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    assert env["JOB_NAME"] == "metadata.labels['batch.kubernetes.io/job-name']"
    assert "{shard}" in args[args.index("--jsonl") + 1]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
    # the manifest's own options, with the stand-in as the command: the plan splits into one shard per index
    options = args[1:args.index("--")]
    proc = run_phasewrap(["plan", *options, "--format", "json", "--", *STANDIN, "-c", "{ctx}"])
    assert proc.returncode == 0, proc.stderr.decode()
    rows = json.loads(proc.stdout)
    assert sorted({r["shard"] for r in rows}) == list(range(spec["completions"]))
    assert len(rows) == 8


def test_prom_textfile_per_shard_and_bad_directory(tmp):
    pytest.importorskip("prometheus_client", reason="pip install 'phasewrap[prometheus]'")
    proc = run_phasewrap(["run", "--prom-textfile", str(tmp / "nope"), "--format", "none", *SWEEP[:4], "-L", "t=3",
                          *CHILD])
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("--prom-textfile: ") and b"is not a directory" in proc.stderr
    for shard in ("0/2", "1/2"):
        proc = run_phasewrap(["run", "--shard", shard, "--prom-textfile", str(tmp), "--format", "none", *SWEEP[:4],
                              "-L", "t=3", "-n", "2", *CHILD])
        assert proc.returncode == 0, proc.stderr.decode()
    assert sorted(os.listdir(tmp)) == ["phasewrap-shard0.prom", "phasewrap-shard1.prom"]
    for shard in (0, 1):
        loads = [s for s in _samples((tmp / f"phasewrap-shard{shard}.prom").read_text())
                 if s.name == "phasewrap_phase_seconds" and s.labels["phase"] == "load"]
        assert [s.labels["shard"] for s in loads] == [str(shard)]
