"""dynpatch.apply.precommit: every hook of dynamo's pre-commit on the touched files and
the series' commits (the file hooks in the real formatter env, as the apply tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.apply import precommit
from dynpatch.apply.tools import tools_python
from dynpatch.errors import ToolkitError
from dynpatch.io.git import CommitInfo, Identity
from tests.fixtures import snippets
from tests.fixtures.synthetic import REAL_VENDOR

HELPER = "components/src/dynamo/common/backend/logprobs.py"
HANDLER = "components/src/dynamo/trtllm/request_handlers/handler_base.py"
HOOKS = ["isort", "black", "flake8", "ruff", "codespell", "SPDX header"]
JANE = Identity("Jane Doe", "jane@example.invalid")


@pytest.fixture(scope="module")
def python() -> Path:
    return tools_python(REAL_VENDOR)


def test_the_pins_are_the_formatter_envs() -> None:
    assert [precommit.pin(t) for t in ("isort", "black", "flake8", "ruff", "codespell")] == [
        "5.12.0",
        "23.1.0",
        "7.3.0",
        "0.5.2",
        "2.2.4",
    ]


def test_clean_files_pass_every_hook(python: Path) -> None:
    old = {HELPER: snippets.HELPER, HANDLER: snippets.HANDLER}
    new = {HELPER: snippets.HELPER_PATCHED, HANDLER: snippets.HANDLER_PATCHED}
    results = precommit.check_files(old, new, python, 2026)
    assert [r.hook for r in results] == HOOKS
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
    assert [(f.line, f.message) for f in found["codespell"]] == [(last, "teh ==> the")]
    assert [(f.path, f.line) for f in found["SPDX header"]] == [(HANDLER, 1)]
    assert found["isort"] == found["black"] == ()


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
