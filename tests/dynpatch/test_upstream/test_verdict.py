"""The differential verdict and the mutation proof, on hand-made run records."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.test_upstream import verdict
from dynpatch.test_upstream.runner import CaseResult, Run

LOGPROBS = "components/src/dynamo/common/backend/tests/test_logprobs.py"
OTHER = "components/src/dynamo/common/backend/tests/test_engine.py"
HELPER_FILE = "components/src/dynamo/common/backend/logprobs.py"
TYPE_ERROR = (
    "TypeError: extract_from_completion_output() got an unexpected keyword argument 'new_token_ids'"
)


def make_tree(root: Path) -> Path:
    (root / HELPER_FILE).parent.mkdir(parents=True)
    (root / HELPER_FILE).write_text("# helper\n")
    return root


def make_run(tree: Path, tests: dict[str, str | tuple[str, str]], **kw: object) -> Run:
    run = Run(label="cpu-x", tree=tree, exit_code=0)
    for key, value in tests.items():
        outcome, message = (value, "") if isinstance(value, str) else value
        run.tests[key] = CaseResult(outcome, message)
    run.modules = {
        "dynamo": None,
        verdict.HELPER_MODULE: str(tree / HELPER_FILE),
        "dynamo._core": "/site-packages/dynamo/_core.abi3.so",
    }
    run.junit_cases = len(run.tests) + len(run.collect_errors)
    for name, value in kw.items():
        setattr(run, name, value)
    return run


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    return make_tree(tmp_path / "baseline"), make_tree(tmp_path / "patched")


# --- differential ------------------------------------------------------------------


def test_same_results_on_both_sides_is_clean(trees: tuple[Path, Path]) -> None:
    tests = {f"{LOGPROBS}::test_a": "passed", f"{OTHER}::test_b": "skipped"}
    base, patched = make_run(trees[0], tests), make_run(trees[1], tests)
    assert verdict.regressions(base, patched) == []
    assert verdict.run_problems(base, "baseline") == []
    assert verdict.run_problems(patched, "patched") == []
    rows = verdict.file_rows(base, patched)
    assert [r.path for r in rows] == sorted([LOGPROBS, OTHER])
    assert rows[1].patched == {"passed": 1}


@pytest.mark.parametrize("after", ["failed", "error", "skipped", None])
def test_a_test_that_stops_passing_is_a_regression(
    trees: tuple[Path, Path], after: str | None
) -> None:
    base = make_run(trees[0], {f"{LOGPROBS}::test_a": "passed"})
    patched = make_run(
        trees[1], {f"{LOGPROBS}::test_a": after} if after else {f"{OTHER}::t": "passed"}
    )
    assert verdict.regressions(base, patched) == [f"{LOGPROBS}::test_a ({after or 'not run'})"]


def test_failing_on_both_sides_is_reported_not_blamed(trees: tuple[Path, Path]) -> None:
    tests = {f"{OTHER}::test_video": ("failed", "ImportError: imageio"), f"{LOGPROBS}::t": "passed"}
    base, patched = make_run(trees[0], tests), make_run(trees[1], tests)
    assert verdict.regressions(base, patched) == []
    assert verdict.fail_on_both(base, patched) == [f"{OTHER}::test_video"]


def test_new_tests_on_patched_only_are_not_regressions(trees: tuple[Path, Path]) -> None:
    base = make_run(trees[0], {f"{LOGPROBS}::test_a": "passed"})
    patched = make_run(
        trees[1], {f"{LOGPROBS}::test_a": "passed", f"{LOGPROBS}::test_new": "passed"}
    )
    assert verdict.regressions(base, patched) == []
    assert verdict.file_rows(base, patched)[0].patched == {"passed": 2}


def test_collection_errors_and_empty_runs_are_failures(trees: tuple[Path, Path]) -> None:
    broken = make_run(trees[1], {}, collect_errors={OTHER: "ModuleNotFoundError: prometheus"})
    broken.junit_cases = 1
    problems = verdict.run_problems(broken, "patched")
    assert problems == [
        f"patched: collection error in {OTHER}: ModuleNotFoundError: prometheus",
        "patched: collected 0 tests",
    ]
    rows = verdict.file_rows(make_run(trees[0], {}), broken)
    assert rows[0].patched == {"error": 1}


def test_pytest_that_did_not_finish_is_one_problem(trees: tuple[Path, Path]) -> None:
    run = make_run(trees[0], {}, problem="pytest did not finish (exit 4): usage error")
    assert verdict.run_problems(run, "baseline") == [
        "baseline: pytest did not finish (exit 4): usage error"
    ]


def test_junit_must_agree_with_the_probe(trees: tuple[Path, Path]) -> None:
    run = make_run(trees[0], {f"{LOGPROBS}::a": "passed"}, junit_cases=3)
    assert verdict.run_problems(run, "baseline") == [
        "baseline: JUnit XML has 3 testcases, the probe saw 1"
    ]
    run.junit_cases = None
    assert verdict.run_problems(run, "baseline") == ["baseline: no JUnit XML written"]


# --- which copy of dynamo a run imported --------------------------------------------


def test_helper_from_another_copy_is_a_failure(trees: tuple[Path, Path]) -> None:
    baseline, patched = trees
    run = make_run(patched, {f"{LOGPROBS}::a": "passed"})
    run.modules[verdict.HELPER_MODULE] = str(baseline / HELPER_FILE)  # the unpatched code
    problems = verdict.import_problems(run, "patched")
    assert problems == [
        f"patched: imported {verdict.HELPER_MODULE} from {baseline / HELPER_FILE}, "
        f"not from {(patched / HELPER_FILE).resolve()}"
    ]


def test_helper_never_imported_is_a_failure(trees: tuple[Path, Path]) -> None:
    run = make_run(trees[1], {f"{LOGPROBS}::a": "passed"})
    del run.modules[verdict.HELPER_MODULE]
    assert verdict.import_problems(run, "patched") == [
        f"patched: {verdict.HELPER_MODULE} was not imported: cannot show which copy ran"
    ]


def test_runtime_modules_the_tree_lacks_may_come_from_site_packages(
    trees: tuple[Path, Path],
) -> None:
    run = make_run(trees[1], {f"{LOGPROBS}::a": "passed"})
    run.modules["dynamo.llm"] = "/site-packages/dynamo/llm/__init__.py"
    assert verdict.import_problems(run, "patched") == []


# --- new tests and the mutation proof -----------------------------------------------


def test_new_test_functions_are_read_off_the_source() -> None:
    old = "def test_a():\n    pass\n"
    new = (
        old + "\n\ndef test_b():\n    pass\n\n\nasync def test_c():\n    pass\n\n\n"
        "class TestD:\n    def test_e(self):\n        pass\n\n\ndef helper():\n    pass\n"
    )
    assert verdict.new_test_functions(old, new) == {"test_b", "test_c", "TestD::test_e"}
    assert verdict.new_test_functions(None, old) == {"test_a"}


@pytest.mark.parametrize(
    ("message", "ok"),
    [
        (TYPE_ERROR, True),
        ("AssertionError: token_ids iterated though new_token_ids was given", True),
        ("assert [None, None] == [[100], [101]]", True),
        ("TypeError: 'NoneType' object is not subscriptable", False),
        ("ImportError: cannot import name 'x'", False),
        ("NameError: name 'new_token_ids' is not defined", False),
        ("", False),
    ],
)
def test_right_reason(message: str, ok: bool) -> None:
    assert verdict.right_reason(message) is ok


def mutation_case(
    trees: tuple[Path, Path], on_mutant: dict[str, str | tuple[str, str]]
) -> verdict.Mutation:
    keys = [f"{LOGPROBS}::test_new[a]", f"{LOGPROBS}::test_new[b]", f"{LOGPROBS}::test_other"]
    patched = make_run(trees[1], {k: "passed" for k in keys} | {f"{OTHER}::old": "passed"})
    mutant = make_run(trees[0], on_mutant)
    expected = {f"{LOGPROBS}::test_new", f"{LOGPROBS}::test_other"}
    return verdict.mutation(expected, patched, mutant, "CPU tier")


def test_mutation_passes_when_every_new_test_fails_on_baseline_for_the_right_reason(
    trees: tuple[Path, Path],
) -> None:
    result = mutation_case(
        trees,
        {
            f"{LOGPROBS}::test_new[a]": ("failed", TYPE_ERROR),
            f"{LOGPROBS}::test_new[b]": ("failed", TYPE_ERROR),
            f"{LOGPROBS}::test_other": ("failed", "assert 1 == 2"),
        },
    )
    assert result.problems == []
    assert result.line() == (
        "new regression tests: 3 fail on baseline, 3 pass on patched (of 3; on baseline: "
        "2 x TypeError: unexpected keyword argument 'new_token_ids', 1 x AssertionError)"
    )


def test_mutation_fails_when_a_new_test_passes_on_baseline(trees: tuple[Path, Path]) -> None:
    result = mutation_case(
        trees,
        {
            f"{LOGPROBS}::test_new[a]": ("failed", TYPE_ERROR),
            f"{LOGPROBS}::test_new[b]": "passed",
            f"{LOGPROBS}::test_other": ("failed", TYPE_ERROR),
        },
    )
    assert result.problems == [
        f"{LOGPROBS}::test_new[b] does not fail on the baseline helper for the right reason "
        "(passed: no message)"
    ]
    assert result.line().startswith("new regression tests: 2 fail on baseline, 3 pass on patched")


def test_mutation_fails_on_the_wrong_reason_or_a_missing_run(trees: tuple[Path, Path]) -> None:
    result = mutation_case(
        trees,
        {
            f"{LOGPROBS}::test_new[a]": ("error", "fixture 'x' not found"),
            f"{LOGPROBS}::test_new[b]": ("failed", "ImportError: no module named dynamo._core"),
        },
    )
    assert len(result.problems) == 3
    assert (
        "test_new[a] does not fail on the baseline helper for the right reason (error:"
        in (result.problems[0])
    )
    assert "(failed: ImportError: no module named dynamo._core)" in result.problems[1]
    assert result.problems[2] == f"{LOGPROBS}::test_other did not run on the baseline helper"


def test_mutation_needs_every_new_test_to_have_run(trees: tuple[Path, Path]) -> None:
    patched = make_run(trees[1], {f"{OTHER}::old": "passed"})
    mutant = make_run(trees[0], {})
    result = verdict.mutation({f"{LOGPROBS}::test_new"}, patched, mutant, "CPU tier")
    assert result.problems == [
        f"CPU tier: new test {LOGPROBS}::test_new did not run on patched",
        "CPU tier: no new regression tests ran",
    ]


# --- the keyword-ignored mutant ------------------------------------------------------


def test_keyword_ignored_needs_a_test_that_catches_the_copy(trees: tuple[Path, Path]) -> None:
    tests = [f"{LOGPROBS}::test_untouched[a]", f"{LOGPROBS}::test_window"]
    run = make_run(
        trees[0],
        {
            tests[0]: (
                "failed",
                "AssertionError: token_ids iterated though new_token_ids was given",
            ),
            tests[1]: "passed",
        },
    )
    caught, line, problems = verdict.keyword_ignored(tests, run, "CPU tier")
    assert caught == [tests[0]] and problems == []
    assert line == (
        "with new_token_ids accepted but ignored (history still copied): 1 of 2 fail on "
        "their own assertions; not caught there: test_window"
    )
    none_caught = make_run(trees[0], {tests[0]: "passed", tests[1]: ("failed", TYPE_ERROR)})
    _, _, problems = verdict.keyword_ignored(tests, none_caught, "CPU tier")
    assert problems == [
        "CPU tier: no new test fails when the helper ignores new_token_ids and copies the "
        "history: the tests only notice the new keyword"
    ]


def test_accept_and_ignore_changes_only_the_signature() -> None:
    from dynpatch.test_upstream.mutants import accept_and_ignore
    from tests.fixtures import snippets

    mutated = accept_and_ignore(snippets.HELPER)
    assert "    new_token_ids: object = None,\n) -> tuple[" in mutated
    body = snippets.HELPER.split(") -> tuple[", 1)[1]
    assert mutated.split(") -> tuple[", 1)[1] == body
    namespace: dict[str, object] = {}
    exec(compile(mutated, "logprobs.py", "exec"), namespace)  # the mutant still runs
