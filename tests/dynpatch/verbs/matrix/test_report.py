"""The matrix's cells and notes where test_matrix.py's runs do not reach (rows built by
hand): a check that must pass and failed, and the notes of an error and of a failed own
series."""

from __future__ import annotations

from dynpatch.services.checks import FAIL, NA, NOT_RUN, PASS, Check
from dynpatch.verbs.matrix import report
from dynpatch.verbs.matrix.release import Row


def row(version: str, **fields: object) -> Row:
    """A row whose checks all succeed or do not apply, but for ``fields``."""
    quiet = {"own_am": Check(PASS), "committed_am": Check(PASS), "verify": Check(NA)}
    return Row(version=version, sha256="ab", trust="pinned", **{**quiet, **fields})  # type: ignore[arg-type]


def test_a_failure_where_it_must_pass_is_shown_and_explained() -> None:
    pinned = row(
        "1.6.1",
        pinned=True,
        series="applied",
        outcomes=[{"target": "t", "status": "applied", "detail": ""}] * 5,
        committed_am=Check(FAIL, "0001: patch failed"),
        test_upstream=Check(PASS, "10 passed", cached=True),
        verify=Check(FAIL, "divergences: 1"),
    )
    tail = ["yes", "FAIL", "pass (cached)", "FAIL"]
    assert report.cells(pinned) == ["1.6.1 (pin)", *["applied"] * 5, *tail]
    error = row("9.9.5", series="error", series_detail="flake8 flags changed lines: E501")
    failed = row(
        "9.9.8",
        series="applied",
        own_am=Check(FAIL, "0001: patch failed: a.py:1"),
        test_upstream=Check(NOT_RUN, "no series exported"),
    )
    assert report.notes([pinned, error, failed]) == [
        "1.6.1: committed series: fail: 0001: patch failed",
        "1.6.1: test-upstream: pass (cached result): 10 passed",
        "1.6.1: verify: fail: divergences: 1",
        "9.9.5: ERROR: flake8 flags changed lines: E501",  # its checks not run: no note
        "9.9.8: own series: fail: 0001: patch failed: a.py:1",
        "9.9.8: test-upstream: not run: no series exported",
    ]
    assert not any(r.ok for r in (pinned, error, failed))
