"""Run records as MLflow runs (extra: ``phasewrap[mlflow]``): one parent run per sweep, one child per record.

``serialize(record)`` is pure: the params, metrics and tags of one record's MLflow run. ``Exporter(URI)``
is the one writer: it finds or creates the experiment and the sweep's parent run (tag
``phasewrap.sweep_id``), logs a child run per record and attaches the record, its capture and, when
matplotlib is installed, its timeline PNG as artifacts.

Without a URI the store is ``sqlite:///mlflow.db`` in the working directory (artifacts under ``./mlruns``):
nothing to start. ``file:DIR`` still works: MLflow 3 keeps that backend in maintenance mode behind
``MLFLOW_ALLOW_FILE_STORE``, which is set for a ``file:`` URI the user asked for.
"""
from __future__ import annotations

import json
import logging
import os
import tempfile
from typing import Callable, Optional

from ...errors import UsageError
from ...model import phases as phase_table

DEFAULT_URI = "sqlite:///mlflow.db"
EXPERIMENT = "phasewrap"
SWEEP_TAG = "phasewrap.sweep_id"
PHASES = phase_table.KEYS
RESOURCE_KEYS = ("vram_used_peak_mib", "gpu_util_mean", "cpu_pct_mean", "cpu_busiest_thread_pct_max",
                 "rss_peak_mib", "disk_read_mib", "energy_j")
MAX_PARAM = 6000  # MLflow's limit on a param value's length
log = logging.getLogger("phasewrap")


def _flat(prefix: str, value, out: dict) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flat(f"{prefix}.{key}" if prefix else str(key), item, out)
    elif value is not None:
        out[prefix] = value if isinstance(value, str) else json.dumps(value)


def serialize(record: dict) -> dict:
    """``{"params", "metrics", "tags", "name"}`` of one record's MLflow run. params: tags, command, the
    environment fingerprint (flattened, ``env.*``), cache label; metrics: phases, tokens/s, ms/token, output
    tokens, per-phase resources (``<phase>.<key>``). A null value is left out, never logged as 0."""
    params: dict = {}
    for key, value in (record.get("tags") or {}).items():
        params[f"tag.{key}"] = str(value)
    params["command"] = " ".join(record.get("command") or [])
    params["profile"] = record.get("profile") or ""
    cache = record.get("cache")
    params["cache"] = str((cache.get("label") if isinstance(cache, dict) else cache) or "unknown")
    _flat("env", {k: v for k, v in (record.get("env") or {}).items() if k != "unavailable"}, params)
    params = {k: (v if len(v) <= MAX_PARAM else v[:MAX_PARAM - 3] + "...") for k, v in params.items() if v != ""}
    metrics: dict = {}
    for key in PHASES:
        value = (record.get("phases") or {}).get(key)
        if value is not None:
            metrics[key] = float(value)
    for key, value in (("tokens_per_s", record.get("tokens_per_s")), ("ms_per_token", record.get("ms_per_token")),
                       ("output_tokens", (record.get("tokens") or {}).get("output"))):
        if value is not None:
            metrics[key] = float(value)
    for phase, stats in (record.get("resources") or {}).items():
        if not isinstance(stats, dict) or phase == "samplers":
            continue
        for key in RESOURCE_KEYS:
            value = stats.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                metrics[f"{phase}.{key}"] = float(value)
    fl = record.get("fleet") or {}
    tags = {"phasewrap.run_id": record.get("run_id") or "", "phasewrap.status": record.get("status") or "",
            "phasewrap.host": str(fl.get("host") or ""), "phasewrap.shard": f"{fl.get('shard')}/{fl.get('shards')}",
            "phasewrap.warmup": str(bool(record.get("warmup"))).lower(), SWEEP_TAG: str(fl.get("sweep_id") or "")}
    name = " ".join(f"{k}={v}" for k, v in (record.get("tags") or {}).items()) or record.get("run_id") or "run"
    return {"params": params, "metrics": metrics, "tags": tags, "name": name}


