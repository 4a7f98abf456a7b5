"""How often the GPU's energy counter updates: probed once per GPU and process, on the sampler's side thread.

NVML's total-energy counter updates every 20–100 ms depending on the GPU; ``derive.energy`` uses the period to
flag phases shorter than two updates as approximate.
"""
from __future__ import annotations

import time
from typing import Callable, Optional

PROBE_MAX_S = 0.5     # the probe's time bound: three updates of a 100 ms counter, after up to one period of waiting
PROBE_POLL_S = 0.005  # between reads (an H200 read itself takes ~3.4 ms)
PROBE_CHANGES = 3     # updates seen: two periods, averaged

def measure_update_period(read: Callable[[], Optional[float]], clock: Callable[[], int] = time.monotonic_ns,
                          sleep: Callable[[float], None] = time.sleep, max_s: float = PROBE_MAX_S,
                          poll_s: float = PROBE_POLL_S) -> tuple[Optional[float], Optional[str]]:
    """(update period in s, None), or (None, reason): reads the counter every ``poll_s`` until it has changed
    ``PROBE_CHANGES`` times or ``max_s`` passed. Each change is placed in the middle between the read before it and
    the read that saw it, so the period is good to about half a poll (~4 ms on an H200) per period averaged."""
    start = clock()
    prev = read()
    t_prev = clock()
    if prev is None:
        return None, "the energy counter could not be read"
    changes: list[int] = []
    while len(changes) < PROBE_CHANGES and clock() - start < max_s * 1e9:
        sleep(poll_s)
        t0 = clock()
        value = read()
        t1 = clock()
        if value is None:
            return None, "the energy counter stopped answering while its update period was measured"
        if value != prev:
            # the update came between the end of the read before and the start of this one: the middle of that
            # bracket halves the error of a poll delayed by a loaded machine
            changes.append((t_prev + t0) // 2)
            prev = value
        t_prev = t1
    if len(changes) < 2:
        return None, f"the energy counter changed {len(changes)} time(s) in {max_s:g} s: update period unknown"
    return round((changes[-1] - changes[0]) / (len(changes) - 1) / 1e9, 4), None
