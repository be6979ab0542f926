"""Make the TRT-LLM response loop hand the delta it built,
``out = {"token_ids": output.token_ids[cursor:], ...}``, to
``self._extract_logprobs(output, cursor, new_token_ids=out["token_ids"])``."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.handler_extract_forwards_delta import HELPER, INLINE, METHOD, PATH
from codemods.logprobs_helper import PARAM
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

LOOP = "HandlerBase._generate_locally_impl"
DELTA = 'out["token_ids"]'

TARGET = Target(
    path=PATH,
    qualname=LOOP,
    expected=(
        "one call `self._extract_logprobs(output, <cursor>)`, preceded in its block by "
        '`out = {"token_ids": output.token_ids[<cursor>:], ...}` with the same cursor'
    ),
)

_CALL = m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name("_extract_logprobs")))


class HandlerCallPassesDelta(TargetedCommand):
    DESCRIPTION: str = (
        f"{LOOP}: pass the chunk's already-built delta, {DELTA}, to self._extract_logprobs."
    )
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        method = shape.find_function(tree, METHOD)
        if method is not None and not shape.references(method, HELPER):
            raise NotApplicable(INLINE)
        fn = shape.find_function(tree, LOOP)
        if fn is None:
            raise Drifted(TARGET, f"no method {LOOP}")
        calls = m.findall(fn, _CALL)
        if len(calls) != 1:
            raise Drifted(TARGET, f"{len(calls)} calls to self._extract_logprobs")
        call = calls[0]
        assert isinstance(call, cst.Call)

        positional = [a for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        if len(positional) != 2 or not m.matches(positional[0].value, m.Name("output")):
            raise Drifted(TARGET, f"`{shape.one_line(call)}`")
        if not isinstance(positional[1].value, cst.Name):
            raise Drifted(TARGET, f"a cursor that is not a plain name: `{shape.one_line(call)}`")
        cursor = positional[1].value.value

        block, index = _enclosing_block(fn, call)
        _check_delta_built_before(block, index, cursor)

        if PARAM in keywords:
            if shape.code(keywords[PARAM].value) == DELTA:
                raise AlreadyApplied(f"{LOOP} already passes {PARAM}={DELTA}")
            raise Drifted(TARGET, f"{PARAM}={shape.one_line(keywords[PARAM].value)} already passed")
        new_call = shape.add_keyword_arg(call, PARAM, cst.parse_expression(DELTA))
        new_fn = fn.deep_replace(call, new_call)
        assert isinstance(new_fn, cst.FunctionDef)
        return shape.replace_function(tree, LOOP, new_fn)


def _enclosing_block(fn: cst.FunctionDef, call: cst.Call) -> tuple[list[cst.BaseStatement], int]:
    """The statement list that directly holds the simple statement containing ``call``."""
    for block in m.findall(fn, m.IndentedBlock()):
        assert isinstance(block, cst.IndentedBlock)
        for i, stmt in enumerate(block.body):
            if isinstance(stmt, cst.SimpleStatementLine) and m.findall(
                stmt, m.MatchIfTrue(lambda node: node is call)
            ):
                return list(block.body), i
    raise Drifted(TARGET, "the call outside a simple statement")


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
        TARGET,
        f'no `out = {{"token_ids": output.token_ids[{cursor}:], ...}}` before the call '
        f"in its block (cursor `{cursor}`)",
    )
