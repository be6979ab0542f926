"""A release's own fix judged by running its code: synthetic upstream fixes under other
names (tests/fixtures/upstream_fixes.py), each replayed for real in a child through its
own response loop, with the engine's cumulative token ids watching what is read. The
syntax finds the same kind of candidate in every one; only the run tells them apart."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codemods.series import run_series
from dynpatch.services import upstream_fix
from tests.fixtures.replay import release_files, write_tree
from tests.fixtures.synthetic import SYNTHETIC_FILES
from tests.fixtures.upstream_fixes import variant

JUDGED = {
    # fixes: the run without the parameter (the release's own fallback) reads the history
    "forwarded": (True, "delta_ids", 0),
    "guarded-fallback-copy": (True, "ids", 281),
    # look-alikes: one reads its whole history on every chunk, one changes the chunks
    "tuple-kept-for-the-cursor-check": (
        False,
        "with `delta` given, chunk 1 of stream 1-choice-one-token-top1 read 1 token id(s) "
        "outside its delta, of a history of 1 (281 chunks did, 6041 token ids in all)",
    ),
    "fast-path-without-the-bail-outs": (
        False,
        "stream flat-float-logprobs, chunk 0 differs from the same release without `delta`: "
        'field kind: "raised" instead of "chunk"',
    ),
}


def _fixed(param: str, reading: int) -> str:
    return (
        "run: 345 chunks of 11 streams read no token id outside their delta and equal those "
        f"without `{param}` (of which {reading} read the history)"
    )


@pytest.mark.parametrize("name", JUDGED)
def test_the_run_tells_a_fix_from_a_look_alike(name: str, tmp_path: Path) -> None:
    files = {**SYNTHETIC_FILES, **release_files(*variant(name))}
    result = run_series(lambda path: files.get(path.removeprefix("components/src/")))
    # the syntax alone names a candidate and never calls it fixed upstream
    assert result.candidate is not None and not result.fixed_upstream
    src = write_tree(tmp_path, files)
    judged = upstream_fix.judge(src, result.candidate.param, Path(sys.executable), tmp_path / "l")
    fixed, *why = JUDGED[name]
    assert judged == (fixed, _fixed(*why) if fixed else why[0])


def _stream(given: list[list[int]], records: list[str]) -> dict:
    run = {"reads": given, "records": records}
    return {"name": "s", "given": run, "withheld": run}


def test_a_judgement_that_saw_nothing_is_not_a_fix() -> None:
    chunk = '{"kind":"chunk","value":{"index":0,"token_ids":[1]}}'
    quiet = {"scenarios": [_stream([[0, 0]], [chunk])]}
    assert upstream_fix.verdict(quiet, "p") == (
        False,
        "no chunk carried log_probs: the judgement never saw the helper report",
    )
    empty = {"scenarios": [_stream([], [])]}
    assert upstream_fix.verdict(empty, "p") == (
        False,
        "stream s gave no chunk: the judgement saw nothing",
    )
