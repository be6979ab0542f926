"""Small, pure helpers for describing and locating the code shapes the codemods expect,
and for reading the test source the patch carries.

Statements are compared by their Python AST (``ast.dump``), so formatting and comments
never decide a match; names, literals and structure do.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable
from importlib import resources

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, ImportItem

_EMPTY = cst.Module(body=[])


def carried(name: str) -> str:
    """Text of the carried test source ``codemods/carried/<name>``.

    These are dynamo-style files the patch adds to dynamo, kept as real files so that
    editors and linters see Python; their names keep pytest and ``libcst.tool list``
    from importing them (see ``codemods/carried/``).
    """
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


def find_function(module: cst.Module, qualname: str) -> cst.FunctionDef | None:
    """The module-level function or ``Class.method`` named ``qualname``, if present."""
    *outer, name = qualname.split(".")
    body: tuple[cst.CSTNode, ...] = tuple(module.body)
    for class_name in outer:
        cls = next(
            (n for n in body if isinstance(n, cst.ClassDef) and n.name.value == class_name),
            None,
        )
        if cls is None or not isinstance(cls.body, cst.IndentedBlock):
            return None
        body = tuple(cls.body.body)
    return next(
        (n for n in body if isinstance(n, cst.FunctionDef) and n.name.value == name),
        None,
    )


def require_method(
    module: cst.Module, qualname: str, drifted: Callable[[str], Exception]
) -> cst.FunctionDef:
    """The method ``qualname`` of ``module``; ``drifted(what was found)`` is raised when it
    is not there."""
    fn = find_function(module, qualname)
    if fn is None:
        raise drifted(f"no method {qualname}")
    return fn


def replace_function(module: cst.Module, qualname: str, new_fn: cst.FunctionDef) -> cst.Module:
    """``module`` with the function ``qualname`` swapped for ``new_fn``.

    Rebuilds only the path from the module to the function (``deep_replace`` would
    walk the whole module, which is slow on large files).
    """
    *outer, name = qualname.split(".")

    def swap(body: tuple[cst.CSTNode, ...], names: list[str]) -> list[cst.CSTNode]:
        nodes = list(body)
        for i, node in enumerate(nodes):
            if names and isinstance(node, cst.ClassDef) and node.name.value == names[0]:
                block = node.body
                assert isinstance(block, cst.IndentedBlock)
                inner = swap(tuple(block.body), names[1:])
                nodes[i] = node.with_changes(body=block.with_changes(body=inner))
                return nodes
            if not names and isinstance(node, cst.FunctionDef) and node.name.value == name:
                nodes[i] = new_fn
                return nodes
        raise LookupError(qualname)

    return module.with_changes(body=swap(tuple(module.body), outer))


def references(node: cst.CSTNode, name: str) -> bool:
    """True when ``node`` mentions ``name`` as a bare name or an attribute."""
    return bool(m.findall(node, m.Name(name) | m.Attribute(attr=m.Name(name))))


def param_names(fn: cst.FunctionDef) -> tuple[list[str], list[str]]:
    """(positional-or-keyword parameter names, keyword-only parameter names)."""
    p = fn.params
    positional = [x.name.value for x in (*p.posonly_params, *p.params)]
    return positional, [x.name.value for x in p.kwonly_params]


def add_kwonly_param(fn: cst.FunctionDef, param: cst.Param) -> cst.FunctionDef:
    """Append ``param`` to ``fn``'s keyword-only parameters, adding ``*`` if needed."""
    return add_param(fn, param, kwonly=True)


def add_param(fn: cst.FunctionDef, param: cst.Param, *, kwonly: bool = False) -> cst.FunctionDef:
    """Append ``param`` to ``fn``'s keyword-only parameters (adding ``*`` if needed), or
    else to its positional-or-keyword ones (``fn`` then takes no ``*``, ``*args`` or
    ``**kwargs``).

    The new parameter takes the last parameter's trailing comma/whitespace, so an
    exploded (one-per-line) signature stays exploded and a one-line one stays short.
    """
    p = fn.params
    everything = [*p.posonly_params, *p.params, *p.kwonly_params]
    last = everything[-1] if everything else None
    comma_between = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if last is not None and isinstance(last.comma, cst.Comma):
        # Reuse the separator style of the signature (newline+indent when exploded).
        sample = everything[-2].comma if len(everything) > 1 else last.comma
        if isinstance(sample, cst.Comma):
            comma_between = sample
        param = param.with_changes(comma=last.comma)
    elif last is not None:
        # No trailing comma: the whitespace before ")" hangs on the last parameter.
        param = param.with_changes(whitespace_after_param=last.whitespace_after_param)

    def with_comma(x: cst.Param) -> cst.Param:
        return x.with_changes(comma=comma_between, whitespace_after_param=cst.SimpleWhitespace(""))

    if not kwonly:
        if p.star_arg is not cst.MaybeSentinel.DEFAULT or p.kwonly_params or p.star_kwarg:
            raise ValueError(f"{fn.name.value} takes *, *args or **kwargs")
        params = [*p.params[:-1], with_comma(p.params[-1]), param] if p.params else [param]
        return fn.with_changes(params=p.with_changes(params=params))
    if p.kwonly_params:
        kwonly_params = [*p.kwonly_params[:-1], with_comma(p.kwonly_params[-1]), param]
        return fn.with_changes(params=p.with_changes(kwonly_params=kwonly_params))

    star = cst.ParamStar(comma=comma_between)
    if p.params:
        params = [*p.params[:-1], with_comma(p.params[-1])]
        new = p.with_changes(params=params, star_arg=star, kwonly_params=[param])
    else:
        posonly = [*p.posonly_params[:-1], with_comma(p.posonly_params[-1])]
        new = p.with_changes(posonly_params=posonly, star_arg=star, kwonly_params=[param])
    return fn.with_changes(params=new)


