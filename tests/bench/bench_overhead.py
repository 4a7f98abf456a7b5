#!/usr/bin/env python3
"""phasewrap's own cost, measured on this machine; prints one table (copy it into the README).

    python tests/bench/bench_overhead.py            # everything, ~5 minutes on 2 cores
    python tests/bench/bench_overhead.py --quick    # fewer rounds
    python tests/bench/bench_overhead.py --startup  # only the start-up rows (seconds)

Rows:
- timestamp delay: a child writes its own CLOCK_MONOTONIC stamp every 5 ms (no newline); the delay is
  phasewrap's chunk stamp (from --capture) minus the child's stamp. Samplers at their defaults, then off.
- passthrough: wall time to pass 200 MB of child stdout to /dev/null, phasewrap vs a bare Python
  os.read/os.write relay vs `cat` vs unwrapped, alternated in one run; medians and the ratio to the relay.
  Two children: a Python program writing 4 KiB lines (a chatty real program) and `head -c` (output as fast
  as the kernel allows, so start-up costs dominate).
- CPU: phasewrap's own CPU per second of child run time, samplers on/off: the slope between a 4 s and a
  16 s child (medians of 3; the child's own CPU subtracted), and the fixed start-up CPU separately.
- /proc sampler: CPU per tick of the process-tree sampler following a child with 8 threads for 2 s.
- start-up: `phasewrap run -- true` vs `true`, median wall; and vs `python3 -c pass` (the interpreter's own
  start-up), median of 7 alternated rounds, wall and CPU (user + sys: less sensitive to a loaded machine).
- analyze: MB/s reading a large llama.cpp-style log (when `phasewrap analyze` exists).
- the manual method on the same workload: `ts '%.s'` on the merged stream with `pidstat` beside the child —
  how many distinct times the 40 tokens get, and the tools' own CPU.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Optional

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PW = [sys.executable, os.path.join(ROOT, "bin", "phasewrap")]
STAMPER = r"""
import os, sys, time
n, gap = int(sys.argv[1]), float(sys.argv[2])
next_t = time.monotonic()
for i in range(n):
    next_t += gap
    time.sleep(max(0.0, next_t - time.monotonic()))
    os.write(1, b"%d;" % time.monotonic_ns())
"""
RELAY = r"""
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
fd = p.stdout.fileno()
while True:
    b = os.read(fd, 1 << 20)
    if not b:
        break
    os.write(1, b)
sys.exit(p.wait())
"""
BYTES_200MB = 200_000_000
WRITER = r"""
import os, sys
total, block = int(sys.argv[1]), int(sys.argv[2])
buf = b"x" * (block - 1) + b"\n"
for _ in range(total // block):
    os.write(1, buf)
"""


def pct(values, q):
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def timestamp_delay(samplers: list[str], n: int) -> list[float]:
    """Delays in ms for every stamp the child wrote."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(PW + ["run", "--quiet", "--format", "none", "--capture", tmp, *samplers, "--",
                             sys.executable, "-c", STAMPER, str(n), "0.005"], check=True)
        [path] = glob.glob(os.path.join(tmp, "*.capture.jsonl"))
        with open(path) as fh:
            header = json.loads(fh.readline())
            t0 = header["t0_monotonic_ns"]
            delays = []
            for line in fh:
                obj = json.loads(line)
                if isinstance(obj, list) and obj[1] == "out":
                    t = t0 + obj[0]
                    for stamp in obj[2].split(";"):
                        if stamp:
                            delays.append((t - int(stamp)) / 1e6)
    return delays


def wall(cmd, stdout=subprocess.DEVNULL) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=stdout, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def passthrough(rounds: int, producer: list) -> dict:
    variants = {
        "unwrapped": producer,
        "cat relay": ["sh", "-c", " ".join(shlex.quote(a) for a in producer) + " | cat"],
        "python relay": [sys.executable, "-c", RELAY, *producer],
        "phasewrap": PW + ["run", "--format", "none", "--", *producer],
    }
    times = {k: [] for k in variants}
    for _ in range(rounds):
        for name, cmd in variants.items():
            times[name].append(wall(cmd))
    return {k: statistics.median(v) for k, v in times.items()}


def cpu_seconds(cmd) -> tuple[float, float]:
    """(user+sys CPU of cmd and its reaped children, wall) via wait4."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - t


def own_cpu_s(samplers: list[str], child_s: float) -> float:
    """phasewrap's own CPU seconds around a child that writes a token every 50 ms for child_s seconds."""
    n = int(child_s / 0.05)
    child = [sys.executable, "-c", STAMPER, str(n), "0.05"]
    child_cpu, _ = cpu_seconds(child)
    total_cpu, _ = cpu_seconds(PW + ["run", "--quiet", "--format", "none", *samplers, "--", *child])
    return total_cpu - child_cpu


