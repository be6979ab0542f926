"""``python -m dynpatch bump VERSION``: move the pin to another release, or refuse. The new
pin text and series, its range-diff and its checks are made in ``out/bump/`` first; only when
all pass are ``dynamo.toml`` and ``patches/`` replaced, as one transaction. Drift, a failing
check or a release with the fix (merged, or its own) refuses: exit 1, both untouched."""

from __future__ import annotations

import dataclasses
import functools
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from dynpatch import console, releases, series
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.evidence import Record
from dynpatch.fetch import Checkout, fetch
from dynpatch.io import faults, files
from dynpatch.io import git as gitio
from dynpatch.pin import Pin, load_pin, parse_pin, with_release, with_version
from dynpatch.results import Shown, StageResult
from dynpatch.services import checks as stages
from dynpatch.services import runtimes as envs
from dynpatch.services import upstream_fix
from dynpatch.services.export import ApplyReport, SeriesFailed, export_series
from dynpatch.workspace import Workspace

DEFAULT_BUDGET = 50  # hypothesis streams of the verify run (plus every named scenario)


@dataclass(frozen=True, kw_only=True)
class BumpOptions:
    version: str  # the ai-dynamo release to pin
    budget: int = DEFAULT_BUDGET  # verify: hypothesis streams
    seed: int = 0
    skip: list[str] = field(default_factory=list)
    out: Path | None = None  # staging folder (logs stay there); None: out/bump


def run(args: BumpOptions, ws: Workspace) -> StageResult:
    start = time.perf_counter()
    pin = load_pin(ws.pin)
    old, new = pin.version, args.version
    if new == old:
        raise ToolkitError(f"the pin is already at {old}")
    if args.budget < 0:
        raise ToolkitError(f"--budget must be 0 or more, not {args.budget}")
    series.names(ws.patches)  # the committed series must be there
    # The pin and patches/ change together: no other run may read or write either meanwhile.
    with files.lock(series.lock(ws.locks, ws.patches), f"the series in {ws.patches}"):
        old_text = ws.pin.read_text()
        out = args.out or ws.stage.bump
        out.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(dir=out, prefix=f"{new}-"))
        try:
            return _bump(args, ws, pin, old_text, stage, start)
        except ToolkitError:  # bad input, unreachable source: leave no staging folder behind
            shutil.rmtree(stage, ignore_errors=True)
            raise


def _bump(
    args: BumpOptions, ws: Workspace, pin: Pin, old_text: str, stage: Path, start: float
) -> StageResult:
    old, new = pin.version, args.version
    said: list[Shown] = [f"bump ai-dynamo {old} → {new} (staging: {console.rel(stage)})"]

    with err.status(f"fetching ai-dynamo {new} ..."):
        # Not in the pin: its sha256 as first downloaded (and recorded), trusted on first use.
        release = releases.lookup(pin, new, ws.wheels, ws.tofu, download=True)
        trust = "" if new in pin.releases else "not in the pin before: trusted on first use"
        first = parse_pin(with_release(old_text, release, path=ws.pin), ws.pin)
        checkout = fetch(first, ws, version=new)
        release = dataclasses.replace(release, tree=gitio.tree_of(checkout.path, checkout.base))
        comment = f"sha256 recorded from PyPI on {time.strftime('%Y-%m-%d')} by `nox -s bump`"
        added = with_release(old_text, release, comment if trust else "", ws.pin)
        new_text = with_version(added, new, ws.pin)
        staged = parse_pin(new_text, ws.pin)
        checkout = fetch(staged, ws, version=new)  # re-verified with the tree
    said += [
        f"wheel {release.wheel}: sha256 {release.sha256} ({trust or 'pinned'})",
        f"laid-out tree {release.tree}",
    ]

    patches = stage / "patches"
    with err.status("regenerating the series on the new base ..."):
        report, problems = _regenerate(checkout, staged, ws, patches)
    said.append(console.outcome_table(report.outcomes, report.lines, f"ai-dynamo {new} (pypi)"))
    if report.result.fixed_upstream:
        said.append(f"fixed upstream {report.result.upstream_fix}")
    records: list[Record] = []
    if not problems:  # the series is made: its range-diff, then its checks
        said += [
            f"git range-diff (committed series on {old} → regenerated on {new}):",
            _range_diff(pin, ws, checkout, patches),
        ]
        wanted = set(stages.STAGES) - set(args.skip)  # one runtime env for all of them
        python = envs.release_python(new, ws.runtimes) if wanted else None
        for name in stages.STAGES:
            if name not in wanted or python is None:
                said.append(f"{name}: SKIPPED (--skip {name}): not checked before the pin moved")
                continue
            job = stages.CheckJob(
                checkout, patches, stage, ws.trees, python, args.budget, args.seed
            )
            check, record = stages.run_check(name, job, err)
            records += [record] if record else []
            said.append(f"{name}: {check.status}: {check.detail} ({check.seconds:.0f} s)")
            if check.status != stages.PASS:
                problems.append(f"{name} {check.status}: {check.detail}")
    if problems:
        kept = (
            f"{console.rel(ws.pin)} stays at {old} and {console.rel(ws.patches)}/ is unchanged; "
            f"logs and the candidate series: {console.rel(stage)}"
        )
        refused = [f"REFUSED: {len(problems)} problem(s):", *(f"  {p}" for p in problems), kept]
        return StageResult(ok=False, shown=(*said, *refused))

    changed = _install_all(ws, new_text, patches)
    said.append(
        f"pin moved {old} → {new}: {console.rel(ws.pin)} updated; {console.rel(ws.patches)}/ "
        f"{'rewritten: ' + ', '.join(changed) if changed else 'unchanged'}; "
        f"total {time.perf_counter() - start:.0f} s"
    )
    # The checks' records now describe the pinned series: the command line saves them.
    return StageResult(shown=tuple(said), records=tuple(records))


