"""The committed reference: its two files written together (the folder's others kept),
handed out only for the code it measured (what counts as the same code: test_evidence)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dynpatch import series
from dynpatch.bench import recorded
from dynpatch.errors import ToolkitError
from tests.fixtures.bench import DIFF, patch_text, write_series


def root_with(tmp_path: Path, text: str) -> Path:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    if (root / "patches").exists():
        (root / "patches").rename(tmp_path / f"old-{len(list(tmp_path.iterdir()))}")
    write_series(tmp_path, text).rename(root / "patches")
    return root


def test_a_reference_is_written_whole_and_read_back_while_the_code_is_the_same(
    tmp_path: Path,
) -> None:
    with pytest.raises(ValueError, match="code_sha256"):
        recorded.record({"requests": {}}, b"", tmp_path)
    assert not (tmp_path / "docs").exists()
    root = root_with(tmp_path, patch_text())
    assert recorded.reference(root) is None
    data = {"code_sha256": series.code_digest(root / "patches"), "requests": {"256x4": 1}}
    recorded.record({**data, "requests": {}}, b"\x89PNG old", root)
    # docs/bench/ also holds the reviewer's script: a new record replaces only its own.
    (root / "docs/bench/per_chunk_cost.py").write_text("print('the reviewer script')\n")
    assert recorded.record(data, b"\x89PNG", root) == root / "docs/bench/instructions.json"
    assert (root / "docs/bench/instructions.png").read_bytes() == b"\x89PNG"
    assert sorted(p.name for p in (root / "docs/bench").iterdir()) == [
        "instructions.json",
        "instructions.png",
        "per_chunk_cost.py",
    ]
    assert recorded.reference(root) == data
    root_with(tmp_path, patch_text(diff=DIFF.replace("f(", "g(")))
    assert recorded.reference(root) is None  # other code


def test_a_broken_reference_is_an_error(tmp_path: Path) -> None:
    root = root_with(tmp_path, patch_text())
    path = root / "docs/bench/instructions.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(ToolkitError, match="is not valid JSON"):
        recorded.reference(root)
    path.write_text(json.dumps({"requests": {}}))
    with pytest.raises(ToolkitError, match="has no code_sha256"):
        recorded.reference(root)