def add_keyword_arg(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """Append ``keyword=value`` to ``call``, keeping its trailing-comma style."""
    args = list(call.args)
    new_arg = cst.Arg(
        keyword=cst.Name(keyword),
        value=value,
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""),
            whitespace_after=cst.SimpleWhitespace(""),
        ),
    )
    if not args:
        return call.with_changes(args=[new_arg])
    last = args[-1]
    between = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if isinstance(last.comma, cst.Comma):
        sample = args[-2].comma if len(args) > 1 else last.comma
        if isinstance(sample, cst.Comma):
            between = sample
        new_arg = new_arg.with_changes(comma=last.comma)
    else:
        # No trailing comma: the whitespace before ")" hangs on the last argument.
        new_arg = new_arg.with_changes(whitespace_after_arg=last.whitespace_after_arg)
    args[-1] = last.with_changes(comma=between, whitespace_after_arg=cst.SimpleWhitespace(""))
    return call.with_changes(args=[*args, new_arg])


def docstring_node(fn: cst.FunctionDef) -> cst.SimpleString | None:
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString())])):
        return body[0].body[0].value  # type: ignore[attr-defined,no-any-return]
    return None


def imports(tree: cst.Module, module: str, name: str) -> bool:
    """True when ``tree`` has ``from <module> import <name>`` (not renamed) at module
    level, also inside a module-level ``if`` or ``try`` (functions and classes, the bulk
    of a module, are not searched)."""
    wanted = m.ImportFrom(
        module=m.MatchIfTrue(lambda node: code(node) == module),
        names=[m.ZeroOrMore(), m.ImportAlias(name=m.Name(name), asname=None), m.ZeroOrMore()],
    )
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
                comma = last.comma if isinstance(last.comma, cst.Comma) else _COMMA
                names = [
                    *head,
                    last.with_changes(comma=comma),
                    cst.ImportAlias(cst.Name("Sequence")),
                ]
                new = line.with_changes(body=[stmt.with_changes(names=names)])
                return tree.with_changes(body=[*tree.body[:i], new, *tree.body[i + 1 :]])
    # No such import to join (AddImportsVisitor walks the whole module: slow, so last).
    item = ImportItem("collections.abc", "Sequence")
    return AddImportsVisitor(CodemodContext(), [item]).transform_module_impl(tree)


_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _from(module: str) -> m.ImportFrom:
    """``from <module> import a, b`` (not relative, not ``*``)."""
    return m.ImportFrom(
        module=m.MatchIfTrue(lambda node: code(node) == module),
        names=m.MatchIfTrue(lambda names: not isinstance(names, cst.ImportStar)),
        relative=[],
    )


def imports_module(tree: cst.Module, name: str) -> bool:
    """True when ``tree`` has a plain ``import <name>`` at module level."""
    wanted = m.SimpleStatementLine(
        body=[
            m.Import(
                names=[
                    m.ZeroOrMore(),
                    m.ImportAlias(name=m.Name(name), asname=None),
                    m.ZeroOrMore(),
                ]
            )
        ]
    )
    return any(m.matches(stmt, wanted) for stmt in tree.body)


def module_marks(tree: cst.Module) -> set[str]:
    """``pytest.mark.X`` names in a module-level ``pytestmark = [...]``."""
    for stmt in tree.body:
        if m.matches(
            stmt,
            m.SimpleStatementLine(
                body=[m.Assign(targets=[m.AssignTarget(target=m.Name("pytestmark"))])]
            ),
        ):
            marks = m.findall(
                stmt,
                m.Attribute(value=m.Attribute(value=m.Name("pytest"), attr=m.Name("mark"))),
            )
            return {node.attr.value for node in marks if isinstance(node, cst.Attribute)}
    return set()


def unmarked(tree: cst.Module, wanted: tuple[str, ...]) -> str | None:
    """What a drift message says when the module's ``pytestmark`` lacks one of ``wanted``
    (tests are selected by these marks alone); None when it has them all."""
    marks = module_marks(tree)
    missing = [mark for mark in wanted if mark not in marks]
    if not missing:
        return None
    return f"`pytestmark` without {', '.join(missing)} (has: {', '.join(sorted(marks)) or 'none'})"
