"""Pure helpers that find, compare and grow the code shapes the codemods expect.
Statements compare by their Python AST: formatting and comments never decide a match."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence
from importlib import resources
from typing import TypeVar

import libcst as cst
import libcst.matchers as m

_EMPTY = cst.Module(body=[])
_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
_NO_SPACE = cst.SimpleWhitespace("")
N = TypeVar("N", cst.Param, cst.Arg)


def carried(name: str) -> str:
    """Text of ``codemods/carried/<name>``, a test source the patch adds to dynamo."""
    return resources.files("codemods").joinpath("carried", name).read_text(encoding="utf-8")


def code(node: cst.CSTNode) -> str:
    """Source text of ``node``, dedented, without its leading blank or comment lines."""
    if isinstance(node, cst.SimpleStatementLine | cst.BaseCompoundStatement):
        node = node.with_changes(leading_lines=())
    return textwrap.dedent(_EMPTY.code_for_node(node)).strip()


def one_line(node: cst.CSTNode, limit: int = 120) -> str:
    """``code(node)`` squeezed onto one line, for error messages."""
    text = " ".join(code(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def same_code(node: cst.CSTNode, template: str) -> bool:
    """True when ``node`` and ``template`` parse to the same Python AST."""
    try:
        return ast.dump(ast.parse(code(node))) == ast.dump(ast.parse(template.strip()))
    except SyntaxError:
        return False


def named(body: Sequence[cst.CSTNode], kind: type, name: str) -> cst.CSTNode | None:
    return next((n for n in body if isinstance(n, kind) and n.name.value == name), None)


def find_function(module: cst.Module, qualname: str) -> cst.FunctionDef | None:
    """The module-level function or ``Class.method`` named ``qualname``, if present."""
    *outer, name = qualname.split(".")
    body: Sequence[cst.CSTNode] = module.body
    for class_name in outer:
        cls = named(body, cst.ClassDef, class_name)
        if not isinstance(cls, cst.ClassDef) or not isinstance(cls.body, cst.IndentedBlock):
            return None
        body = cls.body.body
    return named(body, cst.FunctionDef, name)  # type: ignore[return-value]


def replace_function(module: cst.Module, qualname: str, new_fn: cst.FunctionDef) -> cst.Module:
    """``module`` with the function ``qualname`` swapped for ``new_fn``, rebuilding only the
    path to it (``deep_replace`` walks the whole module: slow on large files)."""

    def swap(node: cst.Module | cst.ClassDef, names: list[str]) -> cst.Module | cst.ClassDef:
        block = node.body if isinstance(node, cst.ClassDef) else node
        kind = cst.ClassDef if len(names) > 1 else cst.FunctionDef
        old = named(block.body, kind, names[0])  # type: ignore[union-attr]
        if old is None:
            raise LookupError(qualname)
        new = swap(old, names[1:]) if len(names) > 1 else new_fn  # type: ignore[arg-type]
        block = block.with_changes(body=[new if n is old else n for n in block.body])  # type: ignore[union-attr]
        return node.with_changes(body=block) if isinstance(node, cst.ClassDef) else block

    return swap(module, qualname.split("."))  # type: ignore[return-value]


def references(node: cst.CSTNode, name: str) -> bool:
    """True when ``node`` mentions ``name`` as a bare name or an attribute."""
    return bool(m.findall(node, m.Name(name) | m.Attribute(attr=m.Name(name))))


def param_names(fn: cst.FunctionDef) -> tuple[list[str], list[str]]:
    """(positional-or-keyword parameter names, keyword-only parameter names)."""
    p = fn.params
    positional = [x.name.value for x in (*p.posonly_params, *p.params)]
    return positional, [x.name.value for x in p.kwonly_params]


def _append(items: Sequence[N], new: N, before: Sequence[N] = ()) -> list[N]:
    """``items`` then ``new`` in the list's own style (``before``: what comes ahead of
    ``items``), so an exploded (one-per-line) list stays exploded, a short one short."""
    if not items:
        return [new]
    ws = "whitespace_after_param" if isinstance(new, cst.Param) else "whitespace_after_arg"
    *head, last = items
    previous = [*before, *head][-1].comma if before or head else last.comma
    exploded = isinstance(last.comma, cst.Comma) and isinstance(previous, cst.Comma)
    new = new.with_changes(comma=last.comma, **{ws: getattr(last, ws)})
    last = last.with_changes(comma=previous if exploded else _COMMA, **{ws: _NO_SPACE})
    return [*head, last, new]


def param(source: str) -> cst.Param:
    """The parameter written as ``source`` (``name: annotation = default``)."""
    fn = cst.parse_statement(f"def f(*, {source}):\n    pass\n")
    return fn.params.kwonly_params[0]  # type: ignore[attr-defined,no-any-return]


def add_kwonly_param(fn: cst.FunctionDef, param: cst.Param) -> cst.FunctionDef:
    """Append ``param`` to ``fn``'s keyword-only parameters, adding ``*`` if needed."""
    p = fn.params
    if p.kwonly_params:
        kwonly = _append(p.kwonly_params, param, [*p.posonly_params, *p.params])
        return fn.with_changes(params=p.with_changes(kwonly_params=kwonly))
    group = "params" if p.params else "posonly_params"
    *head, new = _append(getattr(p, group), param)
    star = cst.ParamStar(comma=head[-1].comma)  # the separator between the parameters
    return fn.with_changes(
        params=p.with_changes(**{group: head}, star_arg=star, kwonly_params=[new])
    )


