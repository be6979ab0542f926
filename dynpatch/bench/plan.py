"""What the instruction counts measure, the counted children that measure it, and the
allocation profile of the same streams.

Per tree, one child under callgrind (:mod:`dynpatch.replay.counted`) counts whole requests
at 256 tokens x 4 interleaved choices (the reference case) and 4096 x 1 (logprobs on, one
token per result; one request after one uncounted warm-up), the engine double alone for
the same cases, and, inside one 16384-token stream of 1 and of 4 choices, the chunks whose
choice history lies in each of :data:`WINDOWS`. Counts are deterministic given the memory
image, so the baseline and patched trees are counted twice, both runs forked from one
child (two children that each import dynamo differ by up to 0.7 %; docs/bench.md).
Allocation is sampled natively, one worker per tree (:mod:`dynpatch.replay.serve`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from dynpatch.bench import valgrind
from dynpatch.bench.counts import Case, TreeCounts, parts_of, slope
from dynpatch.errors import ToolkitError
from dynpatch.replay import runner

REFERENCE = Case(tokens=256, choices=4)
REQUEST_CASES = (REFERENCE, Case(tokens=4096, choices=1))
STREAM_TOKENS = 16384
STREAMS = (Case(tokens=STREAM_TOKENS, choices=1), Case(tokens=STREAM_TOKENS, choices=4))
WIDTH = 256
WINDOWS = tuple((lo, lo + WIDTH) for lo in (256, 4096, 8192, 12288, STREAM_TOKENS - 2 * WIDTH))
EARLY, LATE = WINDOWS[0], WINDOWS[-1]
# Set in every counted child: str hashing fixed; dynamo's per-request INFO lines off, since
# they print the wall-clock time, and formatting it costs a time-dependent count.
ENV = {"PYTHONHASHSEED": "0", "DYN_LOG": "error"}
WARMUP = 1
OPS = 1
JOBS = 2  # children at once (this machine has two cores)
ALLOC_SAMPLES = 96  # sampled chunks per long stream for tracemalloc
CHILD_MODULE = "dynpatch.replay.counted"
COUNTED = (
    "instructions (callgrind Ir) of the replay child's main thread while it replays the "
    "requests through AggregatedHandler.generate: from asking for a request's first "
    "chunk to receiving its last (building the handler and the engine double's script, "
    "interpreter start-up and imports not counted); per-chunk figures count only the "
    "chunks of one stream whose choice history lies in the window"
)


def main_job() -> dict[str, Any]:
    """Every measurement of one tree's main child."""
    measure: list[dict[str, Any]] = []
    for case in REQUEST_CASES:
        measure.append({"what": "request", "case": case.to_json(), "ops": OPS})
        measure.append({"what": "engine", "case": case.to_json(), "ops": OPS})
    for case in STREAMS:
        measure.append({"what": "windows", "case": case.to_json(), "windows": list(WINDOWS)})
    return {"warmup": WARMUP, "measure": measure}


@dataclass(frozen=True)
class Counted:
    """One child's counts (one per run), its setup report and how long it took."""

    runs: list[TreeCounts]
    hello: dict[str, Any]
    seconds: float

    @property
    def counts(self) -> TreeCounts:
        return self.runs[0]


def count(
    tree: runner.Tree,
    job: dict[str, Any],
    folder: Path,
    *,
    valgrind_path: str,
    python: str,
    prefix: Sequence[str] = (),
    runs: int = 1,
    timeout: float = 1200.0,
) -> Counted:
    """Run one counted child on ``tree`` in ``folder`` (its job, result, log and dumps),
    which counts ``job`` ``runs`` times, each run forked once everything is imported."""
    start = time.perf_counter()
    result = runner.run_child(
        tree,
        {**job, "runs": runs},
        folder / "child.log",
        python=python,
        timeout=timeout,
        folder=folder,
        module=CHILD_MODULE,
        wrap=lambda argv: valgrind.command(valgrind_path, folder, argv, prefix),
        env=ENV,
        what="counted replay",
    )
    dumps = valgrind.read_parts(folder)
    reported = result.get("runs", [])
    if len(reported) != runs:
        raise ToolkitError(f"{tree.label}: {runs} counted runs asked for, {len(reported)} reported")
    unknown = sorted(set(dumps) - {r["pid"] for r in reported})
    if unknown:
        raise ToolkitError(f"{tree.label}: callgrind dumps of processes no run reported: {unknown}")
    counts = [
        TreeCounts(tree.label, parts_of(r, dumps.get(r["pid"], {}), tree.label)) for r in reported
    ]
    hello = {k: v for k, v in result.items() if k != "runs"}
    return Counted(counts, hello, time.perf_counter() - start)


T = TypeVar("T")


def run_all(
    tasks: Sequence[tuple[str, Callable[[], T]]], done: Callable[[str, float], None]
) -> dict[str, T]:
    """Run the named tasks :data:`JOBS` at a time (in the order given); ``done(name,
    seconds)`` as each ends. The first failure is raised once the others have ended."""
    start = time.perf_counter()

    def timed(name: str, task: Callable[[], T]) -> T:
        value = task()
        done(name, time.perf_counter() - start)
        return value

    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        futures = {name: pool.submit(timed, name, task) for name, task in tasks}
    return {name: f.result() for name, f in futures.items()}


# Per tree, per number of choices (a string): tracemalloc bytes per history token.
AllocSlopes = dict[str, dict[str, float | None]]


def alloc_slopes(trees: dict[str, runner.Tree], logs: Path, python: str) -> dict[str, Any]:
    """tracemalloc peak per sampled chunk of each long stream, per tree (a native worker
    each): the samples and their slope in bytes per history token."""
    slopes: AllocSlopes = {}
    samples: dict[str, dict[str, list[list[int]]]] = {}
    for label, tree in trees.items():
        slopes[label], samples[label] = {}, {}
        with runner.Worker(tree, logs / f"alloc-{label}.log", python=python) as worker:
            for stream in STREAMS:
                cmd = {"cmd": "alloc", "case": stream.to_json(), "samples": ALLOC_SAMPLES}
                got = worker.ask(cmd)["alloc"]
                samples[label][str(stream.choices)] = got
                slopes[label][str(stream.choices)] = slope([h for h, _ in got], [p for _, p in got])
    return {"slope_bytes_per_token": slopes, "samples": samples}
