"""Thread the TRT-LLM handler's delta token ids into the shared logprob helper.

Two codemods on ``handler_base.py``:

* ``HandlerExtractForwardsDelta``: ``HandlerBase._extract_logprobs`` accepts an
  optional keyword-only ``new_token_ids`` and forwards it to
  ``extract_from_completion_output``. ``_extract_logprobs(output, 0)`` keeps working.
* ``HandlerCallPassesDelta``: the response loop in
  ``HandlerBase._generate_locally_impl`` passes the delta it already built,
  ``out["token_ids"]`` (``output.token_ids[cursor:]``), to that call.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.codemod import Codemod

from codemods import shape
from codemods.logprobs_helper import PARAM
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target

PATH = "components/src/dynamo/trtllm/request_handlers/handler_base.py"
HELPER = "extract_from_completion_output"
METHOD = "HandlerBase._extract_logprobs"
LOOP = "HandlerBase._generate_locally_impl"

EXTRACT_TARGET = Target(
    path=PATH,
    qualname=METHOD,
    expected=(
        "a method (output, num_output_tokens_so_far) whose body is "
        f"`return <module>.{HELPER}(output, num_output_tokens_so_far, ...)`"
    ),
)
CALL_TARGET = Target(
    path=PATH,
    qualname=LOOP,
    expected=(
        "one call `self._extract_logprobs(output, <cursor>)`, preceded in its block by "
        '`out = {"token_ids": output.token_ids[<cursor>:], ...}` with the same cursor'
    ),
)

_INLINE = (
    f"{PATH} never calls the shared {HELPER}: {METHOD} indexes token by token, "
    "so there is no history copy to remove (releases <= 1.2.1)"
)
_DELTA_VALUE = 'out["token_ids"]'


class HandlerExtractForwardsDelta(Codemod):
    DESCRIPTION: str = (
        f"{METHOD}: accept an optional keyword-only {PARAM} and forward it to {HELPER}."
    )

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        fn = shape.find_function(tree, METHOD)
        if fn is None:
            raise Drifted(EXTRACT_TARGET, f"no method {METHOD}")
        if not shape.references(fn, HELPER):
            raise NotApplicable(_INLINE)
        positional, kwonly = shape.param_names(fn)
        if positional != ["output", "num_output_tokens_so_far"]:
            raise Drifted(EXTRACT_TARGET, f"parameters ({', '.join(positional)})")

        calls = m.findall(fn, m.Call(func=m.Name(HELPER) | m.Attribute(attr=m.Name(HELPER))))
        returns = m.findall(fn, m.Return())
        if len(calls) != 1 or len(returns) != 1 or returns[0].value is not calls[0]:
            raise Drifted(EXTRACT_TARGET, f"a body that is not one `return ...{HELPER}(...)`")
        call = calls[0]
        assert isinstance(call, cst.Call)
        if [shape.code(a.value) for a in call.args[:2]] != [
            "output",
            "num_output_tokens_so_far",
        ]:
            raise Drifted(EXTRACT_TARGET, f"`{shape.one_line(call)}`")

        forwards = any(
            a.keyword is not None and a.keyword.value == PARAM and shape.code(a.value) == PARAM
            for a in call.args
        )
        if PARAM in kwonly and forwards:
            raise AlreadyApplied(f"{METHOD} already forwards {PARAM}")
        if PARAM in kwonly or forwards:
            raise Drifted(EXTRACT_TARGET, f"a half-made change: `{shape.one_line(fn)}`")

        new_fn = fn.deep_replace(call, shape.add_keyword_arg(call, PARAM, cst.Name(PARAM)))
        param = cst.Param(
            name=cst.Name(PARAM),
            annotation=cst.Annotation(cst.parse_expression("list[int] | None")),
            equal=cst.AssignEqual(),
            default=cst.Name("None"),
        )
        new_fn = shape.add_kwonly_param(new_fn, param)  # type: ignore[arg-type]
        return shape.replace_function(tree, METHOD, new_fn)


class HandlerCallPassesDelta(Codemod):
    DESCRIPTION: str = (
        f"{LOOP}: pass the chunk's already-built delta, {_DELTA_VALUE}, to self._extract_logprobs."
    )

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        method = shape.find_function(tree, METHOD)
        if method is not None and not shape.references(method, HELPER):
            raise NotApplicable(_INLINE)
        fn = shape.find_function(tree, LOOP)
        if fn is None:
            raise Drifted(CALL_TARGET, f"no method {LOOP}")
        matcher = m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name("_extract_logprobs")))
        calls = m.findall(fn, matcher)
        if len(calls) != 1:
            raise Drifted(CALL_TARGET, f"{len(calls)} calls to self._extract_logprobs")
        call = calls[0]
        assert isinstance(call, cst.Call)

        positional = [a for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        if len(positional) != 2 or not m.matches(positional[0].value, m.Name("output")):
            raise Drifted(CALL_TARGET, f"`{shape.one_line(call)}`")
        if not isinstance(positional[1].value, cst.Name):
            raise Drifted(
                CALL_TARGET, f"a cursor that is not a plain name: `{shape.one_line(call)}`"
            )
        cursor = positional[1].value.value

        block, index = _enclosing_block(fn, call)
        _check_delta_built_before(block, index, cursor)

        if PARAM in keywords:
            if shape.code(keywords[PARAM].value) == _DELTA_VALUE:
                raise AlreadyApplied(f"{LOOP} already passes {PARAM}={_DELTA_VALUE}")
            raise Drifted(
                CALL_TARGET, f"{PARAM}={shape.one_line(keywords[PARAM].value)} already passed"
            )
        new_call = shape.add_keyword_arg(call, PARAM, cst.parse_expression(_DELTA_VALUE))
        new_fn = fn.deep_replace(call, new_call)
        assert isinstance(new_fn, cst.FunctionDef)
        return shape.replace_function(tree, LOOP, new_fn)


class _BlockOf(cst.CSTVisitor):
    """Finds the innermost indented block around one given node."""

    def __init__(self, node: cst.CSTNode) -> None:
        self.node = node
        self.stack: list[cst.IndentedBlock] = []
        self.block: cst.IndentedBlock | None = None

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.stack.append(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.stack.pop()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.node and self.block is None:
            self.block = self.stack[-1]
        return self.block is None and super().on_visit(node)


def _enclosing_block(fn: cst.FunctionDef, call: cst.Call) -> tuple[list[cst.BaseStatement], int]:
    """The statement list that directly holds the statement containing ``call``."""
    finder = _BlockOf(call)
    fn.visit(finder)
    block = finder.block
    if block is not None:
        for i, stmt in enumerate(block.body):
            if isinstance(stmt, cst.SimpleStatementLine) and any(
                c is call for c in m.findall(stmt, m.Call())
            ):
                return list(block.body), i
    raise Drifted(CALL_TARGET, "the call outside a simple statement")


def _check_delta_built_before(body: list[cst.BaseStatement], index: int, cursor: str) -> None:
    """Require ``out = {"token_ids": output.token_ids[cursor:], ...}`` earlier in ``body``,
    with nothing in between that rebinds ``out`` or ``out["token_ids"]``."""
    delta = m.Subscript(
        value=m.Attribute(value=m.Name("output"), attr=m.Name("token_ids")),
        slice=[m.SubscriptElement(slice=m.Slice(lower=m.Name(cursor), upper=None, step=None))],
    )
    built = m.SimpleStatementLine(
        body=[
            m.Assign(
                targets=[m.AssignTarget(target=m.Name("out"))],
                value=m.Dict(
                    elements=[
                        m.ZeroOrMore(),
                        m.DictElement(key=m.SimpleString('"token_ids"'), value=delta),
                        m.ZeroOrMore(),
                    ]
                ),
            )
        ]
    )
    rebinds = m.AssignTarget(target=m.Name("out") | m.Subscript(value=m.Name("out")))
    for j in range(index - 1, -1, -1):
        if m.matches(body[j], built):
            return
        if m.findall(body[j], rebinds | m.AugAssign(target=m.Subscript(value=m.Name("out")))):
            break
    raise Drifted(
        CALL_TARGET,
        f'no `out = {{"token_ids": output.token_ids[{cursor}:], ...}}` before the call '
        f"in its block (cursor `{cursor}`)",
    )
