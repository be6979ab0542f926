"""``python -m dynpatch matrix``: the series against many dynamo releases, one row each.

Releases run concurrently in two bounded pools: the light part (fetch, codemods,
formatting, ``git am``; network and short processes) for up to ``--fetch-jobs`` releases at
once, the heavy part (dynamo's tests and the replay, each a child process using a core) for
up to ``--jobs``. The checks run in this process (:mod:`.stages`); each one's progress is
its release's line on one board. Fetches, per-release runtimes and check results are
cached: a warm rerun redoes the cheap parts and reuses test and verify verdicts whose
inputs did not change.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from dynpatch import series
from dynpatch.apply import tools as formatting
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.evidence import StageResult
from dynpatch.io import pypi
from dynpatch.matrix import release, releases, report, stages
from dynpatch.pin import Pin, load_pin
from dynpatch.workspace import Workspace

QUICK_BUDGET = 10  # hypothesis streams per release: "quick verify" (plus the named ones)
DEFAULT_SEED = 0  # fixed, so a row is reproducible and its cached result meaningful


def default_jobs() -> int:
    # Each heavy job is one busy child process at a time; more than the cores only slows
    # every release down (and the timings in the table with it).
    return max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True, kw_only=True)
class MatrixOptions:
    versions: str | None = None  # comma-separated (None: the pin's [matrix])
    # every release the pin lists, and every wheel on PyPI from [matrix] all_from on
    all: bool = False
    newest: bool | None = None  # add the newest build on PyPI (None: the pin's [matrix])
    budget: int = QUICK_BUDGET
    seed: int = DEFAULT_SEED
    jobs: int = field(default_factory=lambda: default_jobs())
    fetch_jobs: int = 3
    skip: list[str] = field(default_factory=list)
    fresh: bool = False  # ignore cached test and verify results
    out: Path | None = None  # None: out/matrix
    list_json: bool = False  # print the versions it would check (JSON), run nothing


def run(args: MatrixOptions, ws: Workspace) -> StageResult:
    start = time.perf_counter()
    for name in ("jobs", "fetch_jobs"):
        if getattr(args, name) < 1:
            raise ToolkitError(f"--{name.replace('_', '-')} must be 1 or more")
    if args.budget < 0:
        raise ToolkitError(f"--budget must be 0 or more, not {args.budget}")
    pin = load_pin(ws.pin)
    versions = _versions(args, pin)
    listed = _on_index(pin) if args.all else {}
    if listed:
        versions = sorted({*versions, *listed}, key=releases.version_key)
    # "newest" in --versions is the entry --list-json prints for the build found at run time.
    asked = "newest" in [v.strip() for v in (args.versions or "").split(",")]
    want_newest = asked or (pin.matrix_newest if args.newest is None else args.newest)
    if args.list_json:  # for a CI fan-out: one job per entry ("newest": found at run time)
        listing = [*versions, *(["newest"] if want_newest else [])]
        if not listing:
            raise ToolkitError("no releases to list: the pin's [matrix] names none")
        return StageResult(shown=[json.dumps(listing)])
    series.names(ws.patches)  # the committed series must be there
    tofu = ws.tofu
    found = {c.release.version: c for c in releases.indexed(pin, listed, tofu)}
    candidates = [found.get(v) or releases.pinned(pin, [v])[0] for v in versions]
    if want_newest:
        with err.status("asking PyPI for the newest ai-dynamo wheel ..."):
            try:
                found = releases.newest(pin, ws.wheels, tofu)
            except ToolkitError as exc:
                raise ToolkitError(f"{exc} (--no-newest runs the pinned releases only)") from None
        candidates = _with_newest(candidates, found)
        err.print(f"newest on PyPI: ai-dynamo {found.release.version}: {found.note}", markup=False)
    if not candidates:
        raise ToolkitError("no releases to run: the pin's [matrix] lists none")
    out = args.out or ws.out / "matrix"
    out.mkdir(parents=True, exist_ok=True)
    # Built once here: the pools would otherwise race to create the same formatter env.
    formatting.tools_python(ws.cache)
    ctx = release.Context(
        pin=releases.with_candidates(pin, candidates),
        ws=ws,
        out=out,
        budget=args.budget,
        seed=args.seed,
        skip=frozenset(args.skip),
        toolkit=release.toolkit_digest(),
        fresh=args.fresh,
    )
    rows = _run_all(candidates, ctx, args, err)
    total = time.perf_counter() - start

    pinned_version = pin.version
    bad = [r.version for r in rows if not r.ok]
    summary = (
        f"{report.tally(rows)}; {report.verdict(rows, args.skip)}; "
        f"wall time {total:.0f} s with --jobs {args.jobs}"
    )
    meta = {
        "created": report.now(),
        "pinned": pinned_version,
        "toolkit": release.toolkit_digest(),
        "committed_series_sha256": series.series_digest(ws.patches),
        "budget": args.budget,
        "seed": args.seed,
        "jobs": args.jobs,
        "seconds": round(total, 1),
        "ok": not bad,
        "summary": summary,
    }
    return StageResult(not bad, report.show(rows, meta, out, summary))


def _versions(args: MatrixOptions, pin: Pin) -> list[str]:
    if args.all and args.versions:
        raise ToolkitError("--all and --versions exclude each other")
    if args.all:
        return sorted(pin.releases, key=releases.version_key)
    if args.versions:
        versions = [v.strip() for v in args.versions.split(",") if v.strip() not in ("", "newest")]
    else:
        versions = list(pin.matrix)
    unknown = [v for v in versions if v not in pin.releases]
    if unknown:
        known = ", ".join(sorted(pin.releases, key=releases.version_key))
        raise ToolkitError(
            f'unknown version {unknown[0]}: {pin.path.name} has no [releases."{unknown[0]}"] '
            f"entry with its wheel sha256 (known: {known})"
        )
    return list(dict.fromkeys(versions))


def _on_index(pin: Pin) -> dict[str, str]:
    """``--all``: the wheels PyPI lists from the pin's ``[matrix] all_from`` on (none
    asked for when the pin names no ``all_from``)."""
    if not pin.matrix_all_from:
        return {}
    with err.status(f"asking PyPI for every {pin.package} wheel ..."):
        listing = pypi.list_wheels(pin.package)
    return releases.on_index(pin, listing, pin.matrix_all_from)


def _with_newest(
    candidates: list[releases.ReleaseCandidate], found: releases.ReleaseCandidate
) -> list[releases.ReleaseCandidate]:
    for i, c in enumerate(candidates):
        if c.release.version == found.release.version:
            candidates = list(candidates)
            candidates[i] = found
            return candidates
    return [*candidates, found]


class BoardLine(Console):
    """A stage's screen in the matrix: what it shows becomes its release's board line
    (one live display for the whole run; the stages' own would fight over the terminal)."""

    def __init__(self, step: Callable[[str], None]):
        super().__init__(quiet=True)
        self._step = step

    @property
    def is_terminal(self) -> bool:  # so no stage starts a live display of its own
        return False

    def status(self, status: Any, *args: Any, **kwargs: Any) -> Any:
        self._step(str(status).rstrip(" ."))
        return contextlib.nullcontext()

    def print(self, *objects: Any, **kwargs: Any) -> None:
        self._step(" ".join(str(o) for o in objects))


class Board:
    """Progress, one line per release: a live display on a terminal, plain lines in logs."""

    def __init__(self, screen: Console, versions: list[str]):
        self.console = screen
        self.live = screen.is_terminal
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=screen,
            disable=not self.live,
        )
        self.tasks: dict[str, TaskID] = {}
        self.width = max(len(v) for v in versions)
        self._lock = threading.Lock()
        self._versions = versions

    def __enter__(self) -> Board:
        self.progress.__enter__()
        for v in self._versions:
            self.tasks[v] = self.progress.add_task(f"{v:<{self.width}}  waiting", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)

    def step(self, version: str, text: str) -> None:
        line = f"{version:<{self.width}}  {text}"
        self.progress.update(self.tasks[version], description=line)
        if not self.live:
            with self._lock:
                self.console.print(f"[{time.strftime('%H:%M:%S')}] {line}", markup=False)

    def done(self, version: str, text: str) -> None:
        self.step(version, text)
        self.progress.update(self.tasks[version], total=1, completed=1)


