"""Child process of the instruction counts: one tree, run under callgrind, counted parts only.

``valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no ... python -m
dynpatch.replay.counted JOB.json RESULT.json``. The child imports dynamo's real handler
from its tree, uninstrumented, then counts each measurement of the job as one labelled
part (:func:`dynpatch.replay.callgrind.counting`):

* ``request``: whole requests through ``AggregatedHandler.generate`` (after ``warmup``
  uncounted ones), from the first chunk asked for to the last one received; building the
  handler and the engine double's script happens before, uncounted.
* ``engine``: the engine double's result stream alone, iterated the way the handler's
  loop visits it, to tell its share from the handler's.
* ``windows``: one long request, counted only while it produces the chunks whose choice
  history lies in each window ``[lo, hi)``.

The job runs ``runs`` times, each in a process forked from the child once it has imported
everything, so every run starts counting from the same memory image (two processes that
each import dynamo lay memory out a little differently; see docs/bench.md). The result
file lists, per run, its process id and what each part covers; the counts are in
callgrind's dumps, which the parent reads (:mod:`dynpatch.bench.valgrind`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from dynpatch.io.atomic import write_atomic
from dynpatch.replay import callgrind, scenarios
from dynpatch.replay.child import answer
from dynpatch.replay.engine import build_result
from dynpatch.replay.handler import Replay, SetupError, hello, quiet_gc
from dynpatch.replay.script import Script, check_chunks, chunk_history

WHATS = ("request", "engine", "windows")
WARM_TOKENS = 512  # warm-up stream length before a long stream's windows


def label(what: str, case: dict[str, Any], window: tuple[int, int] | None = None) -> str:
    """The dump label of one measurement (unique within a job)."""
    name = f"{what}-{case['tokens']}x{case['choices']}-top{case.get('k', 1)}"
    return name if window is None else f"{name}-{window[0]}-{window[1]}"


def _script(case: dict[str, Any]) -> Script:
    return scenarios.stream(int(case["tokens"]), int(case["choices"]), k=int(case.get("k", 1)))


async def _drain(replay: Replay, script: Script) -> int:
    handler, _engine, request, context = replay.prepare(script, "warm-up")
    count = 0
    async for _ in handler.generate(request, context):
        count += 1
    return count


async def count_requests(replay: Replay, case: dict[str, Any], ops: int, warmup: int) -> dict:
    """``ops`` whole requests, counted as one part."""
    script = _script(case)
    for _ in range(warmup):
        await _drain(replay, script)
    prepared = [replay.prepare(script, f"count-{i}") for i in range(ops)]
    chunks = 0
    name = label("request", case)
    with quiet_gc(), callgrind.counting(name):
        for handler, _engine, request, context in prepared:
            async for _ in handler.generate(request, context):
                chunks += 1
    check_chunks(script, chunks, ops)
    return {"label": name, "what": "request", "case": case, "requests": ops, "chunks": chunks}


async def _iterate(results: list[Any]) -> int:
    """Visit every output of every result, as the handler's loop does; the chunks."""
    chunks = 0
    for result in results:
        async for res in result:
            for _output in res.outputs:
                chunks += 1
    return chunks


async def count_engine(replay: Replay, case: dict[str, Any], ops: int, warmup: int) -> dict:
    """The engine double's stream alone, ``ops`` times, counted as one part."""
    script = _script(case)
    for _ in range(warmup):
        await _iterate([build_result(script, replay.errors)])
    results = [build_result(script, replay.errors) for _ in range(ops)]
    name = label("engine", case)
    with quiet_gc(), callgrind.counting(name):
        chunks = await _iterate(results)
    check_chunks(script, chunks, ops)
    return {"label": name, "what": "engine", "case": case, "requests": ops, "chunks": chunks}


def chunk_range(history: list[int], lo: int, hi: int) -> tuple[int, int]:
    """The chunk indices ``[a, b)`` from the first chunk whose history reaches ``lo`` to the
    first that reaches ``hi``; an error unless it is a non-empty range after chunk 0."""
    a = next((i for i, h in enumerate(history) if h >= lo), len(history))
    b = next((i for i, h in enumerate(history) if h >= hi), len(history))
    if not 0 < a < b < len(history):
        raise ValueError(f"window [{lo}, {hi}) is not inside a {len(history)}-chunk stream")
    return a, b


