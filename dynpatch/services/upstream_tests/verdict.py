"""One tier's differential verdict (baseline vs patched), the mutation proof of the carried
tests, and their table: printed with rich, and as Markdown for the PR's Validation section."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dynpatch.results import Shown, Table
from dynpatch.services.upstream_tests.runner import SRC, Failure, Run

OUTCOMES = ("passed", "failed", "skipped", "error")
HEAD = ("passed", "failed", "skipped", "errors")
PREFIX = "components/src/dynamo/"
# The module whose copy decides which helper a run tested.
HELPER_MODULE = "dynamo.common.backend.logprobs"


@dataclass
class Section:
    """One tier's table (per test file, None for the totals: counts on each side), and lines."""

    title: str
    rows: list[tuple[str | None, list[str]]]
    lines: list[str] = field(default_factory=list)


def file_rows(baseline: Run, patched: Run) -> list[tuple[str | None, list[str]]]:
    """Per test file, then in total, the outcome counts on each side (collect errors: errors)."""
    counts: dict[str | None, tuple[Counter[str], Counter[str]]] = {None: (Counter(), Counter())}
    for i, run in enumerate((baseline, patched)):
        keys = [k.split("::", 1)[0] for k in run.tests] + list(run.collect_errors)
        outcomes = [*run.tests.values(), *["error"] * len(run.collect_errors)]
        for path, outcome in zip(keys, outcomes, strict=True):
            for row in (path, None):
                counts.setdefault(row, (Counter(), Counter()))[i][outcome] += 1
    order = [*sorted(p for p in counts if p is not None), None]
    return [(p, [str(c[o]) for c in counts[p] for o in OUTCOMES]) for p in order]


def short(path: str) -> str:
    """``components/src/dynamo/common/backend/tests/test_x.py::t`` -> ``common/test_x.py::t``."""
    file, sep, test = path.removeprefix(PREFIX).partition("::")
    parts = file.split("/")
    return f"{parts[0]}/{parts[-1]}{sep}{test}" if len(parts) > 1 else f"{file}{sep}{test}"


def renderables(section: Section) -> list[Shown]:
    # "base": the table fits 120 columns
    columns = ("test file", *(f"{side}\n{name}" for side in ("base", "patched") for name in HEAD))
    rows = tuple((short(path) if path else "**total**", *cells) for path, cells in section.rows)
    table = Table(section.title, columns, rows, right=tuple(range(1, len(columns))))
    return [table, *section.lines]


def markdown(sections: list[Section], lines: list[str]) -> str:
    heads = [f"{side} {h}" for side in ("baseline", "patched") for h in HEAD]
    out: list[str] = []
    for section in sections:
        out += [f"**{section.title}**\n", f"| test file | {' | '.join(heads)} |"]
        out.append("|---|" + "---:|" * len(heads))
        for path, cells in section.rows:
            name = f"`{path.removeprefix(PREFIX)}`" if path else "**total**"
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        out += ["", *(f"- {line}" for line in section.lines), ""]
    out.extend(f"- {line}" for line in lines)
    return "\n".join(out) + "\n"


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
    """Every dynamo module the tree has came from it, and the helper's was imported at all."""
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


def carried_test_functions(old: str | None, new: str) -> tuple[set[str], set[str]]:
    """Test functions of ``new`` (``test_x``, ``TestX::test_x``): (not in ``old``, changed)."""
    before = _test_functions(ast.parse(old).body) if old else {}
    after = _test_functions(ast.parse(new).body)
    changed = {name for name in set(after) & set(before) if after[name] != before[name]}
    return set(after) - set(before), changed


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


def own_assertion(key: str, failure: Failure | None) -> bool:
    """True when the case ``key`` failed on a check (an assert, an AssertionError or
    pytest.fail) raised in its own test file, not inside a library (``assert_called...``)."""
    if failure is None or not failure.message.startswith(("AssertionError", "assert ", "Failed: ")):
        return False
    return failure.path == key.split("::", 1)[0]


