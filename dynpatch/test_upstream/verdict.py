"""The differential verdict of one tier (baseline vs patched ``Run`` records) and the
mutation proof of the tests the series carries."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dynpatch.test_upstream.runner import SRC, Failure, Run

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
            getattr(rows.setdefault(path, FileRow(path)), side)[result] += 1
        for path in run.collect_errors:
            getattr(rows.setdefault(path, FileRow(path)), side)["error"] += 1
    return [rows[p] for p in sorted(rows)]


def regressions(baseline: Run, patched: Run) -> list[str]:
    """Tests that pass on baseline and do not pass (or are gone) on patched."""
    return [
        f"{key} ({patched.tests.get(key, 'not run')})"
        for key, outcome in sorted(baseline.tests.items())
        if outcome == "passed" and patched.tests.get(key) != "passed"
    ]


def fail_on_both(baseline: Run, patched: Run) -> list[str]:
    bad = ("failed", "error")
    return sorted(k for k, o in baseline.tests.items() if o in bad and patched.tests.get(k) in bad)


def run_problems(run: Run, side: str) -> list[str]:
    """What makes one run unusable as evidence, whatever the other side did."""
    if run.problem:
        return [f"{side}: {run.problem}"]
    problems = [
        f"{side}: collection error in {path}: {message}"
        for path, message in sorted(run.collect_errors.items())
    ]
    if run.junit is None:
        problems.append(f"{side}: no JUnit XML written")
    elif not run.tests:
        problems.append(f"{side}: collected 0 tests")
    return problems + import_problems(run, side)


def import_problems(run: Run, side: str) -> list[str]:
    """Every dynamo module the tree has must have come from the tree, and the helper
    module must have been imported at all (else nothing shows which copy was tested)."""
    problems = []
    if run.modules.get(HELPER_MODULE) is None:
        problems.append(f"{side}: {HELPER_MODULE} was not imported: cannot show which copy ran")
    for name, file in sorted(run.modules.items()):
        base = (run.tree / SRC).resolve().joinpath(*name.split("."))  # where the tree has it
        own = [f.resolve() for f in (base.with_suffix(".py"), base / "__init__.py") if f.is_file()]
        if file and own and Path(file).resolve() != own[0]:
            problems.append(f"{side}: imported {name} from {file}, not from {own[0]}")
    return problems


def imported_from(run: Run) -> str:
    return run.modules.get(HELPER_MODULE) or "(not imported)"


# --- the tests the series carries, and the mutation proof ---------------------------


def carried_test_functions(old: str | None, new: str) -> tuple[set[str], set[str]]:
    """Test functions (``test_x`` or ``TestX::test_x``) of ``new``: (those not in ``old``,
    those of ``old`` whose code the series changed)."""
    before = _test_functions(ast.parse(old).body) if old else {}
    after = _test_functions(ast.parse(new).body)
    added = set(after) - set(before)
    changed = {name for name in set(after) & set(before) if after[name] != before[name]}
    return added, changed


def _test_functions(body: list[ast.stmt], prefix: str = "") -> dict[str, str]:
    """Test function name (``test_x``, ``TestX::test_x``) -> its code (``ast.dump``)."""
    names = {}
    for node in body:
        function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        if function and node.name.startswith("test"):
            names[prefix + node.name] = ast.dump(node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test") and not prefix:
            names |= _test_functions(node.body, f"{node.name}::")
    return names


def function_of(key: str) -> str:
    """``path::Class::test[param]`` -> ``path::Class::test``."""
    return key.split("[", 1)[0]


# How a test's own check fails: an assert, an AssertionError, or pytest.fail.
_OWN = ("AssertionError", "assert ", "Failed: ")


def own_assertion(key: str, failure: Failure | None) -> bool:
    """True when the case ``key`` failed on a check raised in its own test file: not a
    TypeError, an import error or a missing fixture, nor an assertion raised inside a
    library (``unittest.mock``'s ``assert_called...``)."""
    if failure is None or not failure.message.startswith(_OWN):
        return False
    return failure.path == key.split("::", 1)[0]


def right_reason(key: str, failure: Failure | None) -> bool:
    """A failure on the baseline that shows the defect: the unpatched code rejects the
    new keyword, or a check of the test itself fails."""
    if failure is not None and failure.message.startswith("TypeError"):
        return "new_token_ids" in failure.message
    return own_assertion(key, failure)


@dataclass
class Proof:
    """The carried tests of one tier on the two mutants (:mod:`.mutants`)."""

    tests: list[str]  # node keys of the carried tests that ran on patched
    new: list[str] = field(default_factory=list)  # those of new test functions
    passed: list[str] = field(default_factory=list)  # on patched
    failed: list[str] = field(default_factory=list)  # on the baseline, for the right reason
    caught: list[str] = field(default_factory=list)  # new ones failing on their own checks
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        """``carried tests: 25 fail on baseline, 25 pass on patched (of 25); ...``."""
        return (
            f"carried tests: {len(self.failed)} fail on baseline, {len(self.passed)} pass on "
            f"patched (of {len(self.tests)}); with new_token_ids accepted but ignored, "
            f"{len(self.caught)} of the {len(self.new)} cases of new tests fail on their own "
            "assertions"
        )


def proof(
    new: set[str], changed: set[str], patched: Run, mutant: Run, ignored: Run, tier: str
) -> Proof:
    """The mutation proof of the carried test functions this tier collects: the ``new``
    ones, and those whose code the series ``changed``.

    Every case must pass on ``patched`` and fail on the baseline (``mutant``) for the
    right reason; every case of a ``new`` test must also fail on its own assertion on a
    helper that accepts ``new_token_ids`` and ignores it (``ignored``), or it would only
    notice the keyword. What each fails on is read from the JUnit XML and printed.
    """
    tests = sorted(k for k in patched.tests if function_of(k) in new | changed)
    result = Proof(tests, new=[k for k in tests if function_of(k) in new])
    ran = {function_of(k) for k in tests}
    result.problems += [
        f"{tier}: carried test {name} did not run on patched"
        for name in sorted((new | changed) - ran)
    ]
    if not tests:
        result.problems.append(f"{tier}: no carried tests ran")
    for label, run in (("baseline mutant", mutant), ("keyword-ignored mutant", ignored)):
        if run.problem:
            result.problems.append(f"{tier} {label}: {run.problem}")
        result.problems += [
            f"{tier} {label}: collection error in {path}: {message}"
            for path, message in sorted(run.collect_errors.items())
        ]
    result.passed = [k for k in tests if patched.tests[k] == "passed"]
    result.failed = [k for k in tests if right_reason(k, mutant.failures.get(k))]
    result.problems += [
        f"{k} does not pass on patched ({patched.tests[k]})"
        for k in tests
        if k not in result.passed
    ]
    for function in sorted(ran):
        cases = [k for k in tests if function_of(k) == function]
        result.problems += _unproven(cases, mutant, right_reason, "on the baseline code")
        result.lines += [
            f"carried test {function.split('/')[-1]}"
            + ("" if function in new else " (an existing test the series extends)"),
            f"  on the baseline: {_reasons(cases, mutant)}",
        ]
        ignored_line = f"  new_token_ids accepted but ignored: {_reasons(cases, ignored)}"
        if function in new:
            result.problems += _unproven(
                cases, ignored, own_assertion, "with new_token_ids accepted but ignored"
            )
            result.caught += [k for k in cases if own_assertion(k, ignored.failures.get(k))]
        else:
            ignored_line += " (not required of an existing test)"
        result.lines.append(ignored_line)
    return result


def _unproven(
    cases: list[str], run: Run, ok: Callable[[str, Failure | None], bool], where: str
) -> list[str]:
    return [
        f"{k} {where}: {_what(k, run)}, not {'the keyword or ' if ok is right_reason else ''}"
        "a failure of its own assertion"
        for k in cases
        if not ok(k, run.failures.get(k))
    ]


def _what(key: str, run: Run) -> str:
    if key in run.failures:
        return f"fail on {run.failures[key]}"
    return run.tests.get(key, "not run")


def _reasons(cases: list[str], run: Run) -> str:
    """``24 of 24 fail on AssertionError: token_ids copied (test_logprobs.py:82)``."""
    counts = Counter(_what(k, run) for k in cases)
    return "; ".join(f"{n} of {len(cases)} {what}" for what, n in counts.most_common())
