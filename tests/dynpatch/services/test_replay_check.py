"""verify's comparison, expectations, child failures and bad input, without dynamo."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from dynpatch import cli
from dynpatch.errors import ToolkitError
from dynpatch.replay import expect, runner, wire
from dynpatch.services import replay_check as verify
from dynpatch.services import variants
from tests.fixtures.synthetic import DELTA

FINISH = {"token_ids": [7], "index": 0, "log_probs": [-0.5], "finish_reason": "length"}
FINISH["completion_usage"] = {}


def stream(*chunks: dict[str, Any], tail: tuple[str, ...] = ()) -> list[str]:
    return [wire.record("submit", {"n": 1}), *(wire.record("chunk", c) for c in chunks), *tail]


def result(*scenarios: tuple[str, list[str]]) -> dict[str, Any]:
    return {"scenarios": [{"name": n, "records": r} for n, r in scenarios]}


def test_identical_streams_pass_and_the_summary_says_what_ran_and_reached() -> None:
    s = stream({"token_ids": [5], "index": 0}, FINISH)
    both = result(("a", s), ("property-000", s))
    outcomes = verify.compare(both, both, {"a": ("finish", "log_probs")})
    assert all(o.ok for o in outcomes)
    assert outcomes[0].chunks == 2 and outcomes[0].events == []
    lines = verify.summary_lines(outcomes, 1, 1, seed=42, budget=1)
    assert lines[0].startswith("2 scenarios: 1 named + 1 property streams (hypothesis seed 42")
    assert lines[-1] == "0 divergences"
    assert outcomes[1].traits == ["log_probs", "dropped", "flat"]
    assert "property streams reached: 1 log_probs, 0 top_logprobs, 1 dropped, 1 flat" in lines[1]
    other = result(("a", s), ("property-000", s[:2]))
    one_line = variants.alternative(DELTA)
    assert verify.alternative_line({"baseline": both, "alternative": other}, one_line, "") == (
        f"alternative ({one_line.what}): 1 divergences from the baseline (property-000)",
        1,
    )
    line, apart = verify.alternative_line({}, one_line, "no copy here")
    assert line.endswith(": not replayed: no copy here") and apart is None
    with pytest.raises(ToolkitError, match="different scenario lists"):
        verify.compare(result(("a", [])), result(("b", [])), {})


def test_a_divergence_or_an_unmet_expectation_fails() -> None:
    a = stream({"token_ids": [5], "index": 0, "log_probs": [-1.0]}, FINISH)
    b = stream({"token_ids": [5], "index": 0, "log_probs": [-2.0]}, FINISH)
    outcomes = verify.compare(result(("x", a)), result(("x", b)), {})
    assert not outcomes[0].ok
    lines = verify.summary_lines(outcomes, 1, 0, seed=0, budget=0)
    assert (
        "DIVERGENCE: scenario x, chunk 0 (chunk), field log_probs[0]: baseline -1.0 | patched -2.0"
        in lines
    )
    assert lines[-1] == "1 divergences"
    bare = stream({"token_ids": [5], "index": 0})
    [outcome] = verify.compare(result(("x", bare)), result(("x", bare)), {"x": ("log_probs",)})
    assert outcome.divergence is None and not outcome.ok
    assert outcome.unmet == [
        "baseline: a chunk carries log_probs",
        "patched: a chunk carries log_probs",
    ]
    assert verify.summary_lines([outcome], 1, 0, 0, 0)[-1] == (
        "1 scenarios did not show what they are named for"
    )


def test_expectations_some_record_passes_or_with_no_none_does() -> None:
    fatal = stream(
        {"finish_reason": {"error": "boom"}, "token_ids": []},
        tail=(wire.record("worker_exit", {"engine": "x"}),),
    )
    assert expect.unmet(("error_chunk", "worker_exit", "no_raised"), fatal) == []
    assert expect.unmet(("finish", "no_worker_exit"), fatal) == [
        "a chunk has a finish_reason and usage",
        "not: dynamo's fatal path asks to exit the worker",
    ]
    with pytest.raises(KeyError):
        expect.unmet(("nonsense",), fatal)
    several = {"token_ids": [5, 6], "index": 0, "log_probs": [-1.0, -2.0]}
    assert expect.unmet(("multi_token",), stream(several)) == []
    one_each = {"token_ids": [5], "index": 0, "log_probs": [-1.0]}
    short = {**several, "log_probs": [-1.0]}  # the helper cut the window
    bare = {"token_ids": [5, 6], "index": 0}  # the helper bailed out
    assert all(expect.unmet(("multi_token",), stream(c)) for c in (one_each, short, bare))
    # Releases before 1.5 send prompt_tokens_details = None when nothing was cached.
    usage = {"prompt_tokens": 4, "prompt_tokens_details": None}
    assert expect.unmet(("cached_tokens",), stream({**FINISH, "completion_usage": usage}))
    usage["prompt_tokens_details"] = {"cached_tokens": 4}
    assert not expect.unmet(("cached_tokens",), stream({**FINISH, "completion_usage": usage}))


def test_expectations_of_later_releases_are_not_expected_of_earlier_ones() -> None:
    expectations = {
        "prompt-logprobs": ("finish", "prompt_logprobs"),
        "rejected-at-submission": ("error_chunk", "no_worker_exit"),
        "other": ("no_worker_exit",),
    }
    assert verify.for_release(expectations, "1.6.0") == (expectations, [])
    kept, waived = verify.for_release(expectations, "1.5.1")
    assert kept == {**expectations, "rejected-at-submission": ("error_chunk",)}
    assert waived == ["rejected-at-submission: no_worker_exit (dynamo 1.6.0 on)"]
    kept, waived = verify.for_release(expectations, "1.3.0.post1")
    assert kept["prompt-logprobs"] == ("finish",) and kept["other"] == ("no_worker_exit",)
    assert len(waived) == 2
    # a dev build before the release is held to what the release before it does
    assert verify.for_release(expectations, "1.6.0.dev20260918")[1] == waived[1:]


def test_check_trees_refuses_identical_code_and_different_fatal_exits() -> None:
    with pytest.raises(ToolkitError, match="patched tree lacks"):
        runner.check_trees({"has_new_token_ids": False}, {"has_new_token_ids": False}, "k")
    with pytest.raises(ToolkitError, match="baseline tree already has"):
        runner.check_trees({"has_new_token_ids": True}, {"has_new_token_ids": True}, "k")
    baseline = {"has_new_token_ids": False, "fatal_seam": "os._exit"}
    patched = {"has_new_token_ids": True, "fatal_seam": "exit_worker_on_fatal_error"}
    with pytest.raises(ToolkitError, match="reach dynamo's fatal exit differently"):
        runner.check_trees(baseline, patched, "k")
    runner.check_trees(baseline, {**patched, "fatal_seam": "os._exit"}, "k")


def test_a_child_that_dies_before_reporting_or_has_no_tree_fails(tmp_path: Path) -> None:
    # An empty dynamo package: the child's import fails and it exits without a result,
    # which must be reported, never taken as an empty stream.
    with pytest.raises(ToolkitError, match="no dynamo package"):
        runner.run_child(runner.Tree("baseline", tmp_path), {}, tmp_path / "log")
    (tmp_path / "src" / "dynamo").mkdir(parents=True)
    tree = runner.Tree("patched", tmp_path / "src")
    with pytest.raises(ToolkitError, match="patched replay exited with status 1 without a result"):
        runner.run_child(tree, {"mode": "verify"}, tmp_path / "log.txt", python=sys.executable)
    assert "ModuleNotFoundError" in (tmp_path / "log.txt").read_text()
    env = runner.child_env(tmp_path, {"PYTHONPATH": "/elsewhere", "PYTHONHOME": "/x"})
    parts = env["PYTHONPATH"].split(":")
    assert parts[0] == str(tmp_path) and "/elsewhere" not in parts and "PYTHONHOME" not in env


def test_bad_options_give_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in (
        (["--budget", "-1"], "--budget must be 0 or more"),
        (["--scenario", "nope"], "unknown scenario 'nope'"),
    ):
        assert cli.main(["verify", *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]


def test_the_record_is_of_the_trees_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not of patches/ when the record is made: an apply meanwhile would otherwise pass off
    the replay of one series as the other's."""
    from dynpatch.services.trees import Trees
    from tests.fixtures import bench as synthetic

    patches = synthetic.write_series(tmp_path, synthetic.patch_text())
    built = Trees(tmp_path / "b", tmp_path / "p", "b" * 40, "1" * 64, "2" * 64)
    monkeypatch.setattr(verify, "prepare_trees", lambda *a: built)
    one = stream(FINISH)
    ran = {"scenarios": [{"name": "1-choice-one-token-top1", "records": one}], "modules": {}}
    sides = {
        "baseline": {**ran, "has_new_token_ids": False},
        "patched": {**ran, "has_new_token_ids": True},
    }
    monkeypatch.setattr(runner, "run_trees", lambda *a, **k: sides)
    monkeypatch.setattr(verify, "for_release", lambda expected, version: ({}, []))
    options = verify.VerifyOptions(
        budget=0, scenario=["1-choice-one-token-top1"], alternative=False
    )
    checkout = type("Checkout", (), {"release": type("R", (), {"version": "9.9.9"})()})()
    result = verify.check(options, checkout, patches, tmp_path / "trees", tmp_path / "out")  # type: ignore[arg-type]
    assert result.ok and result.record is not None
    assert (result.record.base, result.record.series_sha256) == ("b" * 40, "1" * 64)
