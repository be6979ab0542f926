"""What the bench measures, and its replay children (:mod:`dynpatch.replay.counted`)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.replay import runner
from dynpatch.services.bench import valgrind
from dynpatch.services.bench.counts import Case, TreeCounts, parts_of

REFERENCE = Case(tokens=256, choices=4)
REQUEST_CASES = (REFERENCE, Case(tokens=4096, choices=1))
STREAM_TOKENS = 16384
STREAMS = (Case(tokens=STREAM_TOKENS, choices=1), Case(tokens=STREAM_TOKENS, choices=4))
WIDTH = 256
WINDOWS = tuple((lo, lo + WIDTH) for lo in (256, 4096, 8192, 12288, STREAM_TOKENS - 2 * WIDTH))
EARLY, LATE = WINDOWS[0], WINDOWS[-1]
# No per-request INFO lines: formatting their wall-clock time costs a time-dependent count.
ENV = {"PYTHONHASHSEED": "0", "DYN_LOG": "error"}
JOBS = 2  # children at once (this machine has two cores)
ALLOC_SAMPLES = 96  # sampled chunks per long stream for tracemalloc
AB_WARMUP, AB_PAIRS = 5, 30  # the A/B's uncounted ops per tree, then its op pairs
PAIR = ("baseline", "patched")
COUNTED = (
    "instructions (callgrind Ir) of the replay child's main thread while it replays the "
    "requests through AggregatedHandler.generate: from asking for a request's first "
    "chunk to receiving its last (building the handler and the engine double's script, "
    "interpreter start-up and imports not counted); per-chunk figures count only the "
    "chunks of one stream whose choice history lies in the window"
)


def measures() -> list[dict[str, Any]]:
    found = [{"what": w, "case": c.to_json()} for c in REQUEST_CASES for w in ("request", "engine")]
    return found + [{"what": "windows", "case": s.to_json(), "windows": WINDOWS} for s in STREAMS]


AGAIN = [{"what": "request", "case": REFERENCE.to_json()}]  # the agreement gate's run


@dataclass(frozen=True)
class Counted:
    runs: list[TreeCounts]
    hello: dict[str, Any]


def count(
    trees: Sequence[runner.Tree],
    runs: dict[str, list[list[dict[str, Any]]]],
    folder: Path,
    *,
    valgrind_path: str,
    prefix: Sequence[str] = (),
    python: str = sys.executable,
) -> dict[str, Counted]:
    """One child under callgrind for every tree's ``runs``: per tree the counts of its runs."""
    found = runner.run_trees(
        trees,
        {},
        folder,
        each={t.label: {"counted": runs[t.label]} for t in trees},
        jobs=JOBS,
        timeout=3600,  # a hang guard: on a loaded machine a child gets a fraction of a core
        folder=folder,
        wrap=lambda argv: valgrind.command(valgrind_path, folder, argv, prefix),
        env=ENV,
        python=python,
    )
    dumps = valgrind.read_parts(folder)
    reported = {r["pid"] for tree in found.values() for r in tree["runs"]}
    if unknown := sorted(set(dumps) - reported):
        raise ToolkitError(f"callgrind dumps of processes no run reported: {unknown}")
    return {
        label: Counted(
            [TreeCounts(label, parts_of(r, dumps.get(r["pid"], {}), label)) for r in tree["runs"]],
            {k: v for k, v in tree.items() if k != "runs"},
        )
        for label, tree in found.items()
    }


def native(
    trees: dict[str, runner.Tree], folder: Path, python: str = sys.executable
) -> tuple[dict[str, Any], float]:
    """Every tree natively in one child (allocation, the pair's A/B): results, load average."""
    folder.mkdir(parents=True)
    baton = [folder / f"{label}.turn" for label in PAIR]
    for fifo in baton:
        os.mkfifo(fifo)
    alloc = {"alloc": [s.to_json() for s in STREAMS], "samples": ALLOC_SAMPLES}
    ab = {"case": REFERENCE.to_json(), "warmup": AB_WARMUP, "pairs": AB_PAIRS}
    jobs = {label: dict(alloc) for label in trees}
    for i, label in enumerate(PAIR):
        jobs[label]["ab"] = {**ab, "first": i == 0, "baton": [str(baton[i]), str(baton[1 - i])]}
    loadavg = os.getloadavg()[0]
    try:
        found = runner.run_trees(
            list(trees.values()), {}, folder, each=jobs, jobs=len(trees), python=python
        )
        return found, loadavg
    finally:
        for fifo in baton:
            fifo.unlink()


T = TypeVar("T")


def run_all(
    tasks: Sequence[tuple[str, Callable[[], T]]], finished: dict[str, float]
) -> dict[str, T]:
    """Run the tasks ``JOBS`` at a time, each said done as it ends (its seconds kept in
    ``finished``); the first failure raised once all have ended."""
    start = time.perf_counter()

    def timed(name: str, task: Callable[[], T]) -> T:
        value = task()
        finished[name] = round(seconds := time.perf_counter() - start, 1)
        err.print(f"  {name}: done (+{seconds:.0f} s)", markup=False)
        return value

    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        futures = {name: pool.submit(timed, name, task) for name, task in tasks}
    return {name: f.result() for name, f in futures.items()}
