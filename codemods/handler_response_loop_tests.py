"""Carry ``carried/handler_response_loop_tests.template.py`` into dynamo's
``test_trtllm_handler_base.py``: the mock builder gains ``choices``, ``TestGenerateLocally``
one test, the wrapper/shared comparison one case (1.5.0 on)."""

from __future__ import annotations

import functools

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

PATH = "components/src/dynamo/trtllm/tests/test_trtllm_handler_base.py"
CLASS = "TestGenerateLocally"
BUILDER = "_make_mock_generation_result_sequence"
COMPARISON = "test_trtllm_handler_matches_shared"
STANDIN = "_CumulativeTokenIds"
KEYWORD = "choices"
REUSED = ("_make_handler", "_make_context")
MARKS = ("trtllm", "pre_merge", "gpu_1")
NEEDS = ("pytest", "MagicMock", "HandlerBase", "extract_from_completion_output", "_logprob")

TARGET = Target(
    path=PATH,
    qualname="(new tests: response loop)",
    expected=(
        f"a test module marked {', '.join(MARKS)}, with module-level {', '.join(NEEDS)}, "
        f"{COMPARISON}() (with an `output`), and {CLASS} with {', '.join(REUSED)} and "
        f"{BUILDER}(self, prompt_logprobs_per_chunk, ...) looping over enumerate(...) to build "
        "one `output = MagicMock()` with its attributes into `res.outputs = [output]`"
    ),
)

TEMPLATE = shape.carried("handler_response_loop_tests.template.py")


def _sets(target: m.BaseMatcherNode, value: m.BaseMatcherNode | None = None) -> m.BaseMatcherNode:
    return m.SimpleStatementLine([m.Assign([m.AssignTarget(target)], value or m.DoNotCare())])


# The builder's loop, before (by shape) and after: one output per choice.
_LOOP = m.For(
    target=m.Tuple([m.Element(m.Name("index")), m.Element(m.Name("prompt_logprobs"))]),
    iter=m.Call(func=m.Name("enumerate"), args=[m.Arg(m.Name("prompt_logprobs_per_chunk"))]),
)
_RES = _sets(m.Name("res"), m.Call(m.Name("MagicMock"), args=[]))
_ONE_OUTPUT = m.IndentedBlock(
    body=[
        _sets(m.Name("output"), m.Call(m.Name("MagicMock"), args=[])),
        _sets(m.Attribute(m.Name("output"), m.Name("token_ids"))),
        m.ZeroOrMore(_sets(m.Attribute(m.Name("output")))),
        _RES,
        _sets(m.Attribute(m.Name("res"), m.Name("outputs")), m.List([m.Element(m.Name("output"))])),
        m.ZeroOrMore(),
    ]
)
PER_CHOICE = f"""\
res = MagicMock()
res.outputs = []
# `{KEYWORD}[index]`: one output per choice, with its index, its cumulative ids
# (a `{STANDIN}`: copying them fails) and a logprob for each id.
per_choice = {KEYWORD}[index] if {KEYWORD} else [DEFAULT]
for choice, token_ids in enumerate(per_choice):
    output = MagicMock()
    output.token_ids = {STANDIN}(token_ids) if {KEYWORD} else token_ids
    if {KEYWORD}:
        output.index = choice
        output.logprobs = [{{t: _logprob(-t / 10)}} for t in token_ids]
    res.outputs.append(output)
"""


@functools.cache
def _template() -> tuple[cst.ClassDef, list[cst.FunctionDef], list[cst.BaseStatement]]:
    """The template's stand-in class, its test methods, and the comparison's new lines."""
    standin, cls, comparison = cst.parse_module(TEMPLATE).body
    methods = [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]  # type: ignore[attr-defined]
    return standin, methods, list(comparison.body.body)  # type: ignore[return-value,attr-defined]


def added_names() -> tuple[str, ...]:
    """The definitions ``HandlerResponseLoopTests`` adds or rewrites, in order."""
    standin, methods, _ = _template()
    return (standin.name.value, *(fn.name.value for fn in methods), BUILDER, COMPARISON)


