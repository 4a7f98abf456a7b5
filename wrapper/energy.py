"""Energy: how often the GPU's energy counter updates, energy from power samples where there is no counter, and
energy per token.

NVML's total-energy counter (``nvmlDeviceGetTotalEnergyConsumption``, mJ since the driver loaded) is not a live
integral: it updates every 20–100 ms depending on the GPU. A phase shorter than two update periods can read the
same value at both ends, or one update too many, so its energy is flagged ``energy_approximate``. The period is
measured once per GPU and process (``measure_update_period``), on the sampler's side, never on the read thread.
Everything but that probe is pure.
"""
from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from typing import Callable, Optional, Sequence

PROBE_MAX_S = 0.5     # the probe's time bound: three updates of a 100 ms counter, after up to one period of waiting
PROBE_POLL_S = 0.005  # between reads (an H200 read itself takes ~3.4 ms)
PROBE_CHANGES = 3     # updates seen: two periods, averaged
COUNTER = "counter"
POWER_INTEGRAL = "power-integral"


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


def counter_at(times: Sequence[int], values: Sequence[float], t: int, slack_ns: int) -> Optional[float]:
    """The energy counter's value at ``t``: a reading up to ``slack_ns`` after ``t`` that is nearer than the one
    before is ``t``'s own (the sampler reads the counter right after each boundary); otherwise the readings either
    side are interpolated linearly (a boundary the sampler was not told of, like the last token, or told of late
    on a loaded machine); after the last reading, the last one. None before the first reading."""
    after = bisect_right(times, t)
    before = after - 1
    if after < len(times) and times[after] - t <= slack_ns and (before < 0 or times[after] - t < t - times[before]):
        return values[after]
    if before < 0:
        return None
    if after >= len(times) or times[before] == t:
        return values[before]
    t_a, t_b = times[before], times[after]
    return values[before] + (values[after] - values[before]) * (t - t_a) / (t_b - t_a)


def power_integral_j(times: Sequence[int], watts: Sequence[float], start: int, end: int) -> tuple[Optional[float], bool]:
    """(joules, approximate) over [start, end] from power samples (ns, W): the trapezoid rule over the samples in the
    window, with the power at each bound interpolated from its neighbours (or held from the nearest sample).
    Approximate with fewer than 2 samples inside the window. (None, True) without any sample."""
    if not times:
        return None, True
    i, j = bisect_left(times, start), bisect_right(times, end)

    def at(t: int) -> float:
        k = bisect_left(times, t)
        if k == 0:
            return watts[0]
        if k >= len(times):
            return watts[-1]
        t_a, t_b = times[k - 1], times[k]
        return watts[k - 1] + (watts[k] - watts[k - 1]) * (t - t_a) / (t_b - t_a)

    points = [(start, at(start))] + list(zip(times[i:j], watts[i:j])) + [(end, at(end))]
    joules = sum((t_b - t_a) / 1e9 * (w_a + w_b) / 2 for (t_a, w_a), (t_b, w_b) in zip(points, points[1:]))
    return joules, j - i < 2


def per_token(resources: Optional[dict], tokens: dict) -> dict:
    """``energy_per_output_token_mj`` (decode energy / (output − 1): the first token is TTFT's, as for tpot_ms),
    ``output_tokens_per_j`` (its inverse, in tokens per joule) and ``prefill_energy_per_input_token_mj`` (the TTFT
    window's energy / input tokens). None where the energy or the token count is unknown."""
    decode = (resources or {}).get("decode") or {}
    ttft = (resources or {}).get("ttft") or {}
    out = {"energy_per_output_token_mj": None, "output_tokens_per_j": None, "prefill_energy_per_input_token_mj": None}
    n_out, n_in = tokens.get("output"), tokens.get("input")
    decode_j = decode.get("energy_j")
    if decode_j and n_out and n_out > 1:
        out["energy_per_output_token_mj"] = round(decode_j * 1000 / (n_out - 1), 3)
        out["output_tokens_per_j"] = round((n_out - 1) / decode_j, 4)
    ttft_j = ttft.get("energy_j")
    if ttft_j is not None and n_in:
        out["prefill_energy_per_input_token_mj"] = round(ttft_j * 1000 / n_in, 3)
    return out


def summary_line(record: dict) -> Optional[str]:
    """``energy: decode 12.3 J (counter) · 45.6 mJ/output token · 21.9 tokens/J``, or None without decode energy."""
    res = record.get("resources") or {}
    decode = res.get("decode") or {}
    if decode.get("energy_j") is None:
        return None
    line = f"energy: decode {decode['energy_j']:.1f} J ({decode['energy_source']}"
    line += ", approximate)" if decode.get("energy_approximate") else ")"
    if res.get("energy_per_output_token_mj") is not None:
        line += f" · {res['energy_per_output_token_mj']:.1f} mJ/output token · {res['output_tokens_per_j']:.1f} tokens/J"
    if res.get("prefill_energy_per_input_token_mj") is not None:
        line += f" · prefill {res['prefill_energy_per_input_token_mj']:.1f} mJ/input token"
    return line
