"""Carry ``carried/helper_delta_tests.template.py``, the CPU test of the helper's
``new_token_ids``, into dynamo's ``test_logprobs.py`` after its last
``test_extract_completion_*``, on the module's own ``_ExplodingTokenIds`` (1.5.0 on)."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

PATH = "components/src/dynamo/common/backend/tests/test_logprobs.py"
HELPER_MODULE = "dynamo.common.backend.logprobs"
CPU_MARKS = ("unit", "gpu_0", "core", "pre_merge")
ANCHOR_PREFIX = "test_extract_completion_"
SENTINEL = "_ExplodingTokenIds"
SENTINEL_TEST = "test_extract_completion_skips_token_ids_when_logprobs_empty"
# The sentinel's message, before and after: the old one would misreport the new test.
OLD_MESSAGE = "token_ids copied though no logprobs were requested"
MESSAGE = "token_ids copied"

TARGET = Target(
    path=PATH,
    qualname="(new tests: new_token_ids)",
    expected=(
        "a test module that imports pytest, extract_from_completion_output from "
        f"{HELPER_MODULE} and SimpleNamespace from types, defines `_logprob(...)` and "
        f"`{SENTINEL}` (whose __iter__ raises AssertionError({OLD_MESSAGE!r})), is marked "
        f"{', '.join(CPU_MARKS)} by `pytestmark`, and has `{ANCHOR_PREFIX}*` tests to add to"
    ),
)

# Inserted after the last `test_extract_completion_*` test of test_logprobs.py.
TESTS = shape.carried("helper_delta_tests.template.py")

_RAISE = m.Raise(exc=m.Call(func=m.Name("AssertionError"), args=[m.Arg(value=m.SimpleString())]))


def _names(body: list[cst.BaseStatement] | tuple[cst.BaseStatement, ...]) -> dict[str, int]:
    """Top-level def/class/``NAME = ...`` names -> index in ``body``."""
    found = {}
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            found[stmt.name.value] = i
        elif m.matches(stmt, m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name())])])):
            found[stmt.body[0].targets[0].target.value] = i  # type: ignore[attr-defined]
    return found


def added_names() -> tuple[str, ...]:
    """The top-level definitions ``HelperDeltaTests`` rewrites (``SENTINEL``) and adds."""
    return (SENTINEL, *_names(cst.parse_module(TESTS).body))


class HelperDeltaTests(TargetedCommand):
    DESCRIPTION: str = (
        "test_logprobs.py: add a CPU test that extract_from_completion_output(..., "
        "new_token_ids=...) equals the helper's own slice and reads no history."
    )
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        present = _names(tree.body)
        if SENTINEL not in present:
            if SENTINEL_TEST in present:
                raise Drifted(TARGET, f"{SENTINEL_TEST} without `{SENTINEL}`")
            raise NotApplicable(
                f"{PATH} has no {SENTINEL} (dynamo added it with the empty-logprobs fix, "
                "1.5.0): the helper's delta test is not carried"
            )
        sentinel, message = _sentinel_message(tree.body[present[SENTINEL]])
        new_stmts = list(cst.parse_module(TESTS).body)
        wanted = _names(new_stmts)
        clashes = [n for n in wanted if n in present]
        if clashes:
            same = all(
                shape.same_code(tree.body[present[n]], shape.code(new_stmts[wanted[n]]))
                for n in clashes
            )
            if same and len(clashes) == len(wanted) and message.evaluated_value == MESSAGE:
                raise AlreadyApplied(f"{PATH} already has the delta test")
            raise Drifted(
                TARGET,
                f"{', '.join(clashes)} already defined "
                + ("(only part of the change)" if same else "with other content"),
            )
        if message.evaluated_value not in (OLD_MESSAGE, MESSAGE):
            raise Drifted(TARGET, f"{SENTINEL}.__iter__ raising AssertionError({message.value})")

        needs = ((HELPER_MODULE, "extract_from_completion_output"), ("types", "SimpleNamespace"))
        lacks = shape.test_module_lacks(tree, needs, CPU_MARKS)  # run as CPU tests by marks
        if lacks:
            raise Drifted(TARGET, lacks)
        anchors = [i for n, i in present.items() if n.startswith(ANCHOR_PREFIX)]
        if not anchors:
            raise Drifted(TARGET, f"no `{ANCHOR_PREFIX}*` test to add after")

        at = max(anchors) + 1
        two_blank = (cst.EmptyLine(), cst.EmptyLine())
        new_stmts[0] = new_stmts[0].with_changes(leading_lines=two_blank)
        text = f"{message.prefix}{message.quote}{MESSAGE}{message.quote}"
        reworded = sentinel.deep_replace(message, message.with_changes(value=text))
        body = [*tree.body[:at], *new_stmts, *tree.body[at:]]
        body[present[SENTINEL]] = reworded  # type: ignore[assignment]
        return tree.with_changes(body=body)


def _sentinel_message(stmt: cst.BaseStatement) -> tuple[cst.ClassDef, cst.SimpleString]:
    """The sentinel class and the message its ``__iter__`` raises ``AssertionError`` with."""
    cls = stmt if isinstance(stmt, cst.ClassDef) else None
    method = shape.find_function(cst.Module(body=[cls]), f"{SENTINEL}.__iter__") if cls else None
    raises = m.findall(method, _RAISE) if method else []
    if cls is None or len(raises) != 1:
        raise Drifted(TARGET, f"no `{SENTINEL}.__iter__` raising AssertionError('...')")
    message = raises[0].exc.args[0].value  # type: ignore[attr-defined]
    return cls, message
