"""The replay child, ``python -m dynpatch.replay.child JOB.json RESULT.json``: the job on dynamo
from the tree first on its ``PYTHONPATH``. Standard library plus the replay package."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from dynpatch.io.atomic import write_atomic
from dynpatch.replay import counted, handler, reads, scenarios
from dynpatch.replay.handler import EXIT_CODE_SETUP, Replay, SetupError, hello, replay_records
from dynpatch.replay.script import from_json


async def run_verify(replay: Replay, job: dict[str, Any]) -> list[dict[str, Any]]:
    """Every named scenario and script of ``job``, in order: its name and its records."""
    scripts = scenarios.named(job.get("scenarios")) + [from_json(s) for s in job.get("scripts", [])]
    return [
        {"name": s.name, "records": await replay_records(replay, s, float(job.get("timeout", 120)))}
        for s in scripts
    ]


# Imported once before the copies fork: about 70 s of a 75 s start-up under valgrind.
PRELOAD = ("torch", "transformers")


def fork_trees(job: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Job ``trees``: the rest of ``job`` per tree in a forked copy, ``jobs`` at a time."""
    for name in PRELOAD:
        with contextlib.suppress(ImportError):  # then the tree's own import says why
            importlib.import_module(name)
    shared = {k: v for k, v in job.items() if k not in ("trees", "jobs")}
    pids: dict[int, str] = {}
    ended: list[str] = []  # trees whose copy died without its result
    for label, spec in job["trees"].items():
        (folder / label).mkdir(parents=True, exist_ok=True)
        while len(pids) >= max(1, int(job.get("jobs", 1))):
            ended += _reap(pids, job["trees"], folder)
        if (pid := os.fork()) == 0:
            handler.end_copy(_copy, {**shared, **spec, "tree": label}, folder / label)
        pids[pid] = label
    while pids:
        ended += _reap(pids, job["trees"], folder)
    if ended:
        raise RuntimeError("; ".join(ended))
    results = {t: json.loads((folder / t / "result.json").read_text()) for t in job["trees"]}
    for label, result in results.items():
        if not result.get("ok"):
            raise SetupError(f"{label}: {result.get('error')}")
    return results


def _copy(job: dict[str, Any], folder: Path) -> None:
    """In a forked copy (:func:`end_copy`): ``job`` run on its tree, output to its log."""
    with open(job["log"], "w") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    sys.path.insert(0, job["src"])
    importlib.invalidate_caches()
    answer(job, folder, folder / "result.json")


def _reap(pids: dict[int, str], trees: dict[str, Any], folder: Path) -> list[str]:
    """Wait for one tree's copy: what went wrong when it ended without its result."""
    pid, status = os.wait()
    label = pids.pop(pid)
    if status == 0 and (folder / label / "result.json").is_file():
        return []
    log = trees[label]["log"]
    return [f"the {label} tree's copy ended with wait status {status}, no result (log {log})"]


def work(job: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The setup report and what ``job`` found (``folder``: where forked runs write)."""
    if "trees" in job:
        return {"ok": True, "trees": fork_trees(job, folder)}
    if "counted" in job:
        return counted.counted(job, folder)
    replay = Replay(Path(job["standin"]))
    if "alloc" in job:
        found = asyncio.run(counted.timed(replay, job))
    elif "watch" in job:
        found = {"scenarios": asyncio.run(reads.judge(replay, job))}
    else:
        found = {"scenarios": asyncio.run(run_verify(replay, job))}
    return {**hello(replay, job.get("tree")), **found}


def answer(job: dict[str, Any], folder: Path, result: Path) -> int:
    """Write what :func:`work` found (or why it cannot set up) to ``result``: the exit status."""
    try:
        found, status = work(job, folder), 0
    except SetupError as exc:
        found, status = {"ok": False, "error": str(exc)}, EXIT_CODE_SETUP
    write_atomic(result, json.dumps(found))
    return status


def main(argv: list[str]) -> int:
    """Run the job ``argv[0]``, its result (or why it cannot set up) to ``argv[1]``."""
    if len(argv) != 2:
        print("usage: python -m dynpatch.replay.child JOB.json RESULT.json", file=sys.stderr)
        return 2
    job, result = json.loads(Path(argv[0]).read_text()), Path(argv[1])
    return answer(job, result.parent, result)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
