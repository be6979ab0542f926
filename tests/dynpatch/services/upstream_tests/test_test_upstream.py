"""`test-upstream` end to end through the command line, offline: the real series on a small
tree in dynamo's shape (tests/fixtures/upstream_tree.py), a metadata-only runtime."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codemods import handler_response_loop_tests, helper_delta_tests
from dynpatch import cli, evidence
from dynpatch.designs import DESIGNS
from dynpatch.evidence import Record, TestUpstream
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from dynpatch.series import series_digest
from dynpatch.services import upstream_tests as stage_module
from dynpatch.services.export import export_series
from dynpatch.services.upstream_tests import tiers
from dynpatch.services.upstream_tests.runner import Run
from tests.dynpatch.services.upstream_tests.test_tiers import fake_site
from tests.fixtures.releases import fake_runtime
from tests.fixtures.synthetic import DELTA, REPO, one_error
from tests.fixtures.upstream_tree import FILES

TIMED_OUT = "pytest did not finish (exit -1): timed out after 1800s"


@pytest.fixture
def stage(synthetic_release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request):
    """A synthetic release (``FILES``, or the parametrised files) with its series exported;
    returns a function that runs `test-upstream` on it with extra arguments."""
    rel = synthetic_release(getattr(request, "param", FILES))
    checkout = fetch(rel.pin, rel.ws)
    patches = rel.ws.patches
    export_series(checkout, rel.pin, REPO, patches, DELTA)
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site", "9.9.9")))
    monkeypatch.delenv("DYNPATCH_GPU_PYTHON", raising=False)

    def run(*extra: str) -> int:  # in the release's workspace, tmp_path
        monkeypatch.chdir(tmp_path)
        return cli.main(["test-upstream", "--out", str(tmp_path / "out"), *extra])

    run.tmp = tmp_path  # type: ignore[attr-defined]
    run.patches = patches  # type: ignore[attr-defined]
    run.base = checkout.base  # type: ignore[attr-defined]
    run.export = lambda design: export_series(checkout, rel.pin, REPO, patches, design)  # type: ignore[attr-defined]
    return run


def _saved(stage) -> Record:  # type: ignore[no-untyped-def]
    """The one test-upstream record the run saved, read back typed."""
    assert len(list((stage.tmp / "out" / "evidence" / "test-upstream").glob("*.json"))) == 1
    record = evidence.load(
        TestUpstream, stage.tmp / "out" / "evidence", stage.base, series_digest(stage.patches)
    )
    assert isinstance(record, Record), record
    return record


def test_differential_run_mutation_proof_and_evidence(stage, capsys) -> None:
    assert stage() == 0
    printed = capsys.readouterr().out
    assert 'CPU tier (-m "pre_merge and gpu_0"), ai-dynamo 9.9.9: baseline vs patched' in printed
    assert "common/test_logprobs.py" in printed and "trtllm/test_flags.py" in printed
    assert "CPU tier: 3 tests on baseline, 6 on patched (3 new); regressions: none" in printed
    # What each carried test fails on in each mutant, as the JUnit XML says.
    keyword = "TypeError: extract_from_completion_output() got an unexpected keyword argument"
    copied = "AssertionError: token_ids copied though no logprobs were requested"  # dynamo's
    for name, fails in zip(
        helper_delta_tests.TESTS, [copied, "Failed: DID NOT RAISE ValueError", copied], strict=True
    ):
        said = printed.split(f"carried test test_logprobs.py::{name}\n", 1)[1].splitlines()
        assert said[0].startswith(f"  on the baseline: 1 of 1 fail on {keyword} 'new_token_ids' (")
        assert said[1].startswith(f"  new_token_ids accepted but ignored: 1 of 1 fail on {fails} (")
    assert (
        "carried tests: 3 fail on baseline, 3 pass on patched (of 3); with new_token_ids "
        "accepted but ignored, 3 of the 3 cases of new tests fail on their own assertions\n"
    ) in printed
    assert (
        "CPU tier: not collected here (needs another tier): trtllm/test_trtllm_handler_base.py"
        f"::TestGenerateLocally::{handler_response_loop_tests.TESTS[0]}, "
        "trtllm/test_trtllm_handler_base.py::test_trtllm_handler_matches_shared"
    ) in printed
    assert "STAND-IN tier: not run (torch is not installed in " in printed
    assert "GPU tier: not run (tensorrt_llm is not importable by " in printed
    junits = [f"cpu-{side}.xml" for side in ("baseline", "ignored", "mutant", "patched")]
    assert f"JUnit XML: out/junit/ ({', '.join(junits)})" in printed
    assert "verdict: pass" in printed
    assert sorted(p.name for p in (stage.tmp / "out" / "junit").iterdir()) == junits
    record = _saved(stage)
    assert record.passed and record.design == "delta"
    assert [t.name for t in record.facts.tiers] == ["cpu"]
    assert list(record.facts.not_run) == ["standin", "gpu"]
    assert "carried tests: 3 fail on baseline, 3 pass on patched" in record.summary
    assert "| `common/backend/tests/test_logprobs.py` | 2 | 0 | 0 | 0 | 5 | 0 | 0 | 0 |" in (
        record.summary
    )
    runs = record.details["runs"]["cpu"]
    for side in ("patched", "baseline"):
        where = str(stage.tmp / "out" / "trees" / f"{side}-")
        assert runs[side]["helper_imported_from"].startswith(where)
    (cpu,) = record.facts.tiers
    assert len(cpu.new) + len(cpu.extended) == 3 and cpu.changed == ()
    assert len(cpu.failed_before) == len(cpu.passed_after) == cpu.ignored_caught == 3
    assert cpu.why_before.startswith(("AssertionError", "TypeError", "Failed"))
    # the mutant tree is thrown away; the cached trees stay clean
    assert not list((stage.tmp / "out").glob(".mutants-*"))
    for tree in (stage.tmp / "out" / "trees").iterdir():
        assert gitio.local_changes(tree) == []


# A release before 1.5: no sentinel in test_logprobs.py, no TestGenerateLocally.
BEFORE_1_5 = {
    **FILES,
    "dynamo/common/backend/tests/test_logprobs.py": FILES[
        "dynamo/common/backend/tests/test_logprobs.py"
    ].split("\n\nclass _ExplodingTokenIds:")[0],
    "dynamo/trtllm/tests/test_trtllm_handler_base.py": "def test_other():\n    pass\n",
}


@pytest.mark.parametrize("stage", [BEFORE_1_5], indirect=True, ids=["before-1.5"])
def test_a_release_the_tests_are_not_carried_to_says_so_and_passes(stage, capsys) -> None:
    assert stage("--tier", "cpu") == 0
    printed = capsys.readouterr().out
    assert "CPU tier: the series carries no tests this tier runs on this release" in printed
    assert "carried test " not in printed and "verdict: pass" in printed


def test_the_one_liner_s_test_fails_on_the_baseline_copy_and_passes_patched(stage, capsys) -> None:
    stage.export(DESIGNS["one-liner"])  # only the helper's test (the STAND-IN tier: none)
    assert stage() == 0
    printed = capsys.readouterr().out
    assert "carried tests: 2 fail on baseline, 2 pass on patched (of 2)" in printed
    assert "on the baseline: 1 of 1 fail on AssertionError: token_ids copied" in printed


def test_a_regression_fails_the_verdict_and_the_gpu_tier_records_what_it_ran_on(
    stage, capsys, monkeypatch
) -> None:
    """The patched helper broken for one case the old test covers; the GPU tier on fake
    packages (no GPU here): an installed tensorrt_llm and a torch that sees one."""
    patch = next(stage.patches.glob("0001-*.patch"))
    text = patch.read_text()
    broken = text.replace(
        "+        chunk_token_ids = token_ids[num_output_tokens_so_far:]\n",
        "+        chunk_token_ids = token_ids[num_output_tokens_so_far + 1 :]\n",
    )
    assert broken != text
    patch.write_text(broken)
    gpu_site = fake_site(stage.tmp / "gpu-site", "1.1.0")
    dists = stage.tmp / "site"  # the pinned runtime's metadata, from the fixture
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(gpu_site), str(dists)]))
    monkeypatch.setenv(tiers.IMAGE_ENV, "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:9.9.9")
    assert stage() == 1
    printed = capsys.readouterr().out
    assert "CPU tier: 3 tests on baseline, 6 on patched (3 new); regressions: 1" in printed
    assert (
        "problem: regression: components/src/dynamo/common/backend/tests/test_logprobs.py"
        "::test_extract_completion_slices_from_offset (failed)"
    ) in printed
    assert "verdict: FAIL" in printed
    assert 'GPU tier (-m "pre_merge and trtllm and (gpu_0 or gpu_1)")' in printed
    assert "STAND-IN tier: not run (the GPU tier runs dynamo's handler tests for real)" in printed
    facts = {
        "tensorrt_llm": "1.1.0",
        "tensorrt_llm_path": str(gpu_site / "tensorrt_llm"),
        "gpu": "Fake GPU",
        "image": "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:9.9.9",
    }
    assert "GPU tier ran on: " + ", ".join(f"{k} {v}" for k, v in facts.items()) in printed
    record = _saved(stage)
    assert not record.passed and record.details["gpu"] == facts
    assert [t.name for t in record.facts.tiers] == ["cpu", "gpu"]


def test_an_unfinished_keyword_ignored_mutant_run_fails_the_verdict(
    stage, capsys, monkeypatch
) -> None:
    """Every other run real and passing; the keyword-ignored mutant's pytest killed at its
    timeout (as run_pytest reports it): no evidence of what that mutant does."""
    real = stage_module.run_pytest

    def timed_out_on_ignored(tier, side, tree, *args):  # type: ignore[no-untyped-def]
        if side != "ignored":
            return real(tier, side, tree, *args)
        return Run(f"{tier.name}-{side}", tree, -1, problem=TIMED_OUT)

    monkeypatch.setattr(stage_module, "run_pytest", timed_out_on_ignored)
    assert stage("--tier", "cpu") == 1
    printed = capsys.readouterr().out
    assert f"problem: CPU tier keyword-ignored mutant: {TIMED_OUT}\n" in printed
    assert "CPU tier baseline mutant:" not in printed and "verdict: FAIL" in printed
    assert f"CPU tier keyword-ignored mutant: {TIMED_OUT}" in _saved(stage).problems


def test_bad_inputs_are_one_line_and_write_nothing(stage, capsys, monkeypatch) -> None:
    def error_of(*extra: str) -> str:
        assert stage(*extra) == 2
        return one_error(capsys.readouterr().err)

    assert (
        error_of("--tier", "fast")
        == "error: unknown --tier 'fast': choose one of cpu, standin, gpu, all"
    )
    assert error_of("--tier", "gpu").startswith(
        "error: --tier gpu: the GPU tier cannot run here: tensorrt_llm is not importable by "
    )
    stage.patches.rename(stage.tmp / "moved")
    assert error_of() == f"error: no patch series in {stage.patches}: run `nox -s apply` first"
    (stage.tmp / "moved").rename(stage.patches)
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(stage.tmp / "site2", "1.0.0")))
    assert error_of().startswith("error: pin mismatch: the tree is ai-dynamo 9.9.9, but ")
    assert not (stage.tmp / "out").exists()

    # An apply while it runs: the trees hold one series and patches/ another by the time the
    # results are saved, so they are filed under neither (pytest stubbed out: not the point).
    monkeypatch.setenv("PYTHONPATH", str(stage.tmp / "site"))
    patch = next(stage.patches.glob("0001-*.patch"))

    def apply_meanwhile(tier, trees, *_):  # type: ignore[no-untyped-def]
        patch.write_text(patch.read_text() + "\n")
        runs = {side: Run(f"cpu-{side}", trees.baseline, 0) for side in ("baseline", "patched")}
        return stage_module.TierResult(tier, runs)

    monkeypatch.setattr(stage_module, "run_tier", apply_meanwhile)
    line = error_of("--tier", "cpu")
    assert "changed while test-upstream ran" in line and "nothing saved" in line
    assert not (stage.tmp / "out" / "evidence" / "test-upstream").exists()


@pytest.mark.integration
def test_the_committed_series_carries_its_regression_tests() -> None:
    from dynpatch.pin import load_pin
    from dynpatch.services.trees import prepare_trees
    from dynpatch.services.upstream_tests import series_carried_tests

    added, changed = series_carried_tests(
        prepare_trees(fetch(load_pin(REPO.pin), REPO), REPO.patches, REPO.trees)
    )
    assert added == {
        *((helper_delta_tests.PATH, name) for name in helper_delta_tests.TESTS),
        *(
            (handler_response_loop_tests.PATH, f"TestGenerateLocally::{name}")
            for name in handler_response_loop_tests.TESTS
        ),
    }
    assert changed == {(handler_response_loop_tests.PATH, handler_response_loop_tests.COMPARISON)}