def own_cpu(samplers: list[str], short_s: float = 4.0, long_s: float = 16.0, rounds: int = 3) -> tuple[float, float]:
    """(% of one core per child second: the slope between two child lengths, fixed start-up CPU seconds).

    Each length is the median of ``rounds`` runs: one CPU reading is noisy to ±0.05 s on a shared VM.
    """
    short = statistics.median(own_cpu_s(samplers, short_s) for _ in range(rounds))
    long = statistics.median(own_cpu_s(samplers, long_s) for _ in range(rounds))
    slope = (long - short) / (long_s - short_s)
    return 100.0 * slope, short - slope * short_s


def manual_method(tokens: int = 40) -> Optional[dict]:
    """The manual way on the same workload: `ts` stamping the merged stream, pidstat beside the child.

    Returns the number of distinct times each method gives the token stream, and each method's own CPU
    seconds (phasewrap: its process; manual: ts + pidstat). None when `ts` or `pidstat` is missing.
    """
    if not (shutil.which("ts") and shutil.which("pidstat")):
        return None
    standin = [sys.executable, os.path.join(ROOT, "samples", "standin.py"), "--load-s", "1", "--ttft-s", "0.3",
               "--tokens", str(tokens), "--interval-s", "0.05"]
    script = (f"{' '.join(shlex.quote(a) for a in standin)} 2>&1 | ts '%.s' > $OUT & "
              "sleep 0.05; pid=$(pgrep -n -f standin.py); LC_ALL=C pidstat -h -u -r -d -p $pid 1 > /dev/null & "
              "wait")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ts.txt")
        shell_cpu, _ = cpu_seconds(["bash", "-c", script.replace("$OUT", shlex.quote(out))])
        with open(out) as fh:
            stamps = [line.split(" ", 1) for line in fh if line.strip()]
        token_line_stamps = sum(1 for _t, text in stamps if " the model" in text)  # tokens share lines
        child_cpu, _ = cpu_seconds(standin)
        cap = os.path.join(tmp, "cap")
        pw_cpu, _ = cpu_seconds(PW + ["run", "--quiet", "--format", "none", "--capture", cap, "--", *standin])
        [path] = glob.glob(os.path.join(cap, "*.capture.jsonl"))
        with open(path) as fh:
            pw_token_stamps = sum(1 for line in fh if line.startswith("[") and json.loads(line)[1] == "out")
    return {"ts_token_stamps": token_line_stamps, "pw_token_stamps": pw_token_stamps, "tokens": tokens,
            "manual_cpu_s": shell_cpu - child_cpu, "pw_cpu_s": pw_cpu - child_cpu}


def startup(rounds: int) -> tuple[float, float]:
    bare = [wall(["true"]) for _ in range(rounds)]
    wrapped = [wall(PW + ["run", "--format", "none", "--", "true"]) for _ in range(rounds)]
    return statistics.median(bare), statistics.median(wrapped)


THREADS_CHILD = r"""
import threading, time
stop = time.monotonic() + 2.0
def spin():
    while time.monotonic() < stop:
        time.sleep(0.001)
threads = [threading.Thread(target=spin) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
"""


def proc_tick_cpu_us() -> float:
    """The /proc sampler's mean CPU per tick (µs, its own thread's CPU time) beside a child with 8 threads."""
    sys.path.insert(0, ROOT)
    from wrapper.measure.sampling import ProcSampler

    sampler = ProcSampler(0.1)
    child = subprocess.Popen([sys.executable, "-c", THREADS_CHILD])
    sampler.start(child.pid)
    child.wait()
    sampler.stop()
    return sampler.info()["tick_cpu_us_mean"]


def startup_vs_python(rounds: int = 7) -> dict:
    """Median (wall s, CPU s) of `python3 -c pass` and of `phasewrap run -- true` (samplers at their
    defaults), alternated so both see the same load."""
    variants = {"python": [sys.executable, "-c", "pass"], "phasewrap": PW + ["run", "--format", "none", "--", "true"]}
    got = {name: ([], []) for name in variants}
    for _ in range(rounds):
        for name, cmd in variants.items():
            cpu, elapsed = cpu_seconds(cmd)
            got[name][0].append(elapsed)
            got[name][1].append(cpu)
    return {name: (statistics.median(w), statistics.median(c)) for name, (w, c) in got.items()}


def startup_rows() -> list:
    got = startup_vs_python()
    (py_wall, py_cpu), (pw_wall, pw_cpu) = got["python"], got["phasewrap"]
    return [["start-up: run -- true vs python3 -c pass, median of 7 (wall)",
             f"{pw_wall:.3f} s vs {py_wall:.3f} s (+{pw_wall - py_wall:.3f} s)", "<= +0.10 s"],
            ["start-up: run -- true vs python3 -c pass, median of 7 (CPU)",
             f"{pw_cpu:.3f} s vs {py_cpu:.3f} s (+{pw_cpu - py_cpu:.3f} s)", ""]]