def _client_for(uri: Optional[str]):
    try:
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise UsageError("--mlflow: mlflow is not installed; pip install 'phasewrap[mlflow]'") from None
    uri = uri or DEFAULT_URI
    for name in ("mlflow", "alembic"):  # their INFO lines (creating tables…) would land in the user's stderr
        logging.getLogger(name).setLevel(logging.WARNING)
    if uri.startswith("file:"):
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
    return MlflowClient(tracking_uri=uri), uri


class Exporter:
    """Logs each record as a child of its sweep's parent run; the store is opened before anything runs."""

    def __init__(self, uri: Optional[str], experiment: str = EXPERIMENT,
                 capture_for: Callable[[str], Optional[str]] = lambda _run_id: None) -> None:
        self.client, self.uri = _client_for(uri)
        try:
            found = self.client.get_experiment_by_name(experiment)
            self.experiment_id = found.experiment_id if found else self.client.create_experiment(experiment)
        except Exception as exc:  # any store error (bad URI, unreachable server): one line, before the runs
            raise UsageError(f"--mlflow: cannot open the tracking store {self.uri} ({str(exc).splitlines()[0]}); "
                             "check the URI or the server") from None
        self.capture_for = capture_for
        self.parents: dict = {}

    def _parent(self, sweep_id: str) -> str:
        if sweep_id not in self.parents:
            runs = self.client.search_runs([self.experiment_id], f"tags.`{SWEEP_TAG}` = '{sweep_id}' and "
                                           "tags.`phasewrap.kind` = 'sweep'", max_results=1)
            if runs:
                self.parents[sweep_id] = runs[0].info.run_id
            else:
                run = self.client.create_run(self.experiment_id, run_name=f"sweep {sweep_id}",
                                             tags={SWEEP_TAG: sweep_id, "phasewrap.kind": "sweep"})
                self.parents[sweep_id] = run.info.run_id
        return self.parents[sweep_id]

    def __call__(self, record: dict) -> None:
        try:
            self._log(record, self.capture_for(record["run_id"]))
        except Exception as exc:  # the record is already in the other outputs; an export failure loses nothing
            log.error("--mlflow: run %s not logged to %s: %s", record.get("run_id"), self.uri,
                      str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    def _log(self, record: dict, capture_path: Optional[str]) -> None:
        from mlflow.entities import Metric, Param

        data = serialize(record)
        sweep_id = data["tags"][SWEEP_TAG] or "unsharded"
        parent = self._parent(sweep_id)
        tags = {**data["tags"], "mlflow.parentRunId": parent, "phasewrap.kind": "run"}
        run = self.client.create_run(self.experiment_id, run_name=data["name"], tags=tags)
        run_id = run.info.run_id
        stamp = int(_epoch_ms(record.get("started_at")))
        self.client.log_batch(run_id, metrics=[Metric(k, v, stamp, 0) for k, v in data["metrics"].items()],
                              params=[Param(k, v) for k, v in data["params"].items()])
        with tempfile.TemporaryDirectory(prefix="phasewrap-mlflow-") as tmp:
            path = os.path.join(tmp, "record.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(record, fh, ensure_ascii=False, indent=2)
            self.client.log_artifact(run_id, path)
            if capture_path and os.path.exists(capture_path):
                capture = capture_path
                self.client.log_artifact(run_id, capture)
                png = _timeline_png(capture, tmp)
                if png:
                    self.client.log_artifact(run_id, png)
        self.client.set_terminated(run_id, "FINISHED" if record.get("status") == "ok" else "FAILED")
        self.client.set_terminated(parent, "FINISHED")  # the sweep's end time moves with its last run


def _timeline_png(capture: str, directory: str) -> Optional[str]:
    """The run's timeline drawn from its capture, or None without matplotlib."""
    try:
        from ..plot import PlotUnavailable, load_runs, timeline
    except ImportError:
        return None
    path = os.path.join(directory, "timeline.png")
    try:
        timeline(load_runs([capture]), path)
    except (PlotUnavailable, ValueError, OSError):
        return None
    return path


def _epoch_ms(iso: Optional[str]) -> float:
    import datetime as _dt
    import time

    if not iso:
        return time.time() * 1000
    return _dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000
