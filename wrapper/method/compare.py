"""Compare two sets of runs (base vs candidate): per-phase medians and a noise verdict, and every recorded
condition that differs between the sides, so a speed-up is never credited to the wrong change.

Pure: records in, a JSON-ready dict out; ``render_table`` turns it into text.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from typing import Callable, Optional, Sequence

from ..model import metrics
from ..model import accessors
from ..model import phases as phase_table
from . import steps
from ..sources import records_io
from . import stats
from ..measure.env import args_sha256

# decode detail: shown only when a side measured it (records from before these keys, or without GPU energy)
DETAIL_METRICS = ("gap_p99_ms", "stalls_total", "energy_per_output_token_mj", "decode_floor_ms", "decode_efficiency",
                  "load_efficiency")
METRICS = phase_table.KEYS + ("ms_per_token",) + DETAIL_METRICS
PROMPT_FLAGS = ("-p", "--prompt", "-f", "--file", "--prompt-file")
MAX_TOKEN_FLAGS = ("-n", "--n-predict", "--max-tokens", "--max-new-tokens")
SHORT_SHA = 12
MIN_RUNS = stats.MIN_RUNS_FOR_TEST


def metric(record: dict, key: str) -> Optional[float]:
    """A phase (``load_s`` … ``total_s``), ``ms_per_token``, the p99 inter-chunk gap (``gap_p99_ms``), the
    number of stalls or the energy per output token of one record (``model.metrics``); ``None`` when not
    measured."""
    return metrics.value(record, key)


# -- arguments ------------------------------------------------------------------------------------------------

def _is_flag(token: str) -> bool:
    if len(token) < 2 or not token.startswith("-"):
        return False
    try:
        float(token)
    except ValueError:
        return True
    return False  # a negative number is a value


def split_args(argv: Sequence[str]) -> tuple[dict[str, list[Optional[str]]], list[str]]:
    """(options, positionals) of ``argv[1:]``: ``{"-ngl": ["99"], "--mlock": [None]}``; ``--x=v`` split.

    A flag takes the next token as its value unless that token is itself a flag (the command line does not say
    which flags take values, so ``-u script.py`` reads as ``-u`` with value ``script.py``).
    """
    options: dict[str, list[Optional[str]]] = {}
    positionals: list[str] = []
    args = list(argv[1:])
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            positionals += args[i + 1:]
            break
        if _is_flag(token):
            flag, eq, value = token.partition("=")
            if not eq or not flag.startswith("--"):
                flag, value = token, None
                if i + 1 < len(args) and not _is_flag(args[i + 1]):
                    value = args[i + 1]
                    i += 1
            options.setdefault(flag, []).append(value)
        else:
            positionals.append(token)
        i += 1
    return options, positionals


def _show(values: list[Optional[str]]) -> str:
    return ", ".join("(no value)" if v is None else v for v in values)


def argument_diff(base_argv: Sequence[str], cand_argv: Sequence[str], ignore: Sequence[str] = ()) -> list[str]:
    """Lines naming each argument that differs: ``-ngl: 99 → 0``, ``+ --flash-attn``, ``- --mlock``,
    ``positional: a.gguf → b.gguf``. Flags in ``ignore`` are left out; the executable (argv[0]) too."""
    b_opts, b_pos = split_args(base_argv)
    c_opts, c_pos = split_args(cand_argv)
    lines = []
    for flag in list(b_opts) + [f for f in c_opts if f not in b_opts]:
        if flag in ignore:
            continue
        b, c = b_opts.get(flag), c_opts.get(flag)
        if b == c:
            continue
        if b is None:
            lines.append(f"+ {flag}" + ("" if c == [None] else f" {_show(c)}"))
        elif c is None:
            lines.append(f"- {flag}" + ("" if b == [None] else f" {_show(b)}"))
        else:
            lines.append(f"{flag}: {_show(b)} → {_show(c)}")
    if b_pos != c_pos:
        lines.append(f"positional: {' '.join(b_pos) or '(none)'} → {' '.join(c_pos) or '(none)'}")
    return lines


def _flag_values(record: dict, flags: Sequence[str]) -> Optional[tuple]:
    options, _ = split_args(record.get("command") or [])
    found = tuple(v for f in flags for v in options.get(f, []))
    return found or None


def _normalized_args(record: dict) -> Optional[tuple]:
    """The command minus the executable and the prompt / max-token values, which have conditions of their own."""
    command = record.get("command")
    if not command:
        return None
    options, positionals = split_args(command)
    kept = tuple((f, tuple(v)) for f, v in options.items() if f not in PROMPT_FLAGS + MAX_TOKEN_FLAGS)
    return kept + (("", tuple(positionals)),)


# -- conditions -----------------------------------------------------------------------------------------------

def _env(record: dict) -> dict:
    return record.get("env") or {}


def _cpu(record: dict) -> Optional[str]:
    env = _env(record)
    if env.get("cpu_model") is None:
        return None
    return f"{env['cpu_model']} ({env.get('cpu_cores_logical') or 'n/a'} logical cores)"


def _gpus(record: dict) -> Optional[str]:
    env = _env(record)
    if not env.get("gpus") and env.get("gpu_count") != 0:
        return None  # not read (no NVML): unknown, not "no GPU"
    names = Counter(g.get("name") or "unknown GPU" for g in env["gpus"])
    return " + ".join(f"{n} × {name}" for name, n in names.items()) or "none"


def _driver(record: dict) -> Optional[str]:
    env = _env(record)
    if env.get("gpu_driver") is None:
        return None
    return f"{env['gpu_driver']} (CUDA {env.get('cuda_version') or 'n/a'})"


def _executable(record: dict) -> Optional[str]:
    exe = _env(record).get("executable") or {}
    parts = []
    if exe.get("version"):
        parts.append(exe["version"])
    if exe.get("sha256"):
        parts.append(f"sha256 {exe['sha256'][:SHORT_SHA]}")
    return " · ".join(parts) or None


def _prompt(record: dict) -> Optional[str]:
    """The prompt's sha256: from ``env`` when recorded, else of the prompt arguments' text (lines joined by
    newlines), which is the same hash when the prompt was given with ``-p``."""
    digest = _env(record).get("prompt_sha256")
    if not digest:
        values = _flag_values(record, PROMPT_FLAGS)
        if values is None:
            return None
        digest = hashlib.sha256("\n".join(v or "" for v in values).encode("utf-8")).hexdigest()
    return f"sha256 {digest[:SHORT_SHA]}"


def _max_tokens(record: dict) -> Optional[str]:
    if not record.get("command"):
        return None
    values = _flag_values(record, MAX_TOKEN_FLAGS)
    return "not set" if values is None else ", ".join(v or "" for v in values)


# (name, the record's value or None when not recorded, warn when the runs of one side disagree on it)
CONDITIONS: tuple[tuple[str, Callable[[dict], Optional[object]], bool], ...] = (
    ("cpu", _cpu, True),
    ("gpus", _gpus, True),
    ("driver", _driver, True),
    ("executable", _executable, True),
    ("arguments", _normalized_args, True),
    ("prompt", _prompt, True),
    ("max tokens", _max_tokens, True),
    ("cache", accessors.cache_label, False),  # mixing within a side is handled by pooling
)


def _all_conditions(records: Sequence[dict]) -> list[tuple[str, Callable[[dict], Optional[object]], bool]]:
    """CONDITIONS plus one per tag key seen in ``records``."""
    keys = sorted({k for r in records for k in (r.get("tags") or {})})
    return list(CONDITIONS) + [(f"tag {k}", (lambda r, k=k: (r.get("tags") or {}).get(k)), False) for k in keys]


def _known(records: Sequence[dict], get) -> list:
    return list(dict.fromkeys(v for v in (get(r) for r in records) if v is not None))


def _most_common_command(records: Sequence[dict]) -> list:
    counts = Counter(tuple(r.get("command") or ()) for r in records)
    return list(counts.most_common(1)[0][0]) if counts else []


def _single_tags(records: Sequence[dict]) -> dict:
    """The tags every one of ``records`` has with one value."""
    values: dict = {}
    for r in records:
        for k, v in (r.get("tags") or {}).items():
            values.setdefault(k, set()).add(str(v))
    return {k: next(iter(v)) for k, v in values.items() if len(v) == 1}


def _explained_by_tags(b_cmd: Sequence[str], c_cmd: Sequence[str], base: Sequence[dict], cand: Sequence[dict]) -> bool:
    """Whether the commands differ only where a tag's value differs (``-L ctx=512,4096`` → ``-c {ctx}``): each
    differing argument, with the side's tag values put back as ``{name}``, is the same on both sides."""
    b_tags, c_tags = _single_tags(base), _single_tags(cand)
    moved = [k for k in b_tags if k in c_tags and b_tags[k] != c_tags[k]]
    if not moved or len(b_cmd) != len(c_cmd):
        return False

    def template(arg: str, tags: dict) -> str:
        for k in moved:
            arg = arg.replace(tags[k], "{" + k + "}")
        return arg

    return all(template(b, b_tags) == template(c, c_tags) for b, c in zip(b_cmd, c_cmd) if b != c)


