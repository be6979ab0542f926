"""Stages 2-4, codemod -> format -> patch: the series as a reviewable ``git am`` patch.

``apply_series`` reads the target files at the pristine base commit, runs the codemods
(nothing is written unless every target succeeds), formats the touched files with
upstream's tools, commits on the work branch with a DCO sign-off, exports
``patches/0001-*.patch`` plus ``patches/series`` and proves the export applies with
``git am`` to a fresh copy of the base and reverses cleanly. With ``check=True`` it
does all of that in a temporary place and compares with the committed ``patches/``.
"""

from __future__ import annotations

import difflib
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from codemods import formatting, gitio
from codemods.errors import ToolkitError
from codemods.fetch import Checkout
from codemods.pin import ROOT
from codemods.transforms.outcome import Outcome
from codemods.transforms.series import COMMIT_MESSAGE, SERIES, SeriesResult, Step, run_series

PATCHES = ROOT / "patches"
SERIES_FILE = "series"


@dataclass
class ApplyReport:
    result: SeriesResult
    # qualname -> (added, removed) lines in the formatted patch
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)
    patches: list[str] = field(default_factory=list)
    commit: str = ""
    changed_files: list[str] = field(default_factory=list)  # patches/ files rewritten
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def outcomes(self) -> tuple[Outcome, ...]:
        return self.result.outcomes


def apply_series(
    checkout: Checkout,
    *,
    author: gitio.Identity,
    date: str,
    branch: str,
    vendor: Path,
    patches_dir: Path = PATCHES,
    check: bool = False,
    steps: tuple[Step, ...] = SERIES,
) -> ApplyReport:
    clock = _Clock()
    result = run_series(lambda path: read_at(checkout.path, checkout.base, path), steps)
    clock.lap("codemods")
    report = ApplyReport(result)
    if not result.ok:
        if result.not_applicable:
            return report
        raise ToolkitError(_one_line(result.problems()))

    python = formatting.tools_python(vendor)
    clock.lap("tool env")
    before = {p: read_at(checkout.path, checkout.base, p) for p in result.changed}
    old = {p: text or "" for p, text in before.items()}
    new = formatting.format_upstream(result.changed, python)
    clock.lap("format")
    for path in new:
        report.lines |= _scope_check(path, before[path], new[path], steps)
    lint = formatting.flake8_on_changed_lines(old, new, python)
    if lint:
        raise ToolkitError(f"flake8 (upstream settings) flags changed lines: {lint[0]}")
    clock.lap("checks")
    if not new:  # every target already applied at the base: nothing to export
        return report

    message = COMMIT_MESSAGE
    with tempfile.TemporaryDirectory(prefix="dynpatch-") as tmp_name:
        tmp = Path(tmp_name)
        repo = checkout.path
        if check:  # never touch the checkout: regenerate in a throwaway clone
            repo = tmp / "clone"
            gitio.clone_at(checkout.path, checkout.base, repo)
        report.commit = gitio.commit_files(repo, branch, checkout.base, new, message, author, date)
        exported = _export(repo, checkout, report.commit, tmp / "export")
        clock.lap("commit+export")
        verify_series(checkout, [exported / n for n in series_names(exported)], tmp / "am")
        clock.lap("git am check")
        report.patches = series_names(exported)
        if check:
            _compare(exported, patches_dir)
        else:
            report.changed_files = install_series(exported, patches_dir)
    report.timings = clock.laps
    return report


def _scope_check(
    path: str, old: str | None, new: str, steps: tuple[Step, ...]
) -> dict[str, tuple[int, int]]:
    """Changed lines per target of ``path``; refuses lines outside every target.

    A step's target is its function, the definitions it ``adds``, or, for a step
    that ``creates`` a file that did not exist, the whole file.
    """
    mine = [s for s in steps if s.target.path == path]
    creator = next((s for s in mine if s.creates), None)
    if old is None and creator is not None:
        return formatting.lines_changed_in("", new, [], new_file=creator.target.qualname)
    functions = [s.target.qualname for s in mine if not s.adds and not s.creates]
    added = {s.target.qualname: s.adds for s in mine if s.adds}
    return formatting.lines_changed_in(old or "", new, functions, added=added)


def read_at(repo: Path, rev: str, path: str) -> str | None:
    """``path``'s content at ``rev`` (None when the file does not exist there)."""
    try:
        return gitio.git_cmd(repo, "show", f"{rev}:{path}")
    except ToolkitError:
        return None


def verify_series(checkout: Checkout, patches: list[Path], scratch: Path) -> None:
    """The series applies with ``git am`` to a fresh copy of the base, and reverses."""
    gitio.clone_at(checkout.path, checkout.base, scratch)
    gitio.am(scratch, patches)
    gitio.reverse_applies(scratch, patches)


def _export(repo: Path, checkout: Checkout, head: str, out: Path) -> Path:
    files = gitio.format_patch(repo, checkout.base, head, out)
    for path in files:
        path.write_text(_with_provenance(path.read_text(), checkout.provenance))
    (out / SERIES_FILE).write_text("".join(f"{p.name}\n" for p in files))
    return out


def _with_provenance(patch: str, provenance: tuple[str, ...]) -> str:
    """Put provenance between ``---`` and the diffstat, where ``git am`` ignores text."""
    head, sep, tail = patch.partition("\n---\n")
    if not sep:
        raise ToolkitError("format-patch output has no '---' separator")
    notes = "".join(f"{line}\n" for line in provenance)
    return f"{head}{sep}{notes}\n{tail}"


def series_names(directory: Path) -> list[str]:
    return (directory / SERIES_FILE).read_text().split()


def _compare(exported: Path, committed: Path) -> None:
    want = {p.name: p.read_text() for p in exported.iterdir()}
    have = {p.name: p.read_text() for p in committed.glob("*")} if committed.is_dir() else {}
    if want == have:
        return
    for name in sorted(set(want) | set(have)):
        if want.get(name) != have.get(name):
            diff = list(
                difflib.unified_diff(
                    (have.get(name) or "").splitlines(),
                    (want.get(name) or "").splitlines(),
                    lineterm="",
                    n=0,
                )
            )
            first = next((d for d in diff[2:] if not d.startswith("@@")), "")
            raise ToolkitError(
                f"patches/{name} is stale: regenerate with `nox -s apply` "
                f"(first difference: {first.strip()[:120]!r})"
            )


def install_series(exported: Path, patches_dir: Path) -> list[str]:
    """Move the export into ``patches_dir`` file by file; drop stale patch files."""
    patches_dir.mkdir(parents=True, exist_ok=True)
    changed = []
    wanted = {p.name for p in exported.iterdir()}
    for src in sorted(exported.iterdir()):
        dst = patches_dir / src.name
        text = src.read_text()
        if not dst.exists() or dst.read_text() != text:
            gitio.write_atomic(dst, text)
            changed.append(src.name)
    for stale in patches_dir.glob("*.patch"):
        if stale.name not in wanted:
            stale.unlink()
            changed.append(stale.name)
    return changed


def _one_line(problems: list[str]) -> str:
    more = f" (+{len(problems) - 1} more, see the table above)" if len(problems) > 1 else ""
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
    "ApplyReport",
    "apply_series",
    "install_series",
    "read_at",
    "series_names",
    "verify_series",
]
