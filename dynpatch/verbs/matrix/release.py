"""One release of the matrix: fetch, its own series and the committed one's ``git am``
(:func:`prepare`), then CPU test-upstream and quick verify in-process (:func:`check`)."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from dynpatch import series
from dynpatch.designs import DEFAULT, DESIGNS, Design
from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout, FetchOptions, locked
from dynpatch.io import files
from dynpatch.pin import Pin
from dynpatch.releases import ReleaseCandidate
from dynpatch.services import checks as stages
from dynpatch.services import runtimes as envs
from dynpatch.services import upstream_fix
from dynpatch.services.checks import Check
from dynpatch.services.export import ApplyReport, SeriesFailed, am_problem, export_series
from dynpatch.workspace import TOOLKIT, Workspace


@dataclass(frozen=True)
class Row:
    version: str
    sha256: str
    trust: str  # "pinned", "trust-on-first-use", or the source of a git or path row
    newest: bool = False
    pinned: bool = False  # the release patches/ is made against
    note: str = ""
    outcomes: list[dict[str, str]] = field(default_factory=list)  # per step: target, status, detail
    # applied | already-applied | not-applicable | fixed-upstream | drifted | error
    series: str = stages.NOT_RUN
    series_detail: str = ""
    problems: list[str] = field(default_factory=list)  # why the series cannot be written
    series_sha256: str = ""  # of this release's regenerated series
    own_am: Check = field(default_factory=lambda: Check(stages.NOT_RUN))
    committed_am: Check = field(default_factory=lambda: Check(stages.NOT_RUN))
    test_upstream: Check = field(default_factory=lambda: Check(stages.NOT_RUN))
    verify: Check = field(default_factory=lambda: Check(stages.NOT_RUN))
    seconds: float = 0.0  # the release's whole run

    @property
    def ok(self) -> bool:
        """No drift, no failed or broken check (a reasoned n/a is fine); the committed series
        must apply to the pinned release (on another, its failing is a finding)."""
        checks = [self.own_am, self.test_upstream, self.verify]
        bad = any(c.bad for c in checks) or (self.pinned and self.committed_am.bad)
        good = ("applied", "already-applied", "not-applicable", FIXED_UPSTREAM)
        return self.series in good and not bad

    @property
    def runnable(self) -> bool:
        """The release has its own exported series to check further."""
        return self.series == "applied" and self.own_am.status == stages.PASS


# A release with an equivalent fix of its own: a finding; the series retires from there on.
FIXED_UPSTREAM = "fixed-upstream"


@dataclass(frozen=True)
class Context:
    pin: Pin  # the pin, with every matrix release listed (in memory)
    ws: Workspace
    out: Path  # out/matrix
    budget: int
    seed: int
    skip: frozenset[str] = frozenset()
    toolkit: str = ""  # digest of the toolkit's code, part of the result cache key
    fresh: bool = False  # ignore cached results (they are still rewritten)
    design: Design = DESIGNS[DEFAULT]  # the design of the committed series
    source: FetchOptions | None = None  # a git ref's or a clone's fetch options (None: PyPI)
    # What a drifted release's chunks must equal: the series' own patched tree, built once.
    reference: Callable[[], upstream_fix.Reference] = lambda: _no_reference()

    def folder(self, version: str) -> Path:
        return self.out / "releases" / version


def _no_reference() -> upstream_fix.Reference:
    raise ToolkitError("no reference tree to judge a drifted release against")


def once(make: Callable[[], upstream_fix.Reference]) -> Callable[[], upstream_fix.Reference]:
    """``make``, called at most once however many threads ask (its result kept)."""
    lock, made = threading.Lock(), functools.cache(make)

    def get() -> upstream_fix.Reference:
        with lock:
            return made()

    return get


def new_row(candidate: ReleaseCandidate, ctx: Context) -> Row:
    release = candidate.release
    return Row(
        version=release.version,
        sha256=release.sha256,
        trust=candidate.trust,
        newest=candidate.newest,
        pinned=release.version == ctx.pin.version and ctx.source is None,
        note=candidate.note,
    )


def prepare(
    candidate: ReleaseCandidate, ctx: Context, step: Callable[[str], None]
) -> tuple[Row, Checkout]:
    """Fetch, the release's own series (made and proved once), the committed one's ``git am``."""
    release = candidate.release
    row = new_row(candidate, ctx)
    step("fetching")
    # The user's clone is only read; a git ref is fetched into vendor/.
    options = dataclasses.replace(ctx.source or FetchOptions(), version=release.version)
    with locked(ctx.pin, options, ctx.ws) as checkout:
        pass
    step("git am: the committed series")
    row = replace(row, committed_am=am_check(checkout, ctx.ws.patches, ctx.ws.scratch))
    step("codemods + format + export + git am proof")
    patches = ctx.folder(release.version) / "patches"
    row = _series(checkout, ctx, patches, row)
    if not row.series_sha256:  # nothing exported this time: no older series may linger
        files.remove_tree(patches)
    return row, checkout


def _series(checkout: Checkout, ctx: Context, patches: Path, row: Row) -> Row:
    """This release's own series into ``patches``; ``row`` with its series columns."""
    try:
        report = export_series(checkout, ctx.pin, ctx.ws, patches, ctx.design)
    except SeriesFailed as exc:
        # A candidate upstream fix is judged by a run (its interpreter is built only then).
        python = functools.partial(envs.release_python, row.version, ctx.ws.runtimes)
        log = ctx.folder(row.version) / "judge.log"
        upstream_fix.settle(exc.report, checkout, python, ctx.ws, log, ctx.reference)
        return _not_exported(replace(row, outcomes=outcome_rows(exc.report)), exc)
    except ToolkitError as exc:  # a tool or the checkout failed, not the series
        return _set(row, "error", str(exc), _NONE, _NONE)
    row = replace(row, outcomes=outcome_rows(report))
    if report.result.not_applicable:
        none = Check(stages.NA, "nothing to export")
        not_here = Check(stages.NA, "the series does not apply here")
        return _set(row, "not-applicable", report.outcomes[0].detail, none, not_here)
    if not report.patches:
        merged = "the series is merged upstream: every target is already applied"
        none = Check(stages.NA, "every target already applied at the base: nothing to export")
        return _set(row, "already-applied", merged, none, Check(stages.NA, "no change to check"))
    seconds = report.timings.get("git am check", 0.0)
    row = replace(row, series_sha256=series.series_digest(patches))
    return _set(row, "applied", "", Check(stages.PASS, "applies and reverses", seconds))


