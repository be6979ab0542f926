"""One release through the series: fetch, codemods, export, ``git am`` checks, then the
CPU test-upstream and quick verify stages as child processes.

The light part (:func:`prepare`) writes only under the release's own folder in
``out/matrix/``: the checkout is cloned before the series is committed, so no shared work
branch moves. The heavy part (:func:`check`) runs the real stages with that release's
series (``--patches``), a derived pin, and evidence and logs under the same folder, so the
pinned release's ``out/evidence/`` records are never overwritten.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from codemods import logprobs_helper, shape
from codemods.outcome import Status
from codemods.series import SERIES, run_series
from dynpatch import console, evidence
from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout, fetch
from dynpatch.io import files, proc
from dynpatch.io import git as gitio
from dynpatch.patch.apply import apply_series, read_at, series_names
from dynpatch.pin import ROOT, Pin
from dynpatch.releases.matrix import releases
from dynpatch.releases.matrix.releases import Candidate

PASS, FAIL, ERROR, NA, NOT_RUN, SKIPPED = "pass", "fail", "error", "n/a", "not run", "skipped"
UNSUPPORTED = "unsupported"  # an error the pin declares expected (see Pin.matrix_verify_from)
STAGES = ("test-upstream", "verify")


@dataclass
class Check:
    status: str  # PASS, FAIL, ERROR, NA, NOT_RUN, SKIPPED or UNSUPPORTED
    detail: str = ""
    seconds: float = 0.0
    cached: bool = False

    @property
    def bad(self) -> bool:
        return self.status in (FAIL, ERROR)


@dataclass
class Row:
    version: str
    sha256: str
    trust: str  # "pinned" or "trust-on-first-use"
    newest: bool = False
    pinned: bool = False  # the release patches/ is made against
    note: str = ""
    # one per series step: {"target", "status", "detail"}
    outcomes: list[dict[str, str]] = field(default_factory=list)
    series: str = NOT_RUN  # applied | already-applied | not-applicable | drifted | error
    series_detail: str = ""
    problems: list[str] = field(default_factory=list)  # why the series cannot be written
    guard: str = ""  # the helper's first bail-out, as found in this release
    series_sha256: str = ""  # of this release's regenerated series
    own_am: Check = field(default_factory=lambda: Check(NOT_RUN))
    committed_am: Check = field(default_factory=lambda: Check(NOT_RUN))
    test_upstream: Check = field(default_factory=lambda: Check(NOT_RUN))
    verify: Check = field(default_factory=lambda: Check(NOT_RUN))
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """No drift, no failed or broken check (a reasoned n/a is fine). The committed
        series not applying to *another* release is a finding, not a failure; to the
        pinned release it must apply."""
        checks = [self.own_am, self.test_upstream, self.verify]
        if self.pinned:
            checks.append(self.committed_am)
        good = ("applied", "already-applied", "not-applicable")
        return self.series in good and not any(c.bad for c in checks)

    @property
    def runnable(self) -> bool:
        """The release has its own exported series to check further."""
        return self.series == "applied" and self.own_am.status == PASS

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Context:
    pin: Pin  # the derived pin (lists every matrix release)
    vendor: Path
    out: Path  # out/matrix
    committed: Path  # the committed series (patches/)
    budget: int
    seed: int
    skip: frozenset[str] = frozenset()
    toolkit: str = ""  # digest of the toolkit's code, part of the result cache key
    fresh: bool = False  # ignore cached results (they are still rewritten)

    def folder(self, version: str) -> Path:
        return self.out / "releases" / version


Step = Callable[[str], None]  # progress: "what the release is doing now"


def new_row(candidate: Candidate, ctx: Context) -> Row:
    release = candidate.release
    return Row(
        version=release.version,
        sha256=release.sha256,
        trust=candidate.trust,
        newest=candidate.newest,
        pinned=release.version == ctx.pin.version,
        note=candidate.note,
    )


def prepare(candidate: Candidate, ctx: Context, step: Step) -> Row:
    """Fetch, codemods, export and both ``git am`` checks for one release."""
    release = candidate.release
    row = new_row(candidate, ctx)
    clock = time.perf_counter()
    step("fetching")
    checkout = fetch(ctx.pin, version=release.version, vendor=ctx.vendor)
    row.timings["fetch"] = time.perf_counter() - clock

    clock = time.perf_counter()
    step("codemods")
    result = run_series(lambda path: read_at(checkout.path, checkout.base, path))
    row.outcomes = [
        {"target": f"{o.target.path}::{o.target.qualname}", "status": str(o.status),
         "detail": o.detail}
        for o in result.outcomes
    ]  # fmt: skip
    row.guard = helper_guard(read_at(checkout.path, checkout.base, logprobs_helper.TARGET.path))
    step("git am: the committed series")
    row.committed_am = am_check(checkout, ctx.committed, "committed")
    folder = ctx.folder(release.version)
    if result.not_applicable:
        row.series, row.series_detail = "not-applicable", result.outcomes[0].detail
        row.own_am = Check(NA, "nothing to export")
        row.test_upstream = row.verify = Check(NA, "the series does not apply here")
    elif not result.ok:
        row.problems = result.problems()
        row.series, row.series_detail = "drifted", "; ".join(row.problems)
        reason = "series drifted: nothing exported"
        row.own_am = row.test_upstream = row.verify = Check(NOT_RUN, reason)
    else:
        step("format + export + git am proof")
        _export(checkout, ctx, folder / "patches", row)
    if not row.series_sha256:  # nothing exported this time: no older series may linger
        shutil.rmtree(folder / "patches", ignore_errors=True)
    row.timings["series"] = time.perf_counter() - clock
    return row


def _export(checkout: Checkout, ctx: Context, patches: Path, row: Row) -> None:
    """This release's own series, regenerated into ``patches`` from a throwaway clone
    (``apply_series`` commits on its work branch; the shared checkout stays as it is)."""
    with tempfile.TemporaryDirectory(prefix="dynpatch-matrix-") as tmp:
        clone = Path(tmp) / "clone"
        gitio.clone_at(checkout.path, checkout.base, clone)
        try:
            report = apply_series(
                dataclasses.replace(checkout, path=clone),
                author=gitio.parse_identity(ctx.pin.author),
                date=ctx.pin.date,
                branch=ctx.pin.branch,
                vendor=ctx.vendor,
                patches_dir=patches,
            )
        except ToolkitError as exc:
            row.series, row.series_detail = "error", str(exc)
            row.own_am = row.test_upstream = row.verify = Check(NOT_RUN, "no series exported")
            if "does not apply with git am" in str(exc):
                row.series = "applied"
                row.own_am = Check(FAIL, str(exc))
            return
    if not report.patches:
        row.series = "already-applied"
        row.own_am = Check(NA, "every target already applied at the base: nothing to export")
        row.test_upstream = row.verify = Check(NA, "no change to check")
        return
    row.series = "applied"
    row.series_sha256 = evidence.series_digest(patches)
    # apply_series has just proved this (git am onto a fresh base, then reverse);
    # proved again here from the exported files, so the column states what it shows.
    row.own_am = am_check(checkout, patches, "own")


def am_check(checkout: Checkout, patches_dir: Path, which: str) -> Check:
    """``git am`` of ``patches_dir`` onto a fresh clone of the release's base, then a
    reverse apply of the result: the two ``git am`` columns."""
    start = time.perf_counter()
    names = series_names(patches_dir)
    patches = [patches_dir / n for n in names]
    with tempfile.TemporaryDirectory(prefix=f"dynpatch-am-{which}-") as tmp:
        scratch = Path(tmp) / "am"
        gitio.clone_at(checkout.path, checkout.base, scratch)
        try:
            gitio.am(scratch, patches)
        except ToolkitError:
            return Check(FAIL, _apply_failure(scratch, patches), time.perf_counter() - start)
        try:
            gitio.reverse_applies(scratch, patches)
        except ToolkitError as exc:
            return Check(FAIL, f"applies but does not reverse: {exc}", time.perf_counter() - start)
    return Check(PASS, "applies and reverses", time.perf_counter() - start)


def _apply_failure(repo: Path, patches: list[Path]) -> str:
    """Which hunk's file does not apply (git am's own last line only names the patch)."""
    for patch in patches:
        try:
            gitio.git_cmd(repo, "apply", "--check", str(patch))
        except ToolkitError as exc:
            detail = str(exc).split(": ", 1)[-1]
            detail = detail.split(f"{repo}: ", 1)[-1]
            return f"{patch.name}: {detail}"
    return "git am failed (each patch applies alone: an ordering problem)"


def helper_guard(source: str | None) -> str:
    """The helper's first bail-out condition (``is None`` on 1.3-1.4, ``not getattr`` from
    1.5), shown so the table says which shape each release had."""
    if source is None:
        return "-"
    try:
        fn = shape.find_function(cst.parse_module(source), logprobs_helper.TARGET.qualname)
    except cst.ParserSyntaxError:
        return "does not parse"
    if fn is None:
        return "-"
    for stmt in fn.body.body:
        if isinstance(stmt, cst.If):
            return shape.one_line(stmt.test, 60)
    return "no if statement"


# --- heavy part: the stages, as children --------------------------------------------


def check(row: Row, ctx: Context, python: Path | None, step: Step) -> None:
    """CPU test-upstream, then quick verify, on this release's own series (cached)."""
    folder = ctx.folder(row.version)
    cache_file = folder / "checks.json"
    key = _cache_key(row, ctx, python)
    cached = {} if ctx.fresh else _load_cache(cache_file, key)
    for stage in STAGES:
        attr = stage.replace("-", "_")
        if stage in ctx.skip:
            setattr(row, attr, Check(SKIPPED, f"--skip {stage}: not run"))
            continue
        if python is None:
            setattr(row, attr, Check(ERROR, "no interpreter with this release's runtime"))
            continue
        if stage in cached:
            setattr(row, attr, Check(**{**cached[stage], "cached": True}))
            continue
        step(f"{stage} ({'CPU tier' if stage == 'test-upstream' else f'budget {ctx.budget}'})")
        setattr(
            row, attr, declared(stage, row.version, ctx.pin, run_stage(stage, row, ctx, python))
        )
    results = {
        s: dataclasses.asdict(getattr(row, s.replace("-", "_")))
        for s in STAGES
        if getattr(row, s.replace("-", "_")).status in (PASS, FAIL, UNSUPPORTED)
        and not getattr(row, s.replace("-", "_")).cached
    }
    if results:
        keep = {**cached, **results}
        for value in keep.values():
            value.pop("cached", None)
        folder.mkdir(parents=True, exist_ok=True)
        files.write_atomic(cache_file, json.dumps({"key": key, "checks": keep}, indent=2) + "\n")