def hardware_probe_ms(rounds: int = 20) -> tuple[float, float]:
    """(first probe, median cached probe) in ms: the host's peaks for the floors, read before each run starts."""
    from wrapper.measure import hardware

    with tempfile.TemporaryDirectory() as folder:
        t = time.perf_counter()
        hardware.probe(["true"], folder=folder)
        first_ms = (time.perf_counter() - t) * 1000
        cached = []
        for _ in range(rounds):
            t = time.perf_counter()
            hardware.probe(["true"], folder=folder)
            cached.append((time.perf_counter() - t) * 1000)
    return first_ms, statistics.median(cached)


def print_table(rows: list) -> None:
    from tabulate import tabulate
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load average "
          f"{os.getloadavg()[0]:.2f} at the end")
    print(tabulate(rows, headers=["what", "measured", "target"], tablefmt="github"))


def analyze_rate() -> float | None:
    """MB/s of `phasewrap analyze` on ~100 MB of real llama.cpp log lines, or None when analyze is absent."""
    help_text = subprocess.run(PW + ["--help"], capture_output=True, text=True).stdout
    if "analyze" not in help_text:
        return None
    sample = os.path.join(ROOT, "tests", "fixtures", "logs", "llama.cpp__cli-cuda-v100-b4662-timestamped-full-run.log")
    with open(sample, "rb") as fh:
        block = fh.read()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.log")
        with open(path, "wb") as fh:
            written = 0
            while written < 100_000_000:
                fh.write(block)
                written += len(block)
        seconds = wall(PW + ["analyze", "--format", "json", path])
    return written / 1e6 / seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--startup", action="store_true", help="only the start-up rows")
    a = ap.parse_args()
    # An installed phasewrap has its bytecode compiled (pip does it); a clone run with
    # PYTHONDONTWRITEBYTECODE=1 would recompile every module at each start and measure that instead.
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "wrapper")], check=True,
                   stdout=subprocess.DEVNULL)
    if a.startup:
        print_table(startup_rows())
        return 0
    rounds = 3 if a.quick else 5
    n_stamps = 400 if a.quick else 1000
    rows = []
    for label, samplers in (("samplers on (defaults)", []), ("samplers off", ["--gpu", "off", "--cpu", "off"])):
        try:
            d = timestamp_delay(samplers, n_stamps)
        except subprocess.CalledProcessError:
            continue
        rows.append([f"timestamp delay, {label}", f"p50 {pct(d, .5):.3f} ms · p99 {pct(d, .99):.3f} ms · "
                     f"max {max(d):.3f} ms (n={len(d)})", "p99 <= 1 ms"])
    producers = (("4 KiB lines from Python", [sys.executable, "-c", WRITER, str(BYTES_200MB), "4096"]),
                 ("head -c (fixed costs dominate)", ["head", "-c", str(BYTES_200MB), "/dev/zero"]))
    for label, producer in producers:
        pt = passthrough(rounds, producer)
        rows.append([f"passthrough 200 MB, {label}: median wall",
                     " · ".join(f"{k} {v:.3f} s" for k, v in pt.items()), ""])
        rows.append([f"passthrough ratio phasewrap / python relay, {label}",
                     f"{pt['phasewrap'] / pt['python relay']:.3f}x", "<= 1.15x"])
    for label, samplers in (("samplers on, 0.1 s", ["--interval", "0.1"]),
                            ("samplers off", ["--gpu", "off", "--cpu", "off"])):
        slope, fixed = own_cpu(samplers)
        rows.append([f"phasewrap CPU per child second, {label}",
                     f"{slope:.2f} % of one core (+ {fixed:.3f} s CPU once, at start-up)", "<= 2 %"])
    rows.append(["/proc sampler: CPU per tick, child with 8 threads", f"{proc_tick_cpu_us():.0f} µs", "< 5000 µs"])
    bare, wrapped = startup(rounds * 2)
    rows.append(["start-up: run -- true vs true", f"{wrapped:.3f} s vs {bare:.3f} s (+{wrapped - bare:.3f} s)",
                 "<= 0.3 s"])
    rows += startup_rows()
    first_ms, cached_ms = hardware_probe_ms()
    rows.append(["hardware peaks before a run (off its clock): first probe on a host / from the cache",
                 f"{first_ms:.0f} ms / {cached_ms:.2f} ms", "cached <= 5 ms"])
    rate = analyze_rate()
    rows.append(["analyze throughput", "n/a (no analyze subcommand)" if rate is None else f"{rate:.1f} MB/s",
                 ">= 20 MB/s"])
    manual = manual_method()
    if manual is None:
        rows.append(["manual method (ts + pidstat)", "n/a (install moreutils and sysstat)", ""])
    else:
        rows.append(["token timestamps, 40 tokens without newlines",
                     f"ts: {manual['ts_token_stamps']} stamp(s) · phasewrap: {manual['pw_token_stamps']}", ""])
        rows.append(["own CPU beside a 3.3 s run", f"ts + pidstat: {manual['manual_cpu_s']:.3f} s · "
                     f"phasewrap (samplers on, capture): {manual['pw_cpu_s']:.3f} s", ""])
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
