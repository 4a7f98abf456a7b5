"""The real-log corpus: every figure a log prints must come out of ``phasewrap analyze``.

Each ``tests/fixtures/logs/<name>.log`` has ``tests/fixtures/logs/expected/<name>.log.json``, written by reading
the log (never by copying the parser's output)::

    {"framework": "llama.cpp",                       # as analyze reports it in reported.framework
     "figures": {"load_ms": 3222.35,                 # a dotted path inside the record's ``reported`` object,
                 "buffers.CUDA0.model_mib": 1454.83,  #   the value as printed, in the unit the key names
                 "#2.eval_tokens": 128},             # "#N." = the N-th record of that log (1-based; default 1)
     "warnings": ["oom"],                            # the warning kinds the log states
     "not_parsed": {"sampling_runs": "why it is deliberately not parsed"}}

Numbers match within a relative 1e-6; anything else exactly. A path part that holds a dot is written ``\\.``.
``not_parsed`` is the commented allow-list: a figure the log prints that analyze deliberately leaves alone, with
the reason. An entry whose label is a path analyze does fill is an error (move it to ``figures``).

The coverage test fails on any stated figure not found, any warning kind stated but not reported (or reported
but not stated), and a wrong framework. ``python3 -m tests.test_corpus`` prints the per-framework table.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field

from .conftest import fixture, run_phasewrap

LOGS = fixture("logs")
EXPECTED = fixture("logs", "expected")
REL_TOL = 1e-6
EXPECTATION_KEYS = {"framework", "figures", "warnings", "not_parsed"}
_RUN = re.compile(r"#(\d+)\.(.+)")
_DOT = re.compile(r"(?<!\\)\.")
_MISSING = object()



def log_names() -> list[str]:
    return sorted(n for n in os.listdir(LOGS) if n.endswith(".log"))


def expected_path(name: str) -> str:
    return os.path.join(EXPECTED, name + ".json")


def load_expected(name: str) -> dict:
    with open(expected_path(name), encoding="utf-8") as fh:
        return json.load(fh)


def analyze_reports(names: list[str]) -> dict[str, list[dict]]:
    """``phasewrap analyze --format json`` over the logs (one process): each log's ``reported`` objects in order."""
    paths = [os.path.join(LOGS, n) for n in names]
    proc = run_phasewrap(["analyze", "--format", "json", *paths], timeout=600)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    out: dict[str, list[dict]] = {n: [] for n in names}
    for record in json.loads(proc.stdout):
        out[os.path.basename(record["source"]["file"])].append(record["reported"] or {})
    return out


def lookup(reports: list[dict], key: str):
    """The value at ``[#N.]dotted.path`` in the N-th report, or ``_MISSING``."""
    m = _RUN.fullmatch(key)
    index, path = (int(m[1]), m[2]) if m else (1, key)
    if not 1 <= index <= len(reports):
        return _MISSING
    node = reports[index - 1]
    for part in _DOT.split(path):
        part = part.replace("\\.", ".")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def same(expected, actual) -> bool:
    numbers = (int, float)
    if (isinstance(expected, numbers) and isinstance(actual, numbers)
            and not isinstance(expected, bool) and not isinstance(actual, bool)):
        return math.isclose(expected, actual, rel_tol=REL_TOL, abs_tol=1e-9)
    return expected == actual


@dataclass
class Outcome:
    """One log checked against its expectations."""

    framework: str
    stated: int = 0
    found: int = 0
    allowed: int = 0
    problems: list = field(default_factory=list)


