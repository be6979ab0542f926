"""``pr --run-checks``: on the PR's own base, the series made by the codemods and every
check the description cites (upstream's pre-commit, dynamo's tests on the tiers this
machine can run, the replay, the bench with its mutant), each record saved as its stage
saves it. A check that fails stops it, naming the stage; nothing of the PR is written."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path

from dynpatch import evidence, series
from dynpatch.console import err
from dynpatch.designs import Design
from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import files
from dynpatch.pin import Pin
from dynpatch.results import StageResult
from dynpatch.services import export, precommit, replay_check, runtimes, upstream_tests
from dynpatch.services.bench import stage as bench
from dynpatch.workspace import Workspace

SERIES_DIR = "series"  # under out/pr/: the series made on a base other than patches/'
BASE_FILE = "series.base"  # beside it: the commit it was made on


def series_for(checkout: Checkout, pin: Pin, ws: Workspace, design: Design, command: str) -> Path:
    """The series of ``design`` made by the codemods on ``checkout``'s base, upstream's
    hooks run on it: ``patches/`` itself when it is the same, else ``out/pr/series/``
    (replaced whole). Its pre-commit record is saved."""
    with files.owned_dir(ws.scratch, "pr-series-") as tmp:
        err.print("pr --run-checks: the series on this base (codemods, format, hooks, git am)")
        try:
            report = export.export_series(checkout, pin, ws, tmp / SERIES_DIR, design)
        except ToolkitError as exc:
            raise ToolkitError(f"--run-checks: apply failed on this base: {exc}") from None
        if not report.patches:
            raise ToolkitError(
                "--run-checks: apply made no series on this base: "
                + (report.result.problems() or ["every target is already applied"])[0]
            )
        try:
            series.compare(tmp / SERIES_DIR, ws.patches)
            made = ws.patches
        except ToolkitError:  # another base: its own series, beside patches/
            made = ws.stage.pr / SERIES_DIR
            with files.staged_dir(made) as staged:
                for name in ["series", *series.names(tmp / SERIES_DIR)]:
                    (staged / name).write_bytes((tmp / SERIES_DIR / name).read_bytes())
    digest = series.series_digest(made)
    hooks = precommit.record(report.hooks, checkout, digest, command, design.name)
    evidence.save(hooks, made, ws.evidence)
    return made


def remember(made: Path, checkout: Checkout, ws: Workspace) -> None:
    """Note the base a series in ``out/pr/series/`` was made on, for :func:`saved_series`
    (none when it is ``patches/`` itself: an older one there is not this base's)."""
    if made != ws.patches:
        files.write_atomic(ws.stage.pr / BASE_FILE, f"{checkout.base}\n")
    else:
        (ws.stage.pr / BASE_FILE).unlink(missing_ok=True)


def saved_series(checkout: Checkout, ws: Workspace, design: Design) -> Path | None:
    """The series an earlier ``--run-checks`` made on this very base (``out/pr/series/``),
    when it is of ``design``: what a later ``pr`` on this base (``--reviewed``, say)
    describes without running the checks again (each record still counts only if it is
    of this base and series). None: there is none."""
    made, base = ws.stage.pr / SERIES_DIR, ws.stage.pr / BASE_FILE
    if not base.is_file() or base.read_text().strip() != checkout.base:
        return None
    ours = (made / series.SERIES_FILE).is_file() and series.design_of(made).name == design.name
    return made if ours else None


def run(checkout: Checkout, pin: Pin, ws: Workspace, made: Path, command: str) -> None:
    """dynamo's tests, the replay and the bench on ``checkout`` with the series ``made``,
    under an interpreter with the base's own ``ai-dynamo-runtime``; each record saved
    (its command: ``command``), the first that fails raised."""
    version, out = checkout.release.version, ws.stage
    python = sys.executable
    if version != pin.version:  # this environment holds the pin's runtime
        err.print(f"pr --run-checks: an interpreter with ai-dynamo-runtime {version}")
        python = str(runtimes.release_python(version, ws.runtimes))
    tests = upstream_tests.UpstreamTestOptions(python=python)
    replay = replay_check.VerifyOptions(python=python)
    steps: dict[str, Callable[[], StageResult]] = {
        "test-upstream": lambda: upstream_tests.check(
            tests, checkout, made, ws.trees, out.test_upstream
        ),
        "verify": lambda: replay_check.check(replay, checkout, made, ws.trees, out.verify),
        "bench": lambda: _bench(checkout, made, ws, python),
    }
    for name, step in steps.items():
        err.print(f"pr --run-checks: {name}")
        result = step()
        assert result.record is not None  # every check says what it would save
        evidence.save(dataclasses.replace(result.record, command=command), made, ws.evidence)
        if not result.ok:  # what the stage printed, then the one error line
            raise ToolkitError(
                f"--run-checks: {name} failed on this base (its record: out/evidence/{name}/; "
                "no branch or description written)",
                result.shown,
            )


def _bench(checkout: Checkout, made: Path, ws: Workspace, python: str) -> StageResult:
    measured = bench.measure(checkout, made, ws, ws.stage.bench, mutant=True, python=python)
    return StageResult(measured.passed, tuple(measured.lines), (measured.record(""),))
