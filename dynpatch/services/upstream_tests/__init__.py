"""dynamo's own tests on the baseline and the patched tree, tier by tier (a table per test
file, JUnit XML of every run, one verdict), and the mutation proof of the carried tests, on
the baseline with them and on the patched tree whose helper ignores the design's keyword."""

from __future__ import annotations

import shlex
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from rich.console import Console

from codemods import shape
from codemods.logprobs_helper import TARGET
from dynpatch import console, series
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.evidence import Record, TestUpstream, Tier
from dynpatch.fetch import Checkout, FetchOptions
from dynpatch.io import files
from dynpatch.io import git as gitio
from dynpatch.results import StageResult
from dynpatch.services.trees import Trees, prepare_trees
from dynpatch.services.upstream_tests import interpreter, tiers, verdict
from dynpatch.services.upstream_tests.runner import Run, run_pytest

Carried = tuple[set[tuple[str, str]], set[tuple[str, str]]]  # (file, test): new, changed


@dataclass
class TierResult:
    tier: tiers.Tier
    runs: dict[str, Run]  # baseline, patched; mutant and ignored when carried tests ran
    proof: verdict.Proof | None = None
    elsewhere: list[str] = field(default_factory=list)  # carried tests it cannot collect
    carries_tests: bool = True  # False: the series carries none this tier runs
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class UpstreamTestOptions(FetchOptions):
    tier: str | None = None  # None: every tier this machine can run
    gpu_python: str | None = None  # the GPU tier's Python (None: ``python``)
    python: str = sys.executable
    out: Path | None = None  # None: out/test-upstream


def check(
    args: UpstreamTestOptions,
    checkout: Checkout,
    patches: Path,
    trees_dir: Path,
    out_dir: Path,
    screen: Console = err,
) -> StageResult:
    """Test ``checkout`` without and with the series in ``patches``; JUnit XML in ``out_dir``."""
    start = time.perf_counter()
    version = checkout.release.version
    gpu_python = args.gpu_python or args.python
    with screen.status("asking the test interpreters what they have ..."):
        gpu_env = interpreter.probe(gpu_python)
        cpu_env = gpu_env if gpu_python == args.python else interpreter.probe(args.python)
    gpu_why, standin_why = tiers.gpu_problem(gpu_env, version), tiers.standin_problem(cpu_env)
    plan = tiers.plan(args.tier, gpu_why, standin_why)
    problem = interpreter.env_problem(cpu_env, version)
    if problem and {tiers.CPU, tiers.STANDIN} & set(plan.tiers):
        raise ToolkitError(f"{problem}: `nox -s test-upstream` installs what the CPU tier needs")
    with screen.status("preparing the baseline and patched trees ..."):
        trees = prepare_trees(checkout, patches, trees_dir)
    t_trees = time.perf_counter()
    carried = series_carried_tests(trees)
    junit_dir = out_dir / "junit"
    for stale in junit_dir.glob("*.xml"):  # the folder holds this run's XML only
        stale.unlink()
    out_dir.mkdir(parents=True, exist_ok=True)
    design = series.design_of(patches)
    keyword = design.keyword
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".mutants-") as tmp:
        with screen.status("building the mutants ..."):
            # The baseline with the carried tests; with a new keyword, the patched tree with
            # the baseline's helper ignoring it (its tests must fail if it is ignored).
            tests = {p: (trees.patched / p).read_text() for p, _ in carried[0] | carried[1]}
            built = {"mutant": _clone(trees.baseline, trees.base, Path(tmp) / "mutant", tests)}
            if keyword:
                helper = accept_and_ignore((trees.baseline / TARGET.path).read_text(), keyword)
                built["ignored"] = _clone(
                    trees.patched, "HEAD", Path(tmp) / "ignored", {TARGET.path: helper}
                )
        results = []
        for tier in plan.tiers:
            python = gpu_python if tier is tiers.GPU else args.python
            results.append(run_tier(tier, trees, built, python, carried, out_dir, screen, keyword))
    # A carried test another tier ran is not "needs another tier" here.
    ran = {verdict.function_of(k) for r in results if r.proof for k in r.proof.tests}
    sections = [
        verdict.Section(
            f'dynamo\'s own tests, {r.tier.title} (-m "{r.tier.marker}"), ai-dynamo {version}: '
            "baseline vs patched",
            verdict.file_rows(r.runs["baseline"], r.runs["patched"]),
            _lines(r, [k for k in r.elsewhere if k not in ran]),
        )
        for r in results
    ]
    problems = tuple(p for r in results for p in r.problems)
    lines = list(plan.not_run)
    gpu = tiers.gpu_facts(gpu_env) if tiers.GPU in plan.tiers else None
    if gpu:
        facts = ", ".join(f"{k} {v or 'unknown'}" for k, v in gpu.items())
        lines.append(f"GPU tier ran on: {facts}")
    runs = [run for r in results for run in r.runs.values()]
    junits = ", ".join(sorted(run.junit.name for run in runs if run.junit)) or "none"
    timing = ", ".join(f"{run.label} {run.seconds:.1f} s" for run in runs)
    lines += [
        f"JUnit XML: {console.rel(junit_dir)}/ ({junits})",
        f"timings: trees {t_trees - start:.1f} s, {timing}; total {time.perf_counter() - start:.1f} s",
        "verdict: pass" if not problems else f"verdict: FAIL ({len(problems)} problem(s) above)",
    ]
    shown = [item for section in sections for item in verdict.renderables(section)]
    details = {"version": version, "gpu": gpu, "runs": {r.tier.name: _runs(r) for r in results}}
    facts = TestUpstream(tuple(_tier_facts(r, trees) for r in results), plan.why)
    md = verdict.markdown(sections, lines)
    record = Record(
        facts, trees.base, trees.series_sha256, design.name, problems, _command(args), md, details
    )
    return StageResult(not problems, (*shown, *lines), (record,))


