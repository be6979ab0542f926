"""``python -m dynpatch bump VERSION``: move the pin to another release, safely.

Everything is first built in a staging folder (``out/bump/``): the new pin text (the
release's wheel sha256 and laid-out tree id), the series regenerated on the new base
(made once, its ``git am`` proof included; the shared checkout is only read), then
dynamo's CPU tests (test-upstream) and the replay (verify) on it, as child processes with
the new release's ai-dynamo-runtime. ``git range-diff`` shows how the series changed,
old → new.
Only when the series applies and every check passes are ``vendor/dynamo.toml`` and
``patches/`` replaced, as one transaction: if that fails half-way, or the run is killed
there, both are put back (at once, or by the next run that reads the pin). Any drift or
failing check refuses the bump: the pin and patches/ stay as they were (exit 1). So does
a release that already has the fix: merged (every target already applied), or under its
own names (fixed upstream, judged by running its code:
:mod:`dynpatch.upstream_fix`): the series is to be retired there.
"""

from __future__ import annotations

import dataclasses
import functools
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from dynpatch import console, evidence, upstream_fix
from dynpatch import runtimes as envs
from dynpatch.apply import export as patch
from dynpatch.apply.export import (
    PATCHES,
    ApplyReport,
    SeriesFailed,
    export_series,
    install_series,
    series_names,
)
from dynpatch.console import err, out
from dynpatch.errors import ToolkitError
from dynpatch.fetch import VENDOR, Checkout, fetch
from dynpatch.io import faults, files, pypi
from dynpatch.io import git as gitio
from dynpatch.matrix import releases, stages
from dynpatch.pin import PIN_FILE, Pin, Release, load_pin, parse_pin, with_release, with_version

OUT = evidence.OUT / "bump"
DEFAULT_BUDGET = 50  # hypothesis streams of the verify run (plus every named scenario)


@dataclass(frozen=True, kw_only=True)
class BumpOptions:
    version: str  # the ai-dynamo release to pin
    budget: int = DEFAULT_BUDGET  # verify: hypothesis streams
    seed: int = 0
    skip: list[str] = field(default_factory=list)
    out: Path = OUT  # staging folder (logs stay there)
    python: Path | None = None  # the checks' interpreter instead of vendor/runtimes/<X>/
    pin: Path = PIN_FILE
    patches: Path = PATCHES
    vendor: Path = VENDOR
    evidence: Path = evidence.EVIDENCE
    runtimes: Path | None = None


def run(args: BumpOptions) -> int:
    start = time.perf_counter()
    pin = load_pin(args.pin)
    old, new = pin.version, args.version
    if new == old:
        raise ToolkitError(f"the pin is already at {old}")
    if args.budget < 0:
        raise ToolkitError(f"--budget must be 0 or more, not {args.budget}")
    if not (args.patches / "series").is_file():
        raise ToolkitError(f"no committed series in {args.patches}: run `nox -s apply` first")
    # The pin and patches/ change together: no other run may read or write either meanwhile.
    with files.lock(patch.patches_lock(args.vendor, args.patches), f"the series in {args.patches}"):
        old_text = args.pin.read_text()
        snapshot = _snapshot(args.patches)
        args.out.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(dir=args.out, prefix=f"{new}-"))
        try:
            return _bump(args, pin, old_text, snapshot, stage, start)
        except ToolkitError:  # bad input, unreachable source: leave no staging folder behind
            shutil.rmtree(stage, ignore_errors=True)
            raise


