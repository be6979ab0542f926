"""Carry ``carried/helper_delta_tests.template.py`` into dynamo's ``test_logprobs.py`` (1.5.0
on), on its ``_ExplodingTokenIds`` as extended by the template's first class."""

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
# The sentinel's message, before and after: the old one would misreport the new tests.
OLD_MESSAGE = "token_ids copied though no logprobs were requested"
MESSAGE = "token_ids copied"

TARGET = Target(
    path=PATH,
    qualname="(new tests: new_token_ids)",
    expected=(
        f"a test module with module-level {', '.join(NEEDS)} and `{SENTINEL}` (whose "
        f"__len__ returns a number and __iter__ raises AssertionError({OLD_MESSAGE!r})), "
        f"marked {', '.join(CPU_MARKS)} by `pytestmark`, with `{ANCHOR_PREFIX}*` tests to "
        "add to"
    ),
)

_RAISE = m.Raise(exc=m.Call(func=m.Name("AssertionError"), args=[m.Arg(value=m.SimpleString())]))
_RETURNS_NUMBER = m.FunctionDef(
    body=m.IndentedBlock([m.SimpleStatementLine([m.Return(m.Integer())])])
)


def template(name: str) -> tuple[cst.ClassDef, list[cst.BaseStatement]]:
    """Template ``name``'s first class (the methods it sets on the sentinel), and its tests."""
    extension, *tests = cst.parse_module(shape.carried(name)).body
    assert isinstance(extension, cst.ClassDef) and extension.name.value == SENTINEL
    return extension, tests


class HelperDeltaTests(TargetedCommand):
    DESCRIPTION = (
        "test_logprobs.py: add CPU tests that extract_from_completion_output(..., "
        "new_token_ids=...) equals the helper's own slice, reads no history, and slices "
        "when the delta does not fit."
    )
    TARGET = TARGET
    TEMPLATE = "helper_delta_tests.template.py"
    DONE = "the delta tests"

    @classmethod
    def added_names(cls) -> tuple[str, ...]:
        """The top-level definitions this command rewrites (``SENTINEL``) and adds."""
        return (SENTINEL, *shape.top_level_names(template(cls.TEMPLATE)[1]))

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        present = shape.top_level_names(tree.body)
        sentinel = tree.body[present[SENTINEL]] if SENTINEL in present else None
        if not isinstance(sentinel, cst.ClassDef):
            if SENTINEL_TEST in present:
                raise Drifted(TARGET, f"{SENTINEL_TEST} without `{SENTINEL}`")
            raise NotApplicable(
                f"{PATH} has no {SENTINEL} (dynamo added it with the empty-logprobs fix, "
                "1.5.0): the helper's tests are not carried"
            )
        method = shape.find_function(cst.Module([sentinel]), f"{SENTINEL}.__iter__")
        raises = m.findall(method, _RAISE) if method else []
        if len(raises) != 1:
            raise Drifted(TARGET, f"no `{SENTINEL}.__iter__` raising AssertionError('...')")
        message = raises[0].exc.args[0].value  # type: ignore[attr-defined]
        extension, new_stmts = template(self.TEMPLATE)
        extended = _extended(sentinel, extension)
        clashes, same, whole = clashing(tree, new_stmts)
        if clashes:
            done = extended is sentinel and message.evaluated_value == MESSAGE
            if whole and done:
                raise AlreadyApplied(f"{PATH} already has {self.DONE}")
            raise drift(clashes, same, TARGET)
        if message.evaluated_value not in (OLD_MESSAGE, MESSAGE):
            raise Drifted(TARGET, f"{SENTINEL}.__iter__ raising AssertionError({message.value})")
        text = f"{message.prefix}{message.quote}{MESSAGE}{message.quote}"
        body = list(tree.body)
        body[present[SENTINEL]] = extended.deep_replace(message, message.with_changes(value=text))  # type: ignore[call-overload]
        return added_after_tests(tree.with_changes(body=body), new_stmts, TARGET)


def clashing(tree: cst.Module, new: list[cst.BaseStatement]) -> tuple[list[str], bool, bool]:
    """The names ``new`` defines that ``tree`` already has; whether each is the same code;
    whether that is all of them (the change made already)."""
    present, wanted = shape.top_level_names(tree.body), shape.top_level_names(new)
    clashes = [n for n in wanted if n in present]
    same = all(shape.same_code(tree.body[present[n]], shape.code(new[wanted[n]])) for n in clashes)
    return clashes, same, same and len(clashes) == len(wanted)


def drift(clashes: list[str], same: bool, target: Target) -> Drifted:
    part = "(only part of the change)" if same else "with other content"
    return Drifted(target, f"{', '.join(clashes)} already defined {part}")


def added_after_tests(tree: cst.Module, new: list[cst.BaseStatement], target: Target) -> cst.Module:
    """``new`` after the module's last ``test_extract_completion_*`` test, once the module
    has what they use (run as CPU tests by its marks)."""
    lacks = shape.test_module_lacks(tree, NEEDS, CPU_MARKS)
    if lacks:
        raise Drifted(target, lacks)
    present = shape.top_level_names(tree.body)
    anchors = [i for n, i in present.items() if n.startswith(ANCHOR_PREFIX)]
    if not anchors:
        raise Drifted(target, f"no `{ANCHOR_PREFIX}*` test to add after")
    new = [new[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine())), *new[1:]]
    at = max(anchors) + 1
    return tree.with_changes(body=[*tree.body[:at], *new, *tree.body[at:]])


def _extended(sentinel: cst.ClassDef, extension: cst.ClassDef) -> cst.ClassDef:
    """``sentinel`` with the methods of ``extension``, in its order: each replaces its namesake
    (``__len__`` must return a number) or follows the one set before; itself if unchanged."""
    block = sentinel.body
    assert isinstance(block, cst.IndentedBlock)
    body = list(block.body)
    at_next = next((i for i, s in enumerate(body) if isinstance(s, cst.FunctionDef)), len(body))
    changed = False
    for new in (s for s in extension.body.body if isinstance(s, cst.FunctionDef)):  # type: ignore[attr-defined]
        name = new.name.value
        at = next((i for i, s in enumerate(body) if shape.named([s], cst.FunctionDef, name)), None)
        if at is not None and shape.same_code(body[at], shape.code(new)):
            at_next = at + 1
            continue
        if at is None and name == "__len__":
            raise Drifted(TARGET, f"`{SENTINEL}` without `__len__`")
        if at is not None and not (name == "__len__" and m.matches(body[at], _RETURNS_NUMBER)):
            raise Drifted(TARGET, f"`{SENTINEL}.{name}` already defined with other content")
        changed = True
        if at is not None:
            body[at] = new.with_changes(leading_lines=body[at].leading_lines)
            at_next = at + 1
            continue
        blank = [cst.EmptyLine(indent=False)] if at_next else []
        body.insert(at_next, new.with_changes(leading_lines=blank))
        if at_next + 1 < len(body) and not body[at_next + 1].leading_lines:
            body[at_next + 1] = body[at_next + 1].with_changes(
                leading_lines=[cst.EmptyLine(indent=False)]
            )
        at_next += 1
    return sentinel.with_changes(body=block.with_changes(body=body)) if changed else sentinel
