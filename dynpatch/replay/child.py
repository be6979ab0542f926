"""The replay child, one per tree: ``python -m dynpatch.replay.child JOB.json RESULT.json``.

It imports dynamo's real handler from the tree first on its ``PYTHONPATH``
(:mod:`~.handler`), runs the job and writes its setup report with what the job found,
atomically (nothing when the child dies first). The job's keys say what it does:
``counted`` (under callgrind) or ``alloc`` (natively) the bench's measurements
(:mod:`~.counted`), ``withhold`` a release's own fix judged (:mod:`~.reads`), else
verify's replays. Standard library plus the replay package only.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from dynpatch.io.atomic import write_atomic
from dynpatch.replay import counted, reads, scenarios
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


def work(job: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The setup report and what ``job`` found (``folder``: where forked runs write)."""
    if "counted" in job:
        return counted.counted(job, folder)
    replay = Replay(Path(job["standin"]))
    if "alloc" in job:
        found = asyncio.run(counted.timed(replay, job))
    elif "withhold" in job:
        found = {"scenarios": asyncio.run(reads.judge(replay, job))}
    else:
        found = {"scenarios": asyncio.run(run_verify(replay, job))}
    return {**hello(replay, job.get("tree")), **found}


def main(argv: list[str]) -> int:
    """Run the job ``argv[0]`` and write its result to ``argv[1]`` (or, when the replay
    cannot be set up, why); the exit status of the child."""
    if len(argv) != 2:
        print("usage: python -m dynpatch.replay.child JOB.json RESULT.json", file=sys.stderr)
        return 2
    job, result = json.loads(Path(argv[0]).read_text()), Path(argv[1])
    try:
        found = work(job, result.parent)
    except SetupError as exc:
        write_atomic(result, json.dumps({"ok": False, "error": str(exc)}))
        return EXIT_CODE_SETUP
    write_atomic(result, json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
