"""``bench``: count both trees' instructions, judge the gates, time the informative A/B,
report, save.

Prepare the trees (the alternative and, with ``--mutant``, the patched tree with the
history copy planted back), run the reviewer's script (``docs/bench/per_chunk_cost.py``)
on the patched tree for the PR, then the counted children two at a time plus one native
worker per tree for the allocation profile, then the time-based A/B
(:mod:`~dynpatch.bench.ab`), then judge the gates and the two-run agreement. The run's
folder (``out/bench/``: JSON, Markdown, PNG, its CSV, the children's logs and callgrind
dumps) is replaced whole at the end. Exit status 0 when every gate is met (and, with
``--mutant``, the mutant misses one), else 1; the A/B never changes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shlex
import time
from functools import partial
from pathlib import Path
from typing import Any

from dynpatch import console, evidence, series, variants
from dynpatch.bench import ab, gates, host, plan, recorded, report, valgrind
from dynpatch.bench.counts import TreeCounts
from dynpatch.bench.options import BenchOptions
from dynpatch.bench.plan import ALLOC_SAMPLES
from dynpatch.bench.report import table
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.evidence import Record, StageResult
from dynpatch.fetch import pinned
from dynpatch.io import files, proc
from dynpatch.replay import callgrind, runner
from dynpatch.trees import prepare_trees
from dynpatch.workspace import Workspace

WRITTEN = ("bench.json", "bench.md", "instructions.png")


def rerun(python: str, tree: Path) -> dict[str, Any]:
    """:data:`evidence.RERUN` run as a reviewer runs it, at the top of ``tree`` with no
    argument (it loads the tree's helper by its path): its output, for the PR description."""
    script = evidence.RERUN
    done = proc.run([python, script], doing=script.name, timeout=600, cwd=tree)
    if done.returncode != 0:
        raise ToolkitError(f"{script.name} failed on {console.rel(tree)}: {done.last_line()}")
    return {
        "script": console.rel(script),
        "sha256": hashlib.sha256(script.read_bytes()).hexdigest(),
        "output": done.stdout,
        "cpu": f"{host.cpu_model()} x{os.cpu_count()}",
    }


def _how(valgrind_version: str, hello: dict[str, Any]) -> dict[str, Any]:
    env = hello.get("environment") or {}
    return {
        "valgrind": valgrind_version,
        "tool": valgrind.TOOL,
        "options": list(valgrind.OPTIONS),
        "python": env.get("python"),
        "implementation": env.get("implementation"),
        "machine": platform.machine(),
        "cpu": f"{host.cpu_model()} x{os.cpu_count()}",
        "environment": plan.ENV,
        "counted": plan.COUNTED,
        "warmup_requests": plan.WARMUP,
        "counted_requests": plan.OPS,
        "windows": [list(w) for w in plan.WINDOWS],
        "allocation": f"tracemalloc peak of {ALLOC_SAMPLES} sampled chunks per stream, natively",
    }


def how_line(how: dict[str, Any]) -> str:
    return (
        f"how: {how['valgrind']} {how['tool']} ({' '.join(how['options'][1:])}; "
        f"counting switched on around the replayed requests only), {how['implementation']} "
        f"{how['python']} on {how['machine']} ({how['cpu']}), "
        f"{' '.join(f'{k}={v}' for k, v in how['environment'].items())}, "
        f"address-space randomisation {how.get('address_randomisation', 'on')}; "
        f"{how['counted_requests']} counted request per case after {how['warmup_requests']} "
        "warm-up"
    )


def run(args: BenchOptions, ws: Workspace) -> StageResult:
    """Count, judge, report; ok when the gates say what they must."""
    start = time.perf_counter()
    valgrind_path = valgrind.find()
    if not callgrind.supported():
        raise ToolkitError(
            f"instruction counts need x86-64 Linux (callgrind client requests), "
            f"not {platform.system()} {platform.machine()}"
        )
    version = valgrind.version(valgrind_path)
    out_dir: Path = args.out or ws.out / "bench"
    _pin, checkout = pinned(args, ws)
    with err.status("preparing the baseline and patched trees ..."):
        trees = prepare_trees(checkout, ws.patches, ws.trees)
    tree_of = {
        "baseline": runner.Tree("baseline", trees.src(trees.baseline)),
        "patched": runner.Tree("patched", trees.src(trees.patched)),
    }
    with err.status(f"running {evidence.RERUN.name} on the patched tree ..."):
        script = rerun(args.python, trees.patched)
    with contextlib.ExitStack() as stack:
        stack.enter_context(files.lock(out_dir.parent / f".{out_dir.name}.lock", f"{out_dir}"))
        scratch = stack.enter_context(files.owned_dir(out_dir.parent, ".variants-"))
        alternative = variants.build(
            tree_of["baseline"].src, scratch / "alternative", variants.drop_copy
        )
        tree_of["alternative"] = runner.Tree("alternative", alternative)
        if args.mutant:
            mutant = variants.build(tree_of["patched"].src, scratch / "mutant", variants.plant)
            tree_of["mutant"] = runner.Tree("mutant", mutant)
        with files.staged_dir(out_dir) as stage:
            result = _measure(args, tree_of, stage, valgrind_path, version)
            data, md, lines, passed = _judge(ws, result, trees, version, start)
            data["trees"]["release"] = checkout.release.version  # what was measured
            files.write_atomic(stage / "bench.json", json.dumps(data, indent=1) + "\n")
            files.write_atomic(stage / "bench.md", md)
            points = report.plot_points(result["counts"])
            report.write_plot(points, stage / "instructions.png", stage / "per_chunk.csv")

    counts: dict[str, TreeCounts] = result["counts"]
    shown = StageResult(passed)
    shown.say(
        table(f"counted: {report.REQUEST_TITLE}", *report.request_rows(counts)),
        table(report.CHUNK_TITLE, *report.chunk_rows(counts)),
        *lines,
        f"{script['script']} on the patched tree (saved for the PR):",
        script["output"].rstrip(),
    )
    written = ", ".join(console.rel(out_dir / n) for n in WRITTEN)
    shown.say(f"wrote {written} in {time.perf_counter() - start:.0f} s")
    shown.record = Record(
        "bench",
        base=trees.base,
        series_sha256=trees.series_sha256,
        command=_command(args),
        verdict="pass" if passed else "fail",
        summary_md=md,
        details={**{k: v for k, v in data.items() if k != "counts"}, "rerun": script},
    )
    if args.record:
        if not passed:
            shown.say("not recorded in docs/bench/: the gates did not pass")
        else:
            path = _record(data, counts, ws)
            shown.say(f"reference: {console.rel(path)} and its plot")
    return shown


def _measure(
    args: BenchOptions,
    tree_of: dict[str, runner.Tree],
    stage: Path,
    valgrind_path: str,
    version: str,
) -> dict[str, Any]:
    children = stage / "children"
    layout = valgrind.fixed_layout()
    randomised = "off (setarch -R)" if layout else "on (setarch -R not allowed here)"
    how = {"valgrind_path": valgrind_path, "python": args.python, "prefix": layout}
    # The baseline and the patched tree are counted twice, the variants once.
    tasks: list[tuple[str, Any]] = []
    for label, tree in tree_of.items():
        runs = 2 if label in ("baseline", "patched") else 1
        name = f"{label} counts" + (", twice" if runs == 2 else "")
        count = partial(plan.count, tree, plan.main_job(), children / label, runs=runs, **how)
        tasks.append((name, count))
    tasks.append(("allocation", partial(plan.alloc_slopes, tree_of, stage / "logs", args.python)))
    err.print(
        f"counting with {version} {valgrind.TOOL}: {len(tree_of)} trees, "
        f"{plan.JOBS} children at a time (a few minutes)",
        markup=False,
    )
    finished: dict[str, float] = {}

    def step_done(name: str, seconds: float) -> None:
        finished[name] = round(seconds, 1)
        err.print(f"  {name}: done (+{seconds:.0f} s)", markup=False)

    done = plan.run_all(tasks, step_done)
    counted = {name.split()[0]: c for name, c in done.items() if name != "allocation"}
    runner.check_trees(counted["baseline"].hello, counted["patched"].hello)
    with err.status(f"timing the A/B (informative): {ab.PAIRS} interleaved op pairs ..."):
        timed = ab.measure(tree_of, stage / "logs", args.python)
    return {
        "ab": timed,
        "counts": {label: c.counts for label, c in counted.items()},
        "again": {label: counted[label].runs[1] for label in ("baseline", "patched")},
        "hello": counted["baseline"].hello,
        "alloc": done["allocation"],
        "finished_after_s": finished,
        "layout": {"address_randomisation": randomised},
    }


def _judge(
    ws: Workspace, result: dict[str, Any], trees: Any, version: str, start: float
) -> tuple[dict[str, Any], str, list[str], bool]:
    counts: dict[str, TreeCounts] = result["counts"]
    alloc = result["alloc"]["slope_bytes_per_token"]
    verdicts = gates.evaluate(counts["baseline"], counts["patched"], alloc)
    agree = gates.agreement({t: counts[t] for t in ("baseline", "patched")}, result["again"])
    verdicts.append(agree)
    met = sum(g.met for g in verdicts)
    how = {**_how(version, result["hello"]), **result["layout"]}
    lines = [
        report.slope_line(counts),
        *(g.line() for g in verdicts),
        f"gates met: {met} of {len(verdicts)}",
    ]
    passed = met == len(verdicts)
    alternative = gates.evaluate(
        counts["baseline"], counts["alternative"], alloc, name="alternative"
    )
    lines.append(
        f"alternative (informative): the baseline with `{variants.ALTERNATIVE}`, no keyword"
    )
    lines += [
        f"  {g.label}: {g.detail} -> {'met' if g.met else 'missed'} (not gated)"
        for g in alternative
    ]
    mutant_gates: list[gates.Gate] = []
    if "mutant" in counts:
        mutant_gates = gates.evaluate(counts["baseline"], counts["mutant"], alloc, name="mutant")
        missed = [g.label.split(":")[0] for g in mutant_gates if not g.met]
        lines.append(f"mutant: the patched tree with `{variants.COPY}` planted back")
        lines += [f"  {g.line()}" for g in mutant_gates]
        if missed:
            lines.append(
                f"mutant: the gates catch the planted history copy ({', '.join(missed)} missed)"
            )
        else:
            lines.append("mutant: every gate met: the gates do NOT catch the planted history copy")
            passed = False
    lines += [result["ab"].line(), how_line(how)]
    data = {
        "what": plan.COUNTED,
        "how": how,
        "trees": {
            "base": trees.base,
            "series_sha256": trees.series_sha256,
            "code_sha256": series.code_digest(ws.patches),
            "mutant": "mutant" in counts,
            "alternative": variants.ALTERNATIVE,
        },
        **report.figures(counts),
        "agreement": {
            t: [
                counts[t].request(plan.REFERENCE).per_request,
                result["again"][t].request(plan.REFERENCE).per_request,
            ]
            for t in ("baseline", "patched")
        },
        "alloc": result["alloc"],
        "gates": [g.__dict__ for g in verdicts],
        "mutant_gates": [g.__dict__ for g in mutant_gates],
        "alternative_gates": [g.__dict__ for g in alternative],
        "ab": result["ab"].to_json(),
        "verdict": "pass" if passed else "fail",
        "seconds": {"total": round(time.perf_counter() - start, 1)},
        "finished_after_s": result["finished_after_s"],
        "counts": {t: c.to_json() for t, c in counts.items()},
    }
    return data, report.markdown(counts, lines), lines, passed


def _record(data: dict[str, Any], counts: dict[str, TreeCounts], ws: Workspace) -> Path:
    """The reference: baseline and patched only, named by the code they measured."""
    pair = {t: counts[t] for t in ("baseline", "patched")}
    ref = {
        "code_sha256": data["trees"]["code_sha256"],
        "series_sha256": data["trees"]["series_sha256"],
        "base": data["trees"]["base"],
        "release": data["trees"]["release"],
        "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
        "what": data["what"],
        "how": data["how"],
        **report.figures(pair),
        "agreement": data["agreement"],
        "gates": data["gates"],
        "command": "nox -s bench -- --record",
    }
    return recorded.record(ref, report.plot_png(report.plot_points(pair)), ws.root)


def _command(args: BenchOptions) -> str:
    extra = [*(["--mutant"] if args.mutant else []), *(["--record"] if args.record else [])]
    return shlex.join(["nox", "-s", "bench", *(["--", *extra] if extra else [])])