def conditions(base: Sequence[dict], cand: Sequence[dict]) -> tuple[list[dict], list[dict], list[str]]:
    """(differing conditions, conditions recorded on one side only, warnings about a side mixing a condition).

    Differing: ``{"condition", "base": [values], "cand": [values], "detail": [argument diff lines] or None}``;
    one side only: ``{"condition", "missing_on": "base" | "cand"}``. A condition recorded on neither side
    (records without ``env``) is not listed.
    """
    differ, unknown, mixed = [], [], []
    for name, get, check_mixed in _all_conditions(list(base) + list(cand)):
        b, c = _known(base, get), _known(cand, get)
        if not b and not c:
            continue
        if not b or not c:
            unknown.append({"condition": name, "missing_on": "base" if not b else "cand"})
            continue
        for side, values in (("base", b), ("cand", c)):
            if check_mixed and len(values) > 1:
                what = "their arguments" if name == "arguments" else f"{name}: {'; '.join(map(str, values))}"
                mixed.append(f"{side} runs differ among themselves in {what} (pooled anyway)")
        if set(b) == set(c):
            continue
        if name == "arguments":
            b_cmd, c_cmd = _most_common_command(base), _most_common_command(cand)
            if _explained_by_tags(b_cmd, c_cmd, base, cand):
                continue  # a swept tag's value substituted in the command: that change is the tag, not another
            differ.append({"condition": name, "base": [f"sha256 {args_sha256(b_cmd)[:SHORT_SHA]}"],
                           "cand": [f"sha256 {args_sha256(c_cmd)[:SHORT_SHA]}"],
                           "detail": argument_diff(b_cmd, c_cmd, ignore=PROMPT_FLAGS + MAX_TOKEN_FLAGS)})
        else:
            differ.append({"condition": name, "base": [str(v) for v in b], "cand": [str(v) for v in c],
                           "detail": None})
    return differ, unknown, mixed


