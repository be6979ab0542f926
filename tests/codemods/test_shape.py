"""The shared helpers, where the twins do not reach: AST matching, a function found and
swapped by its qualified name, a signature or an import grown in the module's own style,
and the carried tests."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import libcst as cst
import pytest

from codemods import shape

CARRIED = Path(shape.__file__).with_name("carried")


def fn(source: str) -> cst.FunctionDef:
    found = cst.parse_statement(source)
    assert isinstance(found, cst.FunctionDef)
    return found


def test_same_code_and_one_line() -> None:
    stmt = cst.parse_statement("x = f( a ,b )  # why\n")
    assert shape.same_code(stmt, "x = f(a, b)") and not shape.same_code(stmt, "x = f(b, a)")
    assert not shape.same_code(stmt, "x = (")  # a template that does not parse never matches
    node = cst.parse_expression("f(\n    a,\n    b,\n)")
    assert shape.one_line(node) == "f( a, b, )" and shape.one_line(node, limit=6) == "f( ..."


def test_a_method_is_found_and_swapped_by_its_class() -> None:
    tree = cst.parse_module(
        "def m():\n    a\nclass A:\n    def m(self):\n        b\nclass B:\n    def m(self):\n        c\n"
    )
    method = shape.find_function(tree, "B.m")
    assert method is not None and shape.code(method) == "def m(self):\n    c"
    assert shape.find_function(tree, "C.m") is None and shape.find_function(tree, "A.x") is None
    new = shape.replace_function(tree, "B.m", fn("def m(self):\n    d\n"))
    assert new.code == tree.code.replace("        c\n", "        d\n")
    with pytest.raises(LookupError):
        shape.replace_function(tree, "B.x", method)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("def f(a, b):", "def f(a, b, *, c = None):"),
        (
            "def f(\n    a,\n    *,\n    b=1,\n):",
            "def f(\n    a,\n    *,\n    b=1,\n    c = None,\n):",
        ),
    ],
)
def test_a_parameter_joins_in_the_signature_style(before: str, after: str) -> None:
    param = cst.Param(cst.Name("c"), default=cst.Name("None"), equal=cst.AssignEqual())
    grown = shape.add_kwonly_param(fn(f"{before}\n    pass\n"), param)
    assert shape.code(grown) == f"{after}\n    pass"


@pytest.mark.parametrize(
    ("imports", "after"),
    [
        (
            "from typing import Any\n",
            "from typing import Any\nfrom collections.abc import Sequence\n",
        ),
        (
            "from typing import Any\nfrom collections.abc import Callable\n",
            "from typing import Any\nfrom collections.abc import Callable, Sequence\n",
        ),
        (
            "if True:\n    from typing import Sequence\n",
            "if True:\n    from typing import Sequence\n",
        ),
        ("import os\n", "import os\nfrom collections.abc import Sequence\n"),
    ],
)
def test_with_sequence_import_follows_the_module(imports: str, after: str) -> None:
    tree = cst.parse_module(f"{imports}\n\ndef f():\n    from typing import Sequence\n")
    assert shape.with_sequence_import(tree).code.startswith(f"{after}\n\ndef f():")


def test_the_carried_tests_are_read_and_never_collected_here() -> None:
    """pytest's file patterns do not match them, and the dot in their stem keeps
    ``libcst.tool list`` (which imports every .py under ``codemods``) from importing them."""
    names = sorted(p.name for p in CARRIED.glob("*.py"))
    assert names == [
        "handler_response_loop_tests.template.py",
        "helper_delta_tests.template.py",
        "one_liner_helper_tests.template.py",
    ]
    for name in names:
        assert shape.carried(name) == (CARRIED / name).read_text(encoding="utf-8")
        assert not any(fnmatch.fnmatch(name, p) for p in ("test_*.py", "*_test.py"))
        assert "." in name.removesuffix(".py")
