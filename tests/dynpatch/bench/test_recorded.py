"""The committed reference: its two files written together (the folder's others kept),
handed out only for the code it measured."""

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
    folder = write_series(tmp_path, text)
    target = root / "patches"
    if target.exists():
        for p in target.iterdir():
            p.unlink()
        target.rmdir()
    folder.rename(target)
    return root


def test_a_recorded_reference_is_read_back_while_the_code_is_the_same(tmp_path: Path) -> None:
    root = root_with(tmp_path, patch_text())
    data = {"code_sha256": series.code_digest(root / "patches"), "requests": {"256x4": 1}}
    path = recorded.record(data, b"\x89PNG", root)
    assert path == root / "docs/bench/instructions.json"
    assert (root / "docs/bench/instructions.png").read_bytes() == b"\x89PNG"
    assert recorded.reference(root) == data
    # A reworded commit message (quoting the figure) keeps the reference current ...
    root_with(tmp_path, patch_text("perf: 84.1 M -> 77.1 M instructions (0.92)"))
    assert recorded.reference(root) == data
    # ... other code does not.
    root_with(tmp_path, patch_text(diff=DIFF.replace("f(", "g(")))
    assert recorded.reference(root) is None


def test_no_reference_is_none_and_a_broken_one_an_error(tmp_path: Path) -> None:
    root = root_with(tmp_path, patch_text())
    assert recorded.reference(root) is None
    path = root / "docs/bench/instructions.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(ToolkitError, match="is not valid JSON"):
        recorded.reference(root)
    path.write_text(json.dumps({"requests": {}}))
    with pytest.raises(ToolkitError, match="has no code_sha256"):
        recorded.reference(root)


def test_a_record_must_name_its_code(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="code_sha256"):
        recorded.record({"requests": {}}, b"", tmp_path)
    assert not (tmp_path / "docs").exists()


def test_recording_again_keeps_the_folder_s_other_files(tmp_path: Path) -> None:
    """docs/bench/ also holds the reviewer's script: a new record replaces only its own."""
    root = root_with(tmp_path, patch_text())
    data = {"code_sha256": series.code_digest(root / "patches")}
    recorded.record(data, b"\x89PNG old", root)
    (root / "docs/bench/per_chunk_cost.py").write_text("print('the reviewer script')\n")
    recorded.record({**data, "requests": {"256x4": 2}}, b"\x89PNG new", root)
    assert (root / "docs/bench/per_chunk_cost.py").read_text() == "print('the reviewer script')\n"
    assert (root / "docs/bench/instructions.png").read_bytes() == b"\x89PNG new"
    assert sorted(p.name for p in (root / "docs/bench").iterdir()) == [
        "instructions.json",
        "instructions.png",
        "per_chunk_cost.py",
    ]
