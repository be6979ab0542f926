"""dynpatch.pr.validation through `pr`: saved evidence for this series (the checking stages'
and apply's record of upstream's hooks), and the push gate."""

from __future__ import annotations

from dynpatch.format import record
from dynpatch.format.findings import HookResult
from tests.fixtures.pr import HELPER, V2, World, nothing_written, one_error


def test_current_evidence_is_reported_verbatim(world: World, pr) -> None:
    world.save("test-upstream", "verify", "bench")
    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    for stage in ("test-upstream", "verify", "bench"):
        assert f"#### {stage}: pass\n\n```console\n$ nox -s {stage}\n```" in text
        assert f"{stage} summary: 3 scenarios, 3 identical" in text
    assert "replay-equivalence results in Validation below" in text
    assert "warning" not in err


def test_stale_evidence_is_flagged_not_reported_and_blocks_a_push(world: World, pr) -> None:
    world.save("test-upstream", "verify")
    world.series(V2)  # the saved results now belong to another series

    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    assert "#### test-upstream: stale, not reported" in text
    assert "#### verify: stale, not reported" in text
    assert "summary: 3 scenarios" not in text
    assert "warning: test-upstream: stale" in err

    tip = world.tip()
    world.out.unlink()
    status, _out, err = pr("--push", str(world.fork), "--force")
    assert status == 2
    one_error(err, "refusing to push", "test-upstream is stale", "verify is stale")
    assert world.fork_refs() == "" and world.tip() == tip and not world.out.exists()


def test_failed_verify_blocks_a_push(world: World, pr) -> None:
    world.save("test-upstream")
    world.save("verify", verdict="fail")
    status, _out, err = pr("--push", str(world.fork))
    assert status == 2
    one_error(err, "refusing to push", "verify failed for this series")
    nothing_written(world)


# --- upstream's pre-commit, as apply recorded it ----------------------------------------

HOOKS = [
    HookResult("ruff", "0.5.2 (`--fix --exit-non-zero-on-fix`)", (HELPER,)),
    HookResult("codespell", "2.2.4", (HELPER,)),
    HookResult("SPDX header", "dynamo's copyright-check.ps1 rule", (HELPER,)),
    HookResult(
        "DCO", "`^Signed-off-by: .+ <.+>$`, by the author", ("0001-x.patch (commit message)",)
    ),
]


def test_validation_lists_every_hook_apply_ran_with_its_result(world: World, pr) -> None:
    world.save("test-upstream", "verify", "bench")
    record.save(HOOKS, world.patches, world.evidence, world.base)
    status, out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    assert "#### pre-commit: pass\n\n```console\n$ nox -s apply\n```" in text
    assert "| hook | pin | files | result |" in text
    for hook in HOOKS:
        assert f"| {hook.hook} | {hook.pin} | 1 " in text and "| pass |" in text
    assert f"- `{HELPER}`" in text
    assert "evidence     pre-commit: pass (saved for this series)" in out
    assert "warning" not in err


def test_no_hook_record_says_not_run_and_a_stale_one_warns(world: World, pr) -> None:
    status, _out, err = pr()
    assert status == 0, err
    assert "#### pre-commit: not run" in world.out.read_text()
    assert (
        "pre-commit" not in err
    )  # apply refuses a failing series: a missing record is said in the text

    record.save(HOOKS, world.patches, world.evidence, world.base)
    world.series(V2)
    world.out.unlink()
    status, _out, err = pr("--force")
    assert status == 0, err
    assert "#### pre-commit: stale, not reported" in world.out.read_text()
    assert "| ruff |" not in world.out.read_text()
    assert "warning: pre-commit: stale" in err and "run `nox -s apply`" in err
