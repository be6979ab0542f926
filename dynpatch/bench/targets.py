"""What the measurements say: the paired reference change, the sweep table's medians, the
allocation slopes, and whether each target is met.

Slope threshold: copying history costs >= 8 bytes (a pointer) per history token, so
anything under 1 B/token cannot be a copy of the history.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any

from dynpatch.bench.records import LABELS, ReferencePair, SweepRound, runs_of
from dynpatch.bench.settings import BOOTSTRAP_SEED, CHOICES, SIZES, sweep_cases
from dynpatch.replay.stats import PairedChange, paired_change, slope

TARGET_CI_UPPER_PCT = -5.0
TARGET_4096_SAVING_PCT = 40.0
TARGET_FLAT_PCT = 10.0
TARGET_ALLOC_SLOPE = 1.0
EARLY_BIN = 256  # target 3: per-chunk time in history [256, 512) ...
LATE_BIN = SIZES[-1] // 2  # ... against [N/2, N) of the same N-token streams

# Per tree label, per number of choices (a string, the JSON key): a change in percent.
WithinStream = dict[str, dict[str, float | None]]


@dataclass(frozen=True)
class SweepRow:
    """One sweep case, both trees: medians over rounds of request and per-chunk time."""

    tokens: int
    choices: int
    chunks: int
    baseline_request_ns: float
    baseline_chunk_ns: float
    patched_request_ns: float
    patched_chunk_ns: float


@dataclass(frozen=True)
class AllocCase:
    """One sweep case on one tree: the median tracemalloc peak per sampled chunk."""

    tree: str
    tokens: int
    choices: int
    samples: int
    median_peak_bytes: float | None  # None: no samples


@dataclass(frozen=True)
class Target:
    """One target of the run: whether it is met, and the numbers that decide it."""

    label: str
    met: bool
    detail: str

    def line(self) -> str:
        return f"{self.label}: {self.detail} -> {'met' if self.met else 'NOT MET'}"


@dataclass(frozen=True)
class AllocSummary:
    per_case: list[AllocCase]
    # Per tree, per number of choices (as a string, the JSON key): bytes per history token.
    slope_bytes_per_token: dict[str, dict[str, float]]

    def peak(self, tree: str, tokens: int, choices: int) -> float | None:
        for a in self.per_case:
            if (a.tree, a.tokens, a.choices) == (tree, tokens, choices):
                return a.median_peak_bytes
        return None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def reference_change(pairs: list[ReferencePair]) -> PairedChange:
    """Patched vs baseline over process pairs, each pair's medians, with its interval."""
    return paired_change(
        [p.ops["baseline"].median_ns for p in pairs],
        [p.ops["patched"].median_ns for p in pairs],
        seed=BOOTSTRAP_SEED,
    )


def sweep_rows(rounds: list[SweepRound]) -> list[SweepRow]:
    """Per case and tree: medians over rounds of request CPU time and per-chunk time."""
    rows = []
    for case in sweep_cases():
        medians: dict[str, float] = {}
        chunks = 0
        for label in LABELS:
            found = list(runs_of(rounds, label, case.tokens, case.choices))
            chunks = found[0].chunks
            medians[f"{label}_request_ns"] = statistics.median(v for c in found for v in c.ops_ns)
            medians[f"{label}_chunk_ns"] = statistics.median(c.chunk_median_ns for c in found)
        rows.append(SweepRow(tokens=case.tokens, choices=case.choices, chunks=chunks, **medians))
    return rows


def alloc_summary(rounds: list[SweepRound]) -> AllocSummary:
    """Median tracemalloc peak per chunk per case, and the slope against history."""
    per_case: list[AllocCase] = []
    slopes: dict[str, dict[str, float]] = {label: {} for label in LABELS}
    for label in LABELS:
        by_choices: dict[int, list[tuple[int, int]]] = {}
        for c in rounds[0][label]:
            samples = [(s.history, s.peak_bytes) for s in c.alloc or []]
            by_choices.setdefault(c.case.choices, []).extend(samples)
            median = statistics.median(p for _, p in samples) if samples else None
            per_case.append(AllocCase(label, c.case.tokens, c.case.choices, len(samples), median))
        for choices, samples in sorted(by_choices.items()):
            if samples:
                slopes[label][str(choices)] = slope(
                    [h for h, _ in samples], [p for _, p in samples]
                )
    return AllocSummary(per_case, slopes)


