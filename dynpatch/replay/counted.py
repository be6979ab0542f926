"""The bench's measurements in a replay child: ``counted`` (labelled parts under callgrind, in runs
forked after the imports) and ``alloc`` (tracemalloc peaks, then the A/B's op times)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import json
import os
import select
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from dynpatch.io.atomic import write_atomic
from dynpatch.replay import callgrind, scenarios
from dynpatch.replay.engine import ReplayResult
from dynpatch.replay.handler import Replay, SetupError, end_copy, hello, quiet_gc
from dynpatch.replay.script import Script, check_chunks, chunk_history

WARMUP = 1  # uncounted requests before a counted one
WARM_TOKENS = 512  # the warm-up stream's length before a long stream's windows
TURN_TIMEOUT = 600.0  # seconds an A/B child waits for the other's turn to end


def label(what: str, case: dict[str, Any], window: tuple[int, int] | None = None) -> str:
    """The dump label of one measurement (unique within a run)."""
    name = f"{what}-{case['tokens']}x{case['choices']}"
    return name if window is None else f"{name}-{window[0]}-{window[1]}"


def _script(case: dict[str, Any]) -> Script:
    return scenarios.stream(int(case["tokens"]), int(case["choices"]))


async def _request(
    replay: Replay,
    script: Script,
    around: contextlib.AbstractContextManager[Any] | None = None,
    after: Callable[[int], None] | None = None,
) -> None:
    """One request through a fresh handler, inside ``around``, ``after(n)`` at each chunk."""
    handler, _engine, request, context = replay.prepare(script, "bench")
    n = 0
    with quiet_gc(), around or contextlib.nullcontext():
        async for _ in handler.generate(request, context):
            n += 1
            if after is not None:
                after(n)
    check_chunks(script, n)


async def count_request(replay: Replay, case: dict[str, Any], what: str) -> dict[str, Any]:
    """A whole request (``engine``: the engine double's stream alone) after the warm-up."""
    script, name = _script(case), label(what, case)
    for around in [None] * WARMUP + [callgrind.counting(name)]:
        if what == "request":
            await _request(replay, script, around)
            continue
        result, chunks = ReplayResult(script, replay.errors), 0
        with quiet_gc(), around or contextlib.nullcontext():
            async for res in result:
                for _output in res.outputs:
                    chunks += 1
        check_chunks(script, chunks)
    return {"label": name, "what": what, "case": case, "chunks": len(chunk_history(script))}


def chunk_range(history: list[int], lo: int, hi: int) -> tuple[int, int]:
    """The chunks ``[a, b)`` from the first whose history reaches ``lo`` to the first at ``hi``."""
    a = next((i for i, h in enumerate(history) if h >= lo), len(history))
    b = next((i for i, h in enumerate(history) if h >= hi), len(history))
    if not 0 < a < b < len(history):
        raise ValueError(f"window [{lo}, {hi}) is not inside a {len(history)}-chunk stream")
    return a, b


async def count_windows(
    replay: Replay, case: dict[str, Any], windows: list[tuple[int, int]]
) -> list[dict[str, Any]]:
    """One long request (after a short warm-up); each window's chunks counted as one part."""
    script = _script(case)
    history = chunk_history(script)
    spans = [(w, *chunk_range(history, *w)) for w in sorted(windows)]
    for (_, _, b), (_, a, _) in itertools.pairwise(spans):
        if a < b:
            raise ValueError(f"windows {windows} overlap")
    for _ in range(WARMUP):
        await _request(replay, _script({**case, "tokens": min(WARM_TOKENS, case["tokens"])}))
    starts, ends = {a: w for w, a, _ in spans}, {b for _, _, b in spans}
    with contextlib.ExitStack() as stack:

        def step(n: int) -> None:
            if n in ends:  # the window's last chunk is in
                stack.close()
            if n in starts:  # the next chunk is the window's first
                stack.enter_context(callgrind.counting(label("windows", case, starts[n])))

        await _request(replay, script, after=step)
    return [
        {
            "label": label("windows", case, w),
            "what": "windows",
            "case": case,
            "history": list(w),
            "chunks": b - a,
        }
        for w, a, b in spans
    ]


async def run_counts(replay: Replay, measures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for m in measures:
        if m["what"] in ("request", "engine"):
            parts.append(await count_request(replay, m["case"], m["what"]))
        elif m["what"] == "windows":
            windows = [(int(lo), int(hi)) for lo, hi in m["windows"]]
            parts += await count_windows(replay, m["case"], windows)
        else:
            raise SetupError(f"unknown measurement {m['what']!r}")
    return parts


def _count(replay: Replay, measures: list[dict[str, Any]], result: Path) -> None:
    """Count ``measures`` in this (forked) process, write what they cover."""
    parts = asyncio.run(run_counts(replay, measures))
    write_atomic(result, json.dumps({"pid": os.getpid(), "parts": parts}))


def forked_runs(replay: Replay, runs: list[list[Any]], folder: Path) -> list[dict[str, Any]]:
    """Each run counted in turn in a copy of this process, all forked first (one memory image)."""
    results = [folder / f"run-{i}.json" for i in range(len(runs))]
    gates = [os.pipe() for _ in runs]
    for measures, result, (gate, _) in zip(runs, results, gates, strict=True):
        if os.fork() == 0:
            os.read(gate, 1)
            end_copy(_count, replay, measures, result)
    for result, (_, go) in zip(results, gates, strict=True):
        os.write(go, b"1")
        pid, status = os.wait()
        if status != 0 or not result.is_file():
            raise RuntimeError(f"counted run {pid} ended with wait status {status}, no result")
    return [json.loads(result.read_text()) for result in results]


def counted(job: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The setup report and the forked runs of ``job["counted"]``; refused off valgrind."""
    if not callgrind.request(callgrind.RUNNING_ON_VALGRIND):
        raise SetupError("not running under valgrind: the counts would all be missing")
    replay = Replay(Path(job["standin"]))
    gc.collect()
    gc.freeze()  # the imports are long-lived: keep them out of every collection
    return {**hello(replay, job.get("tree")), "runs": forked_runs(replay, job["counted"], folder)}


async def alloc_peaks(replay: Replay, script: Script, samples: int) -> list[list[int]]:
    """tracemalloc's peak at about ``samples`` chunks (not 0): ``[[history, bytes], ...]``."""
    history = chunk_history(script)
    chosen = set(range(1, len(history), max(1, (len(history) - 1) // max(samples, 1))))
    out: list[list[int]] = []

    def step(n: int) -> None:
        if n - 1 in chosen:  # the sampled chunk is in
            out.append([history[n - 1], tracemalloc.get_traced_memory()[1]])
            tracemalloc.stop()
        if n in chosen:
            tracemalloc.start()

    await _request(replay, script, after=step)
    return out


@contextlib.contextmanager
def stopwatch(times: list[int]) -> Iterator[None]:
    """Append the CPU time (ns) this thread spends inside the block to ``times``."""
    start = time.thread_time_ns()
    yield
    times.append(time.thread_time_ns() - start)


def turns(pairs: int, first: bool) -> list[bool]:
    """Whose each op of the A/B is (True: this child's), alternating who goes first."""
    mine = [(True, False) if (i % 2 == 0) == first else (False, True) for i in range(pairs)]
    return [m for pair in mine for m in pair]


async def take_turns(replay: Replay, ab: dict[str, Any]) -> list[int]:
    """This tree's A/B op times after its warm-up, taking turns through ``ab["baton"]``."""
    script, ops, warm = _script(ab["case"]), [], []
    for _ in range(ab["warmup"]):
        await _request(replay, script, stopwatch(warm))
    mine, theirs = (os.open(path, os.O_RDWR) for path in ab["baton"])

    def wait() -> None:
        if not select.select([mine], [], [], TURN_TIMEOUT)[0]:
            raise SetupError(f"the other tree's A/B child was silent for {TURN_TIMEOUT:.0f} s")
        os.read(mine, 1)

    os.write(theirs, b".")  # both warmed up: the first op may start
    wait()
    order = turns(ab["pairs"], ab["first"])
    for k, me in enumerate(order):
        if me:
            if k and not order[k - 1]:
                wait()
            await _request(replay, script, stopwatch(ops))
            if k + 1 < len(order) and not order[k + 1]:
                os.write(theirs, b".")
    return ops


async def timed(replay: Replay, job: dict[str, Any]) -> dict[str, Any]:
    """Job ``alloc``: the peaks of each stream by number of choices, and the A/B's ops."""
    gc.collect()
    gc.freeze()  # the imports are long-lived: keep them out of the collections between ops
    alloc = {}
    for case in job["alloc"]:
        alloc[str(case["choices"])] = await alloc_peaks(replay, _script(case), job["samples"])
    ops = await take_turns(replay, job["ab"]) if "ab" in job else []
    return {"alloc": alloc, "ops_ns": ops}
