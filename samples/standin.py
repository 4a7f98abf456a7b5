#!/usr/bin/env python3
"""A stand-in inference program: known load time, TTFT, token count and spacing, on real pipes.

It behaves like a small llama.cpp-style binary: logs on stderr, a ready line when "weights" are loaded,
the prompt echoed on stdout, then tokens written one at a time without newlines. With ``--stamps`` it
prints its own CLOCK_MONOTONIC timestamps (ns) as one JSON line on stderr at the end, so a test or a
benchmark can compare phasewrap's stamps with the child's own clock.

    python samples/standin.py --load-s 0.8 --ttft-s 0.4 --tokens 40 --interval-s 0.02 -p "Hello there"

``--load-steps disk:FILE,cpu:0.8,sleep:0.5`` makes the load a sequence of steps, each followed by a stderr line:
``disk:FILE`` evicts FILE from the page cache (fsync, then posix_fadvise DONTNEED) and reads it; ``cpu:S`` burns
one core for S seconds; ``sleep:S`` sleeps (waiting on a peer). The ready line follows the last step (then
``--load-s`` is not used); the stamps JSON carries ``load_steps_ns``, the child's own clock right after each
step's line.
"""
import argparse
import json
import os
import sys
import time

WORDS = ("the", "model", "feels", "slow", "until", "you", "measure", "each", "phase", "apart")


def burn_until(deadline_s: float) -> None:
    x = 0
    while time.monotonic() < deadline_s:
        x += 1


def wait(seconds: float, mode: str) -> None:
    deadline = time.monotonic() + seconds
    if mode == "burn":
        burn_until(deadline)
    else:
        time.sleep(max(0.0, deadline - time.monotonic()))


def read_file(path: str, block_bytes: int = 1 << 20) -> int:
    total = 0
    with open(path, "rb", buffering=0) as fh:
        while True:
            block = fh.read(block_bytes)
            if not block:
                return total
            total += len(block)


STEP_LINES = {"disk": "standin: weights read from disk", "cpu": "standin: weights converted on one core",
              "sleep": "standin: peer answered"}


def _usage(message: str) -> None:
    """A bad option: one line on stderr, exit status 2 (like phasewrap's own)."""
    sys.stderr.write(f"standin: {message}\n")
    raise SystemExit(2)


def parse_steps(spec: str) -> list[tuple[str, str]]:
    steps = []
    for item in spec.split(","):
        kind, _, arg = item.partition(":")
        try:
            if kind not in STEP_LINES or not arg or (kind != "disk" and float(arg) < 0):
                raise ValueError
        except ValueError:
            _usage(f"--load-steps: bad step {item!r}; expected disk:FILE, cpu:SECONDS or sleep:SECONDS")
        if kind == "disk" and not os.path.isfile(arg):  # checked before the run, not mid-load as a traceback
            _usage(f"--load-steps: disk:{arg}: no such file; make one first, e.g. head -c 256M /dev/urandom > {arg}")
        steps.append((kind, arg))
    return steps


def evict_and_read(path: str) -> int:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)  # dirty pages can't be dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return read_file(path)


def run_steps(steps: list[tuple[str, str]]) -> tuple[list[int], int]:
    """Each step, then its line; returns the child's clock after each line and the bytes read."""
    stamps, read = [], 0
    for kind, arg in steps:
        if kind == "disk":
            read += evict_and_read(arg)
        else:
            wait(float(arg), "burn" if kind == "cpu" else "sleep")
        write(2, (STEP_LINES[kind] + "\n").encode())
        stamps.append(time.monotonic_ns())
    return stamps, read


