"""Pure statistics over repeated runs: summaries, outliers, and "is this difference beyond noise?".

Every function takes plain sequences in which ``None`` means "not measured": it is dropped, never read as 0.
Nothing here knows what a run record is.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

ALPHA = 0.05
MIN_RUNS_FOR_TEST = 3
OUTLIER_Z = 3.5
# Iglewicz & Hoaglin's modified z-score: 0.6745 is the 0.75 quantile of the standard normal, so
# MAD / 0.6745 estimates the standard deviation. When MAD is 0 (over half the values equal), the mean absolute
# deviation stands in, scaled by 1.253314 (= sqrt(pi/2), its ratio to the standard deviation).
_MAD_SCALE = 0.6745
_MEANAD_SCALE = 1.253314
FIRST_RUN_SLOW_RATIO = 1.5
# The exact null distribution of U is counted when there are no ties and both sides are at most this long
# (cheap: a table of n1 * n2 * (n1 * n2) / 2 integers); otherwise the tie-corrected normal approximation is used.
EXACT_MAX_N = 20


def _measured(values: Sequence[Optional[float]]) -> list[float]:
    return [float(v) for v in values if v is not None]


def median(values: Sequence[Optional[float]]) -> Optional[float]:
    """The median of the measured values; ``None`` when there are none."""
    xs = sorted(_measured(values))
    n = len(xs)
    if n == 0:
        return None
    mid = n // 2
    return xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2


def summarize(values: Sequence[Optional[float]]) -> dict:
    """``{n, min, median, max, spread, mad}`` of the measured values.

    ``n`` counts measured values (``None`` dropped); ``spread`` is max - min; ``mad`` is the raw median absolute
    deviation from the median (not scaled to a standard deviation). With no measured value every figure but
    ``n`` is ``None``.
    """
    xs = _measured(values)
    if not xs:
        return {"n": 0, "min": None, "median": None, "max": None, "spread": None, "mad": None}
    med = median(xs)
    return {
        "n": len(xs),
        "min": min(xs),
        "median": med,
        "max": max(xs),
        "spread": max(xs) - min(xs),
        "mad": median([abs(x - med) for x in xs]),
    }


def outliers(values: Sequence[Optional[float]]) -> list[int]:
    """Indices (into ``values``, ``None`` positions kept) whose modified z-score exceeds 3.5 in magnitude.

    Modified z = 0.6745 * (x - median) / MAD. With MAD 0 the mean absolute deviation is used instead
    (z = (x - median) / (1.253314 * MeanAD)); when that is 0 too, all values are equal and none is an outlier.
    Fewer than 3 measured values: no outliers (nothing to judge against).
    """
    xs = _measured(values)
    if len(xs) < 3:
        return []
    med = median(xs)
    mad = median([abs(x - med) for x in xs])
    if mad:
        def z(x: float) -> float:
            return _MAD_SCALE * (x - med) / mad
    else:
        mean_ad = sum(abs(x - med) for x in xs) / len(xs)
        if not mean_ad:
            return []

        def z(x: float) -> float:
            return (x - med) / (_MEANAD_SCALE * mean_ad)
    return [i for i, v in enumerate(values) if v is not None and abs(z(float(v))) > OUTLIER_Z]


def first_run_slow(values: Sequence[Optional[float]]) -> bool:
    """True when the first value is over 1.5x the median of the others (a warm-up effect).

    Needs at least 3 measured values, the first among them; otherwise False.
    """
    if len(values) < 3 or values[0] is None:
        return False
    rest = _measured(values[1:])
    if len(rest) < 2:
        return False
    return float(values[0]) > FIRST_RUN_SLOW_RATIO * median(rest)


def _ranks(pooled: list[float]) -> tuple[list[float], list[int]]:
    """Mid-ranks (1-based, ties share their average rank) and the size of each group of ties."""
    order = sorted(range(len(pooled)), key=pooled.__getitem__)
    ranks = [0.0] * len(pooled)
    ties = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and pooled[order[j + 1]] == pooled[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        ties.append(j - i + 1)
        i = j + 1
    return ranks, ties


def _u_counts(n1: int, n2: int) -> list[int]:
    """How many of the C(n1+n2, n1) orderings give U = 0, 1, ..., n1*n2 (no ties)."""
    # f[m][n][u] = f[m-1][n][u-n] + f[m][n-1][u]: the largest value belongs to side 1 (then it beats all n of
    # side 2) or to side 2. Rolled over m to keep one (n2+1) x (n1*n2+1) table.
    size = n1 * n2 + 1
    prev = [[1] + [0] * (size - 1) for _ in range(n2 + 1)]
    for m in range(1, n1 + 1):
        cur = [[0] * size for _ in range(n2 + 1)]
        cur[0][0] = 1
        for n in range(1, n2 + 1):
            for u in range(m * n + 1):
                cur[n][u] = (prev[n][u - n] if u >= n else 0) + cur[n - 1][u]
        prev = cur
    return prev[n2]


def _mann_whitney(a: Sequence[Optional[float]], b: Sequence[Optional[float]]) -> tuple[float, float, str]:
    xs, ys = _measured(a), _measured(b)
    n1, n2 = len(xs), len(ys)
    if not n1 or not n2:
        raise ValueError("Mann-Whitney U needs at least one measured value on each side")
    ranks, ties = _ranks(xs + ys)
    u1 = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    u_min = min(u1, n1 * n2 - u1)
    if max(ties) == 1 and n1 <= EXACT_MAX_N and n2 <= EXACT_MAX_N:
        counts = _u_counts(n1, n2)
        tail = sum(counts[:int(u_min) + 1]) / math.comb(n1 + n2, n1)
        return u1, min(1.0, 2 * tail), "exact"
    n = n1 + n2
    tie_term = sum(t ** 3 - t for t in ties) / (n * (n - 1)) if n > 1 else 0.0
    variance = n1 * n2 / 12 * ((n + 1) - tie_term)
    if variance <= 0:
        return u1, 1.0, "normal approximation, tie-corrected"
    z = max(0.0, abs(u1 - n1 * n2 / 2) - 0.5) / math.sqrt(variance)
    return u1, min(1.0, math.erfc(z / math.sqrt(2))), "normal approximation, tie-corrected"


def mann_whitney_u(a: Sequence[Optional[float]], b: Sequence[Optional[float]]) -> tuple[float, float]:
    """(U of ``a``, two-sided p) of the Mann-Whitney U test; ``None`` values are dropped.

    Exact p when there are no ties and both sides have at most 20 values; otherwise the normal approximation
    with tie correction and continuity correction. Raises ``ValueError`` when a side has no measured value.
    """
    u1, p, _ = _mann_whitney(a, b)
    return u1, p


def _min_exact_p(n1: int, n2: int) -> float:
    """The smallest two-sided p the exact test can give for these sizes (both orderings fully separated)."""
    return min(1.0, 2 / math.comb(n1 + n2, n1))


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def differs(a: Sequence[Optional[float]], b: Sequence[Optional[float]]) -> dict:
    """Is the difference between ``a`` and ``b`` beyond run-to-run noise?

    ``{"test", "p", "beyond_noise", "why"}``. With at least 3 measured values on each side: Mann-Whitney U,
    two-sided, beyond noise when p < 0.05. With fewer: beyond noise only when the ranges [min, max] don't
    overlap (``p`` is ``None``: no test was run). With a side empty: ``test``, ``p`` and ``beyond_noise`` are
    ``None`` and ``why`` says which side.
    """
    xs, ys = _measured(a), _measured(b)
    if not xs or not ys:
        side = "either side" if not xs and not ys else ("the first side" if not xs else "the second side")
        return {"test": None, "p": None, "beyond_noise": None, "why": f"no measured values on {side}"}
    n1, n2 = len(xs), len(ys)
    if n1 < MIN_RUNS_FOR_TEST or n2 < MIN_RUNS_FOR_TEST:
        apart = max(xs) < min(ys) or max(ys) < min(xs)
        ranges = f"[{_fmt(min(xs))}, {_fmt(max(xs))}] vs [{_fmt(min(ys))}, {_fmt(max(ys))}]"
        verdict = "don't overlap" if apart else "overlap"
        return {"test": "range overlap", "p": None, "beyond_noise": apart,
                "why": f"n={n1} vs {n2} (< {MIN_RUNS_FOR_TEST} on a side, no test): ranges {ranges} {verdict}"}
    _, p, method = _mann_whitney(xs, ys)
    beyond = p < ALPHA
    why = f"Mann-Whitney U ({method}), n={n1} vs {n2}: p={p:.4g} {'<' if beyond else '>='} {ALPHA}"
    if not beyond and method == "exact" and _min_exact_p(n1, n2) >= ALPHA:
        why += (f"; with {n1} vs {n2} runs the smallest possible p is {_min_exact_p(n1, n2):.3g}, so no difference "
                f"can show at {ALPHA}: run at least 4 per side")
    return {"test": f"Mann-Whitney U ({method})", "p": p, "beyond_noise": beyond, "why": why}


def can_show_difference(n1: int, n2: int) -> bool:
    """Whether ``differs`` can find a difference beyond noise at all with ``n1`` vs ``n2`` measured values: a
    test needs 3 a side, and 3 vs 3 can never reach p < 0.05 (its smallest exact p is 0.1)."""
    return n1 >= MIN_RUNS_FOR_TEST and n2 >= MIN_RUNS_FOR_TEST and _min_exact_p(n1, n2) < ALPHA


def beyond_bound(values: Sequence[Optional[float]], bound: float, above: bool) -> dict:
    """Do the values lie beyond ``bound`` (above it when ``above``, else below) by more than noise?

    The one-sided sign test: of the measured values that differ from ``bound``, how many lie on that side; p is
    the chance of at least that many under "the median is the bound" (Binomial(n, 1/2)). Beyond noise when
    p < 0.05, which takes at least 5 values all beyond it. ``{"test", "p", "beyond_noise", "why"}`` like
    ``differs``; with no value off the bound, ``test``, ``p`` and ``beyond_noise`` are None.
    """
    off = [x for x in _measured(values) if x != bound]
    if not off:
        return {"test": None, "p": None, "beyond_noise": None, "why": "no measured value off the bound"}
    n = len(off)
    k = sum(1 for x in off if (x > bound) == above)
    p = sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n
    beyond = p < ALPHA
    side = "above" if above else "below"
    why = f"sign test, {k} of {n} {side} {_fmt(bound)}: p={p:.4g} {'<' if beyond else '>='} {ALPHA}"
    if not beyond and 1 / 2 ** n >= ALPHA:
        why += f"; with {n} runs the smallest possible p is {1 / 2 ** n:.3g}: run at least 5"
    return {"test": "sign test", "p": p, "beyond_noise": beyond, "why": why}


def can_show_beyond_bound(n: int) -> bool:
    """Whether ``beyond_bound`` can find values beyond a bound at all with ``n`` values (it needs 5)."""
    return n >= 1 and 1 / 2 ** n < ALPHA
