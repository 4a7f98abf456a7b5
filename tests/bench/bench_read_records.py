#!/usr/bin/env python3
"""Reading records back (every record validated once): seconds and MB/s for a large JSONL, beside a bare
``json.loads`` per line; prints one table.

    python tests/bench/bench_read_records.py            # 50 copies of the golden records (~29 MiB)
    python tests/bench/bench_read_records.py --copies 5
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)


def _lines(copies: int) -> list[str]:
    with gzip.open(os.path.join(ROOT, "tests", "fixtures", "golden", "records.json.gz")) as fh:
        golden = json.load(fh)
    records = [r for v in golden.values() for r in (v if isinstance(v, list) else [v]) if "run_id" in r]
    return [json.dumps({**r, "schema": "phasewrap.run/1", "run_id": f"{r['run_id']}-{i}"})
            for i in range(copies) for r in records]


def main() -> None:
    from wrapper.sources.records_io import read_records

    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=50)
    lines = _lines(parser.parse_args().copies)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        fh.write("\n".join(lines) + "\n")
    mib = os.path.getsize(fh.name) / 1048576
    rows = []
    started = time.perf_counter()
    records, _skipped = read_records(fh.name)
    rows.append(("read_records (validated)", len(records), time.perf_counter() - started))
    started = time.perf_counter()
    bare = [json.loads(line) for line in lines]
    rows.append(("json.loads per line", len(bare), time.perf_counter() - started))
    os.unlink(fh.name)
    print(f"{'reader':<26} {'records':>8} {'s':>7} {'MiB/s':>7}   ({mib:.1f} MiB)")
    for name, count, seconds in rows:
        print(f"{name:<26} {count:>8} {seconds:>7.2f} {mib / seconds:>7.1f}")


if __name__ == "__main__":
    main()
