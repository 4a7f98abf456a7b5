#!/usr/bin/env python3
"""`phasewrap analyze` throughput and peak memory on large logs; prints one table (copy it into the README).

    python tests/bench/bench_analyze.py                 # 100 MB and 1 GB of each log, ~5 minutes on 2 cores
    python tests/bench/bench_analyze.py --sizes-mb 100  # only 100 MB

Four logs, written to a temporary directory from the real logs in tests/fixtures/logs:
- mixed: every corpus log concatenated, again and again up to the size (many families, many runs);
- server: one vLLM start-up (tests/fixtures/logs/vllm__v1-2025-08-enginecore-…), then HTTP access lines and,
  every 10 of them, vLLM's periodic engine-metrics and spec-decoding lines (vllm__v1-2026-05-apiserver-…),
  the access lines' client ports counting up: one run, periodic metrics, as a server writes for days;
- requests (``--other-mb``, 100 MB): a llama-server request block (llama-server__slot-print_timing-…) again and
  again: a record per request;
- timed server (``--other-mb``): the server log with an ISO 8601 time in front of every line.

Rows: wall and CPU time (user + system) of `phasewrap analyze --format jsonl FILE > /dev/null` (records as they
are made, one a line), MB/s of CPU time and of wall time, its peak RSS (the child's ru_maxrss), the CPU time of
`--format json` (indented: Python's pure-Python encoder), and beside it `for line in f: pass` over the same file
in a fresh interpreter. The machine's load average is printed with the table: on a shared machine the walls are upper
bounds and the CPU times are the steadier figure.
"""
from __future__ import annotations

import argparse
import datetime
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOGS = os.path.join(ROOT, "tests", "fixtures", "logs")
PW = [sys.executable, os.path.join(ROOT, "bin", "phasewrap")]
STARTUP = "vllm__v1-2025-08-enginecore-tp-workers-model-loading-took-GiB-and-seconds.log"
PERIODIC = "vllm__v1-2026-05-apiserver-pid-loggers-271-specdecoding-http-lines.log"
LINE_LOOP = "import sys\nwith open(sys.argv[1], encoding='utf-8', errors='surrogateescape') as f:\n" \
            "    for line in f:\n        pass\n"


def _read(name: str) -> bytes:
    with open(os.path.join(LOGS, name), "rb") as fh:
        return fh.read()


def write_mixed(path: str, size: int) -> None:
    """The corpus logs, each ending in a newline, repeated until ``size`` bytes."""
    corpus = b"".join(_read(os.path.basename(p)).rstrip(b"\n") + b"\n"
                      for p in sorted(glob.glob(os.path.join(LOGS, "*.log"))))
    _repeat(path, b"", lambda _i: corpus, size)


def write_server(path: str, size: int) -> None:
    """One start-up, then access lines with a metrics pair after every 10 (real vLLM lines)."""
    lines = _read(PERIODIC).decode("utf-8").splitlines()
    access = [line for line in lines if '"POST ' in line][0]
    metrics = [line for line in lines if '"POST ' not in line]
    host, port_rest = access.split("172.31.0.1:")
    port, rest = port_rest.split(" ", 1)

    def block(i: int) -> bytes:
        out = [f"{host}172.31.0.1:{(int(port) + i * 10 + k) % 65536} {rest}" for k in range(10)]
        out += metrics[:2] if i % 2 == 0 else metrics[2:4]
        return ("\n".join(out) + "\n").encode("utf-8")

    _repeat(path, _read(STARTUP).rstrip(b"\n") + b"\n", block, size)


REQUESTS = "llama-server__slot-print_timing-multiline-block.log"


def write_requests(path: str, size: int) -> None:
    """A llama-server log: its real request block (timing lines, slot and access lines) again and again, task
    ids counting up: a record per request, the other shape of a server log."""
    text = _read(REQUESTS).decode("utf-8")

    def block(i: int) -> bytes:
        return re.sub(r"task (\d+)", lambda m: f"task {int(m[1]) + 11 * i}", text).encode("utf-8")

    _repeat(path, b"", block, size)


def write_timed_server(path: str, size: int) -> None:
    """The server log with an ISO 8601 time in front of each line (``docker logs -t``), 7 ms apart."""
    write_server(path + ".plain", size)
    t0 = datetime.datetime(2026, 5, 7, 4, 56, 17, tzinfo=datetime.timezone.utc)
    with open(path + ".plain", "rb") as src, open(path, "wb") as out:
        for i, line in enumerate(src):
            stamp = (t0 + datetime.timedelta(milliseconds=7 * i)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z "
            out.write(stamp.encode("ascii") + line)
    os.unlink(path + ".plain")


def _repeat(path: str, head: bytes, block, size: int) -> None:
    with open(path, "wb") as fh:
        fh.write(head)
        written, i = len(head), 0
        while written < size:
            chunk = b"".join(block(i + k) for k in range(64))
            fh.write(chunk)
            written += len(chunk)
            i += 64


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes-mb", type=int, nargs="+", default=[100, 1024])
    ap.add_argument("--other-mb", type=int, default=100,
                    help="size of the two other logs, a record per request and the timed server log (0: none)")
    ap.add_argument("--dir", help="where to write the logs (default: a temporary directory, removed after)")
    args = ap.parse_args()
    rows = []
    logs = [("mixed", write_mixed, args.sizes_mb), ("server", write_server, args.sizes_mb)]
    if args.other_mb:
        logs += [("requests", write_requests, [args.other_mb]), ("timed server", write_timed_server, [args.other_mb])]
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for kind, write, sizes in logs:
            for mb in sizes:
                path = os.path.join(tmp, f"{kind.replace(' ', '-')}-{mb}.log")
                write(path, mb << 20)
                size_mb = os.path.getsize(path) / 1e6
                # each measured by a fresh probe process: RUSAGE_CHILDREN's maximum is over all children so far
                wall, cpu, rss = _measure([*PW, "analyze", "--format", "jsonl", path])
                _wall, json_cpu, _rss = _measure([*PW, "analyze", "--format", "json", path])
                loop_wall, loop_cpu, _ = _measure([sys.executable, "-c", LINE_LOOP, path])
                rows.append((kind, size_mb, wall, cpu, rss, json_cpu, loop_wall, loop_cpu))
                os.unlink(path)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (after the run)")
    print("| log | size MB | analyze wall s | analyze CPU s | MB/s (CPU) | MB/s (wall) | peak RSS MiB "
          "| --format json CPU s | for-line wall s | for-line CPU s | MB/s (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind, size_mb, wall, cpu, rss, json_cpu, loop_wall, loop_cpu in rows:
        print(f"| {kind} | {size_mb:.0f} | {wall:.1f} | {cpu:.1f} | {size_mb / cpu:.0f} | {size_mb / wall:.0f} "
              f"| {rss:.0f} | {json_cpu:.1f} | {loop_wall:.2f} | {loop_cpu:.2f} | {size_mb / loop_cpu:.0f} |")
    return 0


def _measure(cmd: list) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of ``cmd``, run under a fresh Python that reports its child's own figures."""
    probe = ("import resource, subprocess, sys, time\n"
             "t0 = time.perf_counter()\n"
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
             "w = time.perf_counter() - t0\n"
             "if p.returncode: sys.stderr.write(p.stderr.decode('utf-8', 'replace')[-2000:]); sys.exit(p.returncode)\n"
             "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "print(w, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024)\n")
    proc = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {proc.stderr[-2000:]}")
    wall, cpu, rss = proc.stdout.split()
    return float(wall), float(cpu), float(rss)


if __name__ == "__main__":
    sys.exit(main())
