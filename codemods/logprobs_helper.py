"""Let ``extract_from_completion_output`` take the caller's delta token ids.

Every call copied the cumulative ``output.token_ids`` with ``list(...)`` to slice it,
though the TRT-LLM caller has that slice. A keyword-only ``new_token_ids`` now carries it
in and spares the copy; without it (vLLM's caller) the path is the old one.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

PARAM = "new_token_ids"
CURSOR = "num_output_tokens_so_far"
LOCAL = "chunk_token_ids"  # the chunk's ids on both paths (the parameter is never rebound)

TARGET = Target(
    path="components/src/dynamo/common/backend/logprobs.py",
    qualname="extract_from_completion_output",
    expected=(
        f"a function (output, {CURSOR}, tokenizer=None, *, ...) whose body copies "
        "`token_ids = list(getattr(output, 'token_ids', None) or [])`, bails out when "
        f"`not token_ids or {CURSOR} >= len(token_ids)`, then slices "
        f"`output.logprobs[{CURSOR}:]` and `token_ids[{CURSOR}:]`"
    ),
)

# The statement run the codemod replaces, in order (compared by AST).
BEFORE = (
    'token_ids = list(getattr(output, "token_ids", None) or [])',
    f"if not token_ids or {CURSOR} >= len(token_ids):\n    return None, None",
    f"new_logprobs = output.logprobs[{CURSOR}:]",
    f"new_token_ids = token_ids[{CURSOR}:]",
    "new_logprobs = new_logprobs[: len(new_token_ids)]",
)

# What it becomes: the old path survives verbatim under `is None`.
AFTER_GUARD = f"""\
if {PARAM} is None:
    token_ids = list(getattr(output, "token_ids", None) or [])
    if not token_ids or {CURSOR} >= len(token_ids):
        return None, None
    {LOCAL} = token_ids[{CURSOR}:]
elif not {PARAM}:
    return None, None
else:
    {LOCAL} = {PARAM}
"""
AFTER_WINDOW = (
    f"new_logprobs = output.logprobs[{CURSOR}:]",
    f"new_logprobs = new_logprobs[: len({LOCAL})]",
)

# The contract, in the docstring's own style (a paragraph before ``Returns``).
DOC_PARAGRAPH = (
    f"``{PARAM}``, if given, must equal",
    f"``output.token_ids[{CURSOR}:]``; it is not validated.",
    "It spares copying the cumulative ``token_ids``, while",
    f"``{CURSOR}`` still indexes ``output.logprobs``.",
)


class LogprobsHelperDelta(TargetedCommand):
    DESCRIPTION: str = (
        "extract_from_completion_output: accept the caller's delta token ids "
        "(keyword-only) and skip the cumulative history copy when given."
    )
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        fn = shape.find_function(tree, TARGET.qualname)
        if fn is None:
            raise NotApplicable(
                f"{TARGET.path} has no {TARGET.qualname}: no shared logprob helper, "
                "so no history copy to remove (releases <= 1.2.1)"
            )
        positional, kwonly = shape.param_names(fn)
        if positional[:2] != ["output", CURSOR]:
            raise Drifted(TARGET, f"parameters ({', '.join(positional)})")
        body = list(fn.body.body)

        if PARAM in kwonly:
            if _find_run(body, (AFTER_GUARD, *AFTER_WINDOW)) is not None:
                raise AlreadyApplied(f"{TARGET.qualname} already takes {PARAM}")
            raise Drifted(TARGET, f"`{PARAM}` in the signature but not the expected body")

        start = _find_run(body, BEFORE)
        if start is None:
            raise Drifted(TARGET, _describe_mismatch(body))
        if shape.references(fn, LOCAL):
            raise Drifted(TARGET, f"a body that already uses `{LOCAL}`")

        first, window = body[start], body[start + 2]
        guard = cst.parse_statement(AFTER_GUARD).with_changes(leading_lines=first.leading_lines)
        slice_, trim = (cst.parse_statement(s) for s in AFTER_WINDOW)
        slice_ = slice_.with_changes(leading_lines=window.leading_lines)
        # Below the run, the old local `new_token_ids` is the chunk's ids: renamed.
        rest = [m.replace(s, m.Name(PARAM), cst.Name(LOCAL)) for s in body[start + len(BEFORE) :]]
        body[start:] = [guard, slice_, trim, *rest]

        new_fn = fn.with_changes(body=fn.body.with_changes(body=body))
        new_fn = shape.add_kwonly_param(new_fn, _param(tree))
        new_fn = _document(new_fn)
        return shape.with_sequence_import(shape.replace_function(tree, TARGET.qualname, new_fn))


def _run_length(body: list[cst.BaseStatement], i: int, templates: tuple[str, ...]) -> int:
    """How many of ``templates`` match ``body``'s statements from ``i`` on, in order."""
    k = 0
    while i + k < len(body) and k < len(templates) and shape.same_code(body[i + k], templates[k]):
        k += 1
    return k


def _find_run(body: list[cst.BaseStatement], templates: tuple[str, ...]) -> int | None:
    """Index where all ``templates`` match consecutive statements of ``body``."""
    full = (i for i in range(len(body)) if _run_length(body, i, templates) == len(templates))
    return next(full, None)


def _describe_mismatch(body: list[cst.BaseStatement]) -> str:
    """Where the longest start of the expected run breaks off, for a precise drift report."""
    best = max(range(len(body)), key=lambda i: _run_length(body, i, BEFORE), default=0)
    k = _run_length(body, best, BEFORE) if body else 0
    if k == 0:
        return "no statement `" + BEFORE[0] + "` in the body"
    at = best + k
    got = shape.one_line(body[at]) if at < len(body) else "end of function"
    expected = " ".join(BEFORE[k].split())
    return f"`{expected}` expected after `{' '.join(BEFORE[k - 1].split())}`, found `{got}`"


def _param(tree: cst.Module) -> cst.Param:
    # Only len(), indexing and truthiness are used: a Sequence, in the module's style.
    optional = shape.imports(tree, "typing", "Optional")
    annotation = "Optional[Sequence[int]]" if optional else "Sequence[int] | None"
    return shape.param(f"{PARAM}: {annotation} = None")


def _document(fn: cst.FunctionDef) -> cst.FunctionDef:
    """Add a paragraph on the new parameter, before a ``Returns`` paragraph if any."""
    doc = shape.docstring_node(fn)
    if doc is None or '"""' not in doc.value or "\n" not in doc.value:
        return fn
    quote = doc.value[-3:]
    text = doc.value[:-3]
    indent = text[text.rindex("\n") + 1 :]
    if indent.strip():  # closing quotes share a line with text: no safe place to add
        return fn
    paragraph = "\n".join(indent + line for line in DOC_PARAGRAPH)
    marker = f"\n\n{indent}Returns"
    if marker in text:
        at = text.index(marker) + 2
        text = text[:at] + paragraph + "\n\n" + text[at:]
    else:
        text = text.rstrip() + "\n\n" + paragraph + "\n" + indent
    return fn.deep_replace(doc, doc.with_changes(value=text + quote))  # type: ignore[return-value]
