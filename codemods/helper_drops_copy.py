"""The one-line design: the helper slices ``output.token_ids`` without ``list(...)`` first."""

from __future__ import annotations

import libcst as cst

from codemods import shape
from codemods.logprobs_helper import NO_HELPER, documented
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

PATH = "components/src/dynamo/common/backend/logprobs.py"
QUALNAME = "extract_from_completion_output"
COPY = 'token_ids = list(getattr(output, "token_ids", None) or [])'
NO_COPY = 'token_ids = getattr(output, "token_ids", None) or []'

TARGET = Target(path=PATH, qualname=QUALNAME, expected=f"a function whose body runs `{COPY}` once")
# dynamo's comment on the early return names the copy; without it, it would mislead.
STALE = (
    "# and run on to the `token_ids` copy below, which grows with the request and",
    "# is discarded a few lines later.",
)
REWORDED = (
    "# and run on to the `token_ids` slicing below, whose result is discarded a few",
    "# lines later.",
)
# What the helper now asks of the ids, a paragraph of its docstring.
CONTRACT = (
    "``output.token_ids`` must support ``len()`` and slicing (TRT-LLM's",
    "and vLLM's are lists); it is sliced, not copied.",
)


class HelperDropsCopy(TargetedCommand):
    DESCRIPTION = f"{QUALNAME}: slice the cumulative token_ids without copying them first."
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        fn = shape.find_function(tree, QUALNAME)
        if fn is None:
            raise NotApplicable(f"{PATH}: no {QUALNAME}, {NO_HELPER}")
        body = list(fn.body.body)
        copies = [i for i, s in enumerate(body) if shape.same_code(s, COPY)]
        if not copies and any(shape.same_code(s, NO_COPY) for s in body):
            raise AlreadyApplied(f"{QUALNAME} already slices token_ids without copying them")
        if len(copies) != 1:
            raise Drifted(TARGET, f"{len(copies)} such statements")
        at = copies[0]
        body[at] = cst.parse_statement(NO_COPY).with_changes(leading_lines=body[at].leading_lines)
        body = [_reworded(s) for s in body]
        new_fn = documented(fn.with_changes(body=fn.body.with_changes(body=body)), CONTRACT)
        return shape.replace_function(tree, QUALNAME, new_fn)


def _reworded(stmt: cst.BaseStatement) -> cst.BaseStatement:
    """``stmt`` with the comment lines ``STALE`` above it as ``REWORDED`` (if it has them)."""
    lines = list(getattr(stmt, "leading_lines", ()))
    said = [line.comment.value if line.comment else None for line in lines]
    for i in range(len(lines) - 1):
        if tuple(said[i : i + 2]) == STALE:
            for j, text in enumerate(REWORDED):
                lines[i + j] = lines[i + j].with_changes(comment=cst.Comment(text))
            return stmt.with_changes(leading_lines=lines)
    return stmt
