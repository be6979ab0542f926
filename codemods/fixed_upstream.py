"""A drifted release's own fix by syntax (dynamo PR #14402's kind): a helper parameter the
TRT-LLM loop hands its delta, directly or through ``HandlerBase._extract_logprobs``. Only a
run of its code tells whether it *is* a fix (:mod:`dynpatch.services.upstream_fix`)."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.handler_call_passes_delta import LOOP, SELF_CALL
from codemods.handler_extract_forwards_delta import HELPER, HELPER_CALL, METHOD

_KEY = m.SimpleString('"token_ids"') | m.SimpleString("'token_ids'")
_OUT_IDS = m.Subscript(value=m.Name("out"), slice=[m.SubscriptElement(m.Index(_KEY))])
_DELTA_SLICE = m.Subscript(
    value=m.Attribute(attr=m.Name("token_ids")),
    slice=[m.SubscriptElement(slice=m.Slice(lower=m.DoNotCare(), upper=None, step=None))],
)


@dataclass(frozen=True)
class Candidate:
    param: str  # the helper's parameter the loop's delta lands in
    argument: str  # what the loop passes, as written (``name=value`` or ``value``)
    via: str  # the callee the loop passes it to

    @property
    def reason(self) -> str:
        to = f"to {self.via}" if self.via == HELPER else f"to {self.via}, which forwards it"
        return f"{HELPER} takes `{self.param}`; {LOOP} passes `{self.argument}` {to}"


def detect(helper: cst.Module | None, handler: cst.Module | None) -> Candidate | None:
    if helper is None or handler is None:
        return None
    fn, loop = shape.find_function(helper, HELPER), shape.find_function(handler, LOOP)
    if fn is None or loop is None:
        return None
    method = shape.find_function(handler, METHOD)
    positional, kwonly = shape.param_names(fn)
    takes = (*positional[2:], *kwonly)  # beyond output and the cursor
    derived: set[str] = set()  # names the loop binds to something built from the delta
    for node in m.findall(loop, m.Assign() | m.AnnAssign()):
        assert isinstance(node, cst.Assign | cst.AnnAssign)
        bound = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        if node.value is not None and _is_delta(node.value, derived):
            derived |= {t.value for t in bound if isinstance(t, cst.Name)}
    for call in m.findall(loop, SELF_CALL | HELPER_CALL):
        direct = m.matches(call, HELPER_CALL)
        callee = fn if direct else method
        for name, arg in _bind(callee, call).items() if callee else ():  # type: ignore[arg-type]
            param = name if direct else _forwarded(method, name, fn)  # type: ignore[arg-type]
            if param in takes and _is_delta(arg.value, derived):
                via = HELPER if direct else f"self.{METHOD.split('.')[1]}"
                written = shape.one_line(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                return Candidate(param, written, via)  # type: ignore[arg-type]
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


def _bind(fn: cst.FunctionDef, call: cst.Call) -> dict[str, cst.Arg]:
    """``call``'s arguments by the parameter of ``fn`` they land in (never ``self``/``cls``)."""
    positional, kwonly = shape.param_names(fn)
    static = any(m.matches(d.decorator, m.Name("staticmethod")) for d in fn.decorators)
    if not static and positional[:1] in (["self"], ["cls"]):
        positional = positional[1:]
    plain = (a for a in call.args if a.keyword is None and not a.star)
    bound = dict(zip(positional, plain, strict=False))
    names = (*positional, *kwonly)
    return bound | {a.keyword.value: a for a in call.args if a.keyword and a.keyword.value in names}


def _forwarded(method: cst.FunctionDef, name: str, fn: cst.FunctionDef) -> str | None:
    """The parameter of the helper ``fn`` that ``method`` passes its own ``name`` on as."""
    for call in m.findall(method, HELPER_CALL):
        for param, arg in _bind(fn, call).items():  # type: ignore[arg-type]
            if m.matches(arg.value, m.Name(name)):
                return param
    return None
