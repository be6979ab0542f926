"""dynpatch.evidence: the digests a record is keyed by, and what a record names."""

from __future__ import annotations

import dataclasses
import json
import platform
from pathlib import Path

import pytest

from dynpatch import evidence
from dynpatch.errors import ToolkitError
from dynpatch.series import code_digest, diff_part, series_digest
from tests.fixtures.bench import DIFF
from tests.fixtures.bench import patch_text as patch
from tests.fixtures.bench import write_series as series
from tests.fixtures.pr import sample


def test_the_diff_part_ends_before_base_commit_and_signature() -> None:
    tail = "\nbase-commit: 8b3803b5972337711d9155d74ce8914ed2d5b94e\n-- \n2.39.2\n\n"
    assert diff_part(patch(tail=tail)) == DIFF
    assert diff_part(patch(tail="\nbase-commit: 8b38\n")) == DIFF
    assert diff_part(DIFF) == DIFF
    # A hunk's last lines that look like a signature's first are code, and stay.
    for code in ("-- \n", "-- \n-x\n", "-- \n\\ No newline at end of file\n"):
        assert diff_part(DIFF + code) == DIFF + code
    with pytest.raises(ToolkitError, match="no 'diff --git' line"):
        diff_part("Subject: [PATCH] nothing\n")


def test_the_code_digest_ignores_what_the_messages_and_names_say(tmp_path: Path) -> None:
    first = code_digest(series(tmp_path, patch()))
    reworded = series(tmp_path, patch("perf: quote 0.92 here"), names=["0001-other.patch"])
    assert code_digest(reworded) == first
    assert series_digest(reworded) != series_digest(series(tmp_path, patch()))
    signed = series(tmp_path, patch(tail="\nbase-commit: 8b38\n-- \n2.43.0\n"))
    assert code_digest(signed) == first
    changed = series(tmp_path, patch(diff=DIFF.replace("return output", "return  output")))
    assert code_digest(changed) != first
    two = code_digest(series(tmp_path, patch(), patch(diff=DIFF.replace("f(", "g("))))
    swapped = code_digest(series(tmp_path, patch(diff=DIFF.replace("f(", "g(")), patch()))
    assert len({first, two, swapped}) == 3  # every patch counts, in the series' order


def test_the_code_digest_needs_the_series_and_its_patches(tmp_path: Path) -> None:
    with pytest.raises(ToolkitError, match="no patch series in"):
        code_digest(tmp_path)
    folder = series(tmp_path, patch())
    (folder / "series").write_text("0001-p.patch\n0002-gone.patch\n")
    with pytest.raises(ToolkitError, match=r"names 0002-gone\.patch, which is not there"):
        code_digest(folder)


BASE = "8b3803b5972337711d9155d74ce8914ed2d5b94e"


def test_a_record_is_saved_under_its_base_and_series_and_read_back_typed(tmp_path: Path) -> None:
    patches, out = series(tmp_path, patch()), tmp_path / "out" / "evidence"  # folders made
    built = series_digest(patches)
    record = sample("bench", BASE, built, "delta")
    where = evidence.save(record, patches, out)
    assert where == out / "bench" / f"{BASE[:12]}-{built[:12]}.json"
    saved = json.loads(where.read_text())
    assert saved["created"].endswith("+00:00") and saved["host"].endswith(f"({platform.machine()})")
    again = evidence.load(evidence.Bench, out, BASE, built)
    assert again == dataclasses.replace(record, created=saved["created"], host=saved["host"])
    assert evidence.load(evidence.Verify, out, BASE, built) == "not run for this base and series"
    (patches / "0001-p.patch").write_text(patch("an apply meanwhile"))  # the code moved on
    now, made = series_digest(patches)[:12], built[:12]
    with pytest.raises(ToolkitError, match=f"sha256 {made}, {patches.name}/ now {now}\\): "):
        evidence.save(record, patches, out)
    assert json.loads(where.read_text()) == saved
    assert where.read_text().startswith('{\n "stage": "bench",\n "facts": {')  # diffable
    other = sample("bench", "c" * 40, built, "delta")  # another base: beside it, both kept
    assert evidence.save(other, series(tmp_path, patch()), out).parent == where.parent
    assert len(list(where.parent.iterdir())) == 2
    where.rename(evidence.path(out, "bench", "d" * 40, built))  # filed under another key
    said = evidence.load(evidence.Bench, out, "d" * 40, built)
    assert said == "saved under another base and series' key"
    assert {r.base for r in evidence.of_series(evidence.Bench, out, built)} == {BASE, "c" * 40}


def test_a_record_of_another_schema_or_with_a_field_of_the_wrong_type_is_not_run(
    tmp_path: Path,
) -> None:
    patches, out = series(tmp_path, patch()), tmp_path / "evidence"
    where = evidence.save(sample("verify", BASE, series_digest(patches), "delta"), patches, out)
    good = json.loads(where.read_text())
    for change, said in (
        ({"schema": 1}, "made by another version of the tool (schema 1, not 2)"),
        ({"streams": "234"}, "not a valid record: facts.streams: Input should be a valid integer"),
        ({"streams": True}, "not a valid record: facts.streams: Input should be a valid integer"),
        ({"differ": "x"}, "not a valid record: facts.differ: Input should be a valid"),
        ({"seed": None}, "not a valid record: facts.seed: Input should be a valid integer"),
    ):
        top = {k: v for k, v in change.items() if k == "schema"}
        facts = {**good["facts"], **{k: v for k, v in change.items() if k != "schema"}}
        where.write_text(json.dumps({**good, **top, "facts": facts}))
        got = evidence.load(evidence.Verify, out, BASE, series_digest(patches))
        assert isinstance(got, str) and got.startswith(said), got
    where.write_text("{not json")
    assert evidence.load(evidence.Verify, out, BASE, series_digest(patches)).startswith(
        "unreadable ("
    )


def test_files_replace_a_folder_made_for_them_under_its_lock(tmp_path: Path) -> None:
    folder, locks = tmp_path / "docs" / "bench", tmp_path / "locks"
    locks.write_text("a file where the locks folder should be")
    with pytest.raises(ToolkitError, match=f"cannot take the lock for {folder}"):
        evidence.replace_files(folder, {"a.json": b"{}"}, locks)
    locks.unlink()
    locks.mkdir()
    evidence.replace_files(folder, {"a.json": b"{}"}, locks)
    assert [p.name for p in folder.iterdir()] == ["a.json"]
