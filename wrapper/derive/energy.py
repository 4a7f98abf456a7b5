"""Energy: how often the GPU's energy counter updates, energy from power samples where there is no counter, and
energy per token.

NVML's total-energy counter (``nvmlDeviceGetTotalEnergyConsumption``, mJ since the driver loaded) is not a live
integral: it updates every 20–100 ms depending on the GPU. A phase shorter than two update periods can read the
same value at both ends, or one update too many, so its energy is flagged ``energy_approximate``. The period is
measured once per GPU and process (``measure.sampling.energy_probe``), on the sampler's side, never on the read
thread. Everything here is pure.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Optional, Sequence

COUNTER = "counter"
POWER_INTEGRAL = "power-integral"


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
