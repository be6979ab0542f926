"""Child process of the replay, one per tree; runs in the replay environment.

* ``python -m dynpatch.replay.child JOB.json RESULT.json``: verify; every script of the
  job replayed once, each record serialised canonically as it is observed, the result
  written atomically (none at all when the child dies first, which the parent reports).
* the same with ``withhold`` in the job: a release's own fix judged by the history each
  chunk reads (:mod:`~dynpatch.replay.reads`).
* ``python -m dynpatch.replay.child JOB.json --serve``: the bench worker
  (:mod:`~dynpatch.replay.serve`).

The instruction counts have their own entry, run under callgrind
(:mod:`~dynpatch.replay.counted`). ``PYTHONPATH`` holds one tree's ``components/src`` and
the ``tensorrt_llm`` stand-in; the child imports dynamo's real ``AggregatedHandler``
(:mod:`~dynpatch.replay.handler`), reports where its modules came from and drives
``AggregatedHandler.generate`` with the engine double. Standard library plus the replay
package only.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dynpatch.io.atomic import write_atomic
from dynpatch.replay import scenarios
from dynpatch.replay.handler import EXIT_CODE_SETUP, Replay, SetupError, hello, replay_records
from dynpatch.replay.script import from_json


async def run_verify(replay: Replay, job: dict[str, Any]) -> list[dict[str, Any]]:
    """Every named scenario and script of ``job``, in order: its name and its records."""
    scripts = scenarios.named(job.get("scenarios"))
    scripts += [from_json(s) for s in job.get("scripts", [])]
    out = []
    for script in scripts:
        records = await replay_records(replay, script, float(job.get("timeout", 120)))
        out.append({"name": script.name, "records": records})
    return out


async def _verify(job: dict[str, Any]) -> dict[str, Any]:
    replay = Replay(Path(job["standin"]))
    return {**hello(replay, job.get("tree")), "scenarios": await run_verify(replay, job)}


def answer(result: Path, work: Callable[[], dict[str, Any]]) -> int:
    """Run ``work`` and write what it returns to ``result`` (or, when the replay cannot be
    set up, why); the exit status of the child."""
    try:
        found = work()
    except SetupError as exc:
        write_atomic(result, json.dumps({"ok": False, "error": str(exc)}))
        return EXIT_CODE_SETUP
    write_atomic(result, json.dumps(found))
    return 0


def main(argv: list[str]) -> int:
    """``JOB.json RESULT.json`` runs a verify (or judging) job; ``JOB.json --serve`` a
    bench worker."""
    from dynpatch.replay import reads, serve  # they build on this module

    if len(argv) != 2:
        print(
            "usage: python -m dynpatch.replay.child JOB.json (RESULT.json | --serve)",
            file=sys.stderr,
        )
        return 2
    job = json.loads(Path(argv[0]).read_text())
    if argv[1] == "--serve":
        return serve.main(job)
    if "withhold" in job:
        return answer(Path(argv[1]), lambda: asyncio.run(reads.judge(job)))
    return answer(Path(argv[1]), lambda: asyncio.run(_verify(job)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
