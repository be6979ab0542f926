"""dynpatch.apply.precommit.linters: ruff 0.5.2 and codespell 2.2.4 with dynamo's settings.

The parsers are pure; the runs use the real formatter env (built once under vendor/tools,
as the apply tests do), on small trees each test writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dynpatch.apply.precommit import linters
from dynpatch.apply.tools import tools_python
from tests.fixtures.synthetic import REAL_VENDOR

PY = "components/src/dynamo/common/x.py"


@pytest.fixture(scope="module")
def python() -> Path:
    return tools_python(REAL_VENDOR)


def tree(root: Path, files: dict[str, str]) -> tuple[str, ...]:
    linters.write_tree(root, files)
    return tuple(files)


# --- the parsers (pure) ------------------------------------------------------------------

RUFF_0_5_2 = [  # the shape `ruff check --output-format json` 0.5.2 writes
    {
        "code": "F401",
        "message": "`os` imported but unused",
        "filename": "/r/" + PY,
        "location": {"row": 3, "column": 8},
        "fix": {"applicability": "safe", "edits": []},
    },
    {
        "code": "E731",
        "message": "Do not assign a `lambda` expression, use a `def`",
        "filename": "/r/" + PY,
        "location": {"row": 5, "column": 1},
        "fix": None,
    },
    {
        "code": None,
        "message": "SyntaxError: Expected an expression",
        "filename": "/r/" + PY,
        "location": {"row": 9, "column": 4},
        "fix": None,
    },
]


def test_ruff_reports_become_findings_with_repository_paths() -> None:
    found = linters.parse_ruff(json.dumps(RUFF_0_5_2), Path("/r"))
    assert [(f.hook, f.path, f.line) for f in found] == [
        ("ruff", PY, 3),
        ("ruff", PY, 5),
        ("ruff", PY, 9),
    ]
    assert found[0].message.startswith("F401 `os` imported but unused [fixable")
    assert "fixable" not in found[1].message
    assert found[2].message.startswith("syntax-error SyntaxError")
    assert linters.parse_ruff("[]", Path("/r")) == []


def test_codespell_lines_become_findings() -> None:
    report = f"{PY}:12: teh ==> the\n{PY}:40: recieve ==> receive\nsomething else\n"
    found = linters.parse_codespell(report)
    assert [(f.path, f.line, f.message) for f in found] == [
        (PY, 12, "teh ==> the"),
        (PY, 40, "recieve ==> receive"),
    ]


# --- the tools, in the formatter env -----------------------------------------------------


def test_ruff_finds_a_fixable_unused_import(tmp_path: Path, python: Path) -> None:
    paths = tree(tmp_path, {PY: '"""Doc."""\n\nimport os\n\nVALUE = 1\n'})
    [finding] = linters.ruff(tmp_path, paths, python)
    assert (finding.path, finding.line) == (PY, 3)
    assert finding.message.startswith("F401 `os` imported but unused [fixable")


def test_ruff_uses_dynamos_settings(tmp_path: Path, python: Path) -> None:
    """dynamo's rule selection (ruff's defaults: no E501 at any length) and its per-file
    ignores (F821 in *_inc.py) apply; a file ruff would not change passes."""
    long_line = f'TEXT = "{"x" * 100}"\n'
    inc = "components/src/dynamo/common/x_inc.py"
    paths = tree(tmp_path, {PY: long_line, inc: "VALUE = undefined_name\n"})
    assert linters.ruff(tmp_path, paths, python) == []
    paths = tree(tmp_path, {PY: "f = lambda: 1\n"})  # E731: in dynamo's selection
    assert [f.message[:4] for f in linters.ruff(tmp_path, paths, python)] == ["E731"]


def test_codespell_finds_a_misspelling_and_keeps_dynamos_ignore_words(
    tmp_path: Path, python: Path
) -> None:
    text = "# afterall, ser and ende are dynamo's own words\n\n# teh delta\nVALUE = 1\n"
    paths = tree(tmp_path, {PY: text})
    [finding] = linters.codespell(tmp_path, paths, python)
    assert (finding.hook, finding.path, finding.line, finding.message) == (
        "codespell",
        PY,
        3,
        "teh ==> the",
    )
    assert linters.codespell(tmp_path, tree(tmp_path, {PY: "# the delta\n"}), python) == []
