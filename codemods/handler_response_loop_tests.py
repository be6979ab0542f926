"""Carry ``carried/handler_response_loop_tests.template.py`` into dynamo's
``test_trtllm_handler_base.py`` (1.5.0 on): its stand-in before ``TestGenerateLocally``, its
methods appended to that class, its lines to the wrapper/shared comparison."""

from __future__ import annotations

import functools

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

PATH = "components/src/dynamo/trtllm/tests/test_trtllm_handler_base.py"
CLASS = "TestGenerateLocally"
COMPARISON = "test_trtllm_handler_matches_shared"
STANDIN = "_CumulativeTokenIds"
REUSED = ("_make_handler", "_make_context")
TEMPLATE = "handler_response_loop_tests.template.py"
MARKS = ("trtllm", "pre_merge", "gpu_1")
NEEDS = ("pytest", "mock", "MagicMock", "HandlerBase", "_logprob")

LOOP_TESTS = (
    "test_trtllm_handler_base.py (gpu_1): a builder of interleaved choices whose cumulative ids "
    "count the ids read and fail when copied; one response-loop test of their chunks"
)

TARGET = Target(
    path=PATH,
    qualname="(new tests: response loop)",
    expected=(
        f"a test module marked {', '.join(MARKS)}, with module-level {', '.join(NEEDS)}, "
        f"{COMPARISON}() (with an `output`), and {CLASS} with {', '.join(REUSED)}"
    ),
)


@functools.cache
def template() -> tuple[cst.ClassDef, list[cst.FunctionDef], list[cst.BaseStatement]]:
    """The template's stand-in class, its methods, and the comparison's new lines."""
    standin, cls, comparison = cst.parse_module(shape.carried(TEMPLATE)).body
    methods = [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]  # type: ignore[attr-defined]
    return standin, methods, list(comparison.body.body)  # type: ignore[return-value,attr-defined]


TESTS = tuple(fn.name.value for fn in template()[1] if fn.name.value.startswith("test_"))


class HandlerResponseLoopTests(TargetedCommand):
    DESCRIPTION = f"{LOOP_TESTS}; one new_token_ids case in the wrapper/shared comparison."
    TARGET = TARGET
    TEMPLATE = TEMPLATE

    @classmethod
    def added_names(cls) -> tuple[str, ...]:
        standin, methods, _ = template()
        return (standin.name.value, *(fn.name.value for fn in methods), COMPARISON)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        cls = shape.named(tree.body, cst.ClassDef, CLASS)
        if not isinstance(cls, cst.ClassDef) or not isinstance(cls.body, cst.IndentedBlock):
            raise NotApplicable(
                f"{PATH} has no {CLASS} (dynamo added it in 1.5.0): the response-loop "
                "test is not carried"
            )
        present = {f.name.value: f for f in cls.body.body if isinstance(f, cst.FunctionDef)}
        comparison = shape.named(tree.body, cst.FunctionDef, COMPARISON)
        if not isinstance(comparison, cst.FunctionDef):
            raise Drifted(TARGET, f"no module-level {COMPARISON}() to extend")
        standin, methods, case = template()
        self._refuse_done(tree, present, comparison)
        if missing := [f"{CLASS}.{name}" for name in REUSED if name not in present]:
            raise Drifted(TARGET, f"no {' or '.join(missing)} to reuse")
        if lacks := shape.test_module_lacks(tree, NEEDS, MARKS):  # GPU tests by marks
            raise Drifted(TARGET, lacks)
        if not m.findall(comparison, m.Assign([m.AssignTarget(m.Name("output"))])):
            raise Drifted(TARGET, f"{COMPARISON}() without an `output = ...` to reuse")

        first = methods[0].with_changes(leading_lines=(cst.EmptyLine(indent=False),))
        added = [first, *methods[1:]]
        grown = cls.with_changes(body=cls.body.with_changes(body=[*cls.body.body, *added]))
        case = [case[0].with_changes(leading_lines=(cst.EmptyLine(indent=False),)), *case[1:]]
        compared = comparison.with_changes(
            body=comparison.body.with_changes(body=[*comparison.body.body, *case])
        )
        body = [grown if s is cls else compared if s is comparison else s for s in tree.body]
        body.insert(tree.body.index(cls), standin.with_changes(leading_lines=cls.leading_lines))
        return tree.with_changes(body=body)

    def _refuse_done(self, tree: cst.Module, present: dict, comparison: cst.FunctionDef) -> None:
        """AlreadyApplied when the whole change is there, Drifted when part of it is."""
        standin, methods, case = template()
        old_standin = shape.named(tree.body, cst.ClassDef, STANDIN)
        tail = list(comparison.body.body)[-len(case) :]
        parts = {
            STANDIN: old_standin is not None,
            **{f"{CLASS}.{fn.name.value}": fn.name.value in present for fn in methods},
            f"{COMPARISON}'s new case": len(tail) == len(case)
            and all(map(shape.same_code, tail, map(shape.code, case))),
        }
        if not any(parts.values()):
            return
        pairs = [(old_standin, standin), *((present.get(fn.name.value), fn) for fn in methods)]
        same = all(old is not None and shape.same_code(old, shape.code(new)) for old, new in pairs)
        if all(parts.values()) and same:
            raise AlreadyApplied(f"{PATH} already has the response-loop test")
        there = ", ".join(name for name, found in parts.items() if found)
        raise Drifted(TARGET, f"the change, in part or with other content, already there: {there}")
