"""Let ``HandlerBase._extract_logprobs``, the TRT-LLM wrapper of the shared helper, take
an optional keyword-only ``new_token_ids`` and forward it (its callers keep working)."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.logprobs_helper import PARAM
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

PATH = "components/src/dynamo/trtllm/request_handlers/handler_base.py"
HELPER = "extract_from_completion_output"
METHOD = "HandlerBase._extract_logprobs"
CURSOR = "num_output_tokens_so_far"

TARGET = Target(
    path=PATH,
    qualname=METHOD,
    expected=f"a method (output, {CURSOR}) whose body is `return <module>.{HELPER}(output, {CURSOR}, ...)`",
)

HELPER_CALL = m.Call(func=m.Name(HELPER) | m.Attribute(attr=m.Name(HELPER)))


def wrapper(tree: cst.Module) -> cst.FunctionDef | None:
    """``METHOD`` in ``tree``, if any; NotApplicable when it computes logprobs itself (<= 1.2.1)."""
    fn = shape.find_function(tree, METHOD)
    if fn is not None and not shape.references(fn, HELPER):
        raise NotApplicable(
            f"{PATH} never calls the shared {HELPER}: {METHOD} indexes token by token, "
            "so there is no history copy to remove (releases <= 1.2.1)"
        )
    return fn


class HandlerExtractForwardsDelta(TargetedCommand):
    DESCRIPTION = f"{METHOD}: accept an optional keyword-only {PARAM} and forward it to {HELPER}."
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        fn = wrapper(tree)
        if fn is None:
            raise Drifted(TARGET, f"no method {METHOD}")
        positional, kwonly = shape.param_names(fn)
        if positional != ["output", CURSOR]:
            raise Drifted(TARGET, f"parameters ({', '.join(positional)})")
        calls, returns = m.findall(fn, HELPER_CALL), m.findall(fn, m.Return())
        if len(calls) != 1 or len(returns) != 1 or returns[0].value is not calls[0]:
            raise Drifted(TARGET, f"a body that is not one `return ...{HELPER}(...)`")
        call = calls[0]
        assert isinstance(call, cst.Call)
        if [shape.code(a.value) for a in call.args[:2]] != ["output", CURSOR]:
            raise Drifted(TARGET, f"`{shape.one_line(call)}`")

        forwarded = m.Arg(m.Name(PARAM, lpar=[]), keyword=m.Name(PARAM))
        forwards = any(m.matches(a, forwarded) for a in call.args)
        if PARAM in kwonly and forwards:
            raise AlreadyApplied(f"{METHOD} already forwards {PARAM}")
        if PARAM in kwonly or forwards:
            raise Drifted(TARGET, f"a half-made change: `{shape.one_line(fn)}`")
        new_fn = fn.deep_replace(call, shape.add_keyword_arg(call, PARAM, cst.Name(PARAM)))
        param = shape.param(f"{PARAM}: Sequence[int] | None = None")
        new_fn = shape.add_kwonly_param(new_fn, param)  # type: ignore[arg-type]
        return shape.with_sequence_import(shape.replace_function(tree, METHOD, new_fn))
