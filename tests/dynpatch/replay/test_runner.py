"""The parent side of both transports, with real children on a fake dynamo tree: the
tree check (once per child, here), refusals, and what comes back."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.replay import runner
from dynpatch.replay.paths import TREE_MODULES
from tests.fixtures.replay import fake_dynamo_tree

CASE = {"tokens": 8, "choices": 2, "k": 1}


def report(src: Path, **extra: str) -> dict:
    modules = {name: str(src / (name.replace(".", "/") + ".py")) for name in TREE_MODULES}
    return {"modules": {**modules, **extra}}


def test_check_origins_accepts_a_report_from_the_tree(tmp_path: Path) -> None:
    tree = runner.Tree("baseline", tmp_path)
    runner.check_origins(tree, report(tmp_path, **{"dynamo._core": "/site-packages/_core.so"}))


def test_check_origins_names_a_module_from_elsewhere(tmp_path: Path) -> None:
    tree = runner.Tree("patched", tmp_path / "src")
    bad = report(tmp_path / "src", **{"dynamo.trtllm.x": "/elsewhere/x.py"})
    with pytest.raises(ToolkitError, match=r"patched replay imported dynamo\.trtllm\.x from /else"):
        runner.check_origins(tree, bad)


def test_check_origins_needs_every_tree_module(tmp_path: Path) -> None:
    partial = report(tmp_path)
    del partial["modules"][TREE_MODULES[1]]
    with pytest.raises(ToolkitError, match=f"did not report where {TREE_MODULES[1]} came from"):
        runner.check_origins(runner.Tree("baseline", tmp_path), partial)


@pytest.mark.parametrize("fatal", ["exit_worker_on_fatal_error", "os._exit"])
def test_a_verify_child_on_the_fake_tree_returns_its_records(tmp_path: Path, fatal: str) -> None:
    src = fake_dynamo_tree(tmp_path, new_token_ids=True, fatal=fatal)
    tree = runner.Tree("patched", src)
    job = {"scenarios": ["1-choice-one-token-top1", "no-outputs-while-running"]}
    result = runner.run_child(tree, job, tmp_path / "log", python=sys.executable)
    assert result["ok"] and result["tree"] == "patched" and result["has_new_token_ids"]
    assert result["fatal_seam"] == fatal
    names = [s["name"] for s in result["scenarios"]]
    assert names == ["1-choice-one-token-top1", "no-outputs-while-running"]
    # The fake handler takes the fatal path on the result with no outputs; the child
    # observed it (on either seam) and lived to write its result.
    exits = [r for r in result["scenarios"][1]["records"] if '"kind":"worker_exit"' in r]
    assert len(exits) == 1 and f'"seam":"{fatal}"' in exits[0]
    assert not any('"kind":"worker_exit"' in r for r in result["scenarios"][0]["records"])


def test_a_verify_child_importing_from_elsewhere_is_refused(tmp_path: Path) -> None:
    tree = runner.Tree("baseline", fake_dynamo_tree(tmp_path, elsewhere=True))
    with pytest.raises(
        ToolkitError, match=r"baseline replay imported dynamo\.common\.backend\.logprobs from "
    ):
        runner.run_child(tree, {"scenarios": []}, tmp_path / "log", python=sys.executable)


def test_a_verify_child_that_cannot_set_up_says_why(tmp_path: Path) -> None:
    tree = runner.Tree("baseline", fake_dynamo_tree(tmp_path, fatal="none"))
    with pytest.raises(ToolkitError, match=r"refused to run: .*cannot observe"):
        runner.run_child(tree, {"scenarios": []}, tmp_path / "log", python=sys.executable)


def test_a_worker_on_the_fake_tree_answers_time_and_alloc(tmp_path: Path) -> None:
    tree = runner.Tree("baseline", fake_dynamo_tree(tmp_path))
    with runner.Worker(tree, tmp_path / "w.log", python=sys.executable) as worker:
        worker.ready()
        assert worker.hello["tree"] == "baseline" and not worker.hello["has_new_token_ids"]
        timed = worker.ask({"cmd": "time", "case": CASE, "ops": 2})
        assert timed["chunks"] == 32 and len(timed["ops_ns"]) == 2
        alloc = worker.ask({"cmd": "alloc", "case": CASE, "samples": 4})["alloc"]
        assert alloc and all(len(s) == 2 for s in alloc)


def test_a_worker_importing_from_elsewhere_is_refused_and_closed(tmp_path: Path) -> None:
    tree = runner.Tree("patched", fake_dynamo_tree(tmp_path, elsewhere=True))
    worker = runner.Worker(tree, tmp_path / "w.log", python=sys.executable)
    with pytest.raises(
        ToolkitError, match=r"patched replay imported dynamo\.common\.backend\.logprobs from "
    ):
        worker.ready()
    assert worker._proc.poll() is not None and not worker.hello


def test_a_worker_that_cannot_set_up_says_why(tmp_path: Path) -> None:
    tree = runner.Tree("patched", fake_dynamo_tree(tmp_path, fatal="none"))
    with pytest.raises(ToolkitError, match=r"patched replay refused to run: .*cannot observe"):
        runner.Worker(tree, tmp_path / "w.log", python=sys.executable).ready()


def test_a_worker_that_dies_before_its_setup_report_is_a_failure(tmp_path: Path) -> None:
    (tmp_path / "src" / "dynamo").mkdir(parents=True)
    tree = runner.Tree("baseline", tmp_path / "src")
    with pytest.raises(ToolkitError, match="exited with status 1 without an answer"):
        runner.Worker(tree, tmp_path / "w.log", python=sys.executable).ready()
    assert "ModuleNotFoundError" in (tmp_path / "w.log").read_text()
