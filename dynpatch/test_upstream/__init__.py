"""Stage test-upstream: dynamo's own tests, baseline vs patched, tier by tier.

``python -m dynpatch test-upstream [--tier cpu|gpu|all]``. For each tier it runs the
same selection on the baseline and the patched tree, prints a table per test file
and one verdict, runs the tests the series carries on two mutants (the mutation proof:
:mod:`.mutants`), naming what each fails on, writes JUnit XML for every run, and saves
the evidence record.
"""

from __future__ import annotations

import shlex
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from dynpatch import console
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.evidence import Record, StageResult
from dynpatch.fetch import Checkout, FetchOptions, pinned
from dynpatch.io import git as gitio
from dynpatch.test_upstream import interpreter, mutants, report, tiers, verdict
from dynpatch.test_upstream.runner import Run, run_pytest
from dynpatch.trees import Trees, prepare_trees
from dynpatch.workspace import Workspace


@dataclass
class TierResult:
    tier: tiers.Tier
    baseline: Run
    patched: Run
    mutant: Run | None = None  # the carried tests on the baseline code
    ignored: Run | None = None  # ... on the helper that accepts new_token_ids and ignores it
    proof: verdict.Proof | None = None
    elsewhere: list[str] = field(default_factory=list)  # carried tests it cannot collect
    carries_tests: bool = True  # False: the series carries none for this release
    problems: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class UpstreamTestOptions(FetchOptions):
    tier: str | None = None  # None: every tier this machine can run
    gpu_python: str | None = None  # the GPU tier's Python (None: ``python``)
    python: str = sys.executable
    out: Path | None = None  # None: out/test-upstream


def run(args: UpstreamTestOptions, ws: Workspace) -> StageResult:
    """The pinned checkout (or the one the fetch options ask for) with ``patches/``."""
    if args.tier is not None and args.tier not in tiers.CHOICES:
        raise ToolkitError(
            f"unknown --tier {args.tier!r}: choose one of {', '.join(tiers.CHOICES)}"
        )
    _pin, checkout = pinned(args, ws)
    return check(args, checkout, ws.patches, ws.trees, args.out or ws.out / "test-upstream")


def check(
    args: UpstreamTestOptions,
    checkout: Checkout,
    patches: Path,
    trees_dir: Path,
    out_dir: Path,
    screen: Console = err,
) -> StageResult:
    """Test ``checkout`` without and with the series in ``patches`` (trees under
    ``trees_dir``, JUnit XML and logs under ``out_dir``); progress on ``screen``."""
    start = time.perf_counter()
    version = checkout.release.version
    gpu_python = args.gpu_python or args.python
    with screen.status("asking the test interpreters what they have ..."):
        gpu_env = interpreter.probe(gpu_python)
        cpu_env = gpu_env if gpu_python == args.python else interpreter.probe(args.python)
    plan = tiers.plan(
        args.tier, tiers.gpu_problem(gpu_env, version), tiers.standin_problem(cpu_env)
    )
    if tiers.CPU in plan.tiers or tiers.STANDIN in plan.tiers:
        problem = interpreter.env_problem(cpu_env, version)
        if problem:
            raise ToolkitError(
                f"{problem}: `nox -s test-upstream` installs what the CPU tier needs"
            )
    with screen.status("preparing the baseline and patched trees ..."):
        trees = prepare_trees(checkout, patches, trees_dir)
    t_trees = time.perf_counter()

    new_tests, changed_tests = series_carried_tests(trees)
    junit_dir = out_dir / "junit"
    for stale in junit_dir.glob("*.xml"):  # the folder holds this run's XML only
        stale.unlink()
    results = []
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".mutants-") as tmp:
        test_files = {p for p, _ in new_tests | changed_tests}
        with screen.status("building the mutants ..."):
            built = {
                "mutant": mutants.build_baseline(trees, test_files, Path(tmp) / "mutant"),
                "ignored": mutants.build_ignored(trees, Path(tmp) / "ignored"),
            }
        for tier in plan.tiers:
            python = gpu_python if tier is tiers.GPU else args.python
            results.append(
                run_tier(tier, trees, built, python, (new_tests, changed_tests), out_dir, screen)
            )
    # A carried test another tier ran is not "needs another tier" here.
    ran = {verdict.function_of(k) for r in results if r.proof for k in r.proof.tests}
    for r in results:
        r.lines += _lines(r, [k for k in r.elsewhere if k not in ran])

    sections = [_section(r, version) for r in results]
    problems = [p for r in results for p in r.problems]
    lines = list(plan.not_run)
    gpu = tiers.gpu_facts(gpu_env) if tiers.GPU in plan.tiers else None
    if gpu:
        lines.append(
            "GPU tier ran on: " + ", ".join(f"{k} {v or 'unknown'}" for k, v in gpu.items())
        )
    junits = sorted(
        run.junit.name
        for r in results
        for run in (r.baseline, r.patched, r.mutant, r.ignored)
        if run is not None and run.junit is not None
    )
    lines.append(f"JUnit XML: {console.rel(junit_dir)}/ ({', '.join(junits) or 'none'})")
    timing = ", ".join(
        f"{run.label} {run.seconds:.1f} s"
        for r in results
        for run in (r.baseline, r.patched, r.mutant, r.ignored)
        if run is not None
    )
    lines.append(
        f"timings: trees {t_trees - start:.1f} s, {timing}; total {time.perf_counter() - start:.1f} s"
    )
    ok = not problems
    lines.append("verdict: pass" if ok else f"verdict: FAIL ({len(problems)} problem(s) above)")
    result = StageResult(ok)
    for section in sections:
        result.say(*report.renderables(section))
    result.say(*lines)
    result.record = Record(
        "test-upstream",
        base=trees.base,
        series_sha256=trees.series_sha256,
        command=_command(args),
        verdict="pass" if ok else "fail",
        summary_md=report.markdown(sections, lines),
        details={**_details(results, plan, trees, junit_dir, version, problems), "gpu": gpu},
    )
    return result


