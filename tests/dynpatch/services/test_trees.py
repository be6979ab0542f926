"""The baseline and patched trees the checking stages run on (synthetic release, offline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from dynpatch.io.git import show_file
from dynpatch.services.export import export_series
from dynpatch.services.trees import prepare_trees
from tests.fixtures.synthetic import DELTA, HELPER, REPO


def test_trees_are_the_base_and_the_series_applied_and_are_reused(
    synthetic_release, tmp_path: Path
) -> None:
    rel = synthetic_release()
    checkout = fetch(rel.pin, rel.ws)
    patches = tmp_path / "patches"
    export_series(checkout, rel.pin, REPO, patches, DELTA)
    trees = prepare_trees(checkout, patches, tmp_path / "trees")
    assert gitio.rev_parse(trees.baseline, "HEAD") == checkout.base
    assert (trees.baseline / HELPER).read_text() == show_file(checkout.path, checkout.base, HELPER)
    assert "new_token_ids" in (trees.patched / HELPER).read_text()
    assert gitio.local_changes(trees.patched) == []  # the series is committed there (git am)
    assert prepare_trees(checkout, patches, tmp_path / "trees") == trees  # reused


def test_a_series_that_does_not_apply_says_which_patch(synthetic_release, tmp_path: Path) -> None:
    rel = synthetic_release()
    checkout = fetch(rel.pin, rel.ws)
    patches = tmp_path / "patches"
    report = export_series(checkout, rel.pin, REPO, patches, DELTA)
    first = patches / report.patches[0]
    lines = first.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("@@ ")) + 1
    lines[at] = " # a context line upstream does not have\n"
    first.write_text("".join(lines))
    applies = rf"does not apply to upstream/9\.9\.9: {first.name}: patch failed: {HELPER}:"
    with pytest.raises(ToolkitError, match=applies):
        prepare_trees(checkout, patches, tmp_path / "trees")
    assert not any((tmp_path / "trees").glob("patched-*"))  # nothing half-built is kept
