"""Codemods -> format -> upstream's hooks -> commit -> ``patches/`` export, proved with
``git am`` on a fresh copy of the base (with ``check=True``: compared, nothing written)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path

from codemods.outcome import Outcome
from codemods.series import SeriesResult, run_series
from dynpatch import series
from dynpatch.designs import DEFAULT, DESIGNS, Design
from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import faults, files
from dynpatch.io import git as gitio
from dynpatch.pin import Pin
from dynpatch.services import formatters, precommit, scope
from dynpatch.services.precommit import Finding
from dynpatch.workspace import Workspace


@dataclass
class ApplyReport:
    result: SeriesResult
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)  # qualname -> (+, -)
    patches: list[str] = field(default_factory=list)
    commit: str = ""
    changed_files: list[str] = field(default_factory=list)  # patches/ files rewritten
    hooks: list[precommit.HookResult] = field(default_factory=list)  # upstream's, all passed
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def outcomes(self) -> tuple[Outcome, ...]:
        return self.result.outcomes


class SeriesFailed(ToolkitError):
    """No series exported: a drift, a hook's ``findings`` or the ``git am`` ``proof`` failed."""

    def __init__(
        self, message: str, report: ApplyReport, proof: str = "", findings: Sequence[Finding] = ()
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
    ws: Workspace,
    patches_dir: Path,
    check: bool = False,
    force: bool = False,
    design: Design = DESIGNS[DEFAULT],
) -> ApplyReport:
    """Codemods -> format -> commit -> export -> ``git am`` proof -> ``patches_dir`` (replaced
    whole). The checkout changes in one ref transaction at the end, if at all: never with
    ``check`` or ``branch=None`` (only read: runs may share it); else the caller holds its lock."""
    marks = [time.perf_counter()]
    steps, read = design.steps, partial(gitio.show_file, checkout.path, checkout.base)
    result = run_series(read, steps)
    report = ApplyReport(result)

    def lap(name: str) -> None:
        marks.append(time.perf_counter())
        report.timings[name] = marks[-1] - marks[-2]

    lap("codemods")
    if not result.ok:
        if result.not_applicable:
            return report
        problems = result.problems()
        more = f" (+{len(problems) - 1} more in the table above)" if len(problems) > 1 else ""
        raise SeriesFailed(problems[0] + more, report)

    python = formatters.tools_python(ws)
    lap("tool env")
    old = {p: read(p) or "" for p in result.changed}
    new = formatters.format_upstream(result.changed, python)
    lap("format")
    try:
        for path in new:
            mine = [s for s in steps if s.target.path == path]
            report.lines |= scope.lines_changed_in(
                old[path],
                new[path],
                [s.target.qualname for s in mine if not s.adds],
                added={s.target.qualname: s.adds for s in mine if s.adds},
                imports={s.target.qualname: s.imports for s in mine if s.imports},
            )
    except ToolkitError as exc:  # lines outside every target: the change's fault, not a tool's
        raise SeriesFailed(str(exc), report) from None
    year = datetime.fromisoformat(date).year  # the series commit's, for the SPDX rule
    hooks = precommit.check_files(old, new, python, year)
    _refuse_findings(hooks, report)
    lap("checks")
    if not new:  # every target already applied at the base: nothing to export
        return report

    moving = None if check else branch  # the work branch this run moves, if any
    tip = _work_branch_tip(checkout, moving, force) if moving else None
    with files.owned_dir(ws.scratch, "apply-") as tmp:
        objects = None if moving else tmp / "objects"  # no branch moves: no object enters
        if objects is not None:
            objects.mkdir()
        report.commit = gitio.commit_objects(
            checkout.path, checkout.base, new, design.message, author, date, objects
        )
        faults.checkpoint("apply.objects")
        exported = _export(checkout, report.commit, tmp / "export", objects, design)
        lap("commit+export")
        names = series.names(exported)
        proof = am_problem(checkout, [exported / n for n in names], tmp / "am")
        lap("git am check")
        if proof:
            why = f"patch series fails the git am proof on {checkout.release.base_tag}: {proof}"
            raise SeriesFailed(why, report, proof)
        commits = gitio.commits_between(tmp / "am", checkout.base, "HEAD")
        hooks.append(precommit.check_commits(commits, names))
        _refuse_findings(hooks, report)
        report.hooks, report.patches = hooks, names
        with files.lock(series.lock(ws.locks, patches_dir), f"the series in {patches_dir}"):
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
    return report


def _refuse_findings(hooks: list[precommit.HookResult], report: ApplyReport) -> None:
    if findings := [f for h in hooks for f in h.findings]:
        report.hooks = hooks
        raise SeriesFailed(precommit.failure_line(findings), report, findings=findings)


def export_series(
    checkout: Checkout, pin: Pin, ws: Workspace, patches_dir: Path, design: Design
) -> ApplyReport:
    """The series of ``design`` by the pin's author and date; the checkout is only read."""
    return apply_series(
        checkout,
        author=gitio.parse_identity(pin.author),
        date=pin.date,
        branch=None,
        ws=ws,
        patches_dir=patches_dir,
        design=design,
    )


def _work_branch_tip(checkout: Checkout, branch: str, force: bool) -> str | None:
    """The work branch's tip, when this run may move it: the branch is checked out in no
    work tree, and its tip is a commit this tool made (or ``force``)."""
    repo = checkout.path
    if busy := gitio.worktrees_on(repo, branch):
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


def am_problem(checkout: Checkout, patches: list[Path], scratch: Path) -> str:
    """What stops ``patches`` applying with ``git am`` to a fresh clone of the base at
    ``scratch`` and reversing cleanly there; '' when nothing does (the patched tree)."""
    gitio.clone_at(checkout.path, checkout.base, scratch)
    try:
        gitio.am(scratch, patches)
    except ToolkitError:  # which patch and file: git am's own last line only names the patch
        for patch in patches:  # on the base again: gitio.am aborts
            try:
                gitio.apply_check(scratch, patch)
            except ToolkitError as exc:
                detail = str(exc).split(": ", 1)[-1].split(f"{scratch}: ", 1)[-1]
                return f"{patch.name}: {detail}"
        return "git am failed (each patch applies alone: an ordering problem)"
    try:
        gitio.reverse_applies(scratch, patches)
    except ToolkitError as exc:
        return f"applies but does not reverse: {exc}"
    return ""


def _export(checkout: Checkout, head: str, out: Path, objects: Path | None, design: Design) -> Path:
    """format-patch, the provenance after ``---`` (``git am`` ignores it), the series file."""
    made = gitio.format_patch(checkout.path, checkout.base, head, out, objects)
    notes = "".join(f"{line}\n" for line in checkout.provenance)
    for path in made:
        head_, sep, tail = path.read_text().partition("\n---\n")
        if not sep:
            raise ToolkitError("format-patch output has no '---' separator")
        path.write_text(f"{head_}{sep}{notes}\n{tail}")
    series.write(out, design, [p.name for p in made])
    return out