def _row(sweep: list[SweepRow], tokens: int, choices: int) -> SweepRow:
    return next(r for r in sweep if r.tokens == tokens and r.choices == choices)


def pct(new: float, old: float) -> float:
    """``new`` against ``old``, in percent of ``old``."""
    return 100.0 * (new - old) / old


def evaluate(
    reference: PairedChange, sweep: list[SweepRow], alloc: AllocSummary, within: WithinStream
) -> list[Target]:
    """The four targets, each met or not, with the numbers that decide it. Target 3 is
    judged inside one stream (:func:`within_stream`), so a request's fixed cost cannot
    pass for a per-chunk one."""
    targets = [
        Target(
            "target 1: 256x4 paired change, 95% CI upper bound < -5%",
            reference.ci_high_pct < TARGET_CI_UPPER_PCT,
            f"{reference.change_pct:+.1f}% (CI {reference.ci_low_pct:+.1f}% .. "
            f"{reference.ci_high_pct:+.1f}%)",
        )
    ]
    row = _row(sweep, 4096, 1)
    change = pct(row.patched_request_ns, row.baseline_request_ns)
    targets.append(
        Target(
            "target 2: 4096x1 at least 40% less time per request",
            change <= -TARGET_4096_SAVING_PCT,
            f"{change:+.1f}% ({row.baseline_request_ns / 1e6:.2f} ms -> "
            f"{row.patched_request_ns / 1e6:.2f} ms)",
        )
    )
    patched = within.get("patched", {})
    flat = [(c, patched.get(str(c))) for c in CHOICES]
    targets.append(
        Target(
            f"target 3: patched per-chunk time within one {SIZES[-1]}-token stream, history "
            f"{LATE_BIN}-{SIZES[-1] - 1} vs {EARLY_BIN}-{2 * EARLY_BIN - 1}, within 10%",
            all(v is not None and abs(v) <= TARGET_FLAT_PCT for _, v in flat),
            ", ".join(f"{c} choice{'s' * (c > 1)} {_pct(v)}" for c, v in flat),
        )
    )
    slopes = alloc.slope_bytes_per_token
    patched_slopes = [slopes["patched"].get(str(c)) for c in CHOICES]
    targets.append(
        Target(
            "target 4: patched allocation per chunk flat in N (slope < 1 B per history token)",
            all(s is not None and abs(s) < TARGET_ALLOC_SLOPE for s in patched_slopes),
            "; ".join(f"{label} {_slopes(slopes[label])}" for label in ("patched", "baseline")),
        )
    )
    return targets


def _slopes(by_choices: dict[str, float]) -> str:
    return ", ".join(f"{_fmt(by_choices.get(str(c)))} B/token ({c}ch)" for c in CHOICES)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1f}%"


def within_stream(rounds: list[SweepRound]) -> WithinStream:
    """Per tree and number of choices: the median per-chunk time of the longest streams'
    late history bin ([N/2, N)) against their early one ([256, 512)), over rounds, in
    percent (None: a bin was never seen)."""
    out: WithinStream = {}
    for label in LABELS:
        out[label] = {}
        for choices in CHOICES:
            early, late = [], []
            for run in runs_of(rounds, label, SIZES[-1], choices):
                bins = {b.lo: b.median_ns for b in run.bins}
                if EARLY_BIN in bins and LATE_BIN in bins:
                    early.append(bins[EARLY_BIN])
                    late.append(bins[LATE_BIN])
            out[label][str(choices)] = (
                pct(statistics.median(late), statistics.median(early)) if early else None
            )
    return out


def within_stream_line(within: WithinStream) -> str:
    """The baseline's late-vs-early change in the same streams (not a target: it shows the
    within-stream comparison sees the history copy where there is one)."""
    parts = [f"{_pct(within.get('baseline', {}).get(str(c)))} ({c}ch)" for c in CHOICES]
    return (
        f"info: baseline per-chunk time in the same {SIZES[-1]}-token streams, history "
        f"{LATE_BIN}-{SIZES[-1] - 1} vs {EARLY_BIN}-{2 * EARLY_BIN - 1}: " + ", ".join(parts)
    )
