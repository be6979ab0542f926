"""The replay harness on the real pinned release: it sees a planted divergence, observes
dynamo's fatal path in either release shape, and tells a fix from a history copy (that the
unplanted trees agree is what ``nox -s verify`` checks just before this file runs).

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

from dynpatch.fetch import fetch
from dynpatch.pin import load_pin
from dynpatch.replay import runner, scenarios
from dynpatch.services import replay_check as verify
from dynpatch.services import upstream_fix, variants
from dynpatch.services.trees import Trees, prepare_trees
from tests.fixtures.synthetic import REPO

pytestmark = pytest.mark.integration

SCENARIOS = [
    "missing-selected-token-falls-back-to-first",
    "1-choice-one-token-top1",
    "fatal-engine-error-mid-stream",
]


@pytest.fixture(scope="module")
def trees() -> Trees:
    for module in ("torch", "transformers", "dynamo"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs the replay environment ({module} is missing): run `nox -s verify`")
    return prepare_trees(fetch(load_pin(REPO.pin), REPO), REPO.patches, REPO.trees)


@pytest.fixture(scope="module")
def baseline(trees: Trees, tmp_path_factory: pytest.TempPathFactory) -> dict:
    logs = tmp_path_factory.mktemp("logs")
    tree = runner.Tree("baseline", trees.src(trees.baseline))
    return runner.run_child(tree, {"mode": "verify", "scenarios": SCENARIOS}, logs / "b.log")


def mutant(trees: Trees, dest: Path, edits: dict[str, list[str]]) -> runner.Tree:
    """A copy of the patched tree's sources with each file of ``edits`` edited: its list
    holds pairs of ``old``, ``new`` (each ``old`` found exactly once)."""
    src = dest / "src"
    shutil.copytree(trees.src(trees.patched) / "dynamo", src / "dynamo")
    for path, pairs in edits.items():
        text = (src / path).read_text()
        for old, new in zip(pairs[::2], pairs[1::2], strict=True):
            assert text.count(old) == 1, f"{path} no longer holds {old!r}: update this mutation"
            text = text.replace(old, new)
        (src / path).write_text(text)
    return runner.Tree("patched", src)


def test_a_planted_divergence_is_reported_and_the_fatal_path_before_1_6_is_observed(
    trees: Trees, baseline: dict, tmp_path: Path
) -> None:
    # One mutant, two plants. In logprobs: fall back to the last entry instead of the
    # first when the selected token is missing, so one float in one chunk changes and
    # verify must say which. In handler_base: the pre-1.6.0 end of _initiate_shutdown (no
    # exit_worker_on_fatal_error; cleanup, then os._exit(1) in `finally`), whose exit the
    # replay must observe as the same event, the child living to write its result.
    broken = mutant(
        trees,
        tmp_path,
        {
            "dynamo/common/backend/logprobs.py": [
                "next(iter(token_logprobs_dict.values()), None)",
                "next(reversed(token_logprobs_dict.values()), None)",
            ],
            "dynamo/trtllm/request_handlers/handler_base.py": [
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
            ],
        },
    )
    log = tmp_path / "m.log"
    result = runner.run_child(broken, {"mode": "verify", "scenarios": SCENARIOS}, log)
    expectations = {s.name: s.expect for s in scenarios.named(SCENARIOS)}
    outcomes = {o.name: o for o in verify.compare(baseline, result, expectations)}
    assert outcomes["1-choice-one-token-top1"].ok
    d = outcomes["missing-selected-token-falls-back-to-first"].divergence
    assert d is not None
    # The scenario edits step 5 (choice 1's third token); each step reports 2 choices.
    assert (d.chunk, d.kind, d.field) == (11, "chunk", "log_probs[0]")
    assert d.baseline != d.patched
    lines = verify.summary_lines(list(outcomes.values()), 3, 0, seed=0, budget=0)
    assert f"DIVERGENCE: {d.describe()}" in lines and lines[-1] == "2 divergences"

    assert result["fatal_seam"] == "os._exit"
    fatal = outcomes["fatal-engine-error-mid-stream"]
    assert not fatal.unmet and fatal.events == ["worker_exit"]
    assert fatal.divergence is not None and fatal.divergence.kind == "worker_exit"  # chunks alike
    [event] = [r for r in result["scenarios"][2]["records"] if '"kind":"worker_exit"' in r]
    assert '"caller":"HandlerBase._initiate_shutdown"' in event and '"status":1' in event
    assert "Error during graceful shutdown" not in log.read_text()


def test_the_real_handler_with_the_series_or_the_one_liner_is_judged_fixed_not_a_copy(
    trees: Trees, tmp_path: Path
) -> None:
    # The pinned release with the series is what an upstream fix under our own name looks
    # like, the release with only its `list(...)` dropped what the one-line alternative
    # looks like: the run must call both fixed, and a history copy planted on the delta
    # path must be caught on the real handler.
    helper = "dynamo/common/backend/logprobs.py"
    baseline_helper = (trees.src(trees.baseline) / helper).read_text()
    ref = upstream_fix.Reference(
        trees.src(trees.patched), Path(sys.executable), "the series", baseline_helper
    )
    python = Path(sys.executable)
    fixed, why = upstream_fix.judge(ref.src, ref, python, tmp_path / "j.log", "patched")
    assert fixed, why
    one_liner = tmp_path / "one-liner"
    shutil.copytree(trees.src(trees.baseline) / "dynamo", one_liner / "dynamo")
    (one_liner / helper).write_text(variants.drop_copy(baseline_helper))
    fixed, why = upstream_fix.judge(one_liner, ref, python, tmp_path / "o.log", "one-liner")
    assert fixed, why
    copying = mutant(
        trees,
        tmp_path,
        {
            helper: [
                "    if new_token_ids is None:\n",
                "    _history = tuple(output.token_ids)\n    if new_token_ids is None:\n",
            ]
        },
    )
    fixed, why = upstream_fix.judge(copying.src, ref, python, tmp_path / "m.log", "mutant")
    assert not fixed and why.startswith("chunk 1 of stream "), why
