"""dynpatch.apply.precommit.findings: the error line, the table and the Markdown of hook results."""

from __future__ import annotations

import pytest

from dynpatch.apply.precommit import findings
from dynpatch.apply.precommit.findings import Finding, HookResult

PY = "components/src/dynamo/x.py"
TEH = Finding("codespell", PY, 12, "teh ==> the")
SPDX = Finding("SPDX header", PY, 1, "no SPDX header")


def test_the_error_line_names_hook_file_and_line() -> None:
    assert findings.failure_line([TEH]) == (
        f"codespell (upstream settings) fails at {PY}:12: teh ==> the"
    )
    assert findings.failure_line([TEH, SPDX]).endswith("(+1 more in the table above)")
    two = HookResult("x", "1", (PY,), (TEH, SPDX))
    assert findings.all_findings([two, HookResult("y", "2", ())]) == [TEH, SPDX]


def test_markdown_lists_every_hook_with_pin_files_and_result() -> None:
    text = findings.markdown(
        [
            HookResult("ruff", "0.5.2", (PY, "b.py")),
            HookResult("flake8", "7.3.0", (PY,), (TEH,), scope="changed lines"),
            HookResult("codespell", "2.2.4", (PY,), (TEH, SPDX)),
        ]
    )
    assert "| ruff | 0.5.2 | 2 (whole files) | pass |" in text
    assert "| flake8 | 7.3.0 | 1 (changed lines) | FAIL (1 finding) |" in text
    assert "| codespell | 2.2.4 | 1 (whole files) | FAIL (2 findings) |" in text
    assert f"- `{PY}`" in text and "- `b.py`" in text


def test_the_table_shows_each_finding(capsys: pytest.CaptureFixture[str]) -> None:
    ruff = Finding("ruff", PY, 3, "F401 `os` imported but unused [fixable: ruff --fix]")
    findings.show([TEH, SPDX, ruff])
    printed = capsys.readouterr().out
    assert "[fixable: ruff --fix]" in printed  # the hooks' words, never taken as markup
    assert "upstream pre-commit findings" in printed
    assert "teh ==> the" in printed and "no SPDX header" in printed and "codespell" in printed
