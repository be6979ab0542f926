"""Small, pure helpers that locate, compare and grow the code shapes the codemods expect.

Statements are compared by their Python AST (``ast.dump``), so formatting and comments
never decide a match; names, literals and structure do.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence
from importlib import resources
from typing import TypeVar

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, ImportItem

_EMPTY = cst.Module(body=[])
_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
_NO_SPACE = cst.SimpleWhitespace("")
N = TypeVar("N", cst.Param, cst.Arg)


def carried(name: str) -> str:
    """Text of ``codemods/carried/<name>``, a test source the patch adds to dynamo."""
    return resources.files("codemods").joinpath("carried", name).read_text(encoding="utf-8")


def code(node: cst.CSTNode) -> str:
    """Source text of ``node`` (dedented, without leading blank/comment lines)."""
    if isinstance(node, cst.SimpleStatementLine | cst.BaseCompoundStatement):
        node = node.with_changes(leading_lines=())
    return textwrap.dedent(_EMPTY.code_for_node(node)).strip()


def one_line(node: cst.CSTNode, limit: int = 120) -> str:
    """``code(node)`` squeezed onto one line, for error messages."""
    text = " ".join(code(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _dump(source: str) -> str:
    return ast.dump(ast.parse(textwrap.dedent(source).strip()))


def same_code(node: cst.CSTNode, template: str) -> bool:
    """True when ``node`` and ``template`` parse to the same Python AST."""
    try:
        return _dump(code(node)) == _dump(template)
    except SyntaxError:
        return False


def named(body: Sequence[cst.CSTNode], kind: type, name: str) -> cst.CSTNode | None:
    """The first ``kind`` (a def or class) in ``body`` called ``name``."""
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
    *outer, name = qualname.split(".")

    def swap(body: Sequence[cst.CSTNode], names: list[str]) -> list[cst.CSTNode]:
        nodes = list(body)
        for i, node in enumerate(nodes):
            if names and isinstance(node, cst.ClassDef) and node.name.value == names[0]:
                block = node.body
                assert isinstance(block, cst.IndentedBlock)
                inner = swap(block.body, names[1:])
                nodes[i] = node.with_changes(body=block.with_changes(body=inner))
                return nodes
            if not names and isinstance(node, cst.FunctionDef) and node.name.value == name:
                nodes[i] = new_fn
                return nodes
        raise LookupError(qualname)

    return module.with_changes(body=swap(module.body, outer))


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
    between = _COMMA
    if isinstance(last.comma, cst.Comma):
        sample = [*before, *head][-1].comma if before or head else last.comma
        between = sample if isinstance(sample, cst.Comma) else _COMMA
        new = new.with_changes(comma=last.comma)
    else:  # no trailing comma: the whitespace before ")" hangs on the last item
        new = new.with_changes(**{ws: getattr(last, ws)})
    return [*head, last.with_changes(comma=between, **{ws: _NO_SPACE}), new]


def param(source: str) -> cst.Param:
    """The parameter written as ``source`` (``name: annotation = default``)."""
    fn = cst.parse_statement(f"def f(*, {source}):\n    pass\n")
    return fn.params.kwonly_params[0]  # type: ignore[attr-defined,no-any-return]


def add_kwonly_param(fn: cst.FunctionDef, param: cst.Param) -> cst.FunctionDef:
    """Append ``param`` to ``fn``'s keyword-only parameters, adding ``*`` if needed."""
    return add_param(fn, param, kwonly=True)


def add_param(fn: cst.FunctionDef, param: cst.Param, *, kwonly: bool = False) -> cst.FunctionDef:
    """Append ``param`` to ``fn``'s keyword-only parameters (adding ``*`` if needed), or to
    its positional ones (then ``fn`` must take no ``*``, ``*args`` or ``**kwargs``)."""
    p = fn.params
    if not kwonly:
        if p.star_arg is not cst.MaybeSentinel.DEFAULT or p.kwonly_params or p.star_kwarg:
            raise ValueError(f"{fn.name.value} takes *, *args or **kwargs")
        return fn.with_changes(
            params=p.with_changes(params=_append(p.params, param, p.posonly_params))
        )
    if p.kwonly_params:
        return fn.with_changes(
            params=p.with_changes(
                kwonly_params=_append(p.kwonly_params, param, [*p.posonly_params, *p.params])
            )
        )
    group = "params" if p.params else "posonly_params"
    *head, new = _append(getattr(p, group), param)
    star = cst.ParamStar(comma=head[-1].comma)  # the separator between the parameters
    new_params = p.with_changes(**{group: head}, star_arg=star, kwonly_params=[new])
    return fn.with_changes(params=new_params)