def series_carried_tests(trees: Trees) -> Carried:
    """(test file, test function) pairs the series adds, and those it changes."""
    touched = gitio.changed_paths(trees.patched, trees.base, "HEAD")
    added, changed = set(), set()
    for path in (p for p in touched if "/tests/" in p and p.endswith(".py")):
        old = trees.baseline / path
        new, edited = verdict.carried_test_functions(
            old.read_text() if old.is_file() else None, (trees.patched / path).read_text()
        )
        added |= {(path, name) for name in new}
        changed |= {(path, name) for name in edited}
    return added, changed


def _clone(tree: Path, ref: str, dest: Path, changed: dict[str, str]) -> Path:
    gitio.clone_at(tree, ref, dest)
    for path, text in changed.items():
        files.write_atomic(dest / path, text)
    return dest


def accept_and_ignore(source: str, keyword: str) -> str:
    """``source`` with ``keyword=None`` added to the helper's keyword-only parameters."""
    module = cst.parse_module(source)
    fn = shape.find_function(module, TARGET.qualname)
    if fn is None:
        raise ToolkitError(f"{TARGET.path}: no {TARGET.qualname} to mutate")
    stub = cst.parse_statement(f"def f(*, {keyword}: object = None): pass")
    param = cst.ensure_type(stub, cst.FunctionDef).params.kwonly_params[0]
    return shape.replace_function(module, TARGET.qualname, shape.add_kwonly_param(fn, param)).code


def run_tier(
    tier: tiers.Tier,
    trees: Trees,
    mutant_trees: dict[str, Path],
    python: str,
    carried: Carried,
    out_dir: Path,
    screen: Console,
    keyword: str = "new_token_ids",
) -> TierResult:
    """Baseline and patched, then the carried tests on the two mutants; the tier's verdict.
    Each pair runs at once (on the GPU one after the other: one device)."""

    def pytest(what: str, sides: dict[str, tuple[Path, Sequence[str]]]) -> dict[str, Run]:
        with (
            screen.status(f"{tier.title}: dynamo's tests, {what} ..."),
            ThreadPoolExecutor(1 if tier is tiers.GPU else len(sides)) as pool,
        ):
            futures = {
                side: pool.submit(run_pytest, tier, side, tree, python, out_dir, targets)
                for side, (tree, targets) in sides.items()
            }
        return {side: f.result() for side, f in futures.items()}

    pair = {"baseline": (trees.baseline, ()), "patched": (trees.patched, ())}
    base, patched = pytest("baseline and patched", pair).values()
    result = TierResult(tier, {"baseline": base, "patched": patched})
    result.problems += verdict.run_problems(base, "baseline")
    result.problems += verdict.run_problems(patched, "patched")
    result.problems += [f"regression: {r}" for r in verdict.regressions(base, patched)]
    collected = {k.split("::", 1)[0] for k in patched.tests} | set(patched.collect_errors)
    new, changed = ({f"{p}::{n}" for p, n in side if p in collected} for side in carried)
    every = carried[0] | carried[1]
    result.elsewhere = sorted(f"{p}::{n}" for p, n in every if p not in collected)
    if new or changed:
        targets = sorted(new | changed)
        on_mutants = {side: (tree, targets) for side, tree in mutant_trees.items()}
        ignores = f" and on a helper that ignores {keyword}" if keyword else ""
        result.runs |= pytest(f"the carried tests on the baseline code{ignores}", on_mutants)
        mutant, ignored = result.runs["mutant"], result.runs.get("ignored")
        result.proof = verdict.proof(new, changed, patched, mutant, ignored, tier.title, keyword)
        result.problems += result.proof.problems
        result.problems += verdict.run_problems(mutant, f"{tier.title} baseline mutant")
        if ignored is not None:
            result.problems += verdict.run_problems(ignored, f"{tier.title} keyword-ignored mutant")
    elif not any(p.startswith(tier.dirs) for p, _ in every):
        # none for this tier's files: the test steps did not apply to this release (the
        # outcome table says why), or the design carries none here (the one-liner's handler)
        result.carries_tests = False
    elif tier is not tiers.GPU:
        result.problems.append(f"{tier.title}: no carried tests ran")
    return result