# -- pooling --------------------------------------------------------------------------------------------------

def _usable(records: Sequence[dict], side: str, warnings: list) -> tuple[list[dict], dict]:
    """Records that may enter a statistic: no warm-up runs, only status ok."""
    warmup = [r for r in records if accessors.is_warmup(r)]
    not_ok = [r for r in records if not accessors.is_warmup(r) and r.get("status") != "ok"]
    if not_ok:
        statuses = ", ".join(f"{s} × {n}" for s, n in Counter(r.get("status") for r in not_ok).items())
        warnings.append(f"{side}: {len(not_ok)} run(s) left out, status not ok ({statuses})")
    used = [r for r in records if not accessors.is_warmup(r) and r.get("status") == "ok"]
    return used, {"given": len(records), "warmup": len(warmup), "not_ok": len(not_ok)}


def _pool(base: list[dict], cand: list[dict], warnings: list) -> tuple[list[dict], list[dict], dict]:
    """One cache pool per side: runs with different cache labels never enter one statistic."""
    gb, gc = records_io.group(base), records_io.group(cand)
    if len(gb) <= 1 and len(gc) <= 1:
        kb, kc = next(iter(gb), None), next(iter(gc), None)
    else:
        common = [k for k in gb if k in gc]
        if common:
            kb = kc = max(common, key=lambda k: len(gb[k]) + len(gc[k]))
        else:
            kb = max(gb, key=lambda k: len(gb[k]), default=None)
            kc = max(gc, key=lambda k: len(gc[k]), default=None)
    for side, groups, key in (("base", gb, kb), ("cand", gc, kc)):
        if len(groups) > 1:
            counts = ", ".join(f"{records_io.describe_key(k)} × {len(v)}" for k, v in groups.items())
            warnings.append(f"{side} mixes page-cache states ({counts}): runs with different cache labels are "
                            f"never pooled; only {records_io.describe_key(key)} is compared, compare the others "
                            f"separately")
    pool = {"base": None if kb is None else records_io.describe_key(kb),
            "cand": None if kc is None else records_io.describe_key(kc)}
    return gb.get(kb, []), gc.get(kc, []), pool


