"""dynpatch.verbs.pr.validation through `pr`: saved evidence for this base and series (the
checking stages' and apply's record of upstream's hooks), and how each record is
classified."""

from __future__ import annotations

from pathlib import Path

from dynpatch import evidence, series
from dynpatch.services import precommit
from dynpatch.services.precommit import HookResult
from dynpatch.verbs.pr import validation
from dynpatch.verbs.pr.validation import State
from tests.fixtures.pr import HELPER, V2, World, git

# upstream's pre-commit, as apply recorded it
HOOKS = [
    HookResult("ruff", "0.5.2 (`--fix --exit-non-zero-on-fix`)", (HELPER,)),
    HookResult(
        "DCO", "`^Signed-off-by: .+ <.+>$`, by the author", ("0001-x.patch (commit message)",)
    ),
]


def _record(world: World) -> str:
    return world.out.with_name("VALIDATION.md").read_text()


def test_results_made_on_another_base_are_not_run_for_this_one(world: World, pr) -> None:
    world.save("test-upstream", "verify")  # on v9.9.9
    who = ["-c", "user.name=U", "-c", "user.email=u@example.invalid"]
    git(world.repo, *who, "commit", "-q", "--allow-empty", "-m", "main moves on")
    head = git(world.repo, "rev-parse", "HEAD").stdout.strip()
    status, out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    assert "v9.9.9" not in text and f"Made on commit `{head[:12]}` of 20" in text
    assert "the chunks the handler emits, compared before and after: not run for this base" in text
    assert (
        f"## verify: not run for this base\n\nout/evidence/verify.json was made on {world.base[:12]}, not on {head[:12]}"
        in _record(world).replace(str(world.evidence), "out/evidence")
    )
    assert "verify: not run for this base" in out


def test_current_results_are_in_the_record_and_stale_ones_only_named(world: World, pr) -> None:
    world.save("test-upstream", "verify", "bench")
    saved = precommit.record(HOOKS, world.base, series.series_digest(world.patches), "nox -s apply")
    evidence.save(saved, world.patches, world.evidence)
    status, out, err = pr()
    assert status == 0, err
    text = _record(world)
    for stage in ("test-upstream", "verify", "bench"):
        assert f"## {stage}: pass\n\n```console\n$ nox -s {stage}\n```" in text
        assert f"{stage} summary: 3 scenarios, 3 identical" in text
    assert "## pre-commit: pass\n\n```console\n$ nox -s apply\n```" in text
    assert "| hook | pin | files | result |" in text
    for hook in HOOKS:
        assert f"| {hook.hook} | {hook.pin} | 1 " in text and "| pass |" in text
    assert "dynamo's pre-commit hooks at their pinned versions: pass" in world.out.read_text()
    assert "evidence     pre-commit: pass (saved for this base and series)" in out
    assert "warning: " not in err.replace("warning: dynamo's governance asks", "")

    world.series(V2)  # the saved results now belong to another series
    status, _out, err = pr("--force")
    assert status == 0, err
    text = _record(world)
    assert "## test-upstream: stale" in text and "## verify: stale" in text
    assert "## pre-commit: stale" in text and "| ruff |" not in text
    assert "summary: 3 scenarios" not in text
    assert "warning: test-upstream: stale" in err
    assert "warning: pre-commit: stale" in err and "run `nox -s apply`" in err


def test_gather_classifies_current_stale_missing_and_invalid(tmp_path: Path) -> None:
    base = "b" * 40
    patches, out = tmp_path / "patches", tmp_path / "evidence"
    patches.mkdir()
    (patches / "series").write_text("0001-x.patch\n")

    def save(stage: str) -> None:
        digest = series.series_digest(patches)
        record = evidence.Record(stage, base, digest, "nox", "pass", "", {})
        evidence.save(record, patches, out)

    def found(stage: str) -> validation.StageEvidence:
        return {e.stage: e for e in validation.gather(patches, base, out)}[stage]

    (patches / "0001-x.patch").write_text("the patch, version 1\n")
    save("test-upstream")
    (patches / "0001-x.patch").write_text("the patch, version 2\n")  # the series moves on
    save("verify")
    assert found("test-upstream").state is State.STALE
    assert "not this series" in found("test-upstream").reason
    assert found("verify").state is State.CURRENT and found("verify").verdict == "pass"
    assert found("bench").state is State.MISSING
    for text, reason in (
        ('{"stage": "bench", "verdict": "maybe"}', "has no str 'base'"),
        ("{not json", ""),
        ((out / "verify.json").read_text(), "'verify' record"),  # filed under another stage
    ):
        (out / "bench.json").write_text(text)
        assert found("bench").state is State.INVALID and reason in found("bench").reason
