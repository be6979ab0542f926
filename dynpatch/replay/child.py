"""Child process of the replay, one per tree; runs in the replay environment.

* ``python -m dynpatch.replay.child JOB.json RESULT.json`` - verify: every script once,
  the result written to a file (:mod:`~dynpatch.replay.job`).
* ``python -m dynpatch.replay.child JOB.json --serve`` - benchmark worker: JSON commands
  on stdin, one JSON reply per line (:mod:`~dynpatch.replay.serve`).
* a job with ``withhold``: a release's own fix judged, the history each chunk reads
  (:mod:`~dynpatch.replay.reads`).

The instruction counts have their own entry, run under callgrind:
``python -m dynpatch.replay.counted JOB.json RESULT.json`` (:mod:`~dynpatch.replay.counted`).

``PYTHONPATH`` holds one tree's ``components/src`` and the ``tensorrt_llm`` stand-in. The
child imports dynamo's real ``AggregatedHandler`` (:mod:`~dynpatch.replay.handler`),
reports where its modules came from, and drives ``AggregatedHandler.generate`` with the
engine double.

Standard library plus the replay package only; no toolkit dependencies. A child that
dies before answering (for instance through an ``os._exit`` this harness did not
intercept) is reported by the parent as a failure, never read as an empty result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from dynpatch.replay import job, reads, serve


def main(argv: list[str]) -> int:
    """``JOB.json RESULT.json`` runs a verify job; ``JOB.json --serve`` a bench worker."""
    if len(argv) != 2:
        print(
            "usage: python -m dynpatch.replay.child JOB.json (RESULT.json | --serve)",
            file=sys.stderr,
        )
        return 2
    spec = json.loads(Path(argv[0]).read_text())
    if argv[1] == "--serve":
        return serve.main(spec)
    if "withhold" in spec:
        return reads.main(spec, Path(argv[1]))
    return job.main(spec, Path(argv[1]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