# -- the comparison -------------------------------------------------------------------------------------------

def _phase_row(base: Sequence[dict], cand: Sequence[dict], key: str) -> dict:
    b = [metric(r, key) for r in base]
    c = [metric(r, key) for r in cand]
    sb, sc = stats.summarize(b), stats.summarize(c)
    diff = ratio = None
    if sb["median"] is not None and sc["median"] is not None:
        diff = round(sc["median"] - sb["median"], 6)
        ratio = round(sc["median"] / sb["median"], 4) if sb["median"] else None
    return {"base_median": sb["median"], "base_n": sb["n"], "cand_median": sc["median"], "cand_n": sc["n"],
            "diff": diff, "ratio": ratio, "verdict": stats.differs(b, c)}


def prepare(base: Sequence[dict], cand: Sequence[dict]) -> dict:
    """The two sides made comparable, as ``compare`` (and ``check``) judge them: ``{"base": [records],
    "cand": [records], "pool", "runs", "conditions", "unknown_conditions", "warnings"}`` (see ``compare``): no
    warm-up runs, only status ok, one cache pool per side, the one-variable guard's warnings."""
    warnings: list[str] = []
    used_b, runs_b = _usable(base, "base", warnings)
    used_c, runs_c = _usable(cand, "cand", warnings)
    pooled_b, pooled_c, pool = _pool(used_b, used_c, warnings)
    runs_b["compared"], runs_c["compared"] = len(pooled_b), len(pooled_c)
    differ, unknown, mixed = conditions(pooled_b, pooled_c)
    if len(differ) > 1:
        warnings.insert(0, f"change one thing at a time: {len(differ)} conditions differ: "
                           f"{', '.join(d['condition'] for d in differ)}; the difference can't be pinned on one")
    elif not differ and not unknown and pooled_b and pooled_c:
        warnings.append("no recorded condition differs between the sides: tag the runs with what changed "
                        "(--tag KEY=VALUE) so the comparison can name it")
    for item in unknown:
        warnings.append(f"can't tell whether {item['condition']} matches: not recorded on the "
                        f"{item['missing_on']} side")
    warnings += mixed
    for side, n in (("base", len(pooled_b)), ("cand", len(pooled_c))):
        if n == 0:
            warnings.append(f"{side}: no run to compare")
    if 0 < min(len(pooled_b), len(pooled_c)) < MIN_RUNS:  # said once, for both sides
        warnings.append(f"too few runs for a significance test ({len(pooled_b)} base, {len(pooled_c)} cand; it "
                        f"needs {MIN_RUNS} per side): the verdicts only say whether the ranges overlap; run -n "
                        f"{MIN_RUNS} or more (5 or more to see small differences)")
    return {"base": pooled_b, "cand": pooled_c, "pool": pool, "conditions": differ, "unknown_conditions": unknown,
            "runs": {"base": runs_b, "cand": runs_c}, "warnings": warnings}


