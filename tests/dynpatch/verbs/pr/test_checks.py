"""``pr --run-checks``: on the PR's base, every check the description cites runs in order
and saves its record as its stage does; the first that fails stops pr, naming the stage,
and nothing of the PR is written. A later ``pr`` on that base describes the series those
checks ran on. The stages are stand-ins here (their twins test them), but for the bench
only its counting: its verdict and record are checks' own code."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from dynpatch import evidence, series
from dynpatch.evidence import KINDS
from dynpatch.results import StageResult
from dynpatch.services.trees import Trees
from dynpatch.verbs.pr import checks
from dynpatch.workspace import Workspace
from tests.fixtures import bench
from tests.fixtures.pr import World, sample

STAGES = ("test-upstream", "verify", "bench")


def _stand_ins(monkeypatch: pytest.MonkeyPatch, world: World, failing: str = "") -> list[str]:
    """The checks as stand-ins that record their runs; the series made on the base is a
    copy of patches/ in out/pr/series/ (as on a base other than the pin's)."""
    ran: list[str] = []

    def series_for(checkout: Any, pin: Any, ws: Any, design: Any, command: str) -> Path:
        ran.append("series")
        made = ws.stage.pr / checks.SERIES_DIR
        shutil.copytree(ws.patches, made, dirs_exist_ok=True)
        with (made / "series").open("a") as listed:  # another series than patches/
            listed.write("# made on this base\n")
        hooks = sample("pre-commit", checkout.base, series.series_digest(made), "delta")
        evidence.save(dataclasses.replace(hooks, command=command), made, ws.evidence)
        return made

    def stage(name: str):  # type: ignore[no-untyped-def]
        def step(*args: Any, **kwargs: Any) -> StageResult:
            ran.append(name)
            made = world.tmp / "out" / "pr" / checks.SERIES_DIR
            record = sample(name, world.base, series.series_digest(made), "delta", name != failing)
            return StageResult(record.passed, (f"{name} said why",), (record,))

        return step

    monkeypatch.setattr(checks, "series_for", series_for)
    monkeypatch.setattr(checks.runtimes, "release_python", lambda *a: Path(sys.executable))
    monkeypatch.setattr(checks.upstream_tests, "check", stage("test-upstream"))
    monkeypatch.setattr(checks.replay_check, "check", stage("verify"))

    def measure(checkout: Any, made: Path, *args: Any, **kwargs: Any) -> Any:  # the bench
        ran.append("bench")  # counted by a stand-in, judged and recorded by checks' own code
        built = Trees(made, made, checkout.base, series.series_digest(made), "2" * 64)
        return bench.measured(built, failing != "bench", bench.counted_trees())

    monkeypatch.setattr(checks.bench, "measure", measure)
    return ran


def test_every_check_runs_on_the_base_and_saves_its_record_as_the_stage_does(
    world: World, pr, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = _stand_ins(monkeypatch, world)
    status, out, err = pr("--run-checks")
    assert status == 0, err
    assert ran == ["series", *STAGES]
    assert "series       out/pr/series/ (made on this base): 1 patch(es)" in out
    made = series.series_digest(world.tmp / "out" / "pr" / checks.SERIES_DIR)
    for kind in KINDS:
        assert f"evidence     {kind.STAGE}: pass (saved for this base and series)" in out
        saved = evidence.load(kind, world.evidence, world.base, made)
        assert isinstance(saved, evidence.Record) and saved.command.startswith("nox -s pr -- ")
        assert "--run-checks" in saved.command
    warned = [w for w in err.splitlines() if w.startswith("warning: ")]  # every record counts:
    assert [w for w in warned if "governance asks" not in w] == [  # only the answer to link
        "warning: the description links no answer on #14402: post COMMENT_14402.md there "
        "first, then pass --discussed URL (the link to its answer)"
    ]
    record = world.out.with_name("VALIDATION.md").read_text()  # of the series made here
    assert f"series sha256 `{made[:12]}`" in record and made != series.series_digest(world.patches)

    # a later pr on this base (to complete the disclosure, say) runs nothing again, even
    # after its pre-commit record is gone: that one is said not run here
    evidence.path(world.evidence, "pre-commit", world.base, made).unlink()
    status, out, err = pr("--reviewed", "the diff")
    assert status == 0 and len(ran) == 4, err
    assert "out/pr/series/ (made on this base by an earlier --run-checks)" in out
    assert "evidence     bench: pass (saved for this base and series)" in out
    assert "evidence     pre-commit: not run" in out
    # not on another base
    (world.tmp / "out" / "pr" / checks.BASE_FILE).write_text("0" * 40 + "\n")
    status, out, err = pr("--reviewed", "the diff", "--force")
    assert status == 0 and "series       patches/: 1 patch(es)" in out, err
    on_base = SimpleNamespace(base=world.base)  # the series made there is patches/ itself
    checks.remember(world.patches, on_base, Workspace(world.tmp))  # type: ignore[arg-type]
    assert not (world.tmp / "out" / "pr" / checks.BASE_FILE).exists()


@pytest.mark.parametrize("failing", STAGES)
def test_a_failing_check_stops_pr_naming_the_stage_and_nothing_is_written(
    world: World, pr, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    ran = _stand_ins(monkeypatch, world, failing)
    tip = world.tip()
    status, out, err = pr("--run-checks")
    assert status == 2 and ran == ["series", *STAGES[: STAGES.index(failing) + 1]]
    assert err.strip().splitlines()[-1] == (
        f"error: --run-checks: {failing} failed on this base (its record: "
        f"out/evidence/{failing}/; no branch or description written)"
    )
    assert ("gate lines" if failing == "bench" else f"{failing} said why") in out + err
    made = series.series_digest(world.tmp / "out" / "pr" / checks.SERIES_DIR)
    kind = next(k for k in KINDS if failing == k.STAGE)
    saved = evidence.load(kind, world.evidence, world.base, made)
    assert isinstance(saved, evidence.Record) and not saved.passed
    assert world.tip() == tip and not world.out.exists()
