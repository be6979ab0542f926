"""The differential verdict: baseline vs patched runs of one tier, and the mutation proof.

Pure functions over ``Run`` records (plus reading the trees' files for the import
check). A tier fails when a test that passes on baseline does not pass on patched,
when either run collected nothing or hit collection errors, when a run imported
dynamo modules from outside its own tree, or when the regression tests the series
adds do not fail on the baseline helper and pass on the patched one.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from dynpatch.test_upstream.runner import Run

OUTCOMES = ("passed", "failed", "skipped", "error")
# The module whose copy decides which helper a run tested.
HELPER_MODULE = "dynamo.common.backend.logprobs"


@dataclass
class FileRow:
    path: str
    baseline: Counter[str] = field(default_factory=Counter)
    patched: Counter[str] = field(default_factory=Counter)


def file_rows(baseline: Run, patched: Run) -> list[FileRow]:
    """Per test file, outcome counts on each side (collection errors count as errors)."""
    rows: dict[str, FileRow] = {}
    for side, run in (("baseline", baseline), ("patched", patched)):
        for key, result in run.tests.items():
            path = key.split("::", 1)[0]
            getattr(rows.setdefault(path, FileRow(path)), side)[result.outcome] += 1
        for path in run.collect_errors:
            getattr(rows.setdefault(path, FileRow(path)), side)["error"] += 1
    return [rows[p] for p in sorted(rows)]


def regressions(baseline: Run, patched: Run) -> list[str]:
    """Tests that pass on baseline and do not pass (or are gone) on patched."""
    return [
        f"{key} ({patched.tests[key].outcome if key in patched.tests else 'not run'})"
        for key, result in sorted(baseline.tests.items())
        if result.outcome == "passed"
        and (key not in patched.tests or patched.tests[key].outcome != "passed")
    ]


def fail_on_both(baseline: Run, patched: Run) -> list[str]:
    bad = ("failed", "error")
    return sorted(
        k
        for k, r in baseline.tests.items()
        if r.outcome in bad and k in patched.tests and patched.tests[k].outcome in bad
    )


def run_problems(run: Run, side: str) -> list[str]:
    """What makes one run unusable as evidence, whatever the other side did."""
    if run.problem:
        return [f"{side}: {run.problem}"]
    problems = [
        f"{side}: collection error in {path}: {message}"
        for path, message in sorted(run.collect_errors.items())
    ]
    if not run.tests:
        problems.append(f"{side}: collected 0 tests")
    expected = len(run.tests) + len(run.collect_errors)
    if run.junit_cases is None:
        problems.append(f"{side}: no JUnit XML written")
    elif run.junit_cases != expected:
        problems.append(
            f"{side}: JUnit XML has {run.junit_cases} testcases, the probe saw {expected}"
        )
    return problems + import_problems(run, side)


def import_problems(run: Run, side: str) -> list[str]:
    """Every dynamo module the tree has must have come from the tree, and the helper
    module must have been imported at all (else nothing shows which copy was tested)."""
    problems = []
    src = run.src.resolve()
    helper = run.modules.get(HELPER_MODULE)
    if helper is None:
        problems.append(f"{side}: {HELPER_MODULE} was not imported: cannot show which copy ran")
    for name, file in sorted(run.modules.items()):
        if not file:
            continue
        own = _tree_file(src, name)
        if own is not None and Path(file).resolve() != own:
            problems.append(f"{side}: imported {name} from {file}, not from {own}")
    return problems


def _tree_file(src: Path, module: str) -> Path | None:
    """The file that ``module`` would be in the tree, if the tree has it."""
    base = src.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def imported_from(run: Run, module: str = HELPER_MODULE) -> str:
    return run.modules.get(module) or "(not imported)"


# --- the regression tests the series adds, and the mutation proof --------------------


def new_test_functions(old: str | None, new: str) -> set[str]:
    """Test functions (``test_x`` or ``TestX::test_x``) in ``new`` but not in ``old``."""
    return _test_functions(new) - (_test_functions(old) if old else set())


def _test_functions(source: str) -> set[str]:
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith("test"):
                names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names |= {
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and item.name.startswith("test")
            }
    return names


def function_of(key: str) -> str:
    """``path::Class::test[param]`` -> ``path::Class::test``."""
    return key.split("[", 1)[0]


def right_reason(result_message: str) -> bool:
    """A failure on the baseline helper that shows the defect: the unpatched code
    rejects the new keyword, or a check of the test itself fails. Import errors,
    missing names and fixture errors show nothing."""
    message = result_message.strip()
    if message.startswith("TypeError") and "new_token_ids" in message:
        return True
    return message.startswith(("AssertionError", "assert "))


@dataclass
class Mutation:
    tests: list[str]  # node keys of the new tests that ran in this tier
    fail_on_baseline: list[str] = field(default_factory=list)
    pass_on_patched: list[str] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        """``new regression tests: 4 fail on baseline, 4 pass on patched (...)``."""
        reasons = ", ".join(f"{count} {why}" for why, count in self.reasons.most_common())
        return (
            f"new regression tests: {len(self.fail_on_baseline)} fail on baseline, "
            f"{len(self.pass_on_patched)} pass on patched "
            f"(of {len(self.tests)}; on baseline: {reasons or 'no failure'})"
        )


def mutation(expected: set[str], patched: Run, mutant: Run, tier: str) -> Mutation:
    """Check the new tests (``expected`` functions) fail on the baseline helper for the
    right reason (``mutant``: baseline tree + the patched test files) and pass on
    ``patched``. Every expected function must have run in ``patched``."""
    tests = sorted(k for k in patched.tests if function_of(k) in expected)
    result = Mutation(tests)
    ran = {function_of(k) for k in tests}
    for missing in sorted(expected - ran):
        result.problems.append(f"{tier}: new test {missing} did not run on patched")
    if not tests:
        result.problems.append(f"{tier}: no new regression tests ran")
    if mutant.problem:
        result.problems.append(f"{tier} mutant: {mutant.problem}")
    for path, message in sorted(mutant.collect_errors.items()):
        result.problems.append(f"{tier} mutant: collection error in {path}: {message}")
    for key in tests:
        if patched.tests[key].outcome == "passed":
            result.pass_on_patched.append(key)
        else:
            result.problems.append(f"{key} does not pass on patched ({patched.tests[key].outcome})")
        on_base = mutant.tests.get(key)
        if on_base is None:
            result.problems.append(f"{key} did not run on the baseline helper")
        elif on_base.outcome == "failed" and right_reason(on_base.message):
            result.fail_on_baseline.append(key)
            result.reasons[_reason(on_base.message)] += 1
        else:
            why = on_base.message.splitlines()[0] if on_base.message else "no message"
            result.problems.append(
                f"{key} does not fail on the baseline helper for the right reason "
                f"({on_base.outcome}: {why[:160]})"
            )
    return result


def _reason(message: str) -> str:
    if message.startswith("TypeError"):
        return "x TypeError: unexpected keyword argument 'new_token_ids'"
    return "x AssertionError"


def keyword_ignored(tests: list[str], run: Run, tier: str) -> tuple[list[str], str, list[str]]:
    """The new ``tests`` on the helper that accepts ``new_token_ids`` and ignores it
    (still copying the history): which fail by their own checks, the summary line, and
    problems. At least one must fail there, or the tests only notice the signature."""
    caught = [
        k
        for k in tests
        if k in run.tests
        and run.tests[k].outcome == "failed"
        and run.tests[k].message.strip().startswith(("AssertionError", "assert "))
    ]
    problems = [f"{tier} keyword-ignored mutant: {run.problem}"] if run.problem else []
    problems += [
        f"{tier} keyword-ignored mutant: collection error in {path}: {message}"
        for path, message in sorted(run.collect_errors.items())
    ]
    if tests and not caught:
        problems.append(
            f"{tier}: no new test fails when the helper ignores new_token_ids and copies "
            "the history: the tests only notice the new keyword"
        )
    passing = sorted(k.split("::")[-1] for k in tests if k not in caught)
    line = (
        f"with new_token_ids accepted but ignored (history still copied): {len(caught)} "
        f"of {len(tests)} fail on their own assertions"
        + (f"; not caught there: {', '.join(passing)}" if passing else "")
    )
    return caught, line, problems
