"""Stages 2-4, codemod -> format -> patch: the series as a reviewable ``git am`` patch.

``apply_series`` reads the target files at the pristine base commit, runs the codemods
(nothing is written unless every target succeeds), formats the touched files with
upstream's tools, runs upstream's pre-commit hooks on them (any finding refuses the
series), commits on the work branch with a DCO sign-off, exports
``patches/0001-*.patch`` plus ``patches/series`` and proves the export applies with
``git am`` to a fresh copy of the base and reverses cleanly (and that the commits
``git am`` records pass upstream's DCO hook). With ``check=True`` it
does all of that in a temporary place and compares with the committed ``patches/``; with
``branch=None`` it writes the export but leaves the checkout as it is (the matrix and
bump: a release's own series, made once, outcomes and proof included).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from codemods.outcome import Outcome
from codemods.series import COMMIT_MESSAGE, SERIES, SeriesResult, Step, run_series
from dynpatch import series
from dynpatch.apply import precommit, scope
from dynpatch.apply import tools as formatting
from dynpatch.apply.precommit.findings import Finding, HookResult, all_findings, failure_line
from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import faults, files
from dynpatch.io import git as gitio
from dynpatch.pin import Pin


@dataclass
class ApplyReport:
    result: SeriesResult
    # qualname -> (added, removed) lines in the formatted patch
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)
    patches: list[str] = field(default_factory=list)
    commit: str = ""
    changed_files: list[str] = field(default_factory=list)  # patches/ files rewritten
    hooks: list[HookResult] = field(default_factory=list)  # upstream's pre-commit, all passed
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def outcomes(self) -> tuple[Outcome, ...]:
        return self.result.outcomes


class SeriesFailed(ToolkitError):
    """No series was exported: a target drifted or only part of the series applies, the
    formatted change fails upstream's checks (then ``findings`` are the hooks' reports),
    or the export fails the ``git am`` proof (then ``proof`` says how). ``report`` has
    every outcome either way."""

    def __init__(
        self,
        message: str,
        report: ApplyReport,
        proof: str = "",
        findings: Sequence[Finding] = (),
    ) -> None:
        super().__init__(message)
        self.report = report
        self.proof = proof
        self.findings = tuple(findings)


# Commits this tool made on a work branch: a branch tip recorded here may be replaced by
# a newer series; any other tip is someone's work and is kept unless ``force``.
APPLIED = "refs/dynpatch/applied"


def apply_series(
    checkout: Checkout,
    *,
    author: gitio.Identity,
    date: str,
    branch: str | None,
    cache: Path,
    patches_dir: Path,
    check: bool = False,
    force: bool = False,
    steps: tuple[Step, ...] = SERIES,
) -> ApplyReport:
    """Codemods -> format -> commit -> export -> ``git am`` proof -> ``patches_dir``.

    The commit message is the series' own (``codemods.series.COMMIT_MESSAGE``).

    The checkout changes in one step at the very end, if at all: the series commit is
    written as objects and the work branch moved by one ref transaction (never with
    ``check`` or ``branch=None``: then the objects stay in a scratch folder and the
    checkout is only read, so concurrent runs may share it). ``patches_dir`` is replaced
    whole (staged, then swapped). Otherwise the caller holds the checkout's lock.
    """
    clock = _Clock()
    result = run_series(lambda path: read_at(checkout.path, checkout.base, path), steps)
    clock.lap("codemods")
    report = ApplyReport(result)
    if not result.ok:
        if result.not_applicable:
            return report
        raise SeriesFailed(_one_line(result.problems()), report)

    python = formatting.tools_python(cache)
    clock.lap("tool env")
    before = {p: read_at(checkout.path, checkout.base, p) for p in result.changed}
    old = {p: text or "" for p, text in before.items()}
    new = formatting.format_upstream(result.changed, python)
    clock.lap("format")
    try:
        for path in new:
            report.lines |= _scope_check(path, before[path], new[path], steps)
    except ToolkitError as exc:  # lines outside every target: the change's fault, not a tool's
        raise SeriesFailed(str(exc), report) from None
    year = datetime.fromisoformat(date).year  # the series commit's, for the SPDX rule
    hooks = precommit.check_files(old, new, python, year)
    _refuse_findings(hooks, report)
    clock.lap("checks")
    if not new:  # every target already applied at the base: nothing to export
        return report

    moving = None if check else branch  # the work branch this run moves, if any
    tip = _work_branch_tip(checkout, moving, force) if moving else None
    with files.owned_dir(cache / "scratch", "apply-") as tmp:
        objects = None if moving else tmp / "objects"  # no branch moves: no object enters
        if objects is not None:
            objects.mkdir()
        report.commit = gitio.commit_objects(
            checkout.path, checkout.base, new, COMMIT_MESSAGE, author, date, objects
        )
        faults.checkpoint("apply.objects")
        exported = _export(checkout, report.commit, tmp / "export", objects)
        clock.lap("commit+export")
        names = series.names(exported)
        proof = am_problem(checkout, [exported / n for n in names], tmp / "am")
        clock.lap("git am check")
        if proof:
            report.timings = clock.laps
            raise SeriesFailed(f"{_PROOF} on {checkout.release.base_tag}: {proof}", report, proof)
        # The DCO hook on the commits as `git am` records them from the export.
        commits = gitio.commits_between(tmp / "am", checkout.base, "HEAD")
        hooks.append(precommit.check_commits(commits, names))
        _refuse_findings(hooks, report)
        report.hooks, report.patches = hooks, names
        with files.lock(series.lock(cache / "locks", patches_dir), f"the series in {patches_dir}"):
            files.recover(patches_dir)  # finish or undo what a killed run left
            if check:
                series.compare(exported, patches_dir)
            else:
                report.changed_files = series.install(exported, patches_dir)
        if moving and tip != report.commit:
            refs = [(f"refs/heads/{moving}", report.commit, tip)]
            made = f"{APPLIED}/{report.commit}"
            if not gitio.ref_exists(checkout.path, made):
                refs.append((made, report.commit, None))
            gitio.update_refs(checkout.path, refs, f"dynpatch apply: {moving} at the series")
    report.timings = clock.laps
    return report


def _refuse_findings(hooks: list[HookResult], report: ApplyReport) -> None:
    """Refuse the series when any of upstream's hooks found something."""
    findings = all_findings(hooks)
    if findings:
        report.hooks = hooks
        raise SeriesFailed(failure_line(findings), report, findings=findings)


