"""What a benchmark worker measures: timed whole-request replays and tracemalloc peaks
per sampled chunk; and each chunk's history. Standard library plus the replay package only.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from typing import Any

from dynpatch.replay.handler import Replay
from dynpatch.replay.script import Script


def chunk_history(script: Script) -> list[int]:
    """Per expected chunk, the cumulative token count of its choice (what a copy copies)."""
    totals = [0] * script.n
    history: list[int] = []
    for step in script.steps:
        if step.raise_kind or step.no_outputs:
            continue
        for d in step.deltas:
            totals[d.index] += len(d.tokens) - d.trim
        history.extend(totals)
    return history


async def alloc_op(replay: Replay, script: Script, samples: int) -> list[list[int]]:
    """tracemalloc peak bytes while producing sampled chunks: ``[[history, peak], ...]``."""
    history = chunk_history(script)
    step = max(1, (len(history) - 1) // max(samples, 1))
    chosen = set(range(1, len(history), step))  # chunk 0 also carries request setup
    handler, _engine, request, context = replay.prepare(script, "alloc")
    agen = handler.generate(request, context)
    out: list[list[int]] = []
    i = 0
    gc.collect()
    gc.disable()
    try:
        while True:
            sampled = i in chosen
            if sampled:
                tracemalloc.start()
            try:
                await agen.__anext__()
            except StopAsyncIteration:
                if sampled:
                    tracemalloc.stop()
                break
            if sampled:
                _current, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
                out.append([history[i], peak])
            i += 1
    finally:
        gc.enable()
    _check_count(script, i, history)
    return out


def _check_count(script: Script, count: int, history: list[int]) -> None:
    if count != len(history):
        raise RuntimeError(f"{script.name}: {count} chunks, expected {len(history)}")


async def time_case(replay: Replay, script: Script, ops: int) -> dict[str, Any]:
    """``ops`` timed replays of ``script``, a fresh handler each: handler CPU ns per op."""
    history = chunk_history(script)
    ops_ns: list[int] = []
    for _ in range(ops):
        handler, _engine, request, context = replay.prepare(script, "bench")
        count = 0
        gc.collect()
        gc.disable()
        try:
            start = time.thread_time_ns()
            async for _ in handler.generate(request, context):
                count += 1
            ops_ns.append(time.thread_time_ns() - start)
        finally:
            gc.enable()
        _check_count(script, count, history)
    return {"script": script.name, "chunks": len(history), "ops_ns": ops_ns}