def _run_all(
    candidates: list[releases.ReleaseCandidate],
    ctx: release.Context,
    args: MatrixOptions,
    screen: Console,
) -> list[release.Row]:
    versions = [c.release.version for c in candidates]
    light = threading.BoundedSemaphore(args.fetch_jobs)
    heavy = threading.BoundedSemaphore(args.jobs)

    def one(candidate: releases.ReleaseCandidate) -> release.Row:
        version = candidate.release.version
        t0 = time.perf_counter()

        def step(text: str) -> None:
            board.step(version, text)

        with light:
            try:
                row, checkout = release.prepare(candidate, ctx, step)
            except ToolkitError as exc:
                row = release.new_row(candidate, ctx)
                row.series, row.series_detail = "error", str(exc)
                board.done(version, f"error: {exc}")
                return row
            python = None
            if row.runnable and set(stages.STAGES) - ctx.skip:
                step(f"runtime env (ai-dynamo-runtime=={version})")
                try:
                    python = release.release_python(ctx, version)
                except ToolkitError as exc:
                    row.test_upstream = row.verify = stages.Check(stages.ERROR, str(exc))
        if row.runnable:
            step("waiting for a free core")
            with heavy:
                release.check(row, ctx, checkout, python, BoardLine(step))
        row.timings["total"] = time.perf_counter() - t0
        board.done(version, _done_text(row))
        return row

    with Board(screen, versions) as board, ThreadPoolExecutor(len(candidates)) as pool:
        return list(pool.map(one, candidates))


def _done_text(row: release.Row) -> str:
    checks = ", ".join(
        f"{name} {c.status}" + (" (cached)" if c.cached else "")
        for name, c in (
            ("own am", row.own_am),
            ("tests", row.test_upstream),
            ("verify", row.verify),
        )
        if c.status not in (stages.NA, stages.NOT_RUN)
    )
    return (
        f"done: {row.series}"
        + (f"; {checks}" if checks else "")
        + (f" ({row.timings.get('total', 0):.0f} s)")
    )
