"""Statistics of the benchmark: medians, the paired change with a bootstrap interval, slopes.

Standard library only, deterministic for a given seed, and small enough to check by hand
(see tests/dynpatch/bench/test_stats.py).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PairedChange:
    """Candidate vs baseline over pairs of runs: ``change = median(c_i - b_i)``.

    Percentages are relative to the baseline median, and the interval is a percentile
    bootstrap over pairs (``resamples`` draws, ``seed``).
    """

    pairs: int
    baseline_median: float
    candidate_median: float
    change_median: float
    change_pct: float
    ci_low_pct: float
    ci_high_pct: float
    level: float
    resamples: int
    seed: int


def paired_change(
    baseline: Sequence[float],
    candidate: Sequence[float],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    level: float = 0.95,
) -> PairedChange:
    if len(baseline) != len(candidate):
        raise ValueError(f"{len(baseline)} baseline values but {len(candidate)} candidate values")
    if not baseline:
        raise ValueError("no pairs")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), not {level}")
    diffs = [c - b for b, c in zip(baseline, candidate, strict=True)]
    base = statistics.median(baseline)
    if base <= 0:
        raise ValueError("the baseline median must be positive")
    rng = random.Random(seed)
    n = len(diffs)
    boot = sorted(statistics.median(rng.choices(diffs, k=n)) for _ in range(resamples))
    low, high = percentile(boot, (1 - level) / 2), percentile(boot, 1 - (1 - level) / 2)
    change = statistics.median(diffs)
    return PairedChange(
        pairs=n,
        baseline_median=base,
        candidate_median=statistics.median(candidate),
        change_median=change,
        change_pct=100 * change / base,
        ci_low_pct=100 * low / base,
        ci_high_pct=100 * high / base,
        level=level,
        resamples=resamples,
        seed=seed,
    )


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile ``q`` in [0, 1] of already sorted values."""
    if not sorted_values:
        raise ValueError("no values")
    if not 0 <= q <= 1:
        raise ValueError(f"q must be in [0, 1], not {q}")
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``ys`` over ``xs`` (0 when ``xs`` do not vary)."""
    if len(xs) != len(ys) or not xs:
        raise ValueError("slope needs two equally long, non-empty sequences")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