_NONE = Check(stages.NOT_RUN, "no series exported")


def _set(row: Row, status: str, detail: str, own_am: Check, checks: Check | None = None) -> Row:
    """``row`` with its series column, its own ``git am`` and (if given) both checks."""
    more = {"test_upstream": checks, "verify": checks} if checks else {}
    return replace(row, series=status, series_detail=detail, own_am=own_am, **more)


def _not_exported(row: Row, exc: SeriesFailed) -> Row:
    if exc.proof:  # every target applied, but the export fails git am: the column says so
        failed = Check(stages.FAIL, exc.proof, exc.report.timings.get("git am check", 0.0))
        return _set(row, "applied", str(exc), failed, _NONE)
    if exc.report.result.fixed_upstream:
        upstream = Check(stages.NA, "the fix is already upstream")
        none = Check(stages.NA, "the fix is already upstream: nothing to export")
        return _set(row, FIXED_UPSTREAM, exc.report.result.upstream_fix, none, upstream)
    if not exc.report.result.ok:
        drifted = Check(stages.NOT_RUN, "series drifted: nothing exported")
        row = replace(row, problems=exc.report.result.problems())
        return _set(row, "drifted", "; ".join(row.problems), drifted, drifted)
    return _set(row, "error", str(exc), _NONE, _NONE)  # made, but upstream's checks refuse it


def outcome_rows(report: ApplyReport) -> list[dict[str, str]]:
    steps = [f"{o.target.path}::{o.target.qualname}" for o in report.outcomes]
    return [
        {"target": t, "status": str(o.status), "detail": o.detail}
        for t, o in zip(steps, report.outcomes, strict=True)
    ]


def am_check(checkout: Checkout, patches_dir: Path, scratch: Path) -> Check:
    """The committed series' ``git am`` column: applies to a fresh copy of the base, reverses."""
    start = time.perf_counter()
    patches = [patches_dir / n for n in series.names(patches_dir)]
    with files.owned_dir(scratch, "am-") as tmp:
        problem = am_problem(checkout, patches, tmp / "am")
    status, detail = (stages.FAIL, problem) if problem else (stages.PASS, "applies and reverses")
    return Check(status, detail, time.perf_counter() - start)


def check(row: Row, ctx: Context, checkout: Checkout, python: Path | None, screen: Console) -> Row:
    """CPU test-upstream, then quick verify, on this release's own series (cached): ``row``
    with their columns."""
    folder = ctx.folder(row.version)
    cache_file = folder / "checks.json"
    parts = {  # a result is reused only for the same wheel, series, code and interpreter
        "wheel_sha256": row.sha256,
        "series_sha256": row.series_sha256,
        "toolkit": ctx.toolkit,
        "budget": ctx.budget,
        "seed": ctx.seed,
        "python": sys.version,
        "interpreter": str(python),
    }
    key = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()
    try:
        saved = {} if ctx.fresh else json.loads(cache_file.read_text())
    except (OSError, json.JSONDecodeError):
        saved = {}
    cached = saved.get("checks", {}) if saved.get("key") == key else {}
    ran: dict[str, dict[str, Any]] = {}
    got: dict[str, Check] = {}
    for stage in stages.STAGES:
        attr = stage.replace("-", "_")
        if stage in ctx.skip:
            got[attr] = Check(stages.SKIPPED, f"--skip {stage}: not run")
        elif python is None:  # the runtime env failed: the error _run_all gave the row
            got[attr] = getattr(row, attr)
        elif stage in cached:
            got[attr] = Check(**cached[stage], cached=True)
        else:
            what = "CPU tier" if stage == "test-upstream" else f"budget {ctx.budget}"
            screen.print(f"{stage} ({what})")
            where = (checkout, folder / "patches", folder, ctx.ws.trees, python)
            job = stages.CheckJob(*where, ctx.budget, ctx.seed, alternative=False)
            got[attr] = done = stages.run_check(stage, job, screen)[0]
            # An error is not kept: the next run retries.
            if done.status in (stages.PASS, stages.FAIL):
                ran[stage] = {k: v for k, v in dataclasses.asdict(done).items() if k != "cached"}
    if ran:
        folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"key": key, "checks": {**cached, **ran}}, indent=2)
        files.write_atomic(cache_file, text + "\n")
    return replace(row, **got)


def toolkit_digest() -> str:
    """sha256 over the toolkit's code: a cached result is reused only for the same code."""
    digest = hashlib.sha256()
    for root in (TOOLKIT / "codemods", TOOLKIT / "dynpatch"):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
