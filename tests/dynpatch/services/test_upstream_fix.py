"""A release on which the series drifted, judged by running its code: synthetic releases
(tests/fixtures/upstream_fixes.py) each replayed for real in a child through its own
response loop, cumulative token ids watching what is read, against the series' own
patched tree. The syntax finds a candidate in some; only the run tells fixes from
look-alikes, whatever their shape."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codemods.series import run_series
from dynpatch.services import upstream_fix
from dynpatch.services.export import ApplyReport
from tests.fixtures import snippets
from tests.fixtures.replay import release_files, write_tree
from tests.fixtures.synthetic import SYNTHETIC_FILES
from tests.fixtures.upstream_fixes import FIXES, LOOK_ALIKES, variant

PYTHON = Path(sys.executable)
# what each is judged: fixed, and how; or not, and why
JUDGED = {
    "forwarded": (True, "by a keyword of its own (extract_from_completion_output takes"),
    "one-liner": (True, "by the one-line alternative, no keyword: the series can be retired"),
    "ids-taken-one-by-one": (True, "by another design, no keyword"),
    "tuple-kept-for-the-cursor-check": (
        False,
        "chunk 1 of stream 1-choice-one-token-top1 read 1 token id(s) outside its delta, of "
        "a history of 1 (",
    ),
    "islice-from-the-start": (False, "chunk 1 of stream 1-choice-one-token-top1 read 1 token"),
    "window-cut-from-the-end": (False, "stream logprobs-lag-sampled: chunk 0: log_probs"),
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> upstream_fix.Reference:
    """The synthetic release with the series, as the series makes it."""
    src = write_tree(
        tmp_path_factory.mktemp("reference"),
        release_files(snippets.HELPER_PATCHED, snippets.HANDLER_PATCHED),
    )
    return upstream_fix.Reference(src, PYTHON, "the series", snippets.HELPER)


def test_every_variant_is_judged() -> None:
    assert set(JUDGED) == set(FIXES) | set(LOOK_ALIKES)


@pytest.mark.parametrize("name", JUDGED)
def test_the_run_tells_a_fix_from_a_look_alike(name: str, tmp_path: Path, reference) -> None:
    files = {**SYNTHETIC_FILES, **release_files(*variant(name))}
    result = run_series(lambda path: files.get(path.removeprefix("components/src/")))
    assert result.drifted and not result.fixed_upstream  # the syntax never says fixed
    tree = write_tree(tmp_path / "release", files).parent.parent
    report = ApplyReport(result)
    ws = type("Ws", (), {"evidence": tmp_path / "e", "patches": tmp_path / "p"})()
    how, kept = upstream_fix.describe(report, tree, reference, ws)  # type: ignore[arg-type]
    fixed, why = upstream_fix.judge(
        tree / "components" / "src", reference, PYTHON, tmp_path / "l.log", name
    )
    want_fixed, said = JUDGED[name]
    assert fixed is want_fixed, why
    if fixed:
        assert f"{how}{kept}".startswith(said), how
        assert why.startswith("run: ") and why.endswith("equal those of the series")
    else:
        assert why.startswith(said), why
    judged = result.judged(fixed, why, how)
    assert judged.fixed_upstream is fixed
    if not fixed:  # first where the syntax found a candidate, else after the drift
        problems = judged.problems()
        if result.candidate:
            assert problems[0] == f"upstream's own fix? {how}: {why}"
        else:
            assert problems[-1] == f"not fixed another way either, by a run of its code: {why}"


def _stream(given: list[list[int]], records: list[str]) -> dict:
    return {"name": "s", "given": {"reads": given, "records": records}}


def test_a_judgement_that_saw_nothing_is_not_a_fix() -> None:
    chunk = '{"kind":"chunk","value":{"index":0,"token_ids":[1]}}'
    quiet = {"scenarios": [_stream([[0, 0]], [chunk])]}
    assert upstream_fix.verdict(quiet, quiet, "ref") == (
        False,
        "no chunk carried log_probs: the judgement never saw the helper report",
    )
    empty = {"scenarios": [_stream([], [])]}
    assert upstream_fix.verdict(empty, empty, "ref") == (
        False,
        "stream s gave no chunk: the judgement saw nothing",
    )
    other = {"scenarios": [_stream([[0, 0]], [])]}
    assert upstream_fix.verdict(quiet, other, "ref") == (
        False,
        "stream s: 1 chunks where ref gives 0",
    )
