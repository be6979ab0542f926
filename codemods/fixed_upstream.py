"""Is the fix already upstream, under other names? (dynamo PR #14402 and its kind.)

An equivalent upstream change will not have this series' shape, so the codemods call it
drifted. :func:`detect` recognises it by what it does, not by its names: the helper
``extract_from_completion_output`` takes some parameter that carries the chunk's new token
ids and copies no token-id history (no ``list(<x>.token_ids)``) on the path where that
parameter is given, and the TRT-LLM loop ``HandlerBase._generate_locally_impl`` hands it
the delta (something derived from ``out["token_ids"]`` or ``output.token_ids[<cursor>:]``),
directly or through ``HandlerBase._extract_logprobs``. Pure: modules in, a finding out.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from codemods import shape

HELPER = "extract_from_completion_output"
METHOD = "HandlerBase._extract_logprobs"
LOOP = "HandlerBase._generate_locally_impl"

_TOKEN_IDS = m.Attribute(attr=m.Name("token_ids")) | m.Call(
    func=m.Name("getattr"),
    args=[m.ZeroOrMore(), m.Arg(value=m.SimpleString('"token_ids"') | m.SimpleString("'token_ids'")),
          m.ZeroOrMore()],
)  # fmt: skip
_OUT_IDS = m.Subscript(
    value=m.Name("out"),
    slice=[m.SubscriptElement(slice=m.Index(value=m.SimpleString('"token_ids"')
                                            | m.SimpleString("'token_ids'")))],
)  # fmt: skip
_DELTA_SLICE = m.Subscript(
    value=m.Attribute(attr=m.Name("token_ids")),
    slice=[m.SubscriptElement(slice=m.Slice(lower=m.DoNotCare(), upper=None, step=None))],
)
_SELF_METHOD = m.Call(func=m.Attribute(value=m.Name("self"), attr=m.Name("_extract_logprobs")))
_HELPER_CALL = m.Call(func=m.Name(HELPER) | m.Attribute(attr=m.Name(HELPER)))


@dataclass(frozen=True)
class Finding:
    param: str  # the helper's parameter that carries the new token ids
    argument: str  # what the loop passes, as written (``name=value`` or ``value``)
    via: str  # the callee the loop passes it to

    @property
    def reason(self) -> str:
        to = f"to {self.via}" if self.via == HELPER else f"to {self.via}, which forwards it"
        return (
            f"{HELPER} takes `{self.param}` and copies no token-id history when it is "
            f"given; {LOOP} passes `{self.argument}` {to}"
        )


def detect(helper: cst.Module | None, handler: cst.Module | None) -> Finding | None:
    """The upstream fix found in these two modules, or None."""
    if helper is None or handler is None:
        return None
    fn = shape.find_function(helper, HELPER)
    loop = shape.find_function(handler, LOOP)
    if fn is None or loop is None:
        return None
    derived = _derived_names(loop)
    method = shape.find_function(handler, METHOD)
    for call in m.findall(loop, _SELF_METHOD | _HELPER_CALL):
        assert isinstance(call, cst.Call)
        direct = m.matches(call, _HELPER_CALL)
        callee = fn if direct else method
        if callee is None:
            continue
        for name, arg in _bind(callee, call, method=not direct).items():
            if not _is_delta(arg.value, derived):
                continue
            param = name if direct else _forwarded(method, name, fn)
            if param is not None and _carries_ids(fn, param):
                via = HELPER if direct else f"self.{METHOD.split('.')[1]}"
                return Finding(
                    param, shape.one_line(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)), via
                )
    return None


def _is_delta(node: cst.CSTNode, derived: set[str]) -> bool:
    """True when ``node`` is built from the chunk's delta (a length of it is not)."""
    if m.matches(node, _OUT_IDS | _DELTA_SLICE):
        return True
    if isinstance(node, cst.Name):
        return node.value in derived
    if m.matches(node, m.Call(func=m.Name("len")) | m.Dict()):  # its length; a dict holding it
        return False
    return any(_is_delta(child, derived) for child in node.children)


