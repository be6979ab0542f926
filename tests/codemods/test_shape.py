"""The shared helpers: matching by AST, locating and replacing functions, growing a
signature or a call in its own style, and reading the carried tests."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import libcst as cst
import pytest

from codemods import shape

CARRIED = Path(shape.__file__).with_name("carried")


def fn(source: str, qualname: str) -> cst.FunctionDef:
    found = shape.find_function(cst.parse_module(source), qualname)
    assert found is not None
    return found


def test_same_code_ignores_formatting_and_comments() -> None:
    stmt = cst.parse_statement("x = f( a ,b )  # why\n")
    assert shape.same_code(stmt, "x = f(a, b)")
    assert not shape.same_code(stmt, "x = f(b, a)")
    assert not shape.same_code(stmt, "x = (")  # a template that does not parse never matches


def test_one_line_squeezes_and_truncates() -> None:
    node = cst.parse_expression("f(\n    a,\n    b,\n)")
    assert shape.one_line(node) == "f( a, b, )"
    assert shape.one_line(node, limit=6) == "f( ..."


def test_find_function_by_qualname() -> None:
    source = "def f():\n    pass\n\n\nclass C:\n    def m(self):\n        pass\n"
    assert fn(source, "f").name.value == "f"
    assert fn(source, "C.m").name.value == "m"
    module = cst.parse_module(source)
    assert shape.find_function(module, "C.f") is None
    assert shape.find_function(module, "D.m") is None


def test_replace_function_rebuilds_only_its_path() -> None:
    source = "class C:\n    def m(self):\n        return 1\n\n\ndef m():\n    return 2\n"
    module = cst.parse_module(source)
    new = cst.parse_statement("def m(self):\n    return 3\n")
    assert isinstance(new, cst.FunctionDef)
    out = shape.replace_function(module, "C.m", new).code
    assert "return 3" in out and "return 1" not in out and out.endswith("return 2\n")
    with pytest.raises(LookupError):
        shape.replace_function(module, "C.missing", new)


def test_add_kwonly_param_keeps_a_one_line_signature_short() -> None:
    f = fn("def f(a, b):\n    pass\n", "f")
    param = cst.Param(cst.Name("c"), default=cst.Name("None"), equal=cst.AssignEqual())
    assert shape.code(shape.add_kwonly_param(f, param)) == "def f(a, b, *, c = None):\n    pass"


def test_add_kwonly_param_keeps_an_exploded_signature_exploded() -> None:
    f = fn("def f(\n    a,\n    *,\n    b=1,\n):\n    pass\n", "f")
    out = shape.code(shape.add_kwonly_param(f, cst.Param(cst.Name("c"))))
    assert out == "def f(\n    a,\n    *,\n    b=1,\n    c,\n):\n    pass"


def test_add_param_appends_a_positional_parameter() -> None:
    f = fn("def f(\n    self, a, b=1\n):\n    pass\n", "f")
    param = cst.Param(cst.Name("c"), default=cst.Name("None"), equal=cst.AssignEqual())
    assert (
        shape.code(shape.add_param(f, param)) == "def f(\n    self, a, b=1, c = None\n):\n    pass"
    )
    with pytest.raises(ValueError, match="takes \\*, \\*args or \\*\\*kwargs"):
        shape.add_param(fn("def f(a, *, b):\n    pass\n", "f"), param)


@pytest.mark.parametrize(
    ("imports", "after"),
    [
        ("from typing import Any, Optional\n", "from typing import Any, Optional, Sequence\n"),
        (
            "from collections.abc import Callable\nfrom typing import Any\n",
            "from collections.abc import Callable, Sequence\nfrom typing import Any\n",
        ),
        ("from typing import Sequence\n", "from typing import Sequence\n"),
        ("import os\n", "import os\nfrom collections.abc import Sequence\n"),
    ],
    ids=["joins-typing", "prefers-collections-abc", "already-there", "a-new-import"],
)
def test_with_sequence_import_follows_the_module(imports: str, after: str) -> None:
    tree = cst.parse_module(f"{imports}\n\nx = 1\n")
    assert shape.with_sequence_import(tree).code == f"{after}\n\nx = 1\n"


def test_imports_looks_at_module_level_only() -> None:
    source = "if True:\n    from typing import Any\n\n\ndef f():\n    from typing import Optional\n"
    tree = cst.parse_module(source)
    assert shape.imports(tree, "typing", "Any")
    assert not shape.imports(tree, "typing", "Optional")


def test_add_keyword_arg_keeps_the_call_style() -> None:
    short = cst.parse_expression("g(a, b)")
    assert isinstance(short, cst.Call)
    assert shape.code(shape.add_keyword_arg(short, "k", cst.Name("v"))) == "g(a, b, k=v)"
    exploded = cst.parse_expression("g(\n    a,\n    b,\n)")
    assert isinstance(exploded, cst.Call)
    out = shape.code(shape.add_keyword_arg(exploded, "k", cst.Name("v")))
    assert out == "g(\n    a,\n    b,\n    k=v,\n)"


def test_references_and_param_names() -> None:
    f = fn("def f(a, /, b, *, c):\n    return mod.helper(a)\n", "f")
    assert shape.references(f, "helper") and shape.references(f, "mod")
    assert not shape.references(f, "other")
    assert shape.param_names(f) == (["a", "b"], ["c"])


def test_docstring_node() -> None:
    assert shape.docstring_node(fn('def f():\n    """Doc."""\n', "f")) is not None
    assert shape.docstring_node(fn("def f():\n    x = 1\n", "f")) is None


# --- the carried tests ----------------------------------------------------------------


def test_carried_reads_the_template_files() -> None:
    names = sorted(p.name for p in CARRIED.glob("*.py"))
    assert names == [
        "handler_response_loop_tests.template.py",
        "helper_delta_tests.template.py",
    ]
    for name in names:
        text = shape.carried(name)
        assert text == (CARRIED / name).read_text(encoding="utf-8")
        cst.parse_module(text)


@pytest.mark.parametrize("pattern", ["test_*.py", "*_test.py"])
def test_carried_tests_are_never_collected_here(pattern: str) -> None:
    """pytest's default file patterns do not match them, and the dot in their stem keeps
    ``libcst.tool list`` (which imports every .py under ``codemods``) from importing them:
    the GPU module calls ``pytest.skip`` at import time where torch has no CUDA."""
    for path in CARRIED.glob("*.py"):
        assert not fnmatch.fnmatch(path.name, pattern)
        assert "." in path.name.removesuffix(".py")
