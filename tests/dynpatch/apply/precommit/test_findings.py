"""dynpatch.apply.precommit.findings: the table and the Markdown of hook results (the error
line: test_apply.py)."""

from __future__ import annotations

import pytest

from dynpatch.apply.precommit import findings
from dynpatch.apply.precommit.findings import Finding, HookResult

PY = "components/src/dynamo/x.py"
TEH = Finding("codespell", PY, 12, "teh ==> the")


def test_the_table_shows_each_finding_in_the_hooks_words(capsys: pytest.CaptureFixture) -> None:
    ruff = Finding("ruff", PY, 3, "F401 `os` imported but unused [fixable: ruff --fix]")
    findings.show([TEH, ruff])
    printed = capsys.readouterr().out
    assert "[fixable: ruff --fix]" in printed  # never taken as markup
    assert "upstream pre-commit findings" in printed and "teh ==> the" in printed


def test_markdown_lists_every_hook_with_pin_files_and_result() -> None:
    text = findings.markdown(
        [
            HookResult("ruff", "0.5.2", (PY, "b.py")),
            HookResult("flake8", "7.3.0", (PY,), (TEH,), scope="changed lines"),
        ]
    )
    assert "| ruff | 0.5.2 | 2 (whole files) | pass |" in text
    assert "| flake8 | 7.3.0 | 1 (changed lines) | FAIL |" in text
    assert f"- `{PY}`" in text and "- `b.py`" in text
