"""The time-based A/B (informative): the paired change of the handler's CPU time per request."""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from dynpatch.services.bench.plan import AB_WARMUP, REFERENCE

SEED = 20261130
RESAMPLES = 10_000
LEVEL = 0.95


@dataclass(frozen=True)
class PairedChange:
    """``median(c_i - b_i)`` in percent of the baseline's median, with its bootstrap interval."""

    pairs: int
    baseline_median: float
    candidate_median: float
    change_pct: float
    ci_low_pct: float
    ci_high_pct: float


def paired_change(
    baseline: Sequence[float], candidate: Sequence[float], seed: int = SEED
) -> PairedChange:
    """The paired change of ``candidate`` against ``baseline``, pair by pair."""
    if len(baseline) != len(candidate) or not baseline:
        raise ValueError(f"{len(baseline)} baseline and {len(candidate)} candidate values")
    base = statistics.median(baseline)
    if base <= 0:
        raise ValueError("the baseline median must be positive")
    diffs = [c - b for b, c in zip(baseline, candidate, strict=True)]
    rng = random.Random(seed)
    boot = [statistics.median(rng.choices(diffs, k=len(diffs))) for _ in range(RESAMPLES)]
    # cut points every (1 - LEVEL) / 2: the first and the last bound the interval
    cuts = statistics.quantiles(boot, n=round(2 / (1 - LEVEL)), method="inclusive")
    pct = [100 * v / base for v in (statistics.median(diffs), cuts[0], cuts[-1])]  # change, CI
    return PairedChange(len(diffs), base, statistics.median(candidate), *pct)


def summary(ops_ns: dict[str, list[int]], loadavg: float) -> dict[str, Any]:
    """The A/B's record: op times (ns), their paired change, the load average, its line."""
    c = paired_change(ops_ns["baseline"], ops_ns["patched"])
    line = (
        f"A/B, time-based (informative, not gated): {REFERENCE.tokens}x{REFERENCE.choices}, "
        f"handler CPU time per request, {c.pairs} interleaved op pairs after {AB_WARMUP} "
        f"warm-up ops per tree: baseline {c.baseline_median / 1e6:.2f} ms, patched "
        f"{c.candidate_median / 1e6:.2f} ms; paired median change {c.change_pct:+.1f}% "
        f"({LEVEL:.0%} bootstrap CI {c.ci_low_pct:+.1f}% .. {c.ci_high_pct:+.1f}%); "
        f"load average {loadavg:.2f}"
    )
    return {
        "informative": True,
        "case": REFERENCE.to_json(),
        "warmup": AB_WARMUP,
        "ops_ns": ops_ns,
        "change": {**asdict(c), "level": LEVEL, "resamples": RESAMPLES, "seed": SEED},
        "loadavg": loadavg,
        "line": line,
    }
