"""The golden records: what `analyze` makes of a fixed set of inputs, kept to hold behaviour still across a
restructuring.

    python3 -m tests.golden --write     # record the current behaviour in tests/fixtures/golden/records.json.gz
    python3 -m tests.golden             # print the keys that differ from it

The inputs are every corpus log, the H200 event recordings, the llama.cpp 0.3.36 outputs and the stand-in
captures under tests/fixtures. Keys that depend on the machine reading them (nothing but the reader's own
environment) are left out by ``normalize``; everything else must match key for key.
"""
from __future__ import annotations

import gzip
import json
import logging
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
GOLDEN = os.path.join(FIXTURES, "golden", "records.json.gz")


def inputs() -> list:
    """Relative paths (from tests/fixtures) of the golden inputs, in a fixed order."""
    found = []
    for sub, keep in (("logs", lambda n: n.endswith(".log")), ("events", lambda n: n.endswith(".jsonl")),
                      ("llama-cpp-0.3.36", lambda n: n.endswith((".stdout", ".stderr")))):
        for name in sorted(os.listdir(os.path.join(FIXTURES, sub))):
            if keep(name):
                found.append(f"{sub}/{name}")
    captures = os.path.join(FIXTURES, "captures")
    for name in sorted(os.listdir(captures)):
        found.append(f"captures/{name}")
    return found


def normalize(record: dict) -> dict:
    """The record without what belongs to the machine that analyzed it."""
    out = dict(record)
    out.pop("phasewrap_version", None)
    return out


def compute() -> dict:
    import wrapper

    logging.getLogger("phasewrap").setLevel(logging.ERROR)
    result = {}
    for rel in inputs():
        try:
            records = wrapper.analyze(os.path.join(FIXTURES, rel))
        except wrapper.UsageError as exc:
            result[rel] = {"error": str(exc).replace(FIXTURES, "<fixtures>")}
            continue
        result[rel] = json.loads(json.dumps([normalize(r) for r in records]).replace(FIXTURES, "<fixtures>"))
    return result


def load() -> dict:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        return json.load(f)


def differences(old, new, path="") -> list:
    """Every key path at which two JSON values differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new)):
            if key not in old:
                out.append(f"{path}.{key}: added")
            elif key not in new:
                out.append(f"{path}.{key}: removed")
            else:
                out.extend(differences(old[key], new[key], f"{path}.{key}"))
        return out
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [f"{path}: {len(old)} items -> {len(new)}"]
        out = []
        for i, (a, b) in enumerate(zip(old, new)):
            out.extend(differences(a, b, f"{path}[{i}]"))
        return out
    return [] if old == new else [f"{path}: {old!r} -> {new!r}"[:300]]


def main(argv: list) -> int:
    current = compute()
    if "--write" in argv:
        os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
        with gzip.open(GOLDEN, "wt", encoding="utf-8", compresslevel=9) as f:
            json.dump(current, f, sort_keys=True)
        print(f"wrote {len(current)} inputs to {GOLDEN}")
        return 0
    diffs = differences(load(), current)
    print("\n".join(diffs) or "no difference")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