def export_series(checkout: Checkout, pin: Pin, cache: Path, patches_dir: Path) -> ApplyReport:
    """The series for ``checkout``'s release, made by the pin's author and date, into
    ``patches_dir``; the checkout is only read (``apply_series`` with ``branch=None``)."""
    author = gitio.parse_identity(pin.author)
    return apply_series(
        checkout,
        author=author,
        date=pin.date,
        branch=None,
        cache=cache,
        patches_dir=patches_dir,
    )


def _work_branch_tip(checkout: Checkout, branch: str, force: bool) -> str | None:
    """The work branch's tip, when this run may move it; refuses what would lose work.

    The branch must not be checked out in any work tree (moving it would leave that work
    tree stale), and its tip must be a commit this tool made, unless ``force``.
    """
    repo = checkout.path
    busy = gitio.worktrees_on(repo, branch)
    if busy:
        raise ToolkitError(
            f"{branch} is checked out in {busy[0]}: apply never moves a checked-out branch; "
            f"switch that work tree to another branch and rerun"
        )
    tip = gitio.rev_parse(repo, f"refs/heads/{branch}")
    if tip is None or force or gitio.ref_exists(repo, f"{APPLIED}/{tip}"):
        return tip
    raise ToolkitError(
        f"{branch} in {repo} is at {tip[:12]}, a commit this tool did not make (your work?): "
        "rerun with --force to replace it (it stays in the reflog), or rename that branch"
    )


def _scope_check(
    path: str, old: str | None, new: str, steps: tuple[Step, ...]
) -> dict[str, tuple[int, int]]:
    """Changed lines per target of ``path``; refuses lines outside every target.

    A step's target is its function or the definitions it ``adds``, and the imports of
    the names it ``imports``.
    """
    mine = [s for s in steps if s.target.path == path]
    functions = [s.target.qualname for s in mine if not s.adds]
    added = {s.target.qualname: s.adds for s in mine if s.adds}
    imports = {s.target.qualname: s.imports for s in mine if s.imports}
    return scope.lines_changed_in(old or "", new, functions, added=added, imports=imports)


def read_at(repo: Path, rev: str, path: str) -> str | None:
    """``path``'s content at ``rev`` (None when the file does not exist there)."""
    try:
        return gitio.git_cmd(repo, "show", f"{rev}:{path}")
    except ToolkitError:
        return None


_PROOF = "patch series fails the git am proof"


def am_problem(checkout: Checkout, patches: list[Path], scratch: Path) -> str:
    """What stops ``patches`` applying with ``git am`` (no three-way fallback) to a fresh
    clone of the base at ``scratch`` and reversing cleanly there; '' when nothing does
    (``scratch`` is then the patched tree)."""
    gitio.clone_at(checkout.path, checkout.base, scratch)
    try:
        gitio.am(scratch, patches)
    except ToolkitError:
        return _apply_failure(scratch, patches)
    try:
        gitio.reverse_applies(scratch, patches)
    except ToolkitError as exc:
        return f"applies but does not reverse: {exc}"
    return ""


def _apply_failure(repo: Path, patches: list[Path]) -> str:
    """Which patch and file does not apply (git am's own last line only names the patch);
    ``repo`` is back at the base (``gitio.am`` aborts)."""
    for patch in patches:
        try:
            gitio.git_cmd(repo, "apply", "--check", str(patch))
        except ToolkitError as exc:
            detail = str(exc).split(": ", 1)[-1]
            detail = detail.split(f"{repo}: ", 1)[-1]
            return f"{patch.name}: {detail}"
    return "git am failed (each patch applies alone: an ordering problem)"


def _export(checkout: Checkout, head: str, out: Path, objects: Path | None) -> Path:
    made = gitio.format_patch(checkout.path, checkout.base, head, out, objects)
    for path in made:
        path.write_text(_with_provenance(path.read_text(), checkout.provenance))
    (out / series.SERIES_FILE).write_text("".join(f"{p.name}\n" for p in made))
    return out


def _with_provenance(patch: str, provenance: tuple[str, ...]) -> str:
    """Put provenance between ``---`` and the diffstat, where ``git am`` ignores text."""
    head, sep, tail = patch.partition("\n---\n")
    if not sep:
        raise ToolkitError("format-patch output has no '---' separator")
    notes = "".join(f"{line}\n" for line in provenance)
    return f"{head}{sep}{notes}\n{tail}"


def _one_line(problems: list[str]) -> str:
    more = f" (+{len(problems) - 1} more in the table above)" if len(problems) > 1 else ""
    return f"{problems[0]}{more}"


class _Clock:
    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = now - self._last
        self._last = now


__all__ = [
    "APPLIED",
    "ApplyReport",
    "SeriesFailed",
    "am_problem",
    "apply_series",
    "export_series",
    "read_at",
]