def series_carried_tests(trees: Trees) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(test file, test function) pairs the series adds, and those it changes, read off
    the two trees."""
    touched = gitio.git_cmd(trees.patched, "diff", "--name-only", trees.base, "HEAD").split()
    added, changed = set(), set()
    for path in touched:
        if "/tests/" not in path or not path.endswith(".py"):
            continue
        old = trees.baseline / path
        new, edited = verdict.carried_test_functions(
            old.read_text() if old.is_file() else None, (trees.patched / path).read_text()
        )
        added |= {(path, name) for name in new}
        changed |= {(path, name) for name in edited}
    return added, changed


def run_tier(
    tier: tiers.Tier,
    trees: Trees,
    mutant_trees: dict[str, Path],
    python: str,
    carried: tuple[set[tuple[str, str]], set[tuple[str, str]]],
    out_dir: Path,
    console: Console,
) -> TierResult:
    """Baseline, patched, then the carried tests (``carried``: the new and the changed
    ones) on the two mutants; the tier's verdict."""
    runs = {}
    for side, tree in (("baseline", trees.baseline), ("patched", trees.patched)):
        runs[side] = _pytest(console, tier, side, tree, python, out_dir, None)
    result = TierResult(tier, runs["baseline"], runs["patched"])
    result.problems += verdict.run_problems(result.baseline, "baseline")
    result.problems += verdict.run_problems(result.patched, "patched")
    result.problems += [
        f"regression: {r}" for r in verdict.regressions(result.baseline, result.patched)
    ]

    collected = {k.split("::", 1)[0] for k in result.patched.tests} | set(
        result.patched.collect_errors
    )
    new, changed = ({f"{p}::{n}" for p, n in side if p in collected} for side in carried)
    elsewhere = sorted(f"{p}::{n}" for p, n in carried[0] | carried[1] if p not in collected)
    if new or changed:
        targets = sorted(new | changed)
        runs = {
            side: _pytest(console, tier, side, mutant_trees[side], python, out_dir, targets)
            for side in ("mutant", "ignored")
        }
        result.mutant, result.ignored = runs["mutant"], runs["ignored"]
        result.proof = verdict.proof(
            new, changed, result.patched, result.mutant, result.ignored, tier.title
        )
        result.problems += result.proof.problems
        result.problems += verdict.import_problems(result.mutant, "mutant")
        result.problems += verdict.import_problems(result.ignored, "keyword-ignored mutant")
    elif carried[0] or carried[1]:
        if tier in (tiers.CPU, tiers.STANDIN):
            result.problems.append(f"{tier.title}: no carried tests ran")
    else:  # the test steps did not apply to this release (the outcome table says why)
        result.carries_tests = False
    result.elsewhere = elsewhere
    return result