def declared(stage: str, version: str, pin: Pin, result: Check) -> Check:
    """An error of verify on a release the pin declares beyond the replay's reach becomes
    UNSUPPORTED (the error text kept). A failure (a divergence) is never softened."""
    limit = pin.matrix_verify_from
    if stage != "verify" or result.status != ERROR or not limit:
        return result
    if releases.version_key(version) >= releases.version_key(limit):
        return result
    why = f"declared: the pin's [matrix] verify_from = {limit!r}; the replay said: "
    return dataclasses.replace(result, status=UNSUPPORTED, detail=why + result.detail)


def stage_command(
    stage: str, pin_path: Path, vendor: Path, version: str, patches: Path, folder: Path,
    python: Path, budget: int, seed: int,
) -> list[str]:  # fmt: skip
    """``python -m dynpatch <stage>`` on one release's series, writing only under
    ``folder`` (its evidence records too)."""
    cmd = [
        sys.executable, "-m", "dynpatch", stage,
        "--pin", str(pin_path), "--vendor", str(vendor), "--version", version,
        "--patches", str(patches), "--python", str(python),
        "--out", str(folder / stage), "--evidence", str(folder / "evidence"),
    ]  # fmt: skip
    if stage == "test-upstream":
        cmd += ["--tier", "cpu"]
    else:
        cmd += ["--budget", str(budget), "--seed", str(seed)]
    return cmd


