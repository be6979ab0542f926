"""The ``--serve`` transport: a persistent benchmark worker talking JSON lines over pipes.

``python -m dynpatch.replay.child JOB.json --serve``: after its setup report (one line),
the worker reads one command per line on stdin and writes one reply per line: ``time``
(case, ops), ``alloc`` (case, samples), ``quit``. The parent keeps a baseline
and a patched worker alive and alternates their ops, so the two trees are measured side
by side in time while each stays in its own process. Standard library plus the replay
package only.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from dynpatch.replay import scenarios
from dynpatch.replay.handler import EXIT_CODE_SETUP, Replay, SetupError, hello
from dynpatch.replay.script import Script
from dynpatch.replay.timing import alloc_op, time_case


class Cases:
    """Benchmark streams by case, built once per process (building is not timed)."""

    def __init__(self) -> None:
        self._scripts: dict[tuple[int, int, int], Script] = {}

    def get(self, case: dict[str, Any]) -> Script:
        key = (int(case["tokens"]), int(case["choices"]), int(case.get("k", 1)))
        if key not in self._scripts:
            self._scripts[key] = scenarios.stream(key[0], key[1], k=key[2])
        return self._scripts[key]


async def serve(replay: Replay, commands: Iterable[str], reply: TextIO) -> None:
    """Answer ``commands`` (one JSON object a line) on ``reply`` until ``quit`` or their end."""
    cases = Cases()
    for line in commands:
        cmd = json.loads(line)
        if cmd["cmd"] == "quit":
            return
        script = cases.get(cmd["case"])
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