def _lines(result: TierResult, elsewhere: list[str]) -> list[str]:
    title, base, patched = result.tier.title, result.runs["baseline"], result.runs["patched"]
    new = len(set(patched.tests) - set(base.tests))
    lines = [
        f"{title}: {len(base.tests)} tests on baseline, {len(patched.tests)} on patched "
        f"({new} new); regressions: {len(verdict.regressions(base, patched)) or 'none'}"
    ]
    both = [verdict.short(k) for k in verdict.fail_on_both(base, patched)]
    if both and result.tier is tiers.STANDIN:
        # Listed in full: what the stand-in cannot stand in for is never counted as passed.
        lines.append(
            f"{title}: {len(both)} fail on both sides (the stand-in lacks what they need; "
            "not counted as passed): " + ", ".join(both)
        )
    elif both:
        shown = ", ".join(both[:3]) + (" ..." if len(both) > 3 else "")
        lines.append(f"{title}: {len(both)} fail on both sides, so not from the patch: {shown}")
    came = [console.rel(Path(verdict.imported_from(run))) for run in (base, patched)]
    lines.append(
        f"{title}: {verdict.HELPER_MODULE} came from baseline {came[0]}, patched {came[1]}"
    )
    if result.proof is not None:
        lines += [*result.proof.lines, result.proof.line()]
    elif not result.carries_tests:
        lines.append(f"{title}: the series carries no tests this tier runs on this release")
    if elsewhere:
        shown = ", ".join(verdict.short(k) for k in elsewhere)
        lines.append(f"{title}: not collected here (needs another tier): {shown}")
    return lines + [f"problem: {p}" for p in result.problems]


def _tier_facts(r: TierResult, trees: Trees) -> Tier:
    base, patched = r.runs["baseline"], r.runs["patched"]
    proof = r.proof or verdict.Proof([], keyword="")  # no carried tests ran: nothing proven
    mutant = r.runs.get("mutant")
    # the first failure for the right reason, as pytest said it
    first = next(
        (mutant.failures[k] for k in proof.failed if mutant and k in mutant.failures), None
    )
    return Tier(
        name=r.tier.name,
        marker=r.tier.marker,
        paths=tuple(d for d in r.tier.dirs if (trees.patched / d).exists()),
        before=dict(Counter(base.tests.values())),
        after=dict(Counter(patched.tests.values())),
        new=tuple(proof.new),
        extended=tuple(k for k in proof.tests if k not in proof.new),
        failed_before=tuple(proof.failed),
        passed_after=tuple(proof.passed),
        why_before=first.message if first else "",
        ignored_caught=len(proof.caught) if proof.keyword else None,
        changed=tuple(verdict.regressions(base, patched)),
        failed_both=tuple(verdict.fail_on_both(base, patched)),
        double=r.tier is tiers.STANDIN,
        problems=tuple(r.problems),
    )


def _runs(r: TierResult) -> dict[str, object]:
    """Each run of the tier as it went (for the person; the PR reads the facts)."""
    return {
        side: {
            "tree": console.rel(run.tree),
            "exit_code": run.exit_code,
            "junit": console.rel(run.junit) if run.junit else None,
            "helper_imported_from": verdict.imported_from(run),
            "seconds": round(run.seconds, 2),
        }
        for side, run in r.runs.items()
    }


def _command(args: UpstreamTestOptions) -> str:
    extra = [f"--tier={args.tier}"] if args.tier else []
    extra += [f"--source={args.source}"] if args.source != "pypi" else []
    extra += [f"--version={args.version}"] if args.version else []
    return shlex.join(["nox", "-s", "test-upstream", *(["--", *extra] if extra else [])])
