"""matrix-join: the rows of one-release `matrix --out DIR/X` runs (real runs, synthetic
releases, offline) joined into one matrix.md and matrix.json rendered as a whole run is;
exit 1 on a drifted row; the release the fix is upstream from named; bad input is one
line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.evidence import as_text
from dynpatch.matrix import MatrixOptions, join
from dynpatch.matrix import run as matrix_run
from dynpatch.matrix.stages import STAGES
from tests.fixtures.releases import APPLIES, DRIFTED, FIXED_UPSTREAM, make_vendor, this_interpreter


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DIR/<version>/ of three one-release runs, and DIR/whole/ of one run of all three."""
    root = tmp_path_factory.mktemp("join")
    v = make_vendor(
        root, {"9.9.6": DRIFTED, "9.9.9": APPLIES, "10.0.0": FIXED_UPSTREAM}, pinned="9.9.9"
    )
    runs = root / "runs"

    def matrix(versions: str, out: Path) -> bool:
        options = MatrixOptions(versions=versions, newest=False, out=out, skip=[*STAGES])
        return matrix_run(options, v.ws).ok

    with pytest.MonkeyPatch.context() as monkeypatch:
        this_interpreter(monkeypatch)  # 10.0.0's own fix is judged by a run
        for version, ok in (("9.9.6", False), ("9.9.9", True), ("10.0.0", True)):
            assert matrix(version, runs / version) == ok
        assert not matrix("9.9.6,9.9.9,10.0.0", root / "whole")
    return runs


def only(runs: Path, dest: Path, versions: tuple[str, ...]) -> Path:
    """A DIR holding just these runs' matrix.json."""
    for version in versions:
        (dest / version).mkdir(parents=True)
        (dest / version / "matrix.json").write_text((runs / version / "matrix.json").read_text())
    return dest


def table(md: str) -> list[str]:
    return [line for line in md.splitlines() if line.startswith("| ")]


def test_join_renders_as_a_whole_run_and_fails_on_drift(runs: Path) -> None:
    out = runs.parent / "joined"
    result = join.run(join.JoinOptions(dir=runs, out=out))
    assert not result.ok  # 9.9.6 drifted
    printed = as_text(result.shown)
    whole = (runs.parent / "whole" / "matrix.md").read_text()
    joined = (out / "matrix.md").read_text()
    assert table(joined) == table(whole)  # release order, same cells
    assert (
        joined.split("Notes:")[1].split("\n    ")[0] == whole.split("Notes:")[1].split("\n    ")[0]
    )
    data = json.loads((out / "matrix.json").read_text())
    assert [r["version"] for r in data["rows"]] == ["9.9.6", "9.9.9", "10.0.0"]
    assert data["ok"] is False and len(data["joined"]) == 3
    assert _same_but_timings(data, runs)
    assert data["summary"] == (
        "3 releases: 1 applied, 0 not applicable, 1 drifted, 1 fixed upstream; "
        "problems in 9.9.6 (skipped: test-upstream, verify); joined from 3 runs"
    )
    assert "9.9.6: DRIFTED: components/src/dynamo/trtllm/request_handlers/handler_base.py" in (
        printed
    )
    assert "fixed upstream from 10.0.0: the series can be retired from 10.0.0 on" in printed
    assert printed.strip().splitlines()[-1].startswith("wrote ")


def _same_but_timings(data: dict, runs: Path) -> bool:
    whole = json.loads((runs.parent / "whole" / "matrix.json").read_text())["rows"]

    def strip(rows: list[dict]) -> list[dict]:
        return [
            {k: v for k, v in r.items() if k != "timings"}
            | {c: {**r[c], "seconds": 0} for c in ("own_am", "committed_am")}
            for r in rows
        ]

    return strip(data["rows"]) == strip(whole)


def test_join_without_a_bad_row_exits_zero_into_dir(runs: Path, tmp_path: Path) -> None:
    part = only(runs, tmp_path / "dir", ("9.9.9", "10.0.0"))
    result = join.run(join.JoinOptions(dir=part))
    printed = as_text(result.shown)
    assert result.ok
    data = json.loads((part / "matrix.json").read_text())  # OUT defaults to DIR
    assert data["ok"] is True and data["pinned"] == "9.9.9"
    assert [r["series"] for r in data["rows"]] == ["applied", "fixed-upstream"]
    assert "| 10.0.0 | `not getattr` | fixed upstream |" in (part / "matrix.md").read_text()
    assert printed.strip().splitlines()[-2] == (
        "fixed upstream from 10.0.0: the series can be retired from 10.0.0 on"
    )
    # no fixed-upstream row: no retire line
    result = join.run(join.JoinOptions(dir=only(runs, tmp_path / "one", ("9.9.9",))))
    assert result.ok and "retired" not in as_text(result.shown)


def test_the_newest_build_that_is_a_pinned_release_is_one_row(runs: Path, tmp_path: Path) -> None:
    """The fan-out's "newest" job found 9.9.9 on PyPI, which a pinned job checked too."""
    part = only(runs, tmp_path / "dir", ("9.9.9",))
    data = json.loads((part / "9.9.9" / "matrix.json").read_text())
    (part / "newest").mkdir()
    rows = [{**r, "newest": True} for r in data["rows"]]
    (part / "newest" / "matrix.json").write_text(json.dumps({**data, "rows": rows}))
    assert join.run(join.JoinOptions(dir=part)).ok
    joined = json.loads((part / "matrix.json").read_text())["rows"]
    assert [(r["version"], r["newest"]) for r in joined] == [("9.9.9", True)]
    rows[0]["sha256"] = "0" * 64  # not the same wheel: not one release
    (part / "newest" / "matrix.json").write_text(json.dumps({**data, "rows": rows}))
    with pytest.raises(ToolkitError, match=r"release 9\.9\.9 is in both"):
        join.run(join.JoinOptions(dir=part))


def test_bad_inputs_are_one_line(runs: Path, tmp_path: Path) -> None:
    with pytest.raises(ToolkitError, match=r"no .*/\*/matrix\.json to join"):
        join.run(join.JoinOptions(dir=tmp_path / "empty"))
    twice = only(runs, tmp_path / "twice", ("9.9.9",))
    (twice / "again").mkdir()
    (twice / "again" / "matrix.json").write_text((runs / "9.9.9" / "matrix.json").read_text())
    with pytest.raises(ToolkitError, match=r"release 9\.9\.9 is in both"):
        join.run(join.JoinOptions(dir=twice))
    other = only(runs, tmp_path / "other", ("9.9.9", "10.0.0"))
    data = json.loads((other / "10.0.0" / "matrix.json").read_text())
    (other / "10.0.0" / "matrix.json").write_text(json.dumps({**data, "pinned": "9.9.8"}))
    with pytest.raises(
        ToolkitError, match=r"has pinned '9\.9\.9', .* has '9\.9\.8': not one matrix"
    ):
        join.run(join.JoinOptions(dir=other))
    broken = tmp_path / "broken" / "x"
    broken.mkdir(parents=True)
    (broken / "matrix.json").write_text('{"rows": [{"version": "1"}]}')
    with pytest.raises(ToolkitError, match=r"is not a matrix\.json of `matrix`"):
        join.run(join.JoinOptions(dir=broken.parent))
