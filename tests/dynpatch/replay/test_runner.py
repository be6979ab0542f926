"""The parent side, with real children on a fake dynamo tree: the tree check, the child's
setup report, refusals, crashes, and what comes back."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.replay import runner, scenarios
from dynpatch.replay.handler import TREE_MODULES, inside
from dynpatch.replay.script import chunk_history
from tests.fixtures.replay import fake_dynamo_tree


def test_a_path_is_inside_a_root_only_where_it_resolves_to(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "m.py").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").symlink_to(tmp_path / "real" / "m.py")
    assert inside(str(tmp_path / "real" / "m.py"), tmp_path / "real")
    assert not inside(tmp_path / "src" / "m.py", tmp_path / "src")  # a link leads out
    assert not inside(tmp_path / "src" / ".." / "real" / "m.py", tmp_path / "src")
    assert not inside(None, tmp_path) and not inside("", tmp_path)


def test_check_origins_needs_every_tree_module_from_the_tree_but_the_runtime(
    tmp_path: Path,
) -> None:
    tree = runner.Tree("patched", tmp_path / "src")
    modules = {name: str(tree.src / (name.replace(".", "/") + ".py")) for name in TREE_MODULES}
    runner.check_origins(tree, {"modules": {**modules, "dynamo._core": "/site/_core.so"}})
    bad = {"modules": {**modules, "dynamo.trtllm.x": "/elsewhere/x.py"}}
    with pytest.raises(ToolkitError, match=r"patched replay imported dynamo\.trtllm\.x from /else"):
        runner.check_origins(tree, bad)
    del modules[TREE_MODULES[1]]
    with pytest.raises(ToolkitError, match=f"did not report where {TREE_MODULES[1]} came from"):
        runner.check_origins(tree, {"modules": modules})


@pytest.mark.parametrize("fatal", ["exit_worker_on_fatal_error", "os._exit"])
def test_a_verify_child_on_the_fake_tree_returns_its_records(tmp_path: Path, fatal: str) -> None:
    src = fake_dynamo_tree(tmp_path, new_token_ids=True, fatal=fatal)
    names = ["1-choice-one-token-top1", "no-outputs-while-running"]
    result = runner.run_child(runner.Tree("patched", src), {"scenarios": names}, tmp_path / "log")
    assert result["ok"] and result["tree"] == "patched" and result["has_new_token_ids"]
    assert result["fatal_seam"] == fatal
    versions = {"torch", "transformers", "ai-dynamo-runtime", "pydantic"}
    assert set(result["environment"]["versions"]) == versions
    assert [s["name"] for s in result["scenarios"]] == names
    first, fatal_one = (s["records"] for s in result["scenarios"])
    chunks = [r for r in first if r.startswith('{"kind":"chunk"')]
    assert len(chunks) == len(chunk_history(scenarios.named(names[:1])[0]))
    # The fake handler takes the fatal path on the result with no outputs; the child
    # observed it (on either seam), once, and lived on to the end of the stream.
    exits = [r for r in fatal_one if '"kind":"worker_exit"' in r]
    assert len(exits) == 1 and f'"seam":"{fatal}"' in exits[0]
    assert sum(r.startswith('{"kind":"chunk"') for r in fatal_one) == 6  # 7 results, 1 empty
    assert not any('"kind":"worker_exit"' in r for r in first)


def test_a_child_that_imports_elsewhere_cannot_set_up_or_dies_says_so(tmp_path: Path) -> None:
    def run(label: str, src: Path) -> None:
        runner.run_child(runner.Tree(label, src), {"scenarios": []}, tmp_path / "log")

    elsewhere = r"baseline replay imported dynamo\.common\.backend\.logprobs from "
    with pytest.raises(ToolkitError, match=elsewhere):
        run("baseline", fake_dynamo_tree(tmp_path / "e", elsewhere=True))
    refused = r"refused to run: .*binds exit_worker_on_fatal_error.*os\._exit.*cannot observe"
    with pytest.raises(ToolkitError, match=refused):
        run("baseline", fake_dynamo_tree(tmp_path / "n", fatal="none"))
    # One child for two trees: the tree that cannot set up is named, the other ran.
    good = runner.Tree("patched", fake_dynamo_tree(tmp_path / "g", new_token_ids=True))
    both = [runner.Tree("baseline", fake_dynamo_tree(tmp_path / "n2", fatal="none")), good]
    with pytest.raises(ToolkitError, match=r"refused to run: baseline: handler_base neither"):
        runner.run_trees(both, {"scenarios": []}, tmp_path / "logs")
    assert (tmp_path / "logs" / "patched.log").is_file()
    (both[0].src / "dynamo" / "common" / "backend" / "logprobs.py").write_text("raise OSError\n")
    with pytest.raises(ToolkitError, match="the baseline tree's copy ended with wait status"):
        runner.run_trees(both, {"scenarios": []}, tmp_path / "logs")
    # A tensorrt_llm ahead of the stand-in on the path is not the stand-in, whatever it says.
    src = fake_dynamo_tree(tmp_path / "t")
    (src / "tensorrt_llm").mkdir()
    (src / "tensorrt_llm" / "__init__.py").write_text("STANDIN = True\n")
    with pytest.raises(ToolkitError, match=r"refused to run: tensorrt_llm came from .* not the"):
        run("baseline", src)
    (tmp_path / "bare" / "dynamo").mkdir(parents=True)
    with pytest.raises(ToolkitError, match=r"exited with status 1 without a result .*NotFound"):
        run("baseline", tmp_path / "bare")
