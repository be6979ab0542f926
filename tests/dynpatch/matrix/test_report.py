"""The matrix's cells and notes: what each row shows, and why (rows built by hand)."""

from __future__ import annotations

from dynpatch.matrix import report
from dynpatch.matrix.release import Row
from dynpatch.matrix.stages import FAIL, NA, NOT_RUN, PASS, Check

APPLIED = [{"target": "t", "status": "applied", "detail": ""}] * 5


def row(version: str, **fields: object) -> Row:
    """A row whose checks all succeed or do not apply, but for ``fields``."""
    quiet = {
        "own_am": Check(PASS),
        "committed_am": Check(PASS),
        "test_upstream": Check(NA),
        "verify": Check(NA),
    }
    return Row(version=version, sha256="ab", trust="pinned", **{**quiet, **fields})  # type: ignore[arg-type]


def test_the_git_am_columns_say_yes_no_or_fail_where_it_must_apply() -> None:
    pinned = row(
        "1.6.1",
        pinned=True,
        series="applied",
        outcomes=APPLIED,
        committed_am=Check(FAIL, "0001: patch failed"),
        test_upstream=Check(PASS, cached=True),
        verify=Check(FAIL, "divergences: 1"),
    )
    assert report.cells(pinned) == [
        "1.6.1 (pin)",
        *["applied"] * 5,
        "yes",
        "FAIL",
        "pass (cached)",
        "FAIL",
    ]
    other = row("1.3.1", series="applied", committed_am=Check(FAIL, "0001: patch failed"))
    assert report.cells(other)[6:8] == ["yes", "no"]  # a finding where it need not apply


def test_notes_say_why_for_every_cell_that_is_not_a_plain_success() -> None:
    drifted = row(
        "9.9.6",
        series="drifted",
        problems=["a.py: f: expected x; found y"],
        own_am=Check(NOT_RUN, "series drifted: nothing exported"),
    )
    na = row(
        "1.2.1",
        series="not-applicable",
        series_detail="no helper",
        own_am=Check(NA),
        committed_am=Check(FAIL, "0001: no such file"),
    )
    error = row("9.9.5", series="error", series_detail="flake8 flags changed lines: E501")
    failed = row("9.9.8", series="applied", own_am=Check(FAIL, "0001: patch failed: a.py:1"))
    assert report.notes([drifted, na, error, failed]) == [
        "9.9.6: DRIFTED: a.py: f: expected x; found y",
        "1.2.1: not applicable: no helper",
        "1.2.1: committed series does not apply as-is: 0001: no such file",
        "9.9.5: ERROR: flake8 flags changed lines: E501",
        "9.9.8: own series: fail: 0001: patch failed: a.py:1",
    ]
    assert report.notes([row("1.6.1", series="applied", outcomes=APPLIED)]) == []
