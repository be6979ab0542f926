"""Carry the response loop's regression tests into dynamo's own handler test class.

``HandlerResponseLoopTests`` adds the methods in
``carried/handler_response_loop_tests.template.py`` to the class of
``trtllm/tests/test_trtllm_handler_base.py`` where dynamo keeps its response-loop tests
(``TestGenerateLocally``; the same class was ``TestHealthCheckPriority`` before 1.5).
They reuse that class's ``_make_handler()`` and ``_make_context()`` and the module's
imports: the loop hands each choice's delta to the logprob helper, one choice and four
interleaved ones (some not advancing), with the same chunks as without the delta and no
copy of the cumulative history. The module is gpu_1 in dynamo's CI (it imports
TensorRT-LLM), so the methods are appended at the end of the class, untouched by
anything else.
"""

from __future__ import annotations

import libcst as cst

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, Target, TargetedCommand

PATH = "components/src/dynamo/trtllm/tests/test_trtllm_handler_base.py"
# Newest name first: the first one the module defines is the class the tests join.
CLASSES = ("TestGenerateLocally", "TestHealthCheckPriority")
REUSED = ("_make_handler", "_make_context")
MARKS = ("trtllm", "pre_merge", "gpu_1")
HANDLER_MODULE = "dynamo.trtllm.request_handlers.handler_base"
NEEDED_IMPORTS = (
    ("unittest", "mock"),
    ("unittest.mock", "MagicMock"),
    (HANDLER_MODULE, "HandlerBase"),
)

TARGET = Target(
    path=PATH,
    qualname="(new tests: response loop)",
    expected=(
        f"a test module marked {', '.join(MARKS)} by `pytestmark` that imports pytest, "
        + ", ".join(f"{name} from {module}" for module, name in NEEDED_IMPORTS)
        + f", with a class {' or '.join(CLASSES)} defining {' and '.join(REUSED)}"
    ),
)

TEMPLATE = shape.carried("handler_response_loop_tests.template.py")


def carried_methods(template: str = TEMPLATE) -> list[cst.FunctionDef]:
    """The methods of the template's one class, in order (its docstring left out)."""
    (cls,) = cst.parse_module(template).body
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    return [stmt for stmt in cls.body.body if isinstance(stmt, cst.FunctionDef)]


def added_names(template: str = TEMPLATE) -> tuple[str, ...]:
    """The names of the methods ``HandlerResponseLoopTests`` adds, in order."""
    return tuple(fn.name.value for fn in carried_methods(template))


def _methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    block = cls.body
    body = block.body if isinstance(block, cst.IndentedBlock) else ()
    return {stmt.name.value: stmt for stmt in body if isinstance(stmt, cst.FunctionDef)}


def find_class(tree: cst.Module) -> cst.ClassDef | None:
    """The module-level class the tests join: the first of ``CLASSES`` it defines."""
    classes = {s.name.value: s for s in tree.body if isinstance(s, cst.ClassDef)}
    return next((classes[name] for name in CLASSES if name in classes), None)


class HandlerResponseLoopTests(TargetedCommand):
    DESCRIPTION: str = (
        "test_trtllm_handler_base.py (gpu_1): add response-loop tests to "
        "TestGenerateLocally: each choice's delta reaches the logprob helper, 4 "
        "interleaved choices give the same chunks with no history copy."
    )
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        cls = find_class(tree)
        if cls is None:
            raise Drifted(TARGET, f"no module-level class {' or '.join(CLASSES)}")
        present = _methods(cls)
        new = carried_methods()
        clashes = [fn for fn in new if fn.name.value in present]
        if clashes:
            other = [
                fn for fn in clashes if not shape.same_code(present[fn.name.value], shape.code(fn))
            ]
            if not other and len(clashes) == len(new):
                raise AlreadyApplied(f"{PATH} already has the response-loop tests")
            named = ", ".join(f"{cls.name.value}.{fn.name.value}" for fn in other or clashes)
            raise Drifted(
                TARGET,
                f"{named} already defined "
                + ("with other content" if other else "(only some of the new tests)"),
            )
        missing = [f"{cls.name.value}.{name}" for name in REUSED if name not in present]
        if missing:
            raise Drifted(TARGET, f"no {' or '.join(missing)} to reuse")
        for module, name in NEEDED_IMPORTS:
            if not shape.imports(tree, module, name):
                raise Drifted(TARGET, f"no `from {module} import {name}`")
        if not shape.imports_module(tree, "pytest"):
            raise Drifted(TARGET, "no `import pytest`")
        why = shape.unmarked(tree, MARKS)  # dynamo's GPU stage selects them by these marks
        if why:
            raise Drifted(TARGET, why)
        return self._append(tree, cls, new)

    @staticmethod
    def _append(tree: cst.Module, cls: cst.ClassDef, new: list[cst.FunctionDef]) -> cst.Module:
        block = cls.body
        assert isinstance(block, cst.IndentedBlock)
        first = new[0].with_changes(leading_lines=(cst.EmptyLine(indent=False),))
        body = [*block.body, first, *new[1:]]
        grown = cls.with_changes(body=block.with_changes(body=body))
        return tree.with_changes(body=[grown if s is cls else s for s in tree.body])
