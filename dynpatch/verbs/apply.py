"""``python -m dynpatch apply``: fetch -> codemods -> format -> commit -> ``patches/``, and
the pre-commit record; with ``check``, regenerated in a temporary place and compared."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from dynpatch import console, series
from dynpatch.console import err
from dynpatch.designs import DEFAULT, DESIGNS
from dynpatch.errors import ToolkitError
from dynpatch.fetch import FetchOptions, locked, source_options
from dynpatch.io import files
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin
from dynpatch.results import StageResult
from dynpatch.services import precommit
from dynpatch.services.export import SeriesFailed, apply_series
from dynpatch.workspace import Workspace

AUTHOR_ENV = "DYNPATCH_AUTHOR"


@dataclass(frozen=True, kw_only=True)
class ApplyOptions(FetchOptions):
    check: bool = False  # regenerate in a temporary place; fail if patches/ differs
    author: str | None = None  # 'Name <email>' (None: $DYNPATCH_AUTHOR, else the pin's)
    design: str | None = None  # None: patches/' design (the default when there is none)


def run(args: ApplyOptions, ws: Workspace) -> StageResult:
    start = time.perf_counter()
    pin = load_pin(ws.pin)
    author = gitio.parse_identity(args.author or os.environ.get(AUTHOR_ENV) or pin.author)
    if args.version and args.version != pin.version and not args.check:
        raise ToolkitError(
            f"{console.rel(ws.patches)}/ is made against the pin ({pin.version}); apply "
            f"--version {args.version} would rewrite it for another release: move the pin with "
            f"`nox -s bump -- {args.version}` (or `fetch --version {args.version}` for the tree)"
        )
    if args.design is not None and args.design not in DESIGNS:
        raise ToolkitError(f"unknown --design {args.design!r}: one of {', '.join(DESIGNS)}")
    files.refuse_non_folder(ws.patches)  # before the fetch: the swap would refuse it
    # With neither --design nor a series: the first design; a series that names none refuses.
    new = not (ws.patches / series.SERIES_FILE).is_file()
    design = DESIGNS[args.design or DEFAULT] if args.design or new else series.design_of(ws.patches)
    doing = f"fetching ai-dynamo {args.version or pin.version} ({args.source}) ..."
    with err.status(doing) as status, locked(pin, args, ws) as checkout:
        status.stop()
        fetched = time.perf_counter()
        title = f"ai-dynamo {checkout.release.version} ({checkout.source}), design {design.name}"
        try:
            report = apply_series(
                checkout,
                author=author,
                date=pin.date,
                branch=pin.branch,
                ws=ws,
                patches_dir=ws.patches,
                check=args.check,
                force=args.force,
                design=design,
            )
        except SeriesFailed as exc:
            shown = [console.outcome_table(exc.report.outcomes, exc.report.lines, title)]
            if len(exc.findings) > 1:
                shown.append(precommit.findings_table(exc.findings))
            if exc.report.result.drifted:  # apply has no replay to judge it
                judge = source_options(args, checkout.release.version, "matrix")
                shown.append(
                    "upstream may have fixed it its own way; to judge it by running its "
                    f"code: nox -s matrix -- {judge}"
                )
            raise ToolkitError(str(exc), tuple(shown)) from None
    table = console.outcome_table(report.outcomes, report.lines, title)
    if report.result.not_applicable:
        raise ToolkitError(report.result.problems()[0], (table,))
    if not report.patches:
        done = "every target is already applied at the base: no patch to export"
        return StageResult(shown=(table, done))
    where, listed = console.rel(ws.patches), ", ".join(report.patches)
    command = f"{precommit.COMMAND} -- --check" if args.check else precommit.COMMAND
    digest = series.series_digest(ws.patches)
    if args.check:
        said = [f"{where}/ is up to date ({listed})"]
    else:
        wrote = f"wrote {where}/: {', '.join(report.changed_files)}"
        branch = f"work branch {pin.branch} in {console.rel(checkout.path)} at {report.commit[:12]}"
        said = [wrote if report.changed_files else f"{where}/ unchanged ({listed})", branch]
    touched, messages = len(report.hooks[0].checked), len(report.hooks[-1].checked)
    t = report.timings
    said += [
        f"upstream pre-commit: {', '.join(r.hook for r in report.hooks)} pass ({touched} "
        f"files, {messages} commit message{'s' if messages > 1 else ''})",
        f"git am onto a fresh {checkout.release.base_tag}: applies and reverses cleanly. "
        f"codemods {t.get('codemods', 0):.2f} s + format {t.get('format', 0):.2f} s; "
        f"fetch {fetched - start:.2f} s; total {time.perf_counter() - start:.2f} s",
    ]
    record = precommit.record(report.hooks, checkout, digest, command, design.name, report.lines)
    return StageResult(shown=(table, *said), records=(record,))