def write(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--load-s", type=float, default=0.8, help="time from start to the ready line")
    p.add_argument("--load-mode", choices=("sleep", "burn"), default="sleep", help="sleep, or burn one CPU core")
    p.add_argument("--read", metavar="FILE", help="read this file (the 'weights') during load")
    p.add_argument("--load-steps", metavar="SPEC", help="load as steps: disk:FILE,cpu:SECONDS,sleep:SECONDS "
                   "(a stderr line after each); replaces --load-s")
    p.add_argument("--ttft-s", type=float, default=0.4, help="time from the ready line to the first token")
    p.add_argument("--tokens", type=int, default=40, help="number of tokens to write")
    p.add_argument("--interval-s", type=float, default=0.02, help="time between tokens")
    p.add_argument("--decode-mode", choices=("sleep", "burn"), default="sleep")
    p.add_argument("--stall-before", default="", metavar="I,J,...",
                   help="pause --stall-s before these tokens (1-based: 50 = the 50th token)")
    p.add_argument("--stall-s", type=float, default=0.3, help="length of each --stall-before pause")
    p.add_argument("--think-s", type=float, default=0.0,
                   help="think first: <think>, thinking words every --interval-s for this long, </think>, then the answer")
    p.add_argument("-p", "--prompt", default="", help="prompt, echoed on stdout after the ready line")
    p.add_argument("--ready-line", default="standin: model loaded", help="stderr line that marks ready")
    p.add_argument("--binary", action="store_true", help="tokens are raw bytes, including invalid UTF-8")
    p.add_argument("--exit-code", type=int, default=0)
    p.add_argument("--stamps", action="store_true", help="print own monotonic stamps as JSON on stderr at the end")
    p.add_argument("--stamps-file", metavar="FILE", help="write the same JSON to FILE instead")
    a = p.parse_args()
    stall_before = {int(i) for i in a.stall_before.split(",") if i.strip()}
    steps = parse_steps(a.load_steps) if a.load_steps else None

    t_start_ns = time.monotonic_ns()
    write(2, b"standin: loading weights\n")
    step_ns: list[int] = []
    if steps is not None:
        step_ns, read_bytes = run_steps(steps)
    else:
        load_deadline = time.monotonic() + a.load_s
        read_bytes = read_file(a.read) if a.read else 0
        wait(load_deadline - time.monotonic(), a.load_mode)
    write(2, (a.ready_line + "\n").encode())
    ready_ns = time.monotonic_ns()
    if a.prompt:
        write(1, a.prompt.encode())
    wait(a.ttft_s, "sleep")
    token_ns = []
    if a.think_s > 0:
        write(1, b"<think>")
        token_ns.append(time.monotonic_ns())
        think_end = time.monotonic() + a.think_s
        while time.monotonic() + a.interval_s < think_end:
            wait(a.interval_s, a.decode_mode)
            write(1, b" hmm")
            token_ns.append(time.monotonic_ns())
        wait(think_end - time.monotonic(), "sleep")
        write(1, b"</think>\n\n")
        token_ns.append(time.monotonic_ns())
        wait(a.interval_s, a.decode_mode)
    answer_from = len(token_ns)
    for i in range(a.tokens):
        if i:
            wait(a.interval_s, a.decode_mode)
        if i + 1 in stall_before:
            wait(a.stall_s, "sleep")
        if a.binary:
            token = bytes([(i * 37 + 128) % 256, i % 256, 0x1B if i % 7 == 0 else 0x41])
        else:
            token = (" " + WORDS[i % len(WORDS)]).encode()
        write(1, token)
        token_ns.append(time.monotonic_ns())
    write(2, f"standin: generated {a.tokens} tokens, read {read_bytes} bytes\n".encode())
    if a.stamps or a.stamps_file:
        stamps = {"start_ns": t_start_ns, "ready_ns": ready_ns, "first_token_ns": token_ns[0] if token_ns else None,
                  "last_token_ns": token_ns[-1] if token_ns else None, "tokens": len(token_ns), "token_ns": token_ns,
                  "load_steps_ns": step_ns,
                  "first_answer_ns": token_ns[answer_from] if len(token_ns) > answer_from else None}
        if a.stamps_file:
            with open(a.stamps_file, "w") as fh:
                json.dump(stamps, fh)
        else:
            write(2, (json.dumps(stamps) + "\n").encode())
    return a.exit_code


if __name__ == "__main__":
    sys.exit(main())
