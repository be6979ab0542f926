"""``python -m dynpatch bench``: each tree's instructions under callgrind, the gates, a timed
A/B (:mod:`dynpatch.services.bench`); with ``--record``, the reference in ``docs/bench/``."""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass

from dynpatch import console
from dynpatch.fetch import FetchOptions, pinned
from dynpatch.results import StageResult
from dynpatch.services.bench import report
from dynpatch.services.bench.stage import PLOT, measure, preflight, reference
from dynpatch.workspace import Workspace


@dataclass(frozen=True, kw_only=True)
class BenchOptions(FetchOptions):
    mutant: bool = False  # also count a mutant, whose gates must miss
    record: bool = False  # write the reference docs/bench/ (when the gates pass)


def run(args: BenchOptions, ws: Workspace) -> StageResult:
    """Count, judge, report; passed when every gate is met (and the mutant misses them)."""
    start = time.perf_counter()
    preflight()  # before the fetch: no valgrind, nothing written
    _pin, checkout = pinned(args, ws)
    out_dir = ws.stage.bench
    m = measure(checkout, ws.patches, ws, out_dir, mutant=args.mutant)
    written = f"{console.rel(out_dir / 'bench.json')}, {console.rel(out_dir / PLOT)}"
    shown = [
        *report.table(m.counts),
        *m.lines,
        f"{ws.rerun.name} on the patched tree (saved for the PR), median (lowest to highest):",
        *m.script.table(),
        *m.script.table("request_ms"),
        f"wrote {written} in {time.perf_counter() - start:.0f} s",
    ]
    then = {}
    if args.record and not m.passed:
        shown.append("not recorded in docs/bench/: the gates did not pass")
    elif args.record:  # written once the record is saved: both or neither
        then[ws.bench_docs] = reference(m.data, m.counts, _command(args))
    return StageResult(m.passed, tuple(shown), (m.record(_command(args)),), then=then)


def _command(args: BenchOptions) -> str:
    extra = [*(["--mutant"] if args.mutant else []), *(["--record"] if args.record else [])]
    return shlex.join(["nox", "-s", "bench", *(["--", *extra] if extra else [])])
