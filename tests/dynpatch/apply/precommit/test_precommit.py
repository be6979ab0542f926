"""dynpatch.apply.precommit: every hook of dynamo's pre-commit at its pin on the touched
files (the linters in the real formatter env, as the apply tests) and on the commits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dynpatch.apply import precommit
from dynpatch.apply.precommit import linters, spdx
from dynpatch.apply.tools import tools_python
from dynpatch.errors import ToolkitError
from dynpatch.io.git import CommitInfo, Identity
from tests.fixtures import snippets
from tests.fixtures.synthetic import REAL_CACHE

HELPER = "components/src/dynamo/common/backend/logprobs.py"
HANDLER = "components/src/dynamo/trtllm/request_handlers/handler_base.py"
JANE = Identity("Jane Doe", "jane@example.invalid")


@pytest.fixture(scope="module")
def python() -> Path:
    return tools_python(REAL_CACHE)


def test_clean_files_pass_every_hook_at_its_pin(python: Path) -> None:
    """dynamo's settings hold: its codespell ignore words, and no E501 at any length."""
    old = {HELPER: snippets.HELPER, HANDLER: snippets.HANDLER}
    words = f'\n\n# afterall, ser and ende are dynamo\'s own words\nTEXT = "{"x" * 100}"\n'
    new = {HELPER: snippets.HELPER_PATCHED + words, HANDLER: snippets.HANDLER_PATCHED}
    results = precommit.check_files(old, new, python, 2026)
    assert [(r.hook, r.pin) for r in results] == [
        ("isort", "5.12.0"),
        ("black", "23.1.0"),
        ("flake8", "7.3.0"),
        ("ruff", "0.5.2 (`--fix --exit-non-zero-on-fix`)"),
        ("codespell", "2.2.4"),
        ("SPDX header", spdx.PIN),
    ]
    assert all(r.ok and r.checked == (HELPER, HANDLER) for r in results), results


def test_each_file_hook_finds_its_planted_problem(python: Path) -> None:
    """A misspelling (codespell), no header (SPDX), an unused import dynamo's line already
    had (ruff: whole files) and a lambda the change adds (flake8 and ruff: changed lines)."""
    base = snippets.HELPER.replace("from typing", "import os\nfrom typing")
    old = {HELPER: base, HANDLER: snippets.HANDLER}
    new = {
        HELPER: snippets.HELPER_PATCHED.replace("from typing", "import os\nfrom typing")
        + "\n\nf = lambda: 1  # teh delta\n",
        HANDLER: snippets.HANDLER_PATCHED.removeprefix(snippets.SPDX_HEADER),
    }
    found = {r.hook: r.findings for r in precommit.check_files(old, new, python, 2026)}
    last = new[HELPER].count("\n")
    assert [(f.path, f.line, f.message[:4]) for f in found["flake8"]] == [(HELPER, last, "E731")]
    assert [(f.line, f.message[:4]) for f in found["ruff"]] == [(4, "F401"), (last, "E731")]
    assert found["ruff"][0].message.endswith("[fixable: ruff --fix would change the file]")
    assert [(f.path, f.line, f.message) for f in found["codespell"]] == [
        (HELPER, last, "teh ==> the")
    ]
    assert [(f.path, f.line) for f in found["SPDX header"]] == [(HANDLER, 1)]
    assert found["isort"] == found["black"] == ()


def test_ruff_keeps_dynamos_per_file_ignores(tmp_path: Path, python: Path) -> None:
    inc = "components/src/dynamo/common/x_inc.py"
    linters.write_tree(tmp_path, {inc: "VALUE = undefined_name\n"})
    assert linters.ruff(tmp_path, [inc], python) == []


def test_ruff_json_of_0_5_2_becomes_findings_with_repository_paths() -> None:
    report = [
        {
            "code": "E731",
            "message": "Do not assign",
            "filename": f"/r/{HELPER}",
            "location": {"row": 5},
            "fix": None,
        },
        {
            "code": None,
            "message": "SyntaxError: x",
            "filename": f"/r/{HELPER}",
            "location": {"row": 9},
        },
    ]
    found = linters.parse_ruff(json.dumps(report), Path("/r"))
    assert [(f.hook, f.path, f.line, f.message) for f in found] == [
        ("ruff", HELPER, 5, "E731 Do not assign"),
        ("ruff", HELPER, 9, "syntax-error SyntaxError: x"),
    ]


def test_dco_names_each_patchs_message() -> None:
    good = CommitInfo("a" * 40, "t", JANE, JANE, f"perf: x\n\nSigned-off-by: {JANE}\n", False)
    bad = CommitInfo("b" * 40, "t", JANE, JANE, "perf: y\n", False)
    result = precommit.check_commits([good, bad], ["0001-x.patch", "0002-y.patch"])
    assert result.checked == ("0001-x.patch (commit message)", "0002-y.patch (commit message)")
    assert [(f.hook, f.path, f.line) for f in result.findings] == [
        ("DCO", "0002-y.patch (commit message)", 1)
    ]
    with pytest.raises(ToolkitError, match="git am made 1 commits of 2 patches"):
        precommit.check_commits([good], ["0001-x.patch", "0002-y.patch"])
