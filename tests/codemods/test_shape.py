"""The shared helpers, where the twins do not reach: AST matching, a signature or an
import grown in the module's own style, and the carried tests."""

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


@pytest.mark.parametrize(
    ("before", "kwonly", "after"),
    [
        ("def f(a, b):", True, "def f(a, b, *, c = None):"),
        (
            "def f(\n    a,\n    *,\n    b=1,\n):",
            True,
            "def f(\n    a,\n    *,\n    b=1,\n    c = None,\n):",
        ),
        ("def f(\n    self, a\n):", False, "def f(\n    self, a, c = None\n):"),
    ],
)
def test_a_parameter_joins_in_the_signature_style(before: str, kwonly: bool, after: str) -> None:
    param = cst.Param(cst.Name("c"), default=cst.Name("None"), equal=cst.AssignEqual())
    new = shape.add_param(fn(f"{before}\n    pass\n"), param, kwonly=kwonly)
    assert shape.code(new) == f"{after}\n    pass"


def test_a_positional_parameter_is_refused_after_a_star() -> None:
    with pytest.raises(ValueError, match="takes \\*, \\*args or \\*\\*kwargs"):
        shape.add_param(fn("def f(a, *, b):\n    pass\n"), cst.Param(cst.Name("c")))


@pytest.mark.parametrize(
    ("imports", "after"),
    [
        ("from typing import Any, Optional\n", "from typing import Any, Optional, Sequence\n"),
        (
            "from collections.abc import Callable\nfrom typing import Any\n",
            "from collections.abc import Callable, Sequence\nfrom typing import Any\n",
        ),
        (
            "if True:\n    from typing import Sequence\n",
            "if True:\n    from typing import Sequence\n",
        ),
        ("import os\n", "import os\nfrom collections.abc import Sequence\n"),
    ],
    ids=["joins-typing", "prefers-collections-abc", "already-there", "a-new-import"],
)
def test_with_sequence_import_follows_the_module(imports: str, after: str) -> None:
    tree = cst.parse_module(f"{imports}\n\ndef f():\n    from typing import Sequence\n")
    assert shape.with_sequence_import(tree).code.startswith(f"{after}\n\ndef f():")


def test_param_names_and_docstring_node() -> None:
    assert shape.param_names(fn("def f(a, /, b, *, c):\n    pass\n")) == (["a", "b"], ["c"])
    assert shape.docstring_node(fn('def f():\n    """Doc."""\n')) is not None
    assert shape.docstring_node(fn("def f():\n    x = 1\n")) is None


def test_the_carried_tests_are_read_and_never_collected_here() -> None:
    """pytest's file patterns do not match them, and the dot in their stem keeps
    ``libcst.tool list`` (which imports every .py under ``codemods``) from importing them."""
    names = sorted(p.name for p in CARRIED.glob("*.py"))
    assert names == ["handler_response_loop_tests.template.py", "helper_delta_tests.template.py"]
    for name in names:
        assert shape.carried(name) == (CARRIED / name).read_text(encoding="utf-8")
        assert not any(fnmatch.fnmatch(name, p) for p in ("test_*.py", "*_test.py"))
        assert "." in name.removesuffix(".py")
