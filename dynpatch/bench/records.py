"""What a bench run measures, as typed records, and their JSON form in ``bench.json``.

A *case* is one benchmark stream (tokens x choices, top-k); a *case run* is one case
replayed on one tree in one sweep round; a *reference pair* is one process pair's ops
of the reference case. Per tree values are keyed by the tree's label (:data:`LABELS`).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

LABELS = ("baseline", "patched")


@dataclass(frozen=True)
class Case:
    tokens: int
    choices: int
    k: int = 1  # top-k logprobs per token

    def to_json(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Ops:
    """One tree's timed ops (handler CPU ns per request) in one process pair."""

    ops_ns: list[int]

    @property
    def median_ns(self) -> float:
        return statistics.median(self.ops_ns)

    def to_json(self) -> dict[str, Any]:
        return {"ops_ns": self.ops_ns, "median_ns": self.median_ns}


@dataclass(frozen=True)
class ReferencePair:
    """The reference case's ops of one baseline and one patched worker, side by side."""

    ops: dict[str, Ops]  # by tree label
    hello: dict[str, dict[str, Any]]  # the workers' setup reports (not saved)

    def to_json(self) -> dict[str, Any]:
        return {label: self.ops[label].to_json() for label in LABELS}


@dataclass(frozen=True)
class Bin:
    """Per-chunk time over the chunks whose history length lies in [lo, hi)."""

    lo: int
    hi: int
    ops: int  # how many ops' bin medians the median is taken over
    median_ns: float


@dataclass(frozen=True)
class AllocSample:
    """tracemalloc peak while one chunk was produced, at that chunk's history length."""

    history: int
    peak_bytes: int

    def to_json(self) -> list[int]:
        return [self.history, self.peak_bytes]


@dataclass(frozen=True)
class CaseRun:
    """One sweep case on one tree in one round: every op, per-chunk medians, history bins,
    and (first round only) allocation samples."""

    case: Case
    chunks: int
    ops_ns: list[int]
    per_op_chunk_median_ns: list[float]
    chunk_median_ns: float
    bins: list[Bin]
    alloc: list[AllocSample] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "case": self.case.to_json(),
            "chunks": self.chunks,
            "ops_ns": self.ops_ns,
            "per_op_chunk_median_ns": self.per_op_chunk_median_ns,
            "chunk_median_ns": self.chunk_median_ns,
            "bins": [asdict(b) for b in self.bins],
        }
        if self.alloc is not None:
            data["alloc"] = [s.to_json() for s in self.alloc]
        return data


# One sweep round: per tree label, its case runs (in the order the round ran them).
SweepRound = dict[str, list[CaseRun]]


def runs_of(rounds: list[SweepRound], label: str, tokens: int, choices: int) -> Iterator[CaseRun]:
    """Every round's run of the case ``tokens x choices`` on tree ``label``."""
    for rnd in rounds:
        for run in rnd[label]:
            if (run.case.tokens, run.case.choices) == (tokens, choices):
                yield run


def rounds_to_json(rounds: list[SweepRound]) -> list[dict[str, Any]]:
    return [{label: [run.to_json() for run in rnd[label]] for label in LABELS} for rnd in rounds]
