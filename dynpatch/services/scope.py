"""Scope checks, pure: every line a change touches must lie inside a target of the series
(a function it rewrites, the definitions it adds, the imports of the names it uses)."""

from __future__ import annotations

import ast
import difflib
from collections.abc import Mapping, Sequence

from dynpatch.errors import ToolkitError

Spans = list[tuple[int, int]]  # (first line, last line), 1-based


def added_lines(old: str, new: str) -> set[int]:
    """1-based line numbers of ``new`` that the diff old -> new adds or changes."""
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    ops = matcher.get_opcodes()  # a deletion's range of new lines is empty
    return {n + 1 for tag, _, _, j1, j2 in ops if tag != "equal" for n in range(j1, j2)}


def function_span(source: str, qualname: str) -> tuple[int, int] | None:
    """First (decorators included) and last line of ``qualname`` in ``source``."""
    parts = qualname.split(".")
    body: list[ast.stmt] = ast.parse(source).body
    kinds = [ast.ClassDef] * (len(parts) - 1) + [ast.FunctionDef | ast.AsyncFunctionDef]
    for part, kind in zip(parts, kinds, strict=True):  # the classes, then the function
        node = next((n for n in body if isinstance(n, kind) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno or node.lineno


def lines_changed_in(
    old: str,
    new: str,
    qualnames: list[str],
    *,
    added: Mapping[str, Sequence[str]] | None = None,
    imports: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, tuple[int, int]]:
    """Per target, (lines added, lines removed); raises when a changed line lies outside every
    target: a function of ``qualnames``, or a label in ``added`` naming definitions it adds or
    rewrites, with its ``imports`` (``from M import`` of them, and of ``M`` in ``old``)."""
    plus, minus = added_lines(old, new), added_lines(new, old)  # lines of new, of old
    counts: dict[str, tuple[int, int]] = {}

    def take(label: str, new_spans: Spans, old_spans: Spans) -> None:
        inside = {n for n in plus if any(a <= n <= b for a, b in new_spans)}
        gone = {n for n in minus if any(a <= n <= b for a, b in old_spans)}
        before = counts.get(label, (0, 0))
        counts[label] = (before[0] + len(inside), before[1] + len(gone))
        plus.difference_update(inside)
        minus.difference_update(gone)

    for qualname in qualnames:
        spans = function_span(new, qualname), function_span(old, qualname)
        take(qualname, *([s] if s else [] for s in spans))
    old_body = ast.parse(old).body
    for label, names in (added or {}).items():
        in_old = [n for n in names if _definition(old_body, n)]
        take(label, definition_spans(new, names), definition_spans(old, in_old))
    for label, names in (imports or {}).items():
        new_spans, modules = _from_imports(new, names=set(names))
        take(label, new_spans, _from_imports(old, modules=modules)[0])
    if plus or minus:
        where, side = (min(plus), "new") if plus else (min(minus), "old")
        targets = ", ".join([*qualnames, *(added or {})])
        raise ToolkitError(
            f"{len(plus) + len(minus)} changed line(s) outside {targets} "
            f"(first at {side} line {where}): refusing unrelated churn"
        )
    return counts


def _from_imports(
    source: str, *, names: set[str] | None = None, modules: set[str] | None = None
) -> tuple[Spans, set[str]]:
    """Spans and modules of the top-level ``from M import`` of one of ``names`` or ``modules``."""
    spans, found = [], set()
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ImportFrom) or node.level:
            continue
        module = node.module or ""
        if (names and names & {a.name for a in node.names}) or module in (modules or ()):
            spans.append((node.lineno, node.end_lineno or node.lineno))
            found.add(module)
    return spans, found


def _defines(node: ast.stmt) -> str | None:
    """The name a def, a class or a one-name assignment (``X = ...``) defines."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    return None


def _definition(body: list[ast.stmt], name: str) -> tuple[list[ast.stmt], int] | None:
    """(its body, its index) for a top-level definition ``name``, else a class's one method."""
    for i, node in enumerate(body):
        if _defines(node) == name:
            return body, i
    found = [
        (node.body, i)
        for node in body
        if isinstance(node, ast.ClassDef)
        for i, inner in enumerate(node.body)
        if _defines(inner) == name
    ]
    if len(found) > 1:
        raise ToolkitError(f"{name} is defined in {len(found)} classes of the result")
    return found[0] if found else None


def definition_spans(source: str, names: Sequence[str]) -> Spans:
    """Line spans of the definitions ``names`` (top-level, or methods of a top-level class):
    from right after the previous statement (blank and comment lines before it included)
    over the blank lines after it; raises for a name not defined."""
    lines = source.splitlines()
    tree = ast.parse(source).body
    spans = []
    for name in names:
        where = _definition(tree, name)
        if where is None:
            raise ToolkitError(f"the change should add {name}, but it is not in the result")
        body, index = where
        node = body[index]
        if index:
            start = (body[index - 1].end_lineno or 0) + 1
        elif body is tree:
            start = 1
        else:  # the first statement of a class: its own first line
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        while end < len(lines) and not lines[end].strip():  # lines[end] is line end+1
            end += 1
        spans.append((start, end))
    return spans