def _derived_names(loop: cst.FunctionDef) -> set[str]:
    """Names the loop binds to something built from the delta (``delta = ...[cursor:]``)."""
    bindings: list[tuple[cst.BaseExpression, cst.BaseExpression | None]] = []
    for node in m.findall(loop, m.Assign() | m.AnnAssign()):
        if isinstance(node, cst.Assign):
            bindings += [(t.target, node.value) for t in node.targets]
        elif isinstance(node, cst.AnnAssign):
            bindings.append((node.target, node.value))
    derived: set[str] = set()
    for _ in range(3):  # a name bound from a name bound from the delta
        for target, value in bindings:
            if isinstance(target, cst.Name) and value is not None and _is_delta(value, derived):
                derived.add(target.value)
    return derived


def _bind(fn: cst.FunctionDef, call: cst.Call, *, method: bool) -> dict[str, cst.Arg]:
    """``call``'s arguments by the parameter of ``fn`` they land in (``self`` skipped for a
    method that is not a staticmethod)."""
    positional, kwonly = shape.param_names(fn)
    static = any(m.matches(d.decorator, m.Name("staticmethod")) for d in fn.decorators)
    if method and not static and positional[:1] in (["self"], ["cls"]):
        positional = positional[1:]
    bound: dict[str, cst.Arg] = {}
    index = 0
    for arg in call.args:
        if arg.star:
            continue
        if arg.keyword is None:
            if index < len(positional):
                bound[positional[index]] = arg
            index += 1
        elif arg.keyword.value in (*positional, *kwonly):
            bound[arg.keyword.value] = arg
    return bound


def _forwarded(method: cst.FunctionDef | None, name: str, fn: cst.FunctionDef) -> str | None:
    """The parameter of the helper ``fn`` that ``method`` passes its own ``name`` on as."""
    if method is None:
        return None
    positional, _ = shape.param_names(fn)
    for call in m.findall(method, _HELPER_CALL):
        assert isinstance(call, cst.Call)
        for i, arg in enumerate(call.args):
            if m.matches(arg.value, m.Name(name)):
                if arg.keyword is not None:
                    return arg.keyword.value
                return positional[i] if i < len(positional) and not arg.star else None
    return None


def _carries_ids(fn: cst.FunctionDef, param: str) -> bool:
    """``fn`` takes ``param`` (beyond output and the cursor), uses it, and copies no history
    outside the branches where ``param`` is not given."""
    positional, kwonly = shape.param_names(fn)
    if param not in (*positional[2:], *kwonly):
        return False
    body = fn.body
    if not m.findall(body, m.Name(param)):
        return False
    copies = m.findall(body, m.Call(func=m.Name("list"), args=[m.Arg(), m.ZeroOrMore()]))
    copies = [c for c in copies if m.findall(c, _TOKEN_IDS)]
    fallback = [c for block in _fallback_blocks(body, param) for c in m.findall(block, m.Call())]
    return all(any(c is f for f in fallback) for c in copies)


def _fallback_blocks(body: cst.CSTNode, param: str) -> list[cst.CSTNode]:
    """The blocks that run only when ``param`` is not given (``if param is None:`` or
    ``if not param:``, and the ``else`` of ``if param is not None:`` / ``if param:``)."""
    absent = m.Comparison(
        left=m.Name(param), comparisons=[m.ComparisonTarget(m.Is(), m.Name("None"))]
    )
    absent |= m.UnaryOperation(operator=m.Not(), expression=m.Name(param))
    given = m.Comparison(
        left=m.Name(param), comparisons=[m.ComparisonTarget(m.IsNot(), m.Name("None"))]
    ) | m.Name(param)
    blocks: list[cst.CSTNode] = []
    for node in m.findall(body, m.If() | m.IfExp()):
        if isinstance(node, cst.If):
            if m.matches(node.test, absent):
                blocks.append(node.body)
            elif m.matches(node.test, given) and node.orelse is not None:
                blocks.append(node.orelse)
        elif isinstance(node, cst.IfExp):
            if m.matches(node.test, absent):
                blocks.append(node.body)
            elif m.matches(node.test, given):
                blocks.append(node.orelse)
    return blocks