def check(name: str, reports: list[dict], exp: dict) -> Outcome:
    """Compare one log's reports with its expectations; every miss or surplus becomes a problem line."""
    out = Outcome(framework=exp.get("framework", "?"))
    got_framework = reports[-1].get("framework") if reports else None
    out.stated += 1
    if got_framework == exp.get("framework"):
        out.found += 1
    else:
        out.problems.append(f"{name}: framework {got_framework!r}, expected {exp.get('framework')!r}")
    for key, value in exp.get("figures", {}).items():
        out.stated += 1
        got = lookup(reports, key)
        if got is not _MISSING and same(value, got):
            out.found += 1
        else:
            out.problems.append(f"{name}: {key} = {'(absent)' if got is _MISSING else repr(got)}, "
                                f"printed {value!r}")
    kinds = {w["kind"] for r in reports for w in (r.get("warnings") or [])}
    wanted = set(exp.get("warnings", []))
    out.stated += len(wanted)
    out.found += len(wanted & kinds)
    out.problems += [f"{name}: warning {k!r} stated in the log, not reported" for k in sorted(wanted - kinds)]
    out.problems += [f"{name}: warning {k!r} reported, the log states none" for k in sorted(kinds - wanted)]
    for label in exp.get("not_parsed", {}):
        out.allowed += 1
        got = lookup(reports, label)
        if got is not _MISSING and got is not None:
            out.problems.append(f"{name}: {label} is on the not-parsed list but analyze gives {got!r}; "
                                f"move it to figures")
    return out


def coverage() -> tuple[dict[str, Outcome], str, list[str]]:
    """(per-framework totals, the printed table, every problem)."""
    names = log_names()
    reports = analyze_reports(names)
    totals: dict[str, Outcome] = {}
    logs: dict[str, int] = {}
    problems: list[str] = []
    for name in names:
        one = check(name, reports[name], load_expected(name))
        total = totals.setdefault(one.framework, Outcome(framework=one.framework))
        total.stated += one.stated
        total.found += one.found
        total.allowed += one.allowed
        logs[one.framework] = logs.get(one.framework, 0) + 1
        problems += one.problems
    rows = [f"{'framework':<26} {'logs':>5} {'stated':>7} {'found':>6} {'cover':>7} {'not parsed (listed)':>20}"]
    for fw in sorted(totals):
        t = totals[fw]
        rows.append(f"{fw:<26} {logs[fw]:>5} {t.stated:>7} {t.found:>6} {100.0 * t.found / t.stated:>6.1f}% "
                    f"{t.allowed:>20}")
    stated = sum(t.stated for t in totals.values())
    found = sum(t.found for t in totals.values())
    rows.append(f"{'all':<26} {len(names):>5} {stated:>7} {found:>6} {100.0 * found / max(stated, 1):>6.1f}% "
                f"{sum(t.allowed for t in totals.values()):>20}")
    return totals, "\n".join(rows), problems


def test_every_log_has_an_expectations_file_and_every_file_a_log():
    logs = set(log_names())
    assert logs, "no logs in tests/fixtures/logs"
    missing = sorted(n for n in logs if not os.path.exists(expected_path(n)))
    assert not missing, f"logs without tests/fixtures/logs/expected/<name>.json: {missing}"
    orphans = sorted(n for n in os.listdir(EXPECTED) if n.endswith(".json") and n[:-5] not in logs)
    assert not orphans, f"expectations without a log: {orphans}"


def test_expectations_files_are_well_formed():
    for name in log_names():
        exp = load_expected(name)
        assert set(exp) <= EXPECTATION_KEYS and "framework" in exp, f"{name}: keys {sorted(exp)}"
        assert isinstance(exp.get("figures", {}), dict) and isinstance(exp.get("warnings", []), list), name
        assert all(isinstance(why, str) and why.strip() for why in exp.get("not_parsed", {}).values()), \
            f"{name}: every not_parsed entry says why"
        assert exp.get("figures") or exp.get("warnings") or exp.get("not_parsed"), \
            f"{name}: states no figure at all; a corpus log is there for what it prints"


def test_every_printed_figure_is_found():
    totals, table, problems = coverage()
    print("\n" + table)
    assert not problems, table + "\n" + "\n".join(problems)


def test_the_check_fails_on_a_wrong_or_missing_figure():
    name = "llama.cpp__cli-b3285-metal-old-llama_print_timings-nan-prompt.log"
    reports = analyze_reports([name])[name]
    exp = load_expected(name)
    assert check(name, reports, exp).problems == []
    key, value = next(iter(exp["figures"].items()))
    wrong = dict(exp, figures={key: value * 1.001 + 1, "extra.no_such_figure_ms": 1.0}, warnings=["oom"])
    one = check(name, reports, wrong)
    assert one.found == 1 and one.stated == 4  # the framework only
    assert len(one.problems) == 3


if __name__ == "__main__":
    _totals, _table, _problems = coverage()
    print(_table)
    print("\n".join(_problems))
