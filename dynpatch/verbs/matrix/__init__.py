"""``python -m dynpatch matrix``: the series on many dynamo releases, a row and a thread each:
fetch and series (three at once), then its checks (``--jobs`` at once, a child process each)."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from dynpatch import console, releases, series
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.fetch import FetchOptions
from dynpatch.io import git as gitio
from dynpatch.pin import Pin, load_pin
from dynpatch.results import StageResult
from dynpatch.services import checks as stages
from dynpatch.services import formatters as formatting
from dynpatch.services import runtimes, upstream_fix
from dynpatch.verbs.matrix import release, report
from dynpatch.workspace import Workspace

QUICK_BUDGET = 10  # hypothesis streams per release: "quick verify" (plus the named ones)
DEFAULT_SEED = 0  # fixed, so a row is reproducible and its cached result meaningful


@dataclass(frozen=True, kw_only=True)
class MatrixOptions(FetchOptions):
    # The fetch options: --source git or path gives one row, that ref or clone as a release.
    versions: str | None = None  # comma-separated (None: the pin's [matrix])
    newest: bool | None = None  # add the newest build on PyPI (None: the pin's [matrix])
    budget: int = QUICK_BUDGET
    seed: int = DEFAULT_SEED
    # A heavy job is one busy child process: more than the cores slows every release down.
    jobs: int = field(default_factory=lambda: max(1, min(2, os.cpu_count() or 1)))
    skip: list[str] = field(default_factory=list)
    fresh: bool = False  # ignore cached test and verify results
    out: Path | None = None  # None: out/matrix


def run(args: MatrixOptions, ws: Workspace) -> StageResult:
    start = time.perf_counter()
    if args.jobs < 1:
        raise ToolkitError("--jobs must be 1 or more")
    if args.budget < 0:
        raise ToolkitError(f"--budget must be 0 or more, not {args.budget}")
    pin = load_pin(ws.pin)
    series.names(ws.patches)  # the committed series must be there
    candidates = [_one_source(args, pin, ws)] if args.source != "pypi" else _pypi(args, pin, ws)
    if not candidates:
        raise ToolkitError("no releases to run: the pin's [matrix] lists none")
    out = args.out or ws.stage.matrix
    out.mkdir(parents=True, exist_ok=True)
    # Built once here: the threads would otherwise race to create the same formatter env.
    formatting.tools_python(ws)
    # The pin (in memory only) that also lists the trust-on-first-use releases.
    listed = {c.release.version: c.release for c in candidates} | pin.releases
    ctx = release.Context(
        pin=dataclasses.replace(pin, releases=listed),
        ws=ws,
        out=out,
        budget=args.budget,
        seed=args.seed,
        skip=frozenset(args.skip),
        toolkit=release.toolkit_digest(),
        fresh=args.fresh,
        design=series.design_of(ws.patches),
        source=args if args.source != "pypi" else None,
        reference=release.once(lambda: upstream_fix.reference(pin, ws)),
    )
    rows = _run_all(candidates, ctx, args.jobs)
    total = time.perf_counter() - start
    bad = [r.version for r in rows if not r.ok]
    summary = (
        f"{report.tally(rows)}; {report.verdict(rows, args.skip)}; "
        f"wall time {total:.0f} s with --jobs {args.jobs}"
    )
    meta = {
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "pinned": pin.version,
        "toolkit": ctx.toolkit,
        "committed_series_sha256": series.series_digest(ws.patches),
        "budget": args.budget,
        "seed": args.seed,
        "seconds": round(total, 1),
        "ok": not bad,
        "summary": summary,
    }
    return StageResult(not bad, tuple(report.show(rows, meta, out)))


def _one_source(args: MatrixOptions, pin: Pin, ws: Workspace) -> releases.ReleaseCandidate:
    """The one row of ``--source git`` or ``path``, run with ``--version``'s runtime."""
    if args.versions or args.newest:
        raise ToolkitError(
            f"--source {args.source} gives one row, of its ref or clone: --versions and "
            "--newest are for the releases on PyPI"
        )
    release = releases.lookup(pin, args.version or pin.version, ws.wheels, ws.tofu, download=False)
    if args.source == "git":
        where = f"git {gitio.redact(args.url or pin.url)} at {args.ref or release.tag}"
        label = f"git {args.ref or release.tag}"
    else:
        where, label = f"the clone {console.rel(args.path or Path('?'))}", "path"
    note = f"{where}, with ai-dynamo-runtime {release.version}"
    return releases.ReleaseCandidate(release, label, note=note)


