"""dynpatch.verbs.pr.validation through `pr`: saved evidence for this base and series (the
checking stages' and apply's record of upstream's hooks), and how each record is
classified."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
    # on a clone, not the pin's tree, the records come from `pr --run-checks` on it
    rerun = f"run `nox -s pr -- --source path --path {world.repo} --version"
    assert "warning: pre-commit: stale" in err and rerun in err and "--run-checks`" in err


def test_gather_classifies_current_stale_missing_and_invalid(tmp_path: Path) -> None:
    base = "b" * 40
    patches, out = tmp_path / "patches", tmp_path / "evidence"
    patches.mkdir()
    (patches / "series").write_text("0001-x.patch\n")

    def save(stage: str, verdict: str = "pass", on: str = base) -> dict:
        digest = series.series_digest(patches)
        record = evidence.Record(stage, on, digest, "nox", verdict, "", {})
        return json.loads(evidence.save(record, patches, out).read_text())

    def found(stage: str) -> validation.StageEvidence:
        return {e.stage: e for e in validation.gather(patches, base, out)}[stage]

    def evidence_of(stage: str, state: State, record: dict | None, why: str):
        return validation.StageEvidence(stage, state, record, why and f"{out / stage}.json {why}")

    (patches / "0001-x.patch").write_text("the patch, version 1\n")
    old = save("test-upstream")
    (patches / "0001-x.patch").write_text("the patch, version 2\n")  # the series moves on
    now = save("verify", "fail")
    other = save("pre-commit", on="c" * 40)
    series_of = f"{old['series_sha256'][:12]}, not this series ({now['series_sha256'][:12]})"
    assert found("test-upstream") == evidence_of(
        "test-upstream", State.STALE, old, f"is of series {series_of}"
    )
    assert found("verify") == evidence_of("verify", State.CURRENT, now, "")
    assert found("verify").verdict == "fail"
    assert found("pre-commit") == evidence_of(
        "pre-commit", State.OTHER_BASE, other, f"was made on {'c' * 12}, not on {'b' * 12}"
    )
    assert found("bench") == validation.StageEvidence(
        "bench", State.MISSING, None, f"no {out}/bench.json"
    )
    for record, reason in (
        ({"stage": "bench", "verdict": "maybe"}, "has no str 'base'"),
        (now, "is a 'verify' record"),  # filed under another stage
        (
            {**now, "stage": "bench", "verdict": "maybe"},
            "has verdict 'maybe' (neither pass nor fail)",
        ),
    ):
        (out / "bench.json").write_text(json.dumps(record))
        assert found("bench") == evidence_of("bench", State.INVALID, None, reason)
    (out / "bench.json").write_text("{not json")
    assert found("bench").state is State.INVALID
    assert found("bench").reason.startswith(f"{out}/bench.json is not valid JSON: Expecting")


def _found(stage: str, state: State, verdict: str | None = None, **saved: object):
    record = {"verdict": verdict, "command": f"nox -s {stage}", **saved} if verdict else None
    return validation.StageEvidence(stage, state, record, "why")


def test_warnings_say_what_to_run_and_every_check_not_passed_blocks_the_push() -> None:
    found = [  # apply refuses a failing series: its record missing is no warning
        _found("pre-commit", State.MISSING),
        _found("test-upstream", State.CURRENT, "fail"),
        _found("verify", State.STALE, "pass"),
        _found("bench", State.CURRENT, "pass"),
    ]
    assert validation.warnings(found) == [
        "test-upstream: the saved result for this series is a FAIL",
        "verify: stale (why): run `nox -s verify`",
    ]
    assert validation.warnings([_found("pre-commit", State.INVALID)]) == [
        "pre-commit: invalid (why): run `nox -s apply`"
    ]
    on_main = "nox -s pr -- --source path --path CLONE --run-checks"  # not the pin's tree
    assert validation.warnings(found, on_main)[1] == f"verify: stale (why): run `{on_main}`"
    assert validation.push_blockers(found) == [
        "pre-commit: not run (why)",
        "test-upstream: fail (saved for this base and series)",
        "verify: stale (why)",
    ]


@pytest.mark.parametrize(
    ("saved", "said"),
    [
        (
            {
                "host": {"python": "3.11.7", "machine": "x86_64"},
                "created": "2026-12-04",
                "summary_md": " s \n",
            },
            "Saved 2026-12-04 (Python 3.11.7, x86_64).\n\ns\n",
        ),
        ({"host": {"machine": "x86_64"}}, "Saved ? (Python x86_64).\n\n\n"),
        ({"host": "x86_64"}, "Saved ?.\n\n\n"),
    ],
)
def test_a_current_record_is_shown_whole_and_any_other_only_named(saved: dict, said: str) -> None:
    shown = "## bench: pass\n\n```console\n$ nox -s bench\n```\n\n"
    assert validation.markdown(_found("bench", State.CURRENT, "pass", **saved)) == shown + said
    stale = _found("bench", State.STALE, "pass", **saved)
    assert validation.markdown(stale) == "## bench: stale\n\nwhy.\n"