def _regenerate(
    checkout: Checkout, pin: Pin, ws: Workspace, patches: Path
) -> tuple[ApplyReport, list[str]]:
    """The series made on the new base into ``patches`` (a candidate upstream fix judged by a
    run of the release's code), and what stops it being pinned (nothing: an empty list)."""
    new = checkout.release.version
    try:
        report = export_series(checkout, pin, ws, patches, series.design_of(ws.patches))
    except SeriesFailed as exc:  # drifted, refused by upstream's checks, or fails git am
        python = functools.partial(envs.release_python, new, ws.runtimes)  # built only if judged
        log = patches.parent / "judge.log"
        reference = functools.partial(upstream_fix.reference, load_pin(ws.pin), ws)  # the old pin
        upstream_fix.settle(exc.report, checkout, python, ws, log, reference)
        if exc.report.result.fixed_upstream:
            return exc.report, [f"the series is fixed upstream in {new}: retire it from {new} on"]
        return exc.report, exc.report.result.problems() or [str(exc)]
    if not report.patches:  # not applicable, or already applied (merged): nothing to pin
        merged = f"the series is merged upstream in {new} (every target already applied)"
        return report, report.result.problems() or [f"{merged}: retire it from {new} on"]
    return report, []


def _range_diff(pin: Pin, ws: Workspace, new_checkout: Checkout, new_patches: Path) -> str:
    """``git range-diff`` of the committed series and the regenerated one, on their bases."""
    old_checkout, old_patches = fetch(pin, ws), ws.patches
    with tempfile.TemporaryDirectory(prefix="dynpatch-range-diff-") as tmp:
        repo = Path(tmp) / "repo"
        gitio.clone_at(new_checkout.path, new_checkout.base, repo)
        gitio.am(repo, [new_patches / n for n in series.names(new_patches)])
        new_tip = gitio.rev_parse(repo, "HEAD") or ""
        gitio.fetch_ref(repo, old_checkout.path, old_checkout.base, "refs/dynpatch/old-base")
        gitio.checkout_detached(repo, "refs/dynpatch/old-base")
        gitio.am(repo, [old_patches / n for n in series.names(old_patches)])
        old_tip = gitio.rev_parse(repo, "HEAD") or ""
        return gitio.range_diff(
            repo, f"{old_checkout.base}..{old_tip}", f"{new_checkout.base}..{new_tip}"
        ).rstrip("\n")


def _install_all(ws: Workspace, new_text: str, patches: Path) -> list[str]:
    """Replace patches/ and the pin as one transaction: on a failure or kill, both restored."""
    with files.together(ws.pin, ws.patches):
        try:
            changed = series.install(patches, ws.patches)
            faults.checkpoint("bump.patches")
            files.write_atomic(ws.pin, new_text)
        except (OSError, ToolkitError) as exc:  # said only when together puts both back
            raise ToolkitError(
                f"could not install the new pin and patches/ ({exc}); both restored as they were"
            ) from None
    return changed
