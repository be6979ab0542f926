"""The bench worker: a persistent child talking JSON lines over pipes.

``python -m dynpatch.replay.child JOB.json --serve``: after its setup report (one line),
the worker reads one command per line on stdin and writes one reply per line: ``time``
(case, ops: handler CPU time of whole requests), ``alloc`` (case, samples: tracemalloc
peaks of sampled chunks), ``quit``. The parent keeps a baseline and a patched worker
alive and alternates their ops, so both trees are timed in the same stretch of time while
each stays in its own process. Standard library plus the replay package only.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import time
import tracemalloc
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any, TextIO

from dynpatch.replay import scenarios
from dynpatch.replay.handler import EXIT_CODE_SETUP, Replay, SetupError, hello, quiet_gc
from dynpatch.replay.script import Script, check_chunks, chunk_history


@cache
def case_script(tokens: int, choices: int, k: int = 1) -> Script:
    """A benchmark stream, built once per process (building is not timed)."""
    return scenarios.stream(tokens, choices, k=k)


async def time_case(replay: Replay, script: Script, ops: int) -> dict[str, Any]:
    """``ops`` timed replays of ``script``, a fresh handler each: handler CPU ns per op."""
    ops_ns: list[int] = []
    for _ in range(ops):
        handler, _engine, request, context = replay.prepare(script, "bench")
        count = 0
        with quiet_gc():
            start = time.thread_time_ns()
            async for _ in handler.generate(request, context):
                count += 1
            ops_ns.append(time.thread_time_ns() - start)
        check_chunks(script, count)
    return {"script": script.name, "chunks": len(chunk_history(script)), "ops_ns": ops_ns}


async def alloc_op(replay: Replay, script: Script, samples: int) -> list[list[int]]:
    """tracemalloc peak bytes while producing sampled chunks: ``[[history, peak], ...]``."""
    history = chunk_history(script)
    step = max(1, (len(history) - 1) // max(samples, 1))
    chosen = set(range(1, len(history), step))  # chunk 0 also carries request setup
    handler, _engine, request, context = replay.prepare(script, "alloc")
    agen = handler.generate(request, context)
    out: list[list[int]] = []
    i = 0
    with quiet_gc():
        while True:
            if i in chosen:
                tracemalloc.start()
            try:
                await agen.__anext__()
            except StopAsyncIteration:
                tracemalloc.stop()
                break
            if i in chosen:
                out.append([history[i], tracemalloc.get_traced_memory()[1]])
                tracemalloc.stop()
            i += 1
    check_chunks(script, i)
    return out


async def serve(replay: Replay, commands: Iterable[str], reply: TextIO) -> None:
    """Answer ``commands`` (one JSON object a line) on ``reply`` until ``quit`` or their end."""
    for line in commands:
        cmd = json.loads(line)
        if cmd["cmd"] == "quit":
            return
        case = cmd["case"]
        script = case_script(int(case["tokens"]), int(case["choices"]), int(case.get("k", 1)))
        if cmd["cmd"] == "time":
            result = await time_case(replay, script, int(cmd["ops"]))
        elif cmd["cmd"] == "alloc":
            result = {"alloc": await alloc_op(replay, script, int(cmd["samples"]))}
        else:
            raise SetupError(f"unknown command {cmd['cmd']!r}")
        _send(reply, result)


def _send(reply: TextIO, message: dict[str, Any]) -> None:
    reply.write(json.dumps(message) + "\n")
    reply.flush()


async def _setup_and_serve(job: dict[str, Any], commands: Iterable[str], reply: TextIO) -> None:
    replay = Replay(Path(job["standin"]))
    # Everything imported so far (torch, transformers, dynamo) is long-lived: keep it out
    # of the collections between ops, which would otherwise scan it every time.
    gc.collect()
    gc.freeze()
    _send(reply, hello(replay, job.get("tree")))
    await serve(replay, commands, reply)


def main(job: dict[str, Any]) -> int:
    """Serve ``job``'s tree on stdin/stdout; the exit status of the worker."""
    # Replies go to the original stdout; anything else printed (by dynamo, by its Rust
    # runtime) goes to stderr, the log, so it cannot corrupt the channel.
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    try:
        asyncio.run(_setup_and_serve(job, sys.stdin, reply))
    except SetupError as exc:
        _send(reply, {"ok": False, "error": str(exc)})
        return EXIT_CODE_SETUP
    return 0