def _bump(
    args: BumpOptions,
    pin: Pin,
    old_text: str,
    snapshot: dict[str, bytes],
    stage: Path,
    start: float,
) -> int:
    """Stage, regenerate, check; then install or refuse (see the module docstring)."""
    old, new = pin.version, args.version
    out.print(f"bump ai-dynamo {old} → {new} (staging: {console.rel(stage)})", markup=False)

    with err.status(f"fetching ai-dynamo {new} ..."):
        release, trust = _release(pin, new, args.vendor)
        staged_pin = stage / "dynamo.toml"
        first = parse_pin(with_release(old_text, release, path=args.pin), staged_pin)
        checkout = fetch(first, version=new, vendor=args.vendor)
        release = dataclasses.replace(release, tree=gitio.tree_of(checkout.path, checkout.base))
        comment = f"sha256 recorded from PyPI on {time.strftime('%Y-%m-%d')} by `nox -s bump`"
        added = with_release(old_text, release, comment if trust else "", args.pin)
        new_text = with_version(added, new, args.pin)
        files.write_atomic(staged_pin, new_text)  # the stages' children read it
        staged = load_pin(staged_pin)
        checkout = fetch(staged, version=new, vendor=args.vendor)  # re-verified with the tree
    out.print(f"wheel {release.wheel}: sha256 {release.sha256} ({trust or 'pinned'})", markup=False)
    out.print(f"laid-out tree {release.tree}", markup=False)

    patches = stage / "patches"
    with err.status("regenerating the series on the new base ..."):
        report, problems = _regenerate(checkout, staged, args, patches)
    _show_outcomes(report, new)
    if problems:
        return _refuse(problems, args, old, old_text, snapshot, stage)

    out.print("git range-diff (committed series on " + old + " → regenerated on " + new + "):")
    out.print(_range_diff(pin, old, args.patches, checkout, patches, args.vendor), markup=False)

    for name in stages.STAGES:
        if name in args.skip:
            out.print(f"{name}: SKIPPED (--skip {name}): not checked before the pin moved")
            continue
        python = _python(args, new)
        job = stages.StageJob(
            staged_pin, args.vendor, new, patches, stage, python, args.budget, args.seed
        )
        with err.status(f"{name} on ai-dynamo {new} ..."):
            check = stages.run_stage(name, job)
        out.print(f"{name}: {check.status}: {check.detail} ({check.seconds:.0f} s)", markup=False)
        if check.status != stages.PASS:
            problems.append(f"{name} {check.status}: {check.detail}")
    if problems:
        return _refuse(problems, args, old, old_text, snapshot, stage)

    changed = _install_all(args, new_text, patches)
    for name in stages.STAGES:  # the checks' records now describe the pinned series
        record = stage / "evidence" / f"{name}.json"
        if record.is_file():
            args.evidence.mkdir(parents=True, exist_ok=True)
            files.write_atomic(args.evidence / record.name, record.read_text())
    out.print(
        f"pin moved {old} → {new}: {console.rel(args.pin)} updated; {console.rel(args.patches)}/ "
        f"{'rewritten: ' + ', '.join(changed) if changed else 'unchanged'}; "
        f"total {time.perf_counter() - start:.0f} s",
        markup=False,
    )
    return 0


def _release(pin: Pin, version: str, vendor: Path) -> tuple[Release, str]:
    """The release entry and how its sha256 is trusted ('' when the pin has it)."""
    if version in pin.releases:
        return pin.release(version), ""
    name = releases.wheel_name(pin.package, version)
    wheel = pypi.download_wheel(pin.package, version, name, vendor / "cache" / "wheels")
    digest = pypi.sha256_of(wheel)
    trust = "not in the pin before: sha256 of the PyPI download, trusted on first use"
    return releases.release_for(pin, version, digest), trust


def _regenerate(
    checkout: Checkout, pin: Pin, args: BumpOptions, patches: Path
) -> tuple[ApplyReport, list[str]]:
    """The series made once on the new base into ``patches`` (outcomes, formatting and the
    ``git am`` proof; a candidate upstream fix judged by a run of the release's code), and
    what stops it being pinned (nothing: an empty list)."""
    new = checkout.release.version
    try:
        report = export_series(checkout, pin, args.vendor, patches)
    except SeriesFailed as exc:  # drifted, refused by upstream's checks, or fails git am
        python = functools.partial(_python, args, new)
        upstream_fix.settle(exc.report, checkout, python, args.vendor, patches.parent / "judge.log")
        if exc.report.result.fixed_upstream:
            return exc.report, [f"the series is fixed upstream in {new}: retire it from {new} on"]
        return exc.report, exc.report.result.problems() or [str(exc)]
    if not report.patches:  # not applicable, or already applied (merged): nothing to pin
        merged = f"the series is merged upstream in {new} (every target already applied)"
        return report, report.result.problems() or [f"{merged}: retire it from {new} on"]
    return report, []