def compare(base: Sequence[dict], cand: Sequence[dict]) -> dict:
    """Base vs candidate runs.

    Returns ``{"phases": {metric: {"base_median", "base_n", "cand_median", "cand_n", "diff" (cand - base),
    "ratio" (cand / base), "verdict": stats.differs(...)}}, "conditions": [{"condition", "base", "cand",
    "detail"}], "unknown_conditions": [{"condition", "missing_on"}], "pool": {"base", "cand"}, "load_steps": the load steps
    matched by name (``steps.compare_steps``),
    "runs": {"base"|"cand": {"given", "warmup", "not_ok", "compared"}}, "warnings": [str]}`` for the metrics
    load_s, ttft_s, decode_s, total_s, ms_per_token, and the decode detail side by side: gap_p99_ms (p99 of the
    inter-chunk gaps), stalls_total, energy_per_output_token_mj. Warm-up runs and runs whose status is not ok are left out;
    runs with different cache labels are never pooled.
    """
    sides = prepare(base, cand)
    pooled_b, pooled_c = sides["base"], sides["cand"]
    return {
        "phases": {key: _phase_row(pooled_b, pooled_c, key) for key in METRICS},
        "load_steps": steps.compare_steps(pooled_b, pooled_c),
        "conditions": sides["conditions"],
        "unknown_conditions": sides["unknown_conditions"],
        "pool": sides["pool"],
        "runs": sides["runs"],
        "warnings": sides["warnings"],
    }


# -- text -----------------------------------------------------------------------------------------------------

def _fmt(key: str, value: Optional[float], signed: bool = False) -> str:
    if value is None:
        return "n/a"
    digits = {"ms_per_token": 2, "gap_p99_ms": 1, "stalls_total": 1, "energy_per_output_token_mj": 1}.get(key, 3)
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _verdict_text(verdict: dict) -> str:
    if verdict["beyond_noise"] is None:
        return f"n/a ({verdict['why']})"
    word = "beyond noise" if verdict["beyond_noise"] else "within noise"
    how = f"p={verdict['p']:.3g}" if verdict["p"] is not None else "ranges " + (
        "apart" if verdict["beyond_noise"] else "overlap")
    return f"{word} ({how})"


def render_table(result: dict) -> str:
    """The comparison as text: a table of metrics, then the differing conditions, then the warnings."""
    from tabulate import tabulate  # imported here: only text output needs it
    rows = []
    for key, row in result["phases"].items():
        if key in DETAIL_METRICS and not row["base_n"] and not row["cand_n"]:
            continue
        rows.append([key, f"{_fmt(key, row['base_median'])} ({row['base_n']})",
                     f"{_fmt(key, row['cand_median'])} ({row['cand_n']})", _fmt(key, row["diff"], signed=True),
                     "n/a" if row["ratio"] is None else f"{row['ratio']:.3f}", _verdict_text(row["verdict"])])
    lines = [tabulate(rows, headers=["metric", "base median (n)", "cand median (n)", "diff", "ratio", "verdict"],
                      disable_numparse=True)]
    lines += steps.compare_lines(result.get("load_steps") or [])
    if result["conditions"]:
        lines.append("conditions that differ:")
        for cond in result["conditions"]:
            if cond["detail"] is not None:
                lines.append(f"  {cond['condition']}:")
                lines += [f"    {line}" for line in cond["detail"]]
            else:
                lines.append(f"  {cond['condition']}: {'; '.join(cond['base'])} → {'; '.join(cond['cand'])}")
    for warning in result["warnings"]:
        lines.append(f"warning: {warning}")
    return "\n".join(lines) + "\n"
