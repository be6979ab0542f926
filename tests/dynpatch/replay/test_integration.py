"""The replay harness on the real pinned release: it can see a divergence, and it never
lets dynamo's fatal path end a child silently (that the unplanted trees agree is what
``nox -s verify`` checks just before this file runs).

Needs the replay environment (torch, transformers, ai-dynamo-runtime, ...), which
``nox -s verify`` installs and then runs this file in; elsewhere these tests skip.
Mutants are copies of the patched tree with a planted change, made in tmp_path.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from dynpatch import upstream_fix, verify
from dynpatch.errors import ToolkitError
from dynpatch.fetch import fetch
from dynpatch.pin import load_pin
from dynpatch.replay import runner, scenarios
from dynpatch.trees import Trees, prepare_trees
from tests.fixtures.synthetic import REPO

pytestmark = pytest.mark.integration

SCENARIOS = [
    "missing-selected-token-falls-back-to-first",
    "1-choice-one-token-top1",
    "fatal-engine-error-mid-stream",
]


def _missing_replay_env() -> str | None:
    for module in ("torch", "transformers", "dynamo._core"):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            return module
    return None


@pytest.fixture(scope="module")
def trees() -> Trees:
    missing = _missing_replay_env()
    if missing:
        pytest.skip(f"needs the replay environment ({missing} is missing): run `nox -s verify`")
    return prepare_trees(fetch(load_pin(REPO.pin), REPO), REPO.patches, REPO.trees)


@pytest.fixture(scope="module")
def baseline(trees: Trees, tmp_path_factory: pytest.TempPathFactory) -> dict:
    logs = tmp_path_factory.mktemp("logs")
    tree = runner.Tree("baseline", trees.src(trees.baseline))
    return runner.run_child(tree, {"mode": "verify", "scenarios": SCENARIOS}, logs / "b.log")


def mutant(trees: Trees, dest: Path, path: str, *edits: str) -> runner.Tree:
    """A copy of the patched tree's sources with ``path`` edited: ``edits`` are pairs of
    ``old``, ``new`` (each ``old`` found exactly once)."""
    src = dest / "src"
    shutil.copytree(trees.src(trees.patched) / "dynamo", src / "dynamo")
    target = src / path
    text = target.read_text()
    for old, new in zip(edits[::2], edits[1::2], strict=True):
        assert text.count(old) == 1, f"{path} no longer holds {old!r}: update this mutation"
        text = text.replace(old, new)
    target.write_text(text)
    return runner.Tree("patched", src)


def test_a_planted_divergence_is_reported_at_its_chunk_and_field(
    trees: Trees, baseline: dict, tmp_path: Path
) -> None:
    # Fall back to the last entry instead of the first when the selected token is
    # missing: one float in one chunk changes, and verify must say which.
    broken = mutant(
        trees,
        tmp_path,
        "dynamo/common/backend/logprobs.py",
        "next(iter(token_logprobs_dict.values()), None)",
        "next(reversed(token_logprobs_dict.values()), None)",
    )
    result = runner.run_child(
        broken, {"mode": "verify", "scenarios": SCENARIOS}, tmp_path / "m.log"
    )
    outcomes = {o.name: o for o in verify.compare(baseline, result, {})}
    assert outcomes["1-choice-one-token-top1"].divergence is None
    d = outcomes["missing-selected-token-falls-back-to-first"].divergence
    assert d is not None
    # The scenario edits step 5 (choice 1's third token); each step reports 2 choices.
    assert (d.chunk, d.kind, d.field) == (11, "chunk", "log_probs[0]")
    assert d.baseline != d.patched
    lines = verify.summary_lines(list(outcomes.values()), 3, 0, seed=0, budget=0)
    assert f"DIVERGENCE: {d.describe()}" in lines and lines[-1] == "1 divergences"


def test_an_uncaught_worker_exit_fails_the_run(trees: Trees, tmp_path: Path) -> None:
    # The fatal path exiting the process by another route than the observed seam must
    # surface as a harness failure, never as a shorter stream.
    broken = mutant(
        trees,
        tmp_path,
        "dynamo/trtllm/request_handlers/handler_base.py",
        "await asyncio.to_thread(exit_worker_on_fatal_error, self.engine, self.runtime)",
        "os._exit(1)",
    )
    job = {"mode": "verify", "scenarios": ["fatal-engine-error-mid-stream"]}
    with pytest.raises(ToolkitError, match="exited with status 1 without a result"):
        runner.run_child(broken, job, tmp_path / "exit.log", python=sys.executable)


def test_a_handler_without_the_observed_seam_is_refused(trees: Trees, tmp_path: Path) -> None:
    broken = mutant(
        trees,
        tmp_path,
        "dynamo/trtllm/request_handlers/handler_base.py",
        "from dynamo.trtllm.engine_monitor import exit_worker_on_fatal_error\n",
        "from dynamo.trtllm import engine_monitor as _engine_monitor\n"
        "exit_worker_on_fatal_error = None\n"
        "del exit_worker_on_fatal_error\n",
    )
    with pytest.raises(ToolkitError, match="cannot observe dynamo's fatal path"):
        runner.run_child(broken, {"mode": "verify", "scenarios": []}, tmp_path / "seam.log")


def test_the_fatal_path_of_releases_before_1_6_is_observed(trees: Trees, tmp_path: Path) -> None:
    # The pinned handler given back the pre-1.6.0 end of _initiate_shutdown (no
    # exit_worker_on_fatal_error; cleanup, then os._exit(1) in `finally`): the replay
    # observes that exit as the same event, and the child lives to write its result.
    old_shape = mutant(
        trees,
        tmp_path,
        "dynamo/trtllm/request_handlers/handler_base.py",
        "from dynamo.trtllm.engine_monitor import exit_worker_on_fatal_error\n",
        "",
        "        await asyncio.to_thread(exit_worker_on_fatal_error, self.engine, self.runtime)\n",
        "        try:\n"
        "            if self.runtime:\n"
        "                self.runtime.shutdown()\n"
        "            if self.engine:\n"
        "                await self.engine.cleanup()\n"
        "        except Exception as cleanup_error:\n"
        '            logging.error(f"Error during graceful shutdown: {cleanup_error}")\n'
        "        finally:\n"
        "            os._exit(1)\n",
    )
    job = {"mode": "verify", "scenarios": ["fatal-engine-error-mid-stream"]}
    result = runner.run_child(old_shape, job, tmp_path / "old.log", python=sys.executable)
    assert result["fatal_seam"] == "os._exit"
    expectations = {s.name: s.expect for s in scenarios.named(job["scenarios"])}
    [outcome] = verify.compare(result, result, expectations)
    assert outcome.ok and outcome.events == ["worker_exit"], outcome.unmet
    [event] = [r for r in result["scenarios"][0]["records"] if '"kind":"worker_exit"' in r]
    assert '"caller":"HandlerBase._initiate_shutdown"' in event and '"status":1' in event
    assert "Error during graceful shutdown" not in (tmp_path / "old.log").read_text()


def test_the_real_handler_with_the_series_is_judged_fixed_and_a_planted_copy_is_not(
    trees: Trees, tmp_path: Path
) -> None:
    # The pinned release with the series is what an upstream fix under our own name
    # looks like: the run must call it fixed, and a history copy planted on the delta
    # path must be caught on the real handler.
    fixed, why = upstream_fix.judge(
        trees.src(trees.patched), "new_token_ids", Path(sys.executable), tmp_path / "j.log"
    )
    assert fixed, why
    copying = mutant(
        trees,
        tmp_path,
        "dynamo/common/backend/logprobs.py",
        "    if new_token_ids is None:\n",
        "    _history = tuple(output.token_ids)\n    if new_token_ids is None:\n",
    )
    fixed, why = upstream_fix.judge(
        copying.src, "new_token_ids", Path(sys.executable), tmp_path / "m.log"
    )
    assert not fixed and why.startswith("with `new_token_ids` given, chunk 1 of stream "), why
