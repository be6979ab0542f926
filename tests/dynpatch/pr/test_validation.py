"""dynpatch.pr.validation through `pr`: saved evidence for this series, and the push gate."""

from __future__ import annotations

from tests.fixtures.pr import V2, World, nothing_written, one_error


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
