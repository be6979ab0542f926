"""Measuring in pairs of persistent workers, one per tree, whose ops alternate.

A baseline and a patched worker (``dynpatch/replay/serve.py``) import dynamo at the same
time; their ops then alternate (A B, B A, ...), so both trees are measured in the same
stretch of time while each stays in its own process.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from dynpatch.bench.records import (
    LABELS,
    AllocSample,
    Bin,
    Case,
    CaseRun,
    Ops,
    ReferencePair,
    SweepRound,
)
from dynpatch.bench.settings import ALLOC_SAMPLES, REFERENCE, Settings, sweep_cases
from dynpatch.replay import runner
from dynpatch.replay.progress import Steps

Pair = dict[str, runner.Worker]  # by tree label, both ready


class WorkerPairs:
    """Starts ready baseline and patched workers; one progress step per pair."""

    def __init__(self, trees: dict[str, runner.Tree], logs: Path, python: str, steps: Steps):
        self._trees, self._logs, self._python, self._steps = trees, logs, python, steps

    @contextmanager
    def pair(self, what: str) -> Iterator[Pair]:
        """Both workers for the block, closed after it; ``what`` names the step and logs."""
        self._steps.start(what)
        name = what.replace(" ", "-")
        pair: Pair = {}
        try:
            for label in LABELS:
                log = self._logs / f"{name}-{label}.log"
                pair[label] = runner.Worker(self._trees[label], log, python=self._python)
            for worker in pair.values():  # both import dynamo at the same time
                worker.ready()
            yield pair
        finally:
            for worker in pair.values():
                worker.close()
        self._steps.done()


def _alternating(i: int) -> tuple[str, str]:
    return LABELS if i % 2 == 0 else (LABELS[1], LABELS[0])


def _warm_up(settings: Settings, pair: Pair) -> None:
    for label in LABELS:
        if settings.warmup:
            pair[label].ask({"cmd": "time", "case": REFERENCE.to_json(), "ops": settings.warmup})


def run_reference(settings: Settings, workers: WorkerPairs) -> list[ReferencePair]:
    """Process pairs; in each, after the warm-up, ``settings.ops`` alternating op pairs of
    the reference case."""
    pairs = []
    for i in range(settings.pairs):
        with workers.pair(f"reference pair {i + 1}") as pair:
            _warm_up(settings, pair)
            ops: dict[str, list[int]] = {label: [] for label in LABELS}
            for j in range(settings.ops):
                for label in _alternating(j):
                    reply = pair[label].ask({"cmd": "time", "case": REFERENCE.to_json(), "ops": 1})
                    ops[label] += reply["ops_ns"]
            hello = {label: pair[label].hello for label in LABELS}
        pairs.append(ReferencePair({label: Ops(ops[label]) for label in LABELS}, hello))
    return pairs


def run_sweep(settings: Settings, workers: WorkerPairs) -> list[SweepRound]:
    """Each round a new process pair: every case, ops alternating between the trees, with
    per-chunk stamps; short streams repeat until ``min_chunks``. The first round then
    samples allocations (after all its timing)."""
    rounds = []
    for r in range(settings.rounds):
        with workers.pair(f"sweep round {r + 1}") as pair:
            _warm_up(settings, pair)
            runs: SweepRound = {label: [] for label in LABELS}
            # Case order alternates by round too, so drift does not favour one size.
            for case in sweep_cases()[:: 1 if r % 2 == 0 else -1]:
                repeats = max(1, -(-settings.min_chunks // (case.tokens * case.choices)))
                replies: dict[str, list[dict[str, Any]]] = {label: [] for label in LABELS}
                for j in range(repeats):
                    for label in _alternating(j + r):
                        cmd = {"cmd": "time", "case": case.to_json(), "ops": 1, "stamps": True}
                        replies[label].append(pair[label].ask(cmd))
                for label in LABELS:
                    runs[label].append(merge(case, replies[label]))
            if r == 0:
                for label in LABELS:
                    runs[label] = [_with_alloc(pair[label], run) for run in runs[label]]
        rounds.append(runs)
    return rounds


def _with_alloc(worker: runner.Worker, run: CaseRun) -> CaseRun:
    cmd = {"cmd": "alloc", "case": run.case.to_json(), "samples": ALLOC_SAMPLES}
    samples = [AllocSample(h, peak) for h, peak in worker.ask(cmd)["alloc"]]
    return replace(run, alloc=samples)


def merge(case: Case, replies: list[dict[str, Any]]) -> CaseRun:
    """One case's single-op replies as one record: all ops, per-op chunk medians, and per
    history bin the median over ops of the bin medians."""
    bins: dict[int, list[float]] = {}
    for reply in replies:
        for b in reply["bins"]:
            bins.setdefault(b["lo"], []).append(b["median_ns"])
    per_op = [v for reply in replies for v in reply["per_op_chunk_median_ns"]]
    return CaseRun(
        case=case,
        chunks=replies[0]["chunks"],
        ops_ns=[v for reply in replies for v in reply["ops_ns"]],
        per_op_chunk_median_ns=per_op,
        chunk_median_ns=statistics.median(per_op),
        bins=[Bin(lo, 2 * lo, len(v), statistics.median(v)) for lo, v in sorted(bins.items())],
    )
