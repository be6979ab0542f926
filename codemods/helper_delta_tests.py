"""Carry ``carried/helper_delta_tests.template.py``, the CPU test of the helper's
``new_token_ids``, into dynamo's ``test_logprobs.py`` after its last
``test_extract_completion_*``, on the module's own ``_ExplodingTokenIds`` (1.5.0 on)."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

PATH = "components/src/dynamo/common/backend/tests/test_logprobs.py"
CPU_MARKS = ("unit", "gpu_0", "core", "pre_merge")
NEEDS = ("pytest", "extract_from_completion_output", "SimpleNamespace", "_logprob")
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
        f"a test module with module-level {', '.join(NEEDS)} and `{SENTINEL}` (whose "
        f"__iter__ raises AssertionError({OLD_MESSAGE!r})), marked {', '.join(CPU_MARKS)} "
        f"by `pytestmark`, with `{ANCHOR_PREFIX}*` tests to add to"
    ),
)

# Inserted after the last `test_extract_completion_*` test of test_logprobs.py.
TESTS = shape.carried("helper_delta_tests.template.py")

_RAISE = m.Raise(exc=m.Call(func=m.Name("AssertionError"), args=[m.Arg(value=m.SimpleString())]))


def added_names() -> tuple[str, ...]:
    """The top-level definitions ``HelperDeltaTests`` rewrites (``SENTINEL``) and adds."""
    return (SENTINEL, *shape.top_level_names(cst.parse_module(TESTS).body))


class HelperDeltaTests(TargetedCommand):
    DESCRIPTION = (
        "test_logprobs.py: add a CPU test that extract_from_completion_output(..., "
        "new_token_ids=...) equals the helper's own slice and reads no history."
    )
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        present = shape.top_level_names(tree.body)
        sentinel = tree.body[present[SENTINEL]] if SENTINEL in present else None
        if not isinstance(sentinel, cst.ClassDef):
            if SENTINEL_TEST in present:
                raise Drifted(TARGET, f"{SENTINEL_TEST} without `{SENTINEL}`")
            raise NotApplicable(
                f"{PATH} has no {SENTINEL} (dynamo added it with the empty-logprobs fix, "
                "1.5.0): the helper's delta test is not carried"
            )
        method = shape.find_function(cst.Module([sentinel]), f"{SENTINEL}.__iter__")
        raises = m.findall(method, _RAISE) if method else []
        if len(raises) != 1:
            raise Drifted(TARGET, f"no `{SENTINEL}.__iter__` raising AssertionError('...')")
        message = raises[0].exc.args[0].value  # type: ignore[attr-defined]
        new_stmts = list(cst.parse_module(TESTS).body)
        wanted = shape.top_level_names(new_stmts)
        clashes = [n for n in wanted if n in present]
        if clashes:
            same = all(
                shape.same_code(tree.body[present[n]], shape.code(new_stmts[wanted[n]]))
                for n in clashes
            )
            if same and len(clashes) == len(wanted) and message.evaluated_value == MESSAGE:
                raise AlreadyApplied(f"{PATH} already has the delta test")
            part = "(only part of the change)" if same else "with other content"
            raise Drifted(TARGET, f"{', '.join(clashes)} already defined {part}")
        if message.evaluated_value not in (OLD_MESSAGE, MESSAGE):
            raise Drifted(TARGET, f"{SENTINEL}.__iter__ raising AssertionError({message.value})")
        lacks = shape.test_module_lacks(tree, NEEDS, CPU_MARKS)  # run as CPU tests by marks
        if lacks:
            raise Drifted(TARGET, lacks)
        anchors = [i for n, i in present.items() if n.startswith(ANCHOR_PREFIX)]
        if not anchors:
            raise Drifted(TARGET, f"no `{ANCHOR_PREFIX}*` test to add after")

        new_stmts[0] = new_stmts[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine()))
        text = f"{message.prefix}{message.quote}{MESSAGE}{message.quote}"
        body = list(tree.body)
        body[present[SENTINEL]] = sentinel.deep_replace(message, message.with_changes(value=text))  # type: ignore[call-overload]
        at = max(anchors) + 1
        return tree.with_changes(body=[*body[:at], *new_stmts, *body[at:]])