async def count_windows(
    replay: Replay, case: dict[str, Any], windows: list[tuple[int, int]], warmup: int
) -> list[dict]:
    """One long request; each window's chunks counted as one part."""
    script = _script(case)
    warm = _script({**case, "tokens": WARM_TOKENS})
    for _ in range(warmup):
        await _drain(replay, warm)
    history = chunk_history(script)
    spans = [(w, *chunk_range(history, *w)) for w in sorted(windows)]
    for (_, _, b), (_, a, _) in itertools.pairwise(spans):
        if a < b:
            raise ValueError(f"windows {windows} overlap")
    starts = {a: (w, b) for w, a, b in spans}
    handler, _engine, request, context = replay.prepare(script, "windows")
    received = 0
    with quiet_gc(), contextlib.ExitStack() as stack:
        open_until: int | None = None
        async for _ in handler.generate(request, context):
            received += 1
            if received == open_until:  # the window's last chunk is in
                stack.close()
                open_until = None
            if received in starts:  # the next chunk is the window's first
                window, open_until = starts[received]
                stack.enter_context(callgrind.counting(label("windows", case, window)))
    check_chunks(script, received)
    return [
        {
            "label": label("windows", case, w),
            "what": "windows",
            "case": case,
            "history": list(w),
            "chunk_range": [a, b],
            "requests": 0,
            "chunks": b - a,
        }
        for w, a, b in spans
    ]


async def run_counts(replay: Replay, job: dict[str, Any]) -> list[dict]:
    """Every measurement of ``job``, in order; what each counted part covers."""
    warmup = int(job.get("warmup", 1))
    parts: list[dict] = []
    for m in job["measure"]:
        what, case = m["what"], m["case"]
        if what == "request":
            parts.append(await count_requests(replay, case, int(m.get("ops", 1)), warmup))
        elif what == "engine":
            parts.append(await count_engine(replay, case, int(m.get("ops", 1)), warmup))
        elif what == "windows":
            windows = [(int(lo), int(hi)) for lo, hi in m["windows"]]
            parts += await count_windows(replay, case, windows, warmup)
        else:
            raise SetupError(f"unknown measurement {what!r} (expected one of {WHATS})")
    return parts


def _setup(job: dict[str, Any]) -> Replay:
    if job.get("require_valgrind", True) and not callgrind.running_on_valgrind():
        raise SetupError("not running under valgrind: the counts would all be missing")
    replay = Replay(Path(job["standin"]))
    gc.collect()
    gc.freeze()  # the imports are long-lived: keep them out of every collection
    return replay


def _run(replay: Replay, job: dict[str, Any], result: Path) -> None:
    """Count ``job`` in this (forked) process, write what its parts cover; never returns."""
    status = 1
    try:
        parts = asyncio.run(run_counts(replay, job))
        write_atomic(result, json.dumps({"pid": os.getpid(), "parts": parts}))
        status = 0
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(status)


def forked_runs(replay: Replay, job: dict[str, Any], folder: Path) -> list[dict[str, Any]]:
    """``job`` counted ``runs`` times, one after the other, each in a copy of this process.

    Every copy is forked before any of them starts, with nothing kept between the forks,
    so all start counting from the same memory; each waits on its own pipe for its turn.
    """
    results = [folder / f"run-{i}.json" for i in range(int(job.get("runs", 1)))]
    gates = [os.pipe() for _ in results]
    turns = [(result, gate) for result, (gate, _) in zip(results, gates, strict=True)]
    for result, gate in turns:
        if os.fork() == 0:
            os.read(gate, 1)
            _run(replay, job, result)
    for result, (_, go) in zip(results, gates, strict=True):
        os.write(go, b"1")
        pid, status = os.wait()
        if status != 0 or not result.is_file():
            raise RuntimeError(f"counted run {pid} ended with wait status {status}, no result")
    return [json.loads(result.read_text()) for result in results]


def _counts(job: dict[str, Any], folder: Path) -> dict[str, Any]:
    replay = _setup(job)
    return {**hello(replay, job.get("tree")), "runs": forked_runs(replay, job, folder)}


def main(argv: list[str]) -> int:
    """``JOB.json RESULT.json``: count the job's measurements, write what they cover."""
    if len(argv) != 2:
        print("usage: python -m dynpatch.replay.counted JOB.json RESULT.json", file=sys.stderr)
        return 2
    job = json.loads(Path(argv[0]).read_text())
    result = Path(argv[1])
    return answer(result, lambda: _counts(job, result.parent))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
