"""Let ``extract_from_completion_output`` take the caller's delta as a keyword-only
``new_token_ids`` and then skip copying the history; without it the old path runs, and a
non-empty one whose length is not the chunk's raises ``ValueError``."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

PARAM = "new_token_ids"
CURSOR = "num_output_tokens_so_far"
LOCAL = "chunk_token_ids"  # the chunk's ids on both paths
NO_HELPER = "no shared logprob helper module (releases <= 1.2.1), so no history copy to remove"

# The statement run the codemod replaces, in order (compared by AST).
BEFORE = (
    'token_ids = list(getattr(output, "token_ids", None) or [])',
    f"if not token_ids or {CURSOR} >= len(token_ids):\n    return None, None",
    f"new_logprobs = output.logprobs[{CURSOR}:]",
    f"new_token_ids = token_ids[{CURSOR}:]",
    "new_logprobs = new_logprobs[: len(new_token_ids)]",
)

TARGET = Target(
    path="components/src/dynamo/common/backend/logprobs.py",
    qualname="extract_from_completion_output",
    expected=f"a function (output, {CURSOR}, ...) whose body runs "
    + ", ".join(f"`{' '.join(statement.split())}`" for statement in BEFORE),
)

# What it becomes: without a delta, the old path verbatim; an empty one, nothing new (the
# chunk has no ids; TRT-LLM trims stop words from the cumulative ids, so the cursor may pass
# their end); else an O(1) check that it is the chunk's, by its length (a caller's bug
# fails loudly, never a silent misalignment or a silent return to the copy), then its ids.
AFTER_GUARD = (
    f"""\
if {PARAM} is None:
    token_ids = list(getattr(output, "token_ids", None) or [])
    if not token_ids or {CURSOR} >= len(token_ids):
        return None, None
    {LOCAL} = token_ids[{CURSOR}:]
elif not {PARAM}:
    return None, None
elif len({PARAM}) + {CURSOR} != len(getattr(output, "token_ids", None) or ()):
    raise ValueError("{PARAM} must be output.token_ids[{CURSOR}:]")
else:
    {LOCAL} = {PARAM}
""",
)
# The logprob window cut once, not twice: one list fewer per chunk, for every caller.
AFTER_WINDOW = (f"new_logprobs = output.logprobs[{CURSOR} : {CURSOR} + len({LOCAL})]",)

# The contract, in the docstring's own style (a paragraph before ``Returns``).
DOC_PARAGRAPH = (
    f"``{PARAM}``, if given, must be the caller's",
    f"``output.token_ids[{CURSOR}:]``: the chunk's ids are read from it",
    "instead of a copy of the cumulative ``token_ids``. A non-empty one of",
    "another length raises ``ValueError``; an empty one means nothing new.",
    f"``{CURSOR}`` still indexes ``output.logprobs``; given",
    f"``{PARAM}``, ``output.token_ids`` must support ``len()`` (TRT-LLM's",
    "and vLLM's are lists) and is not copied.",
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
            raise NotApplicable(f"{TARGET.path}: no {TARGET.qualname}, {NO_HELPER}")
        positional, kwonly = shape.param_names(fn)
        if positional[:2] != ["output", CURSOR]:
            raise Drifted(TARGET, f"parameters ({', '.join(positional)})")
        body = list(fn.body.body)
        if PARAM in kwonly:
            if isinstance(_find_run(body, (*AFTER_GUARD, *AFTER_WINDOW)), int):
                raise AlreadyApplied(f"{TARGET.qualname} already takes {PARAM}")
            raise Drifted(TARGET, f"`{PARAM}` in the signature but not the expected body")
        start = _find_run(body, BEFORE)
        if isinstance(start, str):
            raise Drifted(TARGET, start)
        if shape.references(fn, LOCAL):
            raise Drifted(TARGET, f"a body that already uses `{LOCAL}`")

        guard = [cst.parse_statement(s) for s in AFTER_GUARD]
        guard[0] = guard[0].with_changes(leading_lines=body[start].leading_lines)
        (cut,) = (cst.parse_statement(s) for s in AFTER_WINDOW)  # the window, once
        cut = cut.with_changes(leading_lines=body[start + 2].leading_lines)
        # Below the run, the old local `new_token_ids` is the chunk's ids: renamed.
        rest = [m.replace(s, m.Name(PARAM), cst.Name(LOCAL)) for s in body[start + len(BEFORE) :]]
        body[start:] = [*guard, cut, *rest]

        new_fn = fn.with_changes(body=fn.body.with_changes(body=body))
        # Only len(), indexing and truthiness are used: a Sequence, in the module's style.
        optional = "Optional" in shape.top_level_names(tree.body)
        kind = "Optional[Sequence[int]]" if optional else "Sequence[int] | None"
        new_fn = documented(shape.add_kwonly_param(new_fn, shape.param(f"{PARAM}: {kind} = None")))
        return shape.with_sequence_import(shape.replace_function(tree, TARGET.qualname, new_fn))


def _find_run(body: list[cst.BaseStatement], templates: tuple[str, ...]) -> int | str:
    """Where ``templates`` match consecutive statements of ``body``; else what breaks the
    run that starts where the first template matches, for a precise drift report."""
    starts = [i for i, stmt in enumerate(body) if shape.same_code(stmt, templates[0])]
    for i in starts:
        pairs = list(zip(body[i:], templates, strict=False))
        k = next((k for k, (s, t) in enumerate(pairs) if not shape.same_code(s, t)), len(pairs))
        if k == len(templates):
            return i
    if not starts:
        return f"no statement `{templates[0]}` in the body"
    got = shape.one_line(body[i + k]) if i + k < len(body) else "end of function"
    expected, after = (" ".join(templates[n].split()) for n in (k, k - 1))
    return f"`{expected}` expected after `{after}`, found `{got}`"


def documented(fn: cst.FunctionDef, lines: tuple[str, ...] = DOC_PARAGRAPH) -> cst.FunctionDef:
    """``fn`` with the paragraph ``lines`` in its multi-line docstring, before any ``Returns``."""
    first = fn.body.body[0]
    if not m.matches(first, m.SimpleStatementLine([m.Expr(m.SimpleString())])):
        return fn
    doc = first.body[0].value  # type: ignore[union-attr]
    text, quote = doc.value[:-3], doc.value[-3:]
    indent = text[text.rfind("\n") + 1 :]
    if quote != '"""' or "\n" not in text or indent.strip():  # no line of its own to add to
        return fn
    paragraph = "\n".join(indent + line for line in lines)
    marker = f"\n\n{indent}Returns"
    if marker in text:
        at = text.index(marker) + 2
        text = text[:at] + paragraph + "\n\n" + text[at:]
    else:
        text = text.rstrip() + "\n\n" + paragraph + "\n" + indent
    return fn.deep_replace(doc, doc.with_changes(value=text + quote))  # type: ignore[return-value]
