"""verify's comparison, expectations, child failures and bad input, without dynamo."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from dynpatch import cli, verify
from dynpatch.errors import ToolkitError
from dynpatch.replay import expect, runner, wire
from dynpatch.replay.properties import draw_scripts
from dynpatch.replay.script import from_json, to_json


def stream(*chunks: dict[str, Any], tail: tuple[str, ...] = ()) -> list[str]:
    return [wire.record("submit", {"n": 1}), *(wire.record("chunk", c) for c in chunks), *tail]


FINISH = {
    "token_ids": [7],
    "index": 0,
    "log_probs": [-0.5],
    "finish_reason": "length",
    "completion_usage": {},
}


def result(*scenarios: tuple[str, list[str]]) -> dict[str, Any]:
    return {"scenarios": [{"name": n, "records": r} for n, r in scenarios]}


def test_identical_streams_pass_and_summary_says_zero_divergences() -> None:
    s = stream({"token_ids": [5], "index": 0}, FINISH)
    outcomes = verify.compare(
        result(("a", s), ("property-000", s)),
        result(("a", s), ("property-000", s)),
        {"a": ("finish", "log_probs")},
    )
    assert all(o.ok for o in outcomes)
    assert outcomes[0].chunks == 2 and outcomes[0].events == []
    lines = verify.summary_lines(outcomes, 1, 1, seed=42, budget=1)
    assert lines[0].startswith("2 scenarios: 1 named + 1 property streams (hypothesis seed 42")
    assert lines[-1] == "0 divergences"
    assert outcomes[1].traits == ["log_probs", "dropped", "flat"]
    assert "property streams reached: 1 log_probs, 0 top_logprobs, 1 dropped, 1 flat" in lines[1]


def test_divergence_is_reported_with_scenario_chunk_field_and_values() -> None:
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


def test_unmet_expectation_fails_even_when_streams_are_equal() -> None:
    s = stream(
        {"token_ids": [5], "index": 0}, {k: v for k, v in FINISH.items() if k != "log_probs"}
    )
    outcomes = verify.compare(result(("x", s)), result(("x", s)), {"x": ("log_probs",)})
    assert outcomes[0].divergence is None and not outcomes[0].ok
    assert outcomes[0].unmet == [
        "baseline: some chunk carries log_probs",
        "patched: some chunk carries log_probs",
    ]


def test_different_scenario_lists_are_a_harness_error() -> None:
    with pytest.raises(ToolkitError, match="different scenario lists"):
        verify.compare(result(("a", [])), result(("b", [])), {})


def test_expectation_checks_on_events() -> None:
    fatal = stream(
        {"finish_reason": {"error": "boom"}, "token_ids": []},
        tail=(wire.record("worker_exit", {"engine": "x"}),),
    )
    assert expect.unmet(("error_chunk", "worker_exit"), fatal) == []
    assert expect.unmet(("finish", "no_worker_exit"), fatal) == [
        "ends with a finish_reason chunk and usage",
        "no worker exit",
    ]
    with pytest.raises(KeyError):
        expect.unmet(("nonsense",), fatal)


def test_multi_token_needs_several_new_tokens_each_with_its_logprob() -> None:
    several = {"token_ids": [5, 6], "index": 0, "log_probs": [-1.0, -2.0]}
    assert expect.unmet(("multi_token",), stream(several, FINISH)) == []
    one_each = stream({"token_ids": [5], "index": 0, "log_probs": [-1.0]}, FINISH)
    short = stream({**several, "log_probs": [-1.0]}, FINISH)  # the helper cut the window
    bare = stream({"token_ids": [5, 6], "index": 0}, FINISH)  # the helper bailed out
    for records in (one_each, short, bare):
        assert expect.unmet(("multi_token",), records) == [
            "some chunk carries several new tokens, each with its log_probs"
        ]


def test_cached_tokens_is_unmet_when_older_releases_send_no_details() -> None:
    usage = {"prompt_tokens": 4, "completion_tokens": 1, "prompt_tokens_details": None}
    assert expect.unmet(("cached_tokens",), stream({**FINISH, "completion_usage": usage})) == [
        "usage reports cached tokens"
    ]
    usage["prompt_tokens_details"] = {"cached_tokens": 4}
    assert expect.unmet(("cached_tokens",), stream({**FINISH, "completion_usage": usage})) == []


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


def test_property_streams_are_reproducible_from_the_seed() -> None:
    a, b = draw_scripts(15, seed=3), draw_scripts(15, seed=3)
    assert a == b and len(a) == 15
    assert [s.name for s in a[:2]] == ["property-000", "property-001"]
    assert all(from_json(to_json(s)) == s for s in a)
    assert draw_scripts(15, seed=4) != a


def test_check_trees_refuses_a_comparison_of_identical_code() -> None:
    with pytest.raises(ToolkitError, match="patched tree lacks"):
        runner.check_trees({"has_new_token_ids": False}, {"has_new_token_ids": False})
    with pytest.raises(ToolkitError, match="baseline tree already has"):
        runner.check_trees({"has_new_token_ids": True}, {"has_new_token_ids": True})
    runner.check_trees({"has_new_token_ids": False}, {"has_new_token_ids": True})


def test_check_trees_refuses_trees_that_reach_the_fatal_exit_differently() -> None:
    baseline = {"has_new_token_ids": False, "fatal_seam": "os._exit"}
    patched = {"has_new_token_ids": True, "fatal_seam": "exit_worker_on_fatal_error"}
    with pytest.raises(ToolkitError, match="reach dynamo's fatal exit differently"):
        runner.check_trees(baseline, patched)
    runner.check_trees(baseline, {**patched, "fatal_seam": "os._exit"})


def test_child_that_dies_before_reporting_is_a_harness_failure(tmp_path: Path) -> None:
    # A tree whose dynamo package is empty: the child's import fails and it exits
    # without writing a result, which must be reported, not taken as an empty stream.
    (tmp_path / "src" / "dynamo").mkdir(parents=True)
    tree = runner.Tree("patched", tmp_path / "src")
    with pytest.raises(ToolkitError, match="patched replay exited with status 1 without a result"):
        runner.run_child(tree, {"mode": "verify"}, tmp_path / "log.txt", python=sys.executable)
    assert "ModuleNotFoundError" in (tmp_path / "log.txt").read_text()


def test_child_env_puts_the_tree_first(tmp_path: Path) -> None:
    env = runner.child_env(tmp_path, {"PYTHONPATH": "/elsewhere", "PYTHONHOME": "/x"})
    parts = env["PYTHONPATH"].split(":")
    assert parts[0] == str(tmp_path) and "/elsewhere" not in parts
    assert "PYTHONHOME" not in env


def test_tree_without_dynamo_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolkitError, match="no dynamo package"):
        runner.run_child(runner.Tree("baseline", tmp_path), {}, tmp_path / "log")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--budget", "-1"], "--budget must be 0 or more"),
        (["verify", "--scenario", "no-such-scenario"], "unknown scenario 'no-such-scenario'"),
    ],
)
def test_bad_options_give_one_error_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]
