"""The bench stage's run: prepare both trees, measure the reference case
and the sweep in worker pairs, judge the targets, print and write the report, save the
evidence."""

from __future__ import annotations

import json
import shlex
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dynpatch import console, evidence
from dynpatch.bench import host, measure, report, targets
from dynpatch.bench.instructions import stage as instructions
from dynpatch.bench.options import Options
from dynpatch.bench.records import ReferencePair, rounds_to_json
from dynpatch.bench.settings import REFERENCE, Settings
from dynpatch.console import err, out
from dynpatch.errors import ToolkitError
from dynpatch.fetch import pinned
from dynpatch.io import files
from dynpatch.replay import runner
from dynpatch.replay.progress import Steps
from dynpatch.replay.stats import PairedChange

OUT = evidence.OUT / "bench"


TIMING_ONLY = ("quick", "pairs", "ops", "warmup", "rounds", "strict")


def run(args: Options) -> int:
    """Measure, judge, report; exit status 1 only with ``--strict`` and a target unmet.
    With ``--instructions``: count instructions instead (:mod:`dynpatch.bench.instructions`),
    gated."""
    if args.instructions:
        given = [f"--{n}" for n in TIMING_ONLY if _given(getattr(args, n))]
        if given:
            raise ToolkitError(
                f"--instructions takes no {', '.join(given)} (they set the timed run)"
            )
        return instructions.run(args)
    if args.mutant or args.record:
        raise ToolkitError(f"--{'mutant' if args.mutant else 'record'} needs --instructions")
    settings = Settings.of(args)
    out_dir: Path = args.out or (OUT / "quick" if settings.quick else OUT)
    start = time.perf_counter()
    _pin, checkout = pinned(args)
    from dynpatch.patch.trees import prepare_trees

    with err.status("preparing the baseline and patched trees ..."):
        trees = prepare_trees(checkout, args.patches)
    tree_of = {
        "baseline": runner.Tree("baseline", trees.src(trees.baseline)),
        "patched": runner.Tree("patched", trees.src(trees.patched)),
    }
    before = host.Snapshot.now()
    with Steps(err, settings.pairs + settings.rounds) as steps:
        workers = measure.WorkerPairs(tree_of, out_dir / "logs", args.python, steps)
        pairs = measure.run_reference(settings, workers)
        rounds = measure.run_sweep(settings, workers)
    hello = pairs[0].hello
    runner.check_trees(hello["baseline"], hello["patched"])
    environment = host.environment(hello["baseline"], host.Load(before, host.Snapshot.now()))

    reference = targets.reference_change(pairs)
    sweep, alloc = targets.sweep_rows(rounds), targets.alloc_summary(rounds)
    within = targets.within_stream(rounds)
    verdicts = targets.evaluate(reference, sweep, alloc, within)
    met = sum(t.met for t in verdicts)
    lines = [
        *(t.line() for t in verdicts),
        f"targets met: {met} of {len(verdicts)}",
        targets.within_stream_line(within),
        host.note(environment),
        settings.note(),
    ]

    plot = out_dir / "per_chunk.png"
    report.write_plot(rounds, plot)
    md = report.markdown(reference, sweep, alloc, lines, plot)
    data = {
        "settings": asdict(settings),
        "environment": environment,
        "trees": {"base": trees.base, "series_sha256": trees.series_sha256},
        "reference": _reference_json(reference, pairs),
        "sweep": {"rows": [asdict(r) for r in sweep], "rounds": rounds_to_json(rounds)},
        "alloc": alloc.to_json(),
        "within_stream_pct": within,
        "targets": [asdict(t) for t in verdicts],
        "seconds": round(time.perf_counter() - start, 1),
    }
    files.write_atomic(out_dir / "bench.json", json.dumps(data, indent=1) + "\n")
    files.write_atomic(out_dir / "bench.md", md)

    out.print(report.reference_table(reference))
    out.print(report.reference_line(reference), markup=False)
    out.print(report.sweep_table(sweep, alloc))
    for line in lines:
        out.print(line, markup=False)
    written = ", ".join(
        console.rel(p) for p in (out_dir / "bench.json", out_dir / "bench.md", plot)
    )
    out.print(f"wrote {written} in {time.perf_counter() - start:.0f} s", markup=False)
    all_met = met == len(verdicts)
    saved = evidence.save_bench_run(
        "quick" if settings.quick else "full",
        args.patches,
        base=trees.base,
        series_sha256=trees.series_sha256,
        command=_command(args),
        verdict="pass" if all_met else "fail",
        summary_md=md,
        # The evidence keeps the sweep's table, not its raw rounds.
        details={k: v for k, v in data.items() if k != "sweep"} | {"sweep": data["sweep"]["rows"]},
        out=args.evidence,
    )
    out.print(f"evidence: {console.rel(saved)}", markup=False)
    return 1 if args.strict and not all_met else 0


def _given(value: object) -> bool:
    """An option set on the command line (a flag that is on, a count, even 0)."""
    return value is not None and value is not False


def _reference_json(reference: PairedChange, pairs: list[ReferencePair]) -> dict[str, Any]:
    return {
        "case": REFERENCE.to_json(),
        "summary": asdict(reference),
        "pairs": [p.to_json() for p in pairs],
    }


def _command(args: Options) -> str:
    """The command line that reruns this bench (for the evidence record)."""
    parts = ["nox", "-s", "bench"]
    extra = []
    if args.quick:
        extra.append("--quick")
    for name in ("pairs", "ops", "warmup", "rounds"):
        if getattr(args, name) is not None:
            extra += [f"--{name}", str(getattr(args, name))]
    if args.strict:
        extra.append("--strict")
    return shlex.join(parts + (["--", *extra] if extra else []))