class HandlerResponseLoopTests(TargetedCommand):
    DESCRIPTION = (
        "test_trtllm_handler_base.py (gpu_1): extend the mock builder to cumulative ids "
        "per choice; one response-loop test of interleaved choices' chunks; one "
        "new_token_ids case in the wrapper/shared comparison."
    )
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        cls = shape.named(tree.body, cst.ClassDef, CLASS)
        if not isinstance(cls, cst.ClassDef) or not isinstance(cls.body, cst.IndentedBlock):
            raise NotApplicable(
                f"{PATH} has no {CLASS} (dynamo added it, and its sequence builder, in "
                "1.5.0): the response-loop test is not carried"
            )
        present = {f.name.value: f for f in cls.body.body if isinstance(f, cst.FunctionDef)}
        builder = present.get(BUILDER)
        comparison = shape.named(tree.body, cst.FunctionDef, COMPARISON)
        if builder is None:
            raise Drifted(TARGET, f"no {CLASS}.{BUILDER} to extend")
        if not isinstance(comparison, cst.FunctionDef):
            raise Drifted(TARGET, f"no module-level {COMPARISON}() to extend")
        _refuse_done(tree, present, comparison)
        standin, tests, case = _template()
        missing = [f"{CLASS}.{name}" for name in REUSED if name not in present]
        if missing:
            raise Drifted(TARGET, f"no {' or '.join(missing)} to reuse")
        lacks = shape.test_module_lacks(tree, NEEDS, MARKS)  # GPU tests by marks
        if lacks:
            raise Drifted(TARGET, lacks)
        if not m.findall(comparison, m.Assign([m.AssignTarget(m.Name("output"))])):
            raise Drifted(TARGET, f"{COMPARISON}() without an `output = ...` to reuse")

        first = tests[0].with_changes(leading_lines=(cst.EmptyLine(indent=False),))
        body = [_extend_builder(s) if s is builder else s for s in cls.body.body]
        grown = cls.with_changes(body=cls.body.with_changes(body=[*body, first, *tests[1:]]))
        case = [case[0].with_changes(leading_lines=(cst.EmptyLine(indent=False),)), *case[1:]]
        compared = comparison.with_changes(
            body=comparison.body.with_changes(body=[*comparison.body.body, *case])
        )
        new_body: list[cst.BaseStatement] = []
        for stmt in tree.body:
            if stmt is cls:
                new_body += [standin.with_changes(leading_lines=cls.leading_lines), grown]
            else:
                new_body.append(compared if stmt is comparison else stmt)
        return tree.with_changes(body=new_body)


def _refuse_done(tree: cst.Module, present: dict, comparison: cst.FunctionDef) -> None:
    """AlreadyApplied when the whole change is there, Drifted when part of it is."""
    standin, tests, case = _template()
    builder, old_standin = present[BUILDER], shape.named(tree.body, cst.ClassDef, STANDIN)
    tail = list(comparison.body.body)[-len(case) :]
    parts = {
        STANDIN: old_standin is not None,
        f"{BUILDER}({KEYWORD}=...)": any(KEYWORD in names for names in shape.param_names(builder)),
        **{f"{CLASS}.{fn.name.value}": fn.name.value in present for fn in tests},
        f"{COMPARISON}'s new case": len(tail) == len(case)
        and all(map(shape.same_code, tail, map(shape.code, case))),
    }
    if not any(parts.values()):
        return
    pairs = [(old_standin, standin), *((present.get(fn.name.value), fn) for fn in tests)]
    same = all(old is not None and shape.same_code(old, shape.code(new)) for old, new in pairs)
    if all(parts.values()) and same and shape.references(builder, STANDIN):
        raise AlreadyApplied(f"{PATH} already has the response-loop test")
    there = ", ".join(name for name, found in parts.items() if found)
    raise Drifted(TARGET, f"the change, in part or with other content, already there: {there}")


def _extend_builder(fn: cst.FunctionDef) -> cst.FunctionDef:
    """The builder with ``choices=None`` and its loop making one output per choice."""
    positional, kwonly = shape.param_names(fn)
    varargs = fn.params.star_arg is not cst.MaybeSentinel.DEFAULT or fn.params.star_kwarg
    if positional[:2] != ["self", "prompt_logprobs_per_chunk"] or kwonly or varargs:
        raise Drifted(TARGET, f"{CLASS}.{BUILDER}({', '.join(positional)})")
    loops = [s for s in fn.body.body if m.matches(s, _LOOP)]
    if len(loops) != 1:
        raise Drifted(TARGET, f"{len(loops)} loops over enumerate(prompt_logprobs_per_chunk)")
    loop = loops[0]
    if not m.matches(loop.body, _ONE_OUTPUT):  # type: ignore[attr-defined]
        raise Drifted(TARGET, f"a loop in {CLASS}.{BUILDER} that is not the one-output shape")
    stmts = list(loop.body.body)  # type: ignore[attr-defined]
    res = next(i for i, s in enumerate(stmts) if m.matches(s, _RES))
    default = shape.code(stmts[1].body[0].value)  # the one output's token_ids
    *head, inner = cst.parse_module(PER_CHOICE.replace("DEFAULT", default)).body
    own = list(inner.body.body)  # type: ignore[attr-defined]
    inner = inner.with_changes(body=inner.body.with_changes(body=[*own[:3], *stmts[2:res], own[3]]))  # type: ignore[attr-defined]
    rest = stmts[res + 2 :]
    if rest:
        rest[0] = rest[0].with_changes(leading_lines=stmts[res].leading_lines)
    head[0] = head[0].with_changes(leading_lines=stmts[0].leading_lines)
    new_loop = loop.with_changes(body=loop.body.with_changes(body=[*head, inner, *rest]))  # type: ignore[attr-defined]
    body = [new_loop if s is loop else s for s in fn.body.body]
    new_fn = fn.with_changes(body=fn.body.with_changes(body=body))
    return shape.add_param(new_fn, shape.param(f"{KEYWORD}=None"))
