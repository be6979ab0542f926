"""The baseline and patched trees the checking stages run on: clones of the checkout at its
base, and with the series applied by ``git am`` (what a reviewer applies), cached by both."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dynpatch import series
from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import files
from dynpatch.io import git as gitio
from dynpatch.services.export import am_problem


@dataclass(frozen=True)
class Trees:
    baseline: Path  # repository roots; sources live under components/src
    patched: Path
    base: str
    series_sha256: str  # of the series the patched tree was built from
    code_sha256: str  # the same series' diffs only (series.code_digest)

    @staticmethod
    def src(tree: Path) -> Path:
        return tree / "components" / "src"


def prepare_trees(checkout: Checkout, patches_dir: Path, dest: Path) -> Trees:
    series.names(patches_dir)  # no series: say so before taking the lock
    with files.lock(dest.parent / f".{dest.name}.lock", f"the source trees in {dest}"):
        digest, code = series.series_digest(patches_dir), series.code_digest(patches_dir)
        patches = [patches_dir / name for name in series.names(patches_dir)]
        baseline = dest / f"baseline-{checkout.base[:12]}"
        patched = dest / f"patched-{checkout.base[:12]}-{digest[:12]}"
        if not _is_at(baseline, checkout.base):
            with files.staged_dir(baseline) as tmp:
                tmp.rmdir()
                gitio.clone_at(checkout.path, checkout.base, tmp)
        if not _is_at(patched, None):
            with files.staged_dir(patched) as tmp:
                tmp.rmdir()
                problem = am_problem(checkout, patches, tmp)  # apply's proof, kept as the tree
                if problem:
                    raise ToolkitError(
                        f"the series in {patches_dir} does not apply to "
                        f"{checkout.release.base_tag}: {problem}"
                    )
                if series.series_digest(patches_dir) != digest:  # an apply wrote it meanwhile
                    raise ToolkitError(f"{patches_dir} changed while its tree was built: rerun")
    return Trees(baseline, patched, checkout.base, digest, code)


def _is_at(tree: Path, commit: str | None) -> bool:
    """A cached tree is reused only if clean (and, for the baseline, at ``commit``)."""
    clean = gitio.is_git_repo(tree) and not gitio.local_changes(tree)
    return clean and (commit is None or gitio.rev_parse(tree, "HEAD") == commit)
