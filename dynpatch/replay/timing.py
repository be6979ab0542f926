"""What a benchmark worker measures: timed whole-request replays, per-chunk stamps and
tracemalloc peaks per sampled chunk. Standard library plus the replay package only.
"""

from __future__ import annotations

import gc
import statistics
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


async def timed_op(replay: Replay, script: Script, stamps: list[int] | None) -> tuple[int, int]:
    """One whole request replay; handler CPU time in ns and the number of chunks."""
    handler, _engine, request, context = replay.prepare(script, "bench")
    gc.collect()
    gc.disable()
    try:
        count = 0
        if stamps is None:
            start = time.thread_time_ns()
            async for _ in handler.generate(request, context):
                count += 1
            cpu = time.thread_time_ns() - start
        else:
            # perf_counter_ns per chunk: ~0.1 us a call; thread_time_ns is ~0.9 us here.
            start = time.thread_time_ns()
            last = time.perf_counter_ns()
            async for _ in handler.generate(request, context):
                now = time.perf_counter_ns()
                stamps.append(now - last)
                last = now
            cpu = time.thread_time_ns() - start
            count = len(stamps)
    finally:
        gc.enable()
    return cpu, count


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


def bins(history: list[int], stamps: list[int]) -> list[dict[str, Any]]:
    """Median per-chunk time in power-of-two history bins [2^j, 2^(j+1))."""
    groups: dict[int, list[int]] = {}
    for h, ns in zip(history, stamps, strict=True):
        groups.setdefault(max(h, 1).bit_length() - 1, []).append(ns)
    return [
        {
            "lo": 1 << j,
            "hi": 1 << (j + 1),
            "count": len(v),
            "median_ns": statistics.median(v),
        }
        for j, v in sorted(groups.items())
    ]


async def time_case(replay: Replay, script: Script, ops: int, stamps: bool) -> dict[str, Any]:
    """``ops`` timed replays of ``script``: CPU ns per op, and per-chunk stamps if asked."""
    history = chunk_history(script)
    ops_ns: list[int] = []
    per_op: list[float] = []
    pooled: list[int] = []
    for _ in range(ops):
        op_stamps: list[int] | None = [] if stamps else None
        cpu, count = await timed_op(replay, script, op_stamps)
        _check_count(script, count, history)
        ops_ns.append(cpu)
        if op_stamps is not None:
            # Steady-state chunks only: the first one also carries the request's setup,
            # the final result's ones the usage report.
            steady = op_stamps[1 : len(op_stamps) - script.n]
            per_op.append(statistics.median(steady))
            pooled.extend(steady)
    out: dict[str, Any] = {"script": script.name, "chunks": len(history), "ops_ns": ops_ns}
    if pooled:
        out["per_op_chunk_median_ns"] = per_op
        out["chunk_median_ns"] = statistics.median(pooled)
        out["bins"] = bins(history[1 : len(history) - script.n] * ops, pooled)
    return out