def right_reason(key: str, failure: Failure | None, keyword: str = "new_token_ids") -> bool:
    """A baseline failure that shows the defect: the old code rejects the design's new
    ``keyword`` (a design without one: never), or a check of the test itself fails."""
    if failure is not None and failure.message.startswith("TypeError"):
        return bool(keyword) and keyword in failure.message
    return own_assertion(key, failure)


@dataclass
class Proof:
    """The carried tests of one tier on the two mutants."""

    tests: list[str]  # node keys of the carried tests that ran on patched
    keyword: str = "new_token_ids"  # the design's new keyword ("": none, no ignored mutant)
    new: list[str] = field(default_factory=list)  # those of new test functions
    passed: list[str] = field(default_factory=list)  # on patched
    failed: list[str] = field(default_factory=list)  # on the baseline, for the right reason
    caught: list[str] = field(default_factory=list)  # new ones failing on their own checks
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        head = (
            f"carried tests: {len(self.failed)} fail on baseline, {len(self.passed)} pass on "
            f"patched (of {len(self.tests)})"
        )
        if not self.keyword:
            return head
        return (
            f"{head}; with {self.keyword} accepted but ignored, {len(self.caught)} of the "
            f"{len(self.new)} cases of new tests fail on their own assertions"
        )


def proof(
    new: set[str],
    changed: set[str],
    patched: Run,
    mutant: Run,
    ignored: Run | None,
    tier: str,
    keyword: str = "new_token_ids",
) -> Proof:
    """The mutation proof of the carried tests this tier collects: every case passes on
    ``patched`` and fails on ``mutant`` for the right reason; with a ``keyword``, each case of
    a ``new`` test also fails on its own assertion on ``ignored`` (keyword accepted, ignored)."""
    tests = sorted(k for k in patched.tests if function_of(k) in new | changed)
    result = Proof(tests, keyword, new=[k for k in tests if function_of(k) in new])

    def reason(key: str, failure: Failure | None) -> bool:
        return right_reason(key, failure, keyword)

    ran = {function_of(k) for k in tests}
    result.problems += [
        f"{tier}: carried test {name} did not run on patched"
        for name in sorted((new | changed) - ran)
    ]
    if not tests:
        result.problems.append(f"{tier}: no carried tests ran")
    result.passed = [k for k in tests if patched.tests[k] == "passed"]
    result.failed = [k for k in tests if reason(k, mutant.failures.get(k))]
    result.problems += [
        f"{k} does not pass on patched ({patched.tests[k]})"
        for k in tests
        if k not in result.passed
    ]
    for function in sorted(ran):
        cases = [k for k in tests if function_of(k) == function]
        why = "the keyword or " if keyword else ""
        result.problems += _unproven(cases, mutant, reason, "on the baseline code", why)
        extends = "" if function in new else " (an existing test the series extends)"
        result.lines += [
            f"carried test {function.split('/')[-1]}{extends}",
            f"  on the baseline: {_reasons(cases, mutant)}",
        ]
        if ignored is None:
            continue
        result.lines.append(
            f"  {keyword} accepted but ignored: {_reasons(cases, ignored)}"
            + ("" if function in new else " (not required of an existing test)")
        )
        if function in new:
            where = f"with {keyword} accepted but ignored"
            result.problems += _unproven(cases, ignored, own_assertion, where)
            result.caught += [k for k in cases if own_assertion(k, ignored.failures.get(k))]
    return result


def _unproven(
    cases: list[str],
    run: Run,
    ok: Callable[[str, Failure | None], bool],
    where: str,
    also: str = "",
) -> list[str]:
    return [
        f"{k} {where}: {_what(k, run)}, not {also}a failure of its own assertion"
        for k in cases
        if not ok(k, run.failures.get(k))
    ]


def _what(key: str, run: Run) -> str:
    return f"fail on {run.failures[key]}" if key in run.failures else run.tests.get(key, "not run")


def _reasons(cases: list[str], run: Run) -> str:
    """``24 of 24 fail on AssertionError: token_ids copied (test_logprobs.py:82)``."""
    counts = Counter(_what(k, run) for k in cases)
    return "; ".join(f"{n} of {len(cases)} {what}" for what, n in counts.most_common())