def add_keyword_arg(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """Append ``keyword=value`` to ``call``, keeping its trailing-comma style."""
    equal = cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE)
    new_arg = cst.Arg(keyword=cst.Name(keyword), value=value, equal=equal)
    return call.with_changes(args=_append(call.args, new_arg))


def with_sequence_import(tree: cst.Module) -> cst.Module:
    """``tree`` importing ``collections.abc.Sequence`` if unbound (``typing``'s is deprecated)."""
    if "Sequence" in top_level_names(tree.body):
        return tree
    body = list(tree.body)
    name = m.MatchIfTrue(lambda node: code(node) == "collections.abc")
    listed = m.ImportFrom(name, names=m.DoesNotMatch(m.ImportStar()), relative=[])
    for i, line in enumerate(body):
        if m.matches(line, m.SimpleStatementLine([listed])):
            stmt = line.body[0]  # type: ignore[attr-defined]
            *head, last = stmt.names
            names = [*head, last.with_changes(comma=_COMMA), cst.ImportAlias(cst.Name("Sequence"))]
            body[i] = line.with_changes(body=[stmt.with_changes(names=names)])
            return tree.with_changes(body=body)
    statement = m.SimpleStatementLine([m.Import() | m.ImportFrom()])
    at = max((i + 1 for i, s in enumerate(body) if m.matches(s, statement)), default=0)
    body.insert(at, cst.parse_statement("from collections.abc import Sequence\n"))
    return tree.with_changes(body=body)


def top_level_names(body: Sequence[cst.BaseStatement]) -> dict[str, int]:
    """Top-level name (def, class, ``NAME = ...``, import, also under ``if``/``try``) -> index."""
    found = {}
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            found[stmt.name.value] = i
            continue
        if m.matches(stmt, m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name())])])):
            found[stmt.body[0].targets[0].target.value] = i  # type: ignore[attr-defined]
        for imp in m.findall(stmt, m.Import() | m.ImportFrom()):
            for alias in () if isinstance(imp.names, cst.ImportStar) else imp.names:  # type: ignore[attr-defined]
                found[code(alias.asname.name if alias.asname else alias.name).split(".")[0]] = i
    return found


def test_module_lacks(tree: cst.Module, names: Sequence[str], marks: Sequence[str]) -> str | None:
    """What a test module lacks of what a carried test uses: the module-level ``names``,
    and the ``marks`` in its ``pytestmark`` (tests are selected by them); None: nothing."""
    present = top_level_names(tree.body)
    if missing := [f"`{name}`" for name in names if name not in present]:
        return f"no module-level {', '.join(missing)}"
    mark = m.Attribute(value=m.Attribute(value=m.Name("pytest"), attr=m.Name("mark")))
    line = tree.body[present["pytestmark"]] if "pytestmark" in present else None
    found = {n.attr.value for n in m.findall(line, mark)} if line else set()  # type: ignore[attr-defined]
    missing = [name for name in marks if name not in found]
    if not missing:
        return None
    return f"`pytestmark` without {', '.join(missing)} (has: {', '.join(sorted(found)) or 'none'})"
