"""A sweep's plan split into shards, where a shard comes from (Slurm job arrays, Kubernetes Indexed Jobs),
the ``fleet`` key every record carries, and the ``{host}``/``{shard}``/``{sweep_id}``/``{run_id}`` placeholders
of output paths.

The plan is deterministic: every ``-L`` combination (in ``itertools.product`` order) times ``-n`` runs,
numbered from 0. Shard ``I`` of ``N`` takes the contiguous items ``[I*T//N, (I+1)*T//N)``, so shards are
disjoint, cover the plan, differ in size by at most one item, and a shard usually holds whole combinations
(one model load, one set of warm-ups). Pure: the environment is passed in.
"""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

from ..errors import UsageError
from ..core.safe import path_component

PLACEHOLDERS = ("host", "shard", "sweep_id", "run_id")
_PLACEHOLDER = re.compile(r"\{(host|shard|sweep_id|run_id)\}")

SLURM_VARS = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_COUNT")
K8S_INDEX = "JOB_COMPLETION_INDEX"


class ShardError(UsageError):
    """A --shard / --shards value or scheduler environment that can't give a shard; the message says the fix."""


@dataclass(frozen=True)
class PlanItem:
    """One recorded run of the plan: ``index`` in the whole plan, the combination's ``variant`` number and
    its ``repeat`` number (0-based, < runs)."""

    index: int
    variant: int
    repeat: int


@dataclass(frozen=True)
class Shard:
    """Which slice of the plan this process runs, and what the scheduler said about it."""

    index: int
    count: int
    scheduler: Optional[str] = None  # "slurm" | "kubernetes" | None (given by hand or not sharded)
    job_id: Optional[str] = None
    sweep_id: Optional[str] = None  # the scheduler's name for the whole sweep, if it has one


def plan(variant_count: int, runs: int) -> list[PlanItem]:
    """Every recorded run of the sweep, numbered: variant-major, then repeat."""
    return [PlanItem(v * runs + r, v, r) for v in range(variant_count) for r in range(runs)]


def bounds(total: int, shard: int, shards: int) -> tuple[int, int]:
    """[start, end) of shard ``shard`` of ``shards`` in a plan of ``total`` items."""
    return shard * total // shards, (shard + 1) * total // shards


def shard_of(index: int, total: int, shards: int) -> int:
    """The shard a plan item belongs to (the inverse of ``bounds``)."""
    for s in range(shards):
        start, end = bounds(total, s, shards)
        if start <= index < end:
            return s
    raise ValueError(f"plan item {index} is outside a plan of {total}")


def select(items: Sequence[PlanItem], shard: int, shards: int) -> list[PlanItem]:
    """The items of one shard."""
    start, end = bounds(len(items), shard, shards)
    return list(items[start:end])


def parse_shard(text: str, shards: Optional[int], env: Mapping[str, str]) -> Shard:
    """``--shard I/N`` or ``--shard auto`` (with ``--shards N`` for a Kubernetes Indexed Job) → a Shard.

    ``auto`` reads, in order: Slurm's ``SLURM_ARRAY_TASK_ID`` with ``SLURM_ARRAY_TASK_MIN`` and
    ``SLURM_ARRAY_TASK_MAX`` (or ``SLURM_ARRAY_TASK_COUNT``); Kubernetes' ``JOB_COMPLETION_INDEX`` with
    ``--shards N``. Raises ShardError naming the variables when none is set.
    """
    if text != "auto":
        m = re.fullmatch(r"([0-9]+)/([0-9]+)", text)  # ASCII digits only: int() would take "٣" and " 3"
        if not m:
            raise ShardError(f"--shard: expected I/N (e.g. 0/4) or auto, got {text!r}")
        index, count = int(m.group(1)), int(m.group(2))
        if count < 1 or index >= count:
            raise ShardError(f"--shard {text}: need 0 <= I < N (shards are numbered from 0)")
        if shards is not None and shards != count:
            raise ShardError(f"--shard {text} and --shards {shards} disagree; give one of them")
        return Shard(index, count)
    if env.get("SLURM_ARRAY_TASK_ID"):
        return _slurm(env)
    if env.get(K8S_INDEX):
        if shards is None:
            raise ShardError(f"--shard auto: {K8S_INDEX} is set (a Kubernetes Indexed Job) but the shard count "
                             "is not; pass --shards N (the Job's completions)")
        index = _int(env, K8S_INDEX)
        if index >= shards:
            raise ShardError(f"--shard auto: {K8S_INDEX}={index} is not below --shards {shards}; set --shards "
                             "to the Job's completions")
        return Shard(index, shards, "kubernetes", env.get("HOSTNAME") or None, env.get("JOB_NAME") or None)
    raise ShardError("--shard auto: no scheduler variables set (SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN "
                     f"and SLURM_ARRAY_TASK_MAX or SLURM_ARRAY_TASK_COUNT, or {K8S_INDEX} with --shards N); run "
                     "inside a job array or give --shard I/N")


def _int(env: Mapping[str, str], name: str) -> int:
    text = env.get(name)
    if text is None or not re.fullmatch(r"[0-9]+", text):  # int() would take "+1", " 1", "1_0" and "١"
        raise ShardError(f"--shard auto: {name}={text!r} is not a whole number (ASCII digits)")
    return int(text)


