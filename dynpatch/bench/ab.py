"""The time-based A/B: informative only, never a verdict (the instruction counts decide).

One baseline and one patched worker (:mod:`dynpatch.replay.serve`, natively) import
dynamo side by side; after :data:`WARMUP` ops each, :data:`PAIRS` op pairs of the
reference case alternate between them (A B, B A, ...), so both trees are timed in the
same stretch of time. An op is one whole request through ``AggregatedHandler.generate``,
timed as the handler thread's CPU time. The paired median change over the op pairs comes
with a percentile-bootstrap 95 % interval; the machine's load still moves it.
"""

from __future__ import annotations

import os
import random
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dynpatch.bench.plan import REFERENCE
from dynpatch.replay import runner

TREES = ("baseline", "patched")
WARMUP = 5
PAIRS = 30
SEED = 20261130


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


@dataclass(frozen=True)
class AB:
    """Each tree's op times (ns, in the order timed), the paired change and the 1-minute
    load average when the timing began."""

    ops_ns: dict[str, list[int]]
    change: PairedChange
    loadavg: float

    def line(self) -> str:
        c = self.change
        return (
            f"A/B, time-based (informative, not gated): {REFERENCE.tokens}x{REFERENCE.choices}, "
            f"handler CPU time per request, {c.pairs} interleaved op pairs after {WARMUP} "
            f"warm-up ops per tree: baseline {c.baseline_median / 1e6:.2f} ms, patched "
            f"{c.candidate_median / 1e6:.2f} ms; paired median change {c.change_pct:+.1f}% "
            f"({c.level:.0%} bootstrap CI {c.ci_low_pct:+.1f}% .. {c.ci_high_pct:+.1f}%); "
            f"load average {self.loadavg:.2f}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "informative": True,
            "case": REFERENCE.to_json(),
            "warmup": WARMUP,
            "ops_ns": self.ops_ns,
            "change": asdict(self.change),
            "loadavg": self.loadavg,
            "line": self.line(),
        }


def measure(trees: dict[str, runner.Tree], logs: Path, python: str) -> AB:
    """Time the reference case on the baseline and the patched tree, interleaved."""
    workers: dict[str, runner.Worker] = {}
    case = REFERENCE.to_json()
    try:
        for label in TREES:
            workers[label] = runner.Worker(trees[label], logs / f"ab-{label}.log", python=python)
        for worker in workers.values():  # both import dynamo at the same time
            worker.ready()
        for worker in workers.values():
            worker.ask({"cmd": "time", "case": case, "ops": WARMUP})
        loadavg = os.getloadavg()[0]
        ops: dict[str, list[int]] = {label: [] for label in TREES}
        for i in range(PAIRS):
            for label in TREES if i % 2 == 0 else TREES[::-1]:
                ops[label] += workers[label].ask({"cmd": "time", "case": case, "ops": 1})["ops_ns"]
    finally:
        for worker in workers.values():
            worker.close()
    return AB(ops, paired_change(ops["baseline"], ops["patched"], seed=SEED), loadavg)
