"""The differential verdict and the mutation proof, on hand-made run records."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.services.upstream_tests import verdict
from dynpatch.services.upstream_tests.runner import Failure, Run
from tests.fixtures.synthetic import HELPER, write_files

LOGPROBS = "components/src/dynamo/common/backend/tests/test_logprobs.py"
OTHER = "components/src/dynamo/common/backend/tests/test_engine.py"
HANDLER_TESTS = "components/src/dynamo/trtllm/tests/test_trtllm_handler_base.py"
TYPE_ERROR = (
    "TypeError: extract_from_completion_output() got an unexpected keyword argument 'new_token_ids'"
)


def make_tree(root: Path) -> Path:
    return write_files(root, {HELPER: "# helper\n"})


def make_run(tree: Path, tests: dict[str, str], **kw: object) -> Run:
    run = Run("cpu-x", tree, 0, dict(tests), **{"junit": tree / "x.xml", **kw})  # type: ignore[arg-type]
    run.modules = {
        "dynamo": None,
        verdict.HELPER_MODULE: str(tree / HELPER),
        "dynamo._core": "/site-packages/dynamo/_core.abi3.so",
    }
    return run


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    return make_tree(tmp_path / "baseline"), make_tree(tmp_path / "patched")


# --- differential ------------------------------------------------------------------


def test_the_differential_blames_only_what_stopped_passing(trees: tuple[Path, Path]) -> None:
    """A test that stops passing (fails, errors, skips, or is gone) is a regression; one
    failing on both sides is listed, not blamed; a new test on patched is neither."""
    ok = {f"{OTHER}::test_video": "failed", f"{OTHER}::test_same": "skipped"}
    gone = {f"{LOGPROBS}::test_{outcome}": "passed" for outcome in ("failed", "error", "skipped")}
    base = make_run(trees[0], ok | gone | {f"{LOGPROBS}::test_gone": "passed"})
    patched = make_run(
        trees[1], ok | {k: k.rsplit("_", 1)[1] for k in gone} | {f"{LOGPROBS}::test_new": "passed"}
    )
    assert verdict.regressions(base, patched) == [
        f"{LOGPROBS}::test_error (error)",
        f"{LOGPROBS}::test_failed (failed)",
        f"{LOGPROBS}::test_gone (not run)",
        f"{LOGPROBS}::test_skipped (skipped)",
    ]
    assert verdict.fail_on_both(base, patched) == [f"{OTHER}::test_video"]
    # passed, failed, skipped, error: on baseline, then on patched
    assert verdict.file_rows(base, patched) == [
        (OTHER, [*"0110", *"0110"]),
        (LOGPROBS, [*"4000", *"1111"]),
        (None, [*"4110", *"1221"]),
    ]
    assert verdict.run_problems(base, "baseline") == verdict.run_problems(patched, "patched") == []


def test_a_class_s_test_counts_for_its_file_and_an_error_on_both_is_no_regression(
    trees: tuple[Path, Path],
) -> None:
    both = {f"{OTHER}::TestX::test_y": "error", f"{LOGPROBS}::test_a": "passed"}
    base, patched = make_run(trees[0], both), make_run(trees[1], both)
    assert verdict.file_rows(base, patched)[0] == (OTHER, [*"0001", *"0001"])
    assert verdict.fail_on_both(base, patched) == [f"{OTHER}::TestX::test_y"]
    assert verdict.regressions(base, patched) == []


def test_collection_errors_empty_runs_and_missing_junit_are_failures(
    trees: tuple[Path, Path],
) -> None:
    broken = make_run(trees[1], {}, collect_errors={OTHER: "ModuleNotFoundError: prometheus"})
    assert verdict.run_problems(broken, "patched") == [
        f"patched: collection error in {OTHER}: ModuleNotFoundError: prometheus",
        "patched: collected 0 tests",
    ]
    assert verdict.file_rows(make_run(trees[0], {}), broken)[0] == (OTHER, [*"0000", *"0001"])
    unwritten = make_run(trees[0], {f"{LOGPROBS}::a": "passed"}, junit=None)
    assert verdict.run_problems(unwritten, "baseline") == ["baseline: no JUnit XML written"]


def test_the_helper_must_come_from_the_runs_own_tree(trees: tuple[Path, Path]) -> None:
    """Runtime modules the tree lacks may come from site-packages; the helper may not, and
    a run that never imported it shows nothing."""
    baseline, patched = trees
    run = make_run(patched, {f"{LOGPROBS}::a": "passed"})
    run.modules["dynamo.llm"] = "/site-packages/dynamo/llm/__init__.py"
    assert verdict.import_problems(run, "patched") == []
    run.modules[verdict.HELPER_MODULE] = str(baseline / HELPER)  # the unpatched code
    assert verdict.import_problems(run, "patched") == [
        f"patched: imported {verdict.HELPER_MODULE} from {baseline / HELPER}, "
        f"not from {(patched / HELPER).resolve()}"
    ]
    del run.modules[verdict.HELPER_MODULE]
    assert verdict.import_problems(run, "patched") == [
        f"patched: {verdict.HELPER_MODULE} was not imported: cannot show which copy ran"
    ]


def test_a_package_the_tree_has_must_come_from_it(trees: tuple[Path, Path]) -> None:
    write_files(trees[1], {"components/src/dynamo/pkg/__init__.py": ""})
    run = make_run(trees[1], {f"{LOGPROBS}::a": "passed"})
    run.modules["dynamo.pkg"] = "/site-packages/dynamo/pkg/__init__.py"
    own = (trees[1] / "components/src/dynamo/pkg/__init__.py").resolve()
    assert verdict.run_problems(run, "patched") == [
        f"patched: imported dynamo.pkg from /site-packages/dynamo/pkg/__init__.py, not from {own}"
    ]


# --- the carried tests and the mutation proof ---------------------------------------


def test_carried_test_functions_are_read_off_the_source() -> None:
    old = "def test_a():\n    pass\n\n\ndef test_f():\n    assert 1\n"
    new = (  # an import, and a helper class whose test_ methods are not tests
        "import pytest\n\n\n"
        + old.replace("assert 1", "assert 2")
        + "\n\ndef test_b():\n    pass\n\n\nasync def test_c():\n    pass\n\n\n"
        "class TestD:\n    def test_e(self):\n        pass\n\n\ndef helper():\n    pass\n"
        "\n\nclass Helper:\n    def test_h(self):\n        pass\n"
    )
    assert verdict.carried_test_functions(old, new) == (
        {"test_b", "test_c", "TestD::test_e"},
        {"test_f"},
    )
    assert verdict.carried_test_functions(None, old) == ({"test_a", "test_f"}, set())


KEY = f"{LOGPROBS}::test_new[a]"


@pytest.mark.parametrize(
    ("message", "own", "right"),
    [
        ("AssertionError: token_ids copied", True, True),
        ("assert [None] == [[1]]", True, True),
        ("Failed: token_ids history copied", True, True),
        (TYPE_ERROR, False, True),
        ("TypeError: 'NoneType' object is not subscriptable", False, False),
        ("ImportError: cannot import name 'x'", False, False),
        ("NameError: name 'new_token_ids' is not defined", False, False),
    ],
)
def test_own_assertion_and_right_reason(message: str, own: bool, right: bool) -> None:
    failure = Failure(message, LOGPROBS, 82)
    assert verdict.own_assertion(KEY, failure) is own
    assert verdict.right_reason(KEY, failure) is right
    # An assertion raised elsewhere (unittest.mock's assert_called_once, say), or none.
    for other in (Failure(message, "unittest/mock.py", 9), None):
        assert not verdict.own_assertion(KEY, other)
        assert verdict.right_reason(KEY, other) is (other is not None and message == TYPE_ERROR)


NEW_CASES = [f"{LOGPROBS}::test_new[a]", f"{LOGPROBS}::test_new[b]"]
CHANGED = f"{HANDLER_TESTS}::test_matches_shared"
COPIED = Failure("AssertionError: token_ids copied", LOGPROBS, 82)


def proof_case(
    trees: tuple[Path, Path],
    on_baseline: dict[str, Failure],
    on_ignored: dict[str, Failure],
) -> verdict.Proof:
    cases = [*NEW_CASES, CHANGED]
    patched = make_run(trees[1], {k: "passed" for k in cases} | {f"{OTHER}::old": "passed"})
    mutant = make_run(trees[0], {k: "failed" if k in on_baseline else "passed" for k in cases})
    mutant.failures = on_baseline
    ignored = make_run(trees[0], {k: "failed" if k in on_ignored else "passed" for k in cases})
    ignored.failures = on_ignored
    return verdict.proof({f"{LOGPROBS}::test_new"}, {CHANGED}, patched, mutant, ignored, "CPU tier")


def test_proof_passes_and_names_what_each_test_fails_on(trees: tuple[Path, Path]) -> None:
    keyword = Failure(TYPE_ERROR, LOGPROBS, 248)
    result = proof_case(
        trees,
        {
            NEW_CASES[0]: keyword,
            NEW_CASES[1]: keyword,
            CHANGED: Failure(TYPE_ERROR, HANDLER_TESTS, 9),
        },
        {NEW_CASES[0]: COPIED, NEW_CASES[1]: COPIED},
    )
    assert result.problems == []
    assert result.lines == [
        "carried test test_logprobs.py::test_new",
        f"  on the baseline: 2 of 2 fail on {TYPE_ERROR} (test_logprobs.py:248)",
        "  new_token_ids accepted but ignored: 2 of 2 fail on AssertionError: token_ids copied "
        "(test_logprobs.py:82)",
        "carried test test_trtllm_handler_base.py::test_matches_shared (an existing test the "
        "series extends)",
        f"  on the baseline: 1 of 1 fail on {TYPE_ERROR} (test_trtllm_handler_base.py:9)",
        "  new_token_ids accepted but ignored: 1 of 1 passed (not required of an existing test)",
    ]
    assert result.line() == (
        "carried tests: 3 fail on baseline, 3 pass on patched (of 3); with new_token_ids "
        "accepted but ignored, 2 of the 2 cases of new tests fail on their own assertions"
    )


KEYWORD = Failure(TYPE_ERROR, LOGPROBS, 248)
MOCK_ASSERT = Failure("AssertionError: expected call not found.", "unittest/mock.py", 9)
IMPORTS = Failure("ImportError: no module named dynamo._core", LOGPROBS, 1)
CAUGHT = {NEW_CASES[0]: KEYWORD, NEW_CASES[1]: KEYWORD, CHANGED: KEYWORD}
IGNORED = "with new_token_ids accepted but ignored"
NOT_OWN = "not a failure of its own assertion"
NOT_KEYWORD = "not the keyword or a failure of its own assertion"


@pytest.mark.parametrize(
    ("on_baseline", "on_ignored", "problems"),
    [  # every new case must catch the copy itself on its own assertion, not "at least one"
        (CAUGHT, {NEW_CASES[0]: COPIED}, [f"{NEW_CASES[1]} {IGNORED}: passed, {NOT_OWN}"]),
        (
            CAUGHT,
            {NEW_CASES[0]: COPIED, NEW_CASES[1]: KEYWORD},
            [f"{NEW_CASES[1]} {IGNORED}: fail on {KEYWORD}, {NOT_OWN}"],
        ),
        (
            CAUGHT,
            {NEW_CASES[0]: COPIED, NEW_CASES[1]: MOCK_ASSERT},
            [f"{NEW_CASES[1]} {IGNORED}: fail on {MOCK_ASSERT}, {NOT_OWN}"],
        ),
        (  # and fail on the baseline for the right reason
            {NEW_CASES[0]: IMPORTS, CHANGED: KEYWORD},
            {NEW_CASES[0]: COPIED, NEW_CASES[1]: COPIED},
            [
                f"{NEW_CASES[0]} on the baseline code: fail on {IMPORTS}, {NOT_KEYWORD}",
                f"{NEW_CASES[1]} on the baseline code: passed, {NOT_KEYWORD}",
            ],
        ),
    ],
)
def test_proof_needs_each_case_to_fail_for_the_right_reason(
    trees: tuple[Path, Path], on_baseline: dict, on_ignored: dict, problems: list[str]
) -> None:
    assert proof_case(trees, on_baseline, on_ignored).problems == problems


def test_proof_needs_every_carried_test_to_have_run(trees: tuple[Path, Path]) -> None:
    patched = make_run(trees[1], {f"{OTHER}::old": "passed"})
    mutant = make_run(trees[0], {})
    result = verdict.proof({f"{LOGPROBS}::test_new"}, set(), patched, mutant, mutant, "CPU tier")
    assert result.problems == [
        f"CPU tier: carried test {LOGPROBS}::test_new did not run on patched",
        "CPU tier: no carried tests ran",
    ]


def test_a_case_s_function_and_file_are_read_off_its_key_whatever_its_class_and_id() -> None:
    key = f"{LOGPROBS}::TestX::test_new[a[0]]"
    assert verdict.function_of(key) == f"{LOGPROBS}::TestX::test_new"
    assert verdict.own_assertion(key, COPIED)


P, Q = f"{LOGPROBS}::test_p", f"{LOGPROBS}::test_q"


@pytest.mark.parametrize("keyword", ["other_kw", ""])
def test_proof_holds_every_function_to_the_design_s_own_keyword(
    trees: tuple[Path, Path], keyword: str
) -> None:
    """Every carried function is proven, not only the first; the baseline rejecting the
    design's own keyword (none: no such reason) or a case's own check are the right reasons;
    a case the baseline did not run is named so."""
    cases = [f"{P}[a]", f"{P}[b]", Q]
    patched = make_run(trees[1], dict.fromkeys(cases, "passed"))
    rejected = Failure(f"TypeError: f() got an unexpected keyword argument '{keyword}'", P, 1)
    mutant = make_run(trees[0], {f"{P}[a]": "failed", f"{P}[b]": "failed"})
    mutant.failures = {f"{P}[a]": rejected, f"{P}[b]": COPIED}
    ignored = make_run(trees[0], dict.fromkeys(cases, "failed")) if keyword else None
    if ignored:
        ignored.failures = dict.fromkeys(cases, COPIED)
    result = verdict.proof({P, Q}, set(), patched, mutant, ignored, "T", keyword)
    also = "the keyword or " if keyword else ""
    unproven = [f"{P}[a] on the baseline code: fail on {rejected}, {NOT_OWN}"] * (not keyword)
    not_run = f"{Q} on the baseline code: not run, not {also}a failure of its own assertion"
    assert result.problems == [*unproven, not_run]
    assert result.failed == (cases[:2] if keyword else [f"{P}[b]"])
    assert [ln for ln in result.lines if "baseline" in ln] == [
        f"  on the baseline: 1 of 2 fail on {rejected}; 1 of 2 fail on {COPIED}",
        "  on the baseline: 1 of 1 not run",
    ]
    assert result.caught == (cases if keyword else [])
    head = f"carried tests: {len(result.failed)} fail on baseline, 3 pass on patched (of 3)"
    ignored_too = f"; with {keyword} accepted but ignored, 3 of the 3 cases of new tests fail"
    assert result.line() == head + (f"{ignored_too} on their own assertions" if keyword else "")