def _slurm(env: Mapping[str, str]) -> Shard:
    task = _int(env, "SLURM_ARRAY_TASK_ID")
    low = _int(env, "SLURM_ARRAY_TASK_MIN") if env.get("SLURM_ARRAY_TASK_MIN") else 0
    if env.get("SLURM_ARRAY_TASK_MAX"):
        count = _int(env, "SLURM_ARRAY_TASK_MAX") - low + 1
    elif env.get("SLURM_ARRAY_TASK_COUNT"):
        count = _int(env, "SLURM_ARRAY_TASK_COUNT")
    else:
        raise ShardError("--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_MAX nor "
                         "SLURM_ARRAY_TASK_COUNT is; submit with sbatch --array=0-N")
    index = task - low
    if not 0 <= index < count:
        raise ShardError(f"--shard auto: SLURM_ARRAY_TASK_ID={task} is outside {low}..{low + count - 1}; use a "
                         "contiguous --array range such as 0-3")
    job = env.get("SLURM_JOB_ID") or None
    return Shard(index, count, "slurm", job, env.get("SLURM_ARRAY_JOB_ID") or None)


def new_sweep_id(wall_s: Optional[float] = None) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(wall_s if wall_s is not None else time.time()))
    return f"sweep-{stamp}-{os.urandom(3).hex()}"


def describe(shard: Optional[Shard], sweep_id: Optional[str], plan_size: int,
             env: Mapping[str, str] = os.environ, host: Optional[str] = None) -> dict:
    """The ``fleet`` key (without the per-run ``plan_index``): where and as which shard of which sweep."""
    shard = shard or Shard(0, 1)
    sweep = sweep_id or shard.sweep_id or new_sweep_id()
    info = {"host": host or os.uname().nodename or None, "shard": shard.index, "shards": shard.count,
            "sweep_id": sweep, "scheduler": shard.scheduler, "job_id": shard.job_id,
            "plan_index": None, "plan_size": plan_size}
    if shard.scheduler is None:
        info["unavailable"] = {"scheduler": "not run by a scheduler (no --shard auto)",
                               "job_id": "not run by a scheduler (no --shard auto)"}
    return info


def placeholders_in(path: Optional[str]) -> set:
    return set(_PLACEHOLDER.findall(path or ""))


def expand(path: str, fleet: Mapping, run_id: Optional[str]) -> str:
    """``path`` with ``{host}``, ``{shard}``, ``{sweep_id}`` and ``{run_id}`` filled in (other braces kept;
    ``run_id=None`` keeps ``{run_id}``). Each value is one file-name component (``safe.path_component``): a
    scheduler's ``JOB_NAME=../../x`` or a host name with ``/`` never reaches outside the directory named."""
    values = {"host": fleet.get("host") or "unknown-host", "shard": str(fleet.get("shard", 0)),
              "sweep_id": fleet.get("sweep_id") or "", "run_id": run_id}
    return _PLACEHOLDER.sub(lambda m: m.group() if values[m.group(1)] is None else path_component(values[m.group(1)]),
                            path)


def setup(shard_text: Optional[str], shards: Optional[int], sweep_id: Optional[str], variant_count: int,
          runs: int, env: Mapping[str, str] = os.environ) -> tuple[Optional[list[PlanItem]], dict]:
    """(the plan items this process runs, None for the whole plan; the ``fleet`` key) from the run options.

    ``sweep_id``: the option, else the scheduler's (``SLURM_ARRAY_JOB_ID``, a Kubernetes Job's ``JOB_NAME``),
    else a new one.
    """
    if shards is not None and shard_text is None:
        raise ShardError("--shards N: give --shard auto (Kubernetes: JOB_COMPLETION_INDEX) or --shard I/N with it")
    items = plan(variant_count, runs)
    shard = parse_shard(shard_text, shards, env) if shard_text is not None else None
    info = describe(shard, sweep_id, len(items), env)
    if shard is None:
        return None, info
    chosen = select(items, shard.index, shard.count)
    if not chosen:
        raise ShardError(f"--shard {shard.index}/{shard.count}: the plan has only {len(items)} run(s), so this "
                         f"shard would be empty; use at most {len(items)} shards")
    return chosen, info


def capture_check_dir(template: str) -> str:
    """The directory to create and check before the runs when ``--capture`` holds ``{run_id}``."""
    head = template.split("{run_id}")[0]
    directory = head if head.endswith("/") else os.path.dirname(head)
    return directory or "."


def render_plan(rows: Sequence[dict], warmup: int = 0) -> str:
    """``api.plan``'s rows as a table, then per shard which items it runs."""
    from tabulate import tabulate

    if not rows:
        return "empty plan\n"
    shards = rows[0]["shards"]
    tag_keys = list(dict.fromkeys(k for r in rows for k in r["tags"]))
    table = [[r["index"], f"{r['shard']}/{shards}", *(r["tags"].get(k, "") for k in tag_keys),
              f"{r['repeat'] + 1}/{max(x['repeat'] for x in rows) + 1}", " ".join(r["command"])] for r in rows]
    head = f"plan: {len(rows)} recorded run(s) in {shards} shard(s)"
    if warmup:
        head += f"; each shard adds {warmup} warm-up run(s) before each combination it holds"
    lines = [head, tabulate(table, headers=["#", "shard", *tag_keys, "run", "command"], tablefmt="plain")]
    for s in range(shards):
        mine = [r["index"] for r in rows if r["shard"] == s]
        lines.append(f"shard {s}/{shards}: items {mine[0]}-{mine[-1]} ({len(mine)} run(s))" if mine
                     else f"shard {s}/{shards}: empty")
    return "\n".join(lines) + "\n"