def run_stage(stage: str, row: Row, ctx: Context, python: Path) -> Check:
    folder = ctx.folder(row.version)
    patches = folder / "patches"
    cmd = stage_command(
        stage, ctx.pin.path, ctx.vendor, row.version, patches, folder, python, ctx.budget, ctx.seed
    )
    return run_stage_command(stage, cmd, folder, patches)


def run_stage_command(stage: str, cmd: list[str], folder: Path, patches: Path) -> Check:
    """Run one stage child; its verdict from the exit status and its evidence record."""
    record_path = folder / "evidence" / f"{stage}.json"
    record_path.unlink(missing_ok=True)  # what is read back must come from this run
    log = folder / f"{stage}.log"
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    child = proc.run(cmd, doing=stage, timeout=3600, cwd=ROOT, allow_timeout=True)
    if child.timed_out:
        return Check(ERROR, f"did not finish in 3600 s (log: {log})", time.perf_counter() - start)
    seconds = time.perf_counter() - start
    log.write_text(f"$ {' '.join(cmd)}\n{child.stdout}\n--- stderr\n{child.stderr}")
    errors = [
        ln.removeprefix("error: ") for ln in child.stderr.splitlines() if ln.startswith("error: ")
    ]
    if child.returncode not in (0, 1):
        what = errors[-1] if errors else f"exit {child.returncode}"
        return Check(ERROR, f"{what} (log: {console.rel(log)})", seconds)
    if not record_path.is_file():
        return Check(
            ERROR, f"exit {child.returncode} but no evidence record ({console.rel(log)})", seconds
        )
    record = json.loads(record_path.read_text())
    if not evidence.is_current(record, patches):
        return Check(ERROR, f"evidence record is for another series ({console.rel(log)})", seconds)
    verdict = record["verdict"]
    if (verdict == "pass") != (child.returncode == 0):
        return Check(
            ERROR, f"exit {child.returncode} but verdict {verdict} ({console.rel(log)})", seconds
        )
    summary = (_test_summary if stage == "test-upstream" else _verify_summary)(record["details"])
    return Check(PASS if verdict == "pass" else FAIL, summary, seconds)