def _pytest(
    console: Console,
    tier: tiers.Tier,
    side: str,
    tree: Path,
    python: str,
    out_dir: Path,
    targets: list[str] | None,
) -> Run:
    what = {
        "mutant": "the carried tests on the baseline code",
        "ignored": "the carried tests on a helper that ignores new_token_ids",
    }.get(side, side)
    with console.status(f"{tier.title}: dynamo's tests, {what} ..."):
        return run_pytest(
            label=f"{tier.name}-{side}",
            tree=tree,
            python=python,
            targets=targets or [d for d in tier.dirs if (tree / d).exists()],
            marker=None if targets else tier.marker,
            work=out_dir / "work" / f"{tier.name}-{side}",
            junit_dir=out_dir / "junit",
            path=tier.path,
            plugins=tier.plugins,
        )


def _lines(result: TierResult, elsewhere: list[str]) -> list[str]:
    title, base, patched = result.tier.title, result.baseline, result.patched
    new = len(set(patched.tests) - set(base.tests))
    regressions = verdict.regressions(base, patched)
    lines = [
        f"{title}: {len(base.tests)} tests on baseline, {len(patched.tests)} on patched "
        f"({new} new); regressions: {len(regressions) or 'none'}"
    ]
    both = verdict.fail_on_both(base, patched)
    if both and result.tier is tiers.STANDIN:
        # Listed in full: what the stand-in cannot stand in for is never counted as passed.
        lines.append(
            f"{title}: {len(both)} fail on both sides (the stand-in lacks what they need; "
            "not counted as passed): " + ", ".join(report.short(k) for k in both)
        )
    elif both:
        shown = ", ".join(report.short(k) for k in both[:3]) + (" ..." if len(both) > 3 else "")
        lines.append(f"{title}: {len(both)} fail on both sides, so not from the patch: {shown}")
    lines.append(
        f"{title}: {verdict.HELPER_MODULE} came from "
        f"baseline {console.rel(Path(verdict.imported_from(base)))}, "
        f"patched {console.rel(Path(verdict.imported_from(patched)))}"
    )
    if result.proof is not None:
        lines += [*result.proof.lines, result.proof.line()]
    elif not result.carries_tests:
        lines.append(f"{title}: the series carries no tests for this release")
    if elsewhere:
        lines.append(
            f"{title}: not collected here (needs another tier): "
            + ", ".join(report.short(k) for k in elsewhere)
        )
    lines += [f"problem: {p}" for p in result.problems]
    return lines


def _section(result: TierResult, version: str) -> report.Section:
    title = (
        f'dynamo\'s own tests, {result.tier.title} (-m "{result.tier.marker}"), '
        f"ai-dynamo {version}: baseline vs patched"
    )
    rows = verdict.file_rows(result.baseline, result.patched)
    return report.Section(title, rows, result.lines)


def _details(
    results: list[TierResult],
    plan: tiers.Plan,
    trees: Trees,
    junit_dir: Path,
    version: str,
    problems: list[str],
) -> dict[str, object]:
    def run_record(run: Run | None) -> dict[str, object] | None:
        if run is None:
            return None
        counts: dict[str, int] = {}
        for outcome in run.tests.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        return {
            "tree": console.rel(run.tree),
            "exit_code": run.exit_code,
            "counts": counts,
            "collect_errors": run.collect_errors,
            "junit": console.rel(run.junit) if run.junit else None,
            "helper_imported_from": verdict.imported_from(run),
            "seconds": round(run.seconds, 2),
        }

    return {
        "version": version,
        "base": trees.base,
        "series_sha256": trees.series_sha256,
        "tiers_run": [r.tier.name for r in results],
        "tiers_not_run": list(plan.not_run),
        "junit_dir": console.rel(junit_dir),
        "problems": problems,
        "tiers": {
            r.tier.name: {
                "marker": r.tier.marker,
                "baseline": run_record(r.baseline),
                "patched": run_record(r.patched),
                "mutant": run_record(r.mutant),
                "regressions": verdict.regressions(r.baseline, r.patched),
                "fail_on_both": verdict.fail_on_both(r.baseline, r.patched),
                "carried_tests": r.proof.tests if r.proof else [],
                "keyword_ignored": run_record(r.ignored),
                "mutation": r.proof.line() if r.proof else None,
                "proof_lines": r.proof.lines if r.proof else [],
                "keyword_ignored_caught": r.proof.caught if r.proof else [],
            }
            for r in results
        },
    }


def _command(args: UpstreamTestOptions) -> str:
    cmd = ["nox", "-s", "test-upstream"]
    extra = [f"--tier={args.tier}"] if args.tier else []
    if args.source != "pypi":
        extra.append(f"--source={args.source}")
    if args.version:
        extra.append(f"--version={args.version}")
    return shlex.join([*cmd, "--", *extra] if extra else cmd)
