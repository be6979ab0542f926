"""Make the TRT-LLM response loop hand its delta to ``self._extract_logprobs``."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.handler_extract_forwards_delta import PATH, wrapper
from codemods.logprobs_helper import PARAM
from codemods.outcome import AlreadyApplied, Drifted, Target, TargetedCommand

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

SELF_CALL = m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name("_extract_logprobs")))


class HandlerCallPassesDelta(TargetedCommand):
    DESCRIPTION = (
        f"{LOOP}: pass the chunk's already-built delta, {DELTA}, to self._extract_logprobs."
    )
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        wrapper(tree)  # only to refuse a handler that does not call the shared helper
        fn = shape.find_function(tree, LOOP)
        if fn is None:
            raise Drifted(TARGET, f"no method {LOOP}")
        calls = m.findall(fn, SELF_CALL)
        if len(calls) != 1:
            raise Drifted(TARGET, f"{len(calls)} calls to self._extract_logprobs")
        call = calls[0]
        assert isinstance(call, cst.Call)
        positional = [a.value for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(positional) != 2 or not m.matches(positional[0], m.Name("output")):
            raise Drifted(TARGET, f"`{shape.one_line(call)}`")
        if not isinstance(cursor := positional[1], cst.Name):
            raise Drifted(TARGET, f"a cursor that is not a plain name: `{shape.one_line(call)}`")
        if not _delta_built_before(fn, call, cursor.value):
            raise Drifted(
                TARGET,
                f'no `out = {{"token_ids": output.token_ids[{cursor.value}:], ...}}` before the '
                f"call in its block (cursor `{cursor.value}`)",
            )
        if PARAM in keywords:
            if shape.code(keywords[PARAM]) == DELTA:
                raise AlreadyApplied(f"{LOOP} already passes {PARAM}={DELTA}")
            raise Drifted(TARGET, f"{PARAM}={shape.one_line(keywords[PARAM])} already passed")
        new_call = shape.add_keyword_arg(call, PARAM, cst.parse_expression(DELTA))
        new_fn = fn.deep_replace(call, new_call)
        return shape.replace_function(tree, LOOP, new_fn)  # type: ignore[arg-type]


def _delta_built_before(fn: cst.FunctionDef, call: cst.Call, cursor: str) -> bool:
    """True when ``out = {"token_ids": output.token_ids[cursor:], ...}`` precedes the statement
    holding ``call`` in its block, nothing between rebinding ``out`` or ``out["token_ids"]``."""
    ids = m.Attribute(m.Name("output"), m.Name("token_ids"))
    delta = m.Subscript(ids, [m.SubscriptElement(m.Slice(m.Name(cursor), None, None))])
    entry = m.DictElement(m.SimpleString('"token_ids"'), delta)
    built = m.Assign(
        [m.AssignTarget(m.Name("out"))], m.Dict([m.ZeroOrMore(), entry, m.ZeroOrMore()])
    )
    out = m.Subscript(value=m.Name("out"))
    rebinds = m.AssignTarget(m.Name("out") | out) | m.AugAssign(target=out)
    is_call, is_line = m.MatchIfTrue(lambda node: node is call), m.SimpleStatementLine()
    for block in m.findall(fn, m.IndentedBlock()):
        body = list(block.body)  # type: ignore[attr-defined]
        held = [i for i, s in enumerate(body) if m.matches(s, is_line) and m.findall(s, is_call)]
        for stmt in reversed(body[: held[0]] if held else ()):
            if m.matches(stmt, m.SimpleStatementLine([built])):
                return True
            if m.findall(stmt, rebinds):
                return False
        if held:
            return False
    return False
