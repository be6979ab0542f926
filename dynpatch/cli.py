"""Command line: ``python -m dynpatch <verb>`` (the nox sessions call this).

Every failure the user can cause ends in one ``error: ...`` line on stderr and exit
status 2; nothing is left half-written.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.table import Table

from codemods.outcome import Status
from dynpatch.errors import ToolkitError
from dynpatch.fetch import SOURCES, VENDOR, Checkout, Request, locked
from dynpatch.io import git as gitio
from dynpatch.patch.apply import PATCHES, ApplyReport, SeriesFailed, apply_series
from dynpatch.pin import PIN_FILE, Pin, load_pin

out = Console(highlight=False, soft_wrap=True)
if not out.is_terminal:  # logs and CI: wide enough that tables do not fold
    out = Console(highlight=False, soft_wrap=True, width=120)
err = Console(stderr=True, highlight=False, soft_wrap=True)

_STYLE = {
    Status.APPLIED: "green",
    Status.ALREADY_APPLIED: "cyan",
    Status.NOT_APPLICABLE: "yellow",
    Status.DRIFTED: "bold red",
}


def add_fetch_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("upstream checkout")
    g.add_argument("--source", choices=SOURCES, default="pypi",
                   help="where the pinned tree comes from (default: pypi)")  # fmt: skip
    g.add_argument("--version", help="release to use (default: the pin)")
    g.add_argument("--url", help="git source: repository URL (default: the pin's)")
    g.add_argument("--ref", help="git source: tag or commit (default: the release tag)")
    g.add_argument("--path", type=Path, help="path source: a clean local dynamo clone")
    g.add_argument("--force", action="store_true",
                   help="rebuild a cached checkout, discarding local edits in it")  # fmt: skip
    g.add_argument("--timeout", type=float, default=60.0,
                   help="seconds before an unreachable git remote fails (default: 60)")  # fmt: skip
    g.add_argument("--pin", type=Path, default=PIN_FILE, help=argparse.SUPPRESS)
    g.add_argument("--vendor", type=Path, default=VENDOR, help=argparse.SUPPRESS)


def request_from(args: argparse.Namespace) -> Request:
    return Request(
        source=args.source,
        version=args.version,
        url=args.url,
        ref=args.ref,
        path=args.path,
        force=args.force,
        vendor=args.vendor,
        timeout=args.timeout,
    )


def checkout_from(args: argparse.Namespace) -> tuple[Pin, Checkout]:
    """The pin and the checkout the fetch options ask for (materialised or re-verified)."""
    pin = load_pin(args.pin)
    doing = f"fetching ai-dynamo {args.version or pin.version} ({args.source}) ..."
    with err.status(doing), locked(pin, request_from(args)) as checkout:
        return pin, checkout


def cmd_fetch(args: argparse.Namespace) -> int:
    _pin, checkout = checkout_from(args)
    out.print(f"checkout: {_rel(checkout.path)}")
    out.print(
        f"base:     {checkout.base} ({checkout.source}, ai-dynamo {checkout.release.version})"
    )
    for line in checkout.provenance:
        out.print(f"          {line.strip()}")
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    pin = load_pin(args.pin)
    author = gitio.parse_identity(args.author or os.environ.get("DYNPATCH_AUTHOR") or pin.author)
    if args.version and args.version != pin.version and not args.check:
        raise ToolkitError(
            f"{_rel(args.patches)}/ is made against the pin ({pin.version}); apply --version "
            f"{args.version} would rewrite it for another release: move the pin with "
            f"`nox -s bump -- {args.version}` (or `fetch --version {args.version}` for the tree)"
        )
    if args.patches.exists() and not args.patches.is_dir():
        raise ToolkitError(f"{args.patches} is not a folder: move it away and rerun")
    status = err.status(f"fetching ai-dynamo {args.version or pin.version} ({args.source}) ...")
    status.start()
    try:
        with locked(pin, request_from(args)) as checkout:
            status.stop()
            fetched = time.perf_counter()
            report = _apply(args, checkout, pin, author)
    finally:
        status.stop()
    print_outcomes(report, f"ai-dynamo {checkout.release.version} ({checkout.source})")
    if report.result.not_applicable:
        raise ToolkitError(report.result.problems()[0])
    if not report.patches:
        out.print("every target is already applied at the base: no patch to export")
        return 0
    where = _rel(args.patches)
    if args.check:
        out.print(f"{where}/ is up to date ({', '.join(report.patches)})")
    elif report.changed_files:
        out.print(f"wrote {where}/: {', '.join(report.changed_files)}")
    else:
        out.print(f"{where}/ unchanged ({', '.join(report.patches)})")
    if not args.check:
        out.print(f"work branch {pin.branch} in {_rel(checkout.path)} at {report.commit[:12]}")
    t = report.timings
    out.print(
        f"git am onto a fresh {checkout.release.base_tag}: applies and reverses cleanly. "
        f"codemods {t.get('codemods', 0):.2f} s + format {t.get('format', 0):.2f} s; "
        f"fetch {fetched - start:.2f} s; total {time.perf_counter() - start:.2f} s"
    )
    return 0


def _apply(
    args: argparse.Namespace, checkout: Checkout, pin: Pin, author: gitio.Identity
) -> ApplyReport:
    """``apply_series`` with the options; a drifted series prints its table first."""
    try:
        return apply_series(
            checkout,
            author=author,
            date=pin.date,
            branch=pin.branch,
            vendor=args.vendor,
            patches_dir=args.patches,
            check=args.check,
            force=args.force,
        )
    except SeriesFailed as exc:
        print_outcomes(exc.report, f"ai-dynamo {checkout.release.version} ({checkout.source})")
        raise


def cmd_pin(args: argparse.Namespace) -> int:
    """One value of the pin, for the noxfile (which must not parse the pin itself)."""
    pin = load_pin(args.pin)
    values = {"version": pin.version, "runtime": f"ai-dynamo-runtime=={pin.version}"}
    print(values[args.field])
    return 0


def print_outcomes(report: ApplyReport, title: str) -> None:
    table = Table(title=f"patch series on {title}", title_justify="left")
    for column in ("target", "result", "lines", "detail"):
        table.add_column(column, overflow="fold")
    for o in report.outcomes:
        added, removed = report.lines.get(o.target.qualname, (0, 0))
        lines = f"+{added} -{removed}" if (added or removed) else "-"
        table.add_row(
            f"{Path(o.target.path).name}::{o.target.qualname}",
            f"[{_STYLE[o.status]}]{o.status}[/]",
            lines,
            o.detail if o.status is not Status.APPLIED else "",
        )
    out.print(table)


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one ``error:`` line too (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"error: {self.prog}: {message} (see --help)\n")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="dynpatch", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fetch", help="materialise or re-verify the pinned upstream checkout")
    add_fetch_args(p)
    p.set_defaults(func=cmd_fetch)

    p = sub.add_parser("apply", help="codemods -> format -> commit -> patches/ (and check)")
    add_fetch_args(p)
    p.add_argument("--check", action="store_true",
                   help="regenerate in a temporary place; fail if patches/ differs")  # fmt: skip
    p.add_argument("--author", help="'Name <email>' of the series commit (default: the pin's)")
    p.add_argument("--patches", type=Path, default=PATCHES, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_apply)

    p = sub.add_parser("pin", help="print one value of the pin (for the noxfile)")
    p.add_argument("field", choices=("version", "runtime"))
    p.add_argument("--pin", type=Path, default=PIN_FILE, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_pin)

    for module in STAGE_MODULES:
        importlib.import_module(module).register(sub)
    return parser


# Later pipeline stages register their own verbs: each module has
# ``register(subparsers)``, which adds a parser whose ``func`` takes the parsed args.
STAGE_MODULES: tuple[str, ...] = (
    "dynpatch.pr",
    "dynpatch.test_upstream",
    "dynpatch.verify",
    "dynpatch.bench",
    "dynpatch.releases.matrix",
    "dynpatch.releases.bump",
)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except ToolkitError as exc:
        return _fail(str(exc), 2)
    except OSError as exc:  # a file or folder the run needs: say which, in one line
        where = f" ({exc.filename})" if exc.filename else ""
        return _fail(f"{exc.strerror or exc}{where}", 2)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


def _fail(message: str, status: int) -> int:
    """The one error line: the first line of ``message``, with no credential in it."""
    line = gitio.redact(message.strip().splitlines()[0] if message.strip() else "failed")
    err.print(f"error: {line}", markup=False)
    return status


if __name__ == "__main__":
    sys.exit(main())