def _pypi(args: MatrixOptions, pin: Pin, ws: Workspace) -> list[releases.ReleaseCandidate]:
    """The rows of ``--versions`` (else the pin's [matrix]) and, if asked, of PyPI's newest."""
    if args.version:  # cli.py gives every fetching verb --version; here it names no row
        raise ToolkitError(
            "--version is the runtime's release beside --source git or path; the releases on "
            "PyPI are --versions"
        )
    versions = [v.strip() for v in args.versions.split(",")] if args.versions else pin.matrix
    rows = {v: releases.ReleaseCandidate(pin.release(v), releases.PINNED) for v in versions}
    if args.newest or (args.newest is None and pin.matrix_newest):
        with err.status("asking PyPI for the newest ai-dynamo wheel ..."):
            try:
                found = releases.newest(pin, ws.wheels, ws.tofu)
            except ToolkitError as exc:
                raise ToolkitError(f"{exc} (--no-newest runs the pinned releases only)") from None
        rows[found.release.version] = found  # marks the row of its version, else adds one
        err.print(f"newest on PyPI: ai-dynamo {found.release.version}: {found.note}", markup=False)
    return list(rows.values())


class StepScreen(Console):
    """A stage's screen in the matrix: what it shows becomes a progress line of its release
    (live displays of stages on many threads would fight over the terminal)."""

    def __init__(self, step: Callable[[str], None]):
        super().__init__(quiet=True, force_terminal=False)  # no stage starts a live display
        self._step = step

    def status(self, status: Any, *args: Any, **kwargs: Any) -> Any:
        self._step(str(status).rstrip(" ."))
        return contextlib.nullcontext()

    def print(self, *objects: Any, **kwargs: Any) -> None:
        self._step(" ".join(str(o) for o in objects))


def _run_all(
    candidates: list[releases.ReleaseCandidate], ctx: release.Context, jobs: int
) -> list[release.Row]:
    width = max(len(c.release.version) for c in candidates)
    light, heavy = threading.BoundedSemaphore(3), threading.BoundedSemaphore(jobs)

    def one(candidate: releases.ReleaseCandidate) -> release.Row:
        version = candidate.release.version
        t0 = time.perf_counter()

        def step(text: str) -> None:
            line = f"[{time.strftime('%H:%M:%S')}] {version:<{width}}  {text}"
            err.print(line, markup=False, highlight=False)

        with light:
            try:
                row, checkout = release.prepare(candidate, ctx, step)
            except ToolkitError as exc:
                step(f"error: {exc}")
                row = release.new_row(candidate, ctx)
                return dataclasses.replace(row, series="error", series_detail=str(exc))
            python = None
            if row.runnable and set(stages.STAGES) - ctx.skip:
                step(f"runtime env (ai-dynamo-runtime=={version})")
                try:
                    python = runtimes.release_python(version, ctx.ws.runtimes)
                except ToolkitError as exc:
                    none = stages.Check(stages.ERROR, str(exc))
                    row = dataclasses.replace(row, test_upstream=none, verify=none)
        if row.runnable:
            step("waiting for a free core")
            with heavy:
                row = release.check(row, ctx, checkout, python, StepScreen(step))
        row = dataclasses.replace(row, seconds=time.perf_counter() - t0)
        checks = [("own am", row.own_am), ("tests", row.test_upstream), ("verify", row.verify)]
        said = [
            f"{name} {c.status}" + (" (cached)" if c.cached else "")
            for name, c in checks
            if c.status not in (stages.NA, stages.NOT_RUN)
        ]
        step(f"done: {'; '.join([row.series, *said])} ({row.seconds:.0f} s)")
        return row

    with ThreadPoolExecutor(len(candidates)) as pool:
        return list(pool.map(one, candidates))