def add_keyword_arg(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """Append ``keyword=value`` to ``call``, keeping its trailing-comma style."""
    equal = cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE)
    new_arg = cst.Arg(keyword=cst.Name(keyword), value=value, equal=equal)
    return call.with_changes(args=_append(call.args, new_arg))


def docstring_node(fn: cst.FunctionDef) -> cst.SimpleString | None:
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString())])):
        return body[0].body[0].value  # type: ignore[attr-defined,no-any-return]
    return None


def _from(module: str, names: m.BaseMatcherNode | None = None) -> m.ImportFrom:
    """``from <module> import ...`` (not relative, not ``*``), with ``names`` if given."""
    return m.ImportFrom(
        module=m.MatchIfTrue(lambda node: code(node) == module),
        names=names or m.MatchIfTrue(lambda names: not isinstance(names, cst.ImportStar)),
        relative=[],
    )


def _alias(name: str) -> list[m.BaseMatcherNode]:
    return [m.ZeroOrMore(), m.ImportAlias(name=m.Name(name), asname=None), m.ZeroOrMore()]


def imports(tree: cst.Module, module: str, name: str) -> bool:
    """True when ``tree`` has ``from <module> import <name>`` (not renamed) at module
    level, also inside a module-level ``if`` or ``try``."""
    wanted = _from(module, _alias(name))  # type: ignore[arg-type]
    return any(
        m.findall(stmt, wanted)
        for stmt in tree.body
        if not isinstance(stmt, cst.FunctionDef | cst.ClassDef)
    )


def with_sequence_import(tree: cst.Module) -> cst.Module:
    """``tree`` importing ``Sequence`` where the module takes such names from: where it
    already imports it, else ``collections.abc`` if it imports from there, else ``typing``
    if it imports from there, else ``collections.abc``."""
    if any(imports(tree, mod, "Sequence") for mod in ("collections.abc", "typing")):
        return tree
    for module in ("collections.abc", "typing"):
        for i, line in enumerate(tree.body):
            if m.matches(line, m.SimpleStatementLine([_from(module)])):
                stmt = line.body[0]  # type: ignore[attr-defined]
                *head, last = stmt.names
                if not isinstance(last.comma, cst.Comma):
                    last = last.with_changes(comma=_COMMA)
                sequence = cst.ImportAlias(cst.Name("Sequence"))
                new = line.with_changes(body=[stmt.with_changes(names=[*head, last, sequence])])
                return tree.with_changes(body=[*tree.body[:i], new, *tree.body[i + 1 :]])
    # No such import to join (AddImportsVisitor walks the whole module: slow, so last).
    item = ImportItem("collections.abc", "Sequence")
    return AddImportsVisitor(CodemodContext(), [item]).transform_module_impl(tree)


def test_module_lacks(
    tree: cst.Module, imports_from: tuple[tuple[str, str], ...], marks: tuple[str, ...]
) -> str | None:
    """What a test module lacks of what a carried test uses: ``from <module> import <name>``
    for each of ``imports_from``, ``import pytest``, a module-level ``_logprob(...)``, and
    each of ``marks`` in its ``pytestmark`` (tests are selected by them); None: nothing."""
    for module, name in imports_from:
        if not imports(tree, module, name):
            return f"no `from {module} import {name}`"
    pytest = m.SimpleStatementLine([m.Import(names=_alias("pytest"))])  # type: ignore[arg-type]
    if not any(m.matches(stmt, pytest) for stmt in tree.body):
        return "no `import pytest`"
    if named(tree.body, cst.FunctionDef, "_logprob") is None:
        return "no module-level `_logprob(...)` helper"
    mark = m.Attribute(value=m.Attribute(value=m.Name("pytest"), attr=m.Name("mark")))
    assigns = m.SimpleStatementLine([m.Assign([m.AssignTarget(m.Name("pytestmark"))])])
    line = next((s for s in tree.body if m.matches(s, assigns)), None)
    found = {n.attr.value for n in m.findall(line, mark)} if line else set()  # type: ignore[attr-defined]
    missing = [name for name in marks if name not in found]
    if not missing:
        return None
    return f"`pytestmark` without {', '.join(missing)} (has: {', '.join(sorted(found)) or 'none'})"