def _show_outcomes(report: ApplyReport, new: str) -> None:
    console.show_outcomes(report.outcomes, report.lines, f"ai-dynamo {new} (pypi)")
    if report.result.fixed_upstream:
        out.print(f"fixed upstream: {report.result.upstream_fix}", markup=False)


def _range_diff(
    pin: Pin,
    old: str,
    old_patches: Path,
    new_checkout: Checkout,
    new_patches: Path,
    vendor: Path,
) -> str:
    """``git range-diff`` of the committed series (on the old base) and the regenerated one
    (on the new base), both applied with ``git am`` in one scratch repository."""
    old_checkout = fetch(pin, version=old, vendor=vendor)
    with tempfile.TemporaryDirectory(prefix="dynpatch-range-diff-") as tmp:
        repo = Path(tmp) / "repo"
        gitio.clone_at(new_checkout.path, new_checkout.base, repo)
        gitio.am(repo, [new_patches / n for n in series_names(new_patches)])
        new_tip = gitio.rev_parse(repo, "HEAD") or ""
        gitio.fetch_ref(repo, old_checkout.path, old_checkout.base, "refs/dynpatch/old-base")
        gitio.git_cmd(repo, "checkout", "-q", "--detach", "refs/dynpatch/old-base")
        gitio.am(repo, [old_patches / n for n in series_names(old_patches)])
        old_tip = gitio.rev_parse(repo, "HEAD") or ""
        return gitio.range_diff(
            repo, f"{old_checkout.base}..{old_tip}", f"{new_checkout.base}..{new_tip}"
        ).rstrip("\n")


def _python(args: BumpOptions, version: str) -> Path:
    """The checks' interpreter: ``--python``, else one with ``version``'s runtime."""
    return args.python or envs.runtime_env(version, args.runtimes or envs.RUNTIMES).python


def _snapshot(directory: Path) -> dict[str, bytes]:
    if not directory.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def _install_all(args: BumpOptions, new_text: str, patches: Path) -> list[str]:
    """Replace patches/ and the pin as one transaction (:func:`files.together`): on any
    failure, or in the next run after a kill, both are put back as they were."""
    with files.together(args.pin, args.patches):
        try:
            changed = install_series(patches, args.patches)
            faults.checkpoint("bump.patches")
            files.write_atomic(args.pin, new_text)
        except (OSError, ToolkitError) as exc:  # said only when together puts both back
            raise ToolkitError(
                f"could not install the new pin and patches/ ({exc}); both restored as they were"
            ) from None
    return changed


def _restore(args: BumpOptions, old_text: str, snapshot: dict[str, bytes]) -> bool:
    """Put the pin and patches/ back to ``old_text`` and ``snapshot``; True if anything
    had to be put back."""
    touched = False
    if args.pin.read_text() != old_text:
        files.write_atomic(args.pin, old_text)
        touched = True
    if _snapshot(args.patches) != snapshot:
        folders = frozenset(p.name for p in args.patches.iterdir() if p.is_dir())
        with files.staged_dir(args.patches, keep=folders) as tmp:
            for name, data in snapshot.items():
                (tmp / name).write_bytes(data)
        touched = True
    return touched


def _refuse(
    problems: list[str],
    args: BumpOptions,
    old: str,
    old_text: str,
    snapshot: dict[str, bytes],
    stage: Path,
) -> int:
    # Nothing outside the staging folder is written before the checks pass; this makes
    # sure of it rather than assuming it.
    if _restore(args, old_text, snapshot):
        out.print(
            f"{console.rel(args.pin)} or {console.rel(args.patches)}/ had changed: restored",
            markup=False,
        )
    out.print(f"REFUSED: {len(problems)} problem(s):", markup=False)
    for p in problems:
        out.print(f"  {p}", markup=False)
    out.print(
        f"{console.rel(args.pin)} stays at {old} and {console.rel(args.patches)}/ is unchanged; "
        f"logs and the candidate series: {console.rel(stage)}",
        markup=False,
    )
    return 1