def _test_summary(details: dict[str, Any]) -> str:
    cpu = details["tiers"]["cpu"]
    base, patched = cpu["baseline"]["counts"], cpu["patched"]["counts"]
    mutation = (cpu.get("mutation") or "no new regression tests ran").split(" (of ")[0]
    text = (
        f"baseline {base.get('passed', 0)} passed of {sum(base.values())}, patched "
        f"{patched.get('passed', 0)} passed of {sum(patched.values())}; {mutation}; "
        f"regressions: {len(cpu['regressions']) or 'none'}"
    )
    if details.get("problems"):
        text += f"; problem: {details['problems'][0]}"
    return text


def _verify_summary(details: dict[str, Any]) -> str:
    scenarios = details["scenarios"]
    diverged = [s["name"] for s in scenarios if s["divergence"]]
    unmet = [s["name"] for s in scenarios if s["unmet"]]
    props = sum(1 for s in scenarios if s["name"].startswith("property-"))
    text = (
        f"{len(scenarios) - props} named + {props} property streams (seed {details['seed']}); "
        f"divergences: {len(diverged) or 'none'}"
    )
    if diverged:
        text += f" ({', '.join(diverged[:3])})"
    if unmet:
        text += f"; expectation not met: {', '.join(unmet[:3])}"
    return text


def toolkit_digest(roots: tuple[Path, ...] = (ROOT / "codemods", ROOT / "dynpatch")) -> str:
    """sha256 over the toolkit's code: a cached result is reused only for the same code."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _cache_key(row: Row, ctx: Context, python: Path | None) -> str:
    parts = {
        "wheel_sha256": row.sha256,
        "series_sha256": row.series_sha256,
        "toolkit": ctx.toolkit,
        "budget": ctx.budget,
        "seed": ctx.seed,
        "python": sys.version,
        "interpreter": str(python),
        # a cached "unsupported" must not outlive the declaration that made it so
        "verify_from": ctx.pin.matrix_verify_from,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _load_cache(path: Path, key: str) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError:
        return {}
    return data.get("checks", {}) if data.get("key") == key else {}


def series_steps() -> list[str]:
    """``file::qualname`` of every step, in series order (the table's target columns)."""
    return [f"{s.target.path}::{s.target.qualname}" for s in SERIES]


__all__ = ["Check", "Context", "Row", "Status", "check", "prepare", "toolkit_digest"]
