"""Score a held-out set: logs never seen by the project, each with a sheet of the figures a person reads in it.

    python3 -m tests.heldout_score DIR [DIR...] [--detail]

Each ``DIR/<name>.log`` has ``DIR/<name>.sheet.json``: ``{"source", "runtime", "framework_ok": [names],
"figures": [{"label", "value", "unit", "line"}], "left_out": {...}}``, written by reading the log (never from
phasewrap's output). A figure counts as found when some number anywhere in the log's records' ``reported``
objects equals its value, in the unit printed or after a plain unit change (s/ms/us, KiB/MiB/GiB, MB/MiB, a
percent as a fraction); the framework counts as right when the last record's ``reported.framework`` is one of
``framework_ok``. Matching by value is generous (an unrelated equal number counts), so ``--detail`` prints every
miss and every found figure's matching key, for a person to check.
"""
from __future__ import annotations

import json
import math
import re
import os
import subprocess
import sys

_FACTORS = (1.0, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9, 60e3, 3.6e6, 1024.0, 1 / 1024, 1024.0 ** 2, 1 / 1024 ** 2,
            1024.0 ** 3, 1 / 1024 ** 3, 1e6 / 1024 ** 2, 1024 ** 2 / 1e6, 1e9 / 1024 ** 2, 1e9 / 1024 ** 3,
            1e3 / 1024, 1024 / 1e3, 1e-2, 1e2)


def _numbers(node, path=""):
    """(dotted path, number) of every number in a record's ``reported`` object (a figure's ``line`` is text)."""
    if isinstance(node, bool):
        return
    if isinstance(node, (int, float)):
        yield path, float(node)
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _numbers(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _numbers(v, f"{path}.{i}")


_PLAIN_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_WORDED_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(hours?|h|minutes?|mins?|seconds?|secs?|s|ms|m)\b")


def _value(printed) -> float:
    """A sheet's value: a number, or a duration as printed ("2m29.59s", "0:00:16.24"), in seconds."""
    if isinstance(printed, (int, float)):
        return float(printed)
    from wrapper.derive.frameworks.units import duration_ms

    text = str(printed).strip()
    if text.lower().lstrip("+-") in ("inf", "nan"):  # JSON holds no infinity: a sheet writes it as text
        return float(text)
    if _PLAIN_NUMBER.fullmatch(text):  # a number kept as printed text ("100.00"): the number
        return float(text)
    if re.fullmatch(r"\d+/\d+", text):  # how many of how many ("0/1" ready containers): the first, the count
        return float(text.split("/")[0])
    if ":" in text:
        parts = [float(p) for p in text.split(":")]
        return sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    ms = duration_ms(text)
    if ms is None:  # "1 min 19 seconds": parts in words
        parts = _WORDED_PART.findall(text)
        if not parts or _WORDED_PART.sub("", text).strip():
            raise ValueError(f"sheet value {printed!r} is neither a number nor a duration")
        ms = sum(duration_ms(f"{num} {unit}") for num, unit in parts)
    return ms / 1000.0


def _sheet_value(printed) -> float | None:
    """A sheet's value, or None for one printed as no number a reader could take ("0hOm8s": a letter O among the
    digits, as the log printed it): stated, so counted, and never found."""
    try:
        return _value(printed)
    except ValueError:
        return None


def _match(value: float, numbers: list) -> str | None:
    for path, n in numbers:
        for f in _FACTORS:
            if math.isclose(n, value * f, rel_tol=1e-4):  # no absolute slack: any value times 1e-9 is "near" 0
                return path
    return None


def score(dirs: list[str], detail: bool = False, phasewrap: str = "bin/phasewrap") -> tuple[int, int, list[str]]:
    """(stated, found, report lines) over every sheet in ``dirs``; one figure or framework is one stated item."""
    names = sorted(os.path.join(d, n) for d in dirs for n in os.listdir(d) if n.endswith(".log"))
    proc = subprocess.run([sys.executable, phasewrap, "analyze", "--format", "json", *names],
                          capture_output=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr.decode("utf-8", "replace"))
    by_file: dict = {}
    for record in json.loads(proc.stdout):
        by_file.setdefault(record["source"]["file"], []).append(record.get("reported") or {})
    stated = found = 0
    lines = []
    for path in names:
        sheet_path = path[:-4] + ".sheet.json"
        if not os.path.exists(sheet_path):
            sheet_path = path + ".sheet.json"  # "<name>.log.sheet.json" is the other reading of the name
        with open(sheet_path, encoding="utf-8") as fh:
            sheet = json.load(fh)
        reports = by_file.get(os.path.abspath(path)) or by_file.get(path) or []
        numbers = [(f"#{i + 1}.{p}", n) for i, r in enumerate(reports) for p, n in _numbers(r)]
        fw = reports[-1].get("framework") if reports else None
        ok = fw in sheet["framework_ok"]
        got = [(fig, _match(value, numbers) if (value := _sheet_value(fig["value"])) is not None else None)
               for fig in sheet["figures"]]
        hits = sum(m is not None for _, m in got) + ok
        stated += len(got) + 1
        found += hits
        lines.append(f"{hits:>4}/{len(got) + 1:<4} {100.0 * hits / (len(got) + 1):5.1f}%  framework {fw!r}"
                     f"{'' if ok else ' (WRONG)'}  {os.path.basename(path)}")
        if detail:
            for fig, m in got:
                lines.append(f"      {'ok  ' if m else 'MISS'} {fig['label']!r} = {fig['value']} {fig['unit']}"
                             f" (line {fig.get('line')})" + (f"  <- {m}" if m else ""))
    lines.append(f"all: {found}/{stated} = {100.0 * found / max(stated, 1):.1f}%")
    return stated, found, lines


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    _, _, out = score(args, detail="--detail" in sys.argv)
    print("\n".join(out))
