"""``python -m dynpatch apply`` (dynpatch.verbs.apply), in-process on synthetic releases:
upstream's hooks as a person sees them, a table and one error line, or their record."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dynpatch.cli import main
from dynpatch.services.formatters import tools_python
from tests.fixtures import snippets
from tests.fixtures.releases import FIXED_UPSTREAM
from tests.fixtures.synthetic import HANDLER, HELPER, REAL_CACHE, REPO, SYNTHETIC_FILES, one_error


@pytest.fixture
def apply(synthetic_release, capsys: pytest.CaptureFixture[str], monkeypatch):  # type: ignore[no-untyped-def]
    """``apply`` in the workspace of a release made of ``files``: (exit status, stdout,
    stderr); the formatter env is the real cache's, shared read-only."""
    tools_python(REPO)

    def run(files: dict[str, str], *extra: str) -> tuple[int, str, str]:
        rel = synthetic_release(files)
        if not rel.ws.tools.exists():
            rel.ws.tools.symlink_to(REAL_CACHE / "tools")
        monkeypatch.chdir(rel.ws.root)
        status = main(["apply", *extra])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def test_several_findings_print_their_table_then_one_error_line(apply, tmp_path: Path) -> None:
    files = {
        **SYNTHETIC_FILES,
        "dynamo/common/backend/logprobs.py": snippets.HELPER.replace("one streamed", "teh"),
        "dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER.removeprefix(
            snippets.SPDX_HEADER
        ),
    }
    status, out, err = apply(files)
    assert status == 2
    line = one_error(err)
    assert line.startswith(f"error: codespell (upstream settings) fails at {HELPER}:")
    assert line.endswith("teh ==> the (+1 more in the table above)")
    assert "upstream pre-commit findings" in out
    assert "SPDX header" in out and "no SPDX header" in out and "teh ==> the" in out
    assert not (tmp_path / "patches").exists() and not (tmp_path / "out").exists()


def test_one_finding_is_the_error_line_alone(apply) -> None:
    unused = snippets.HELPER.replace("from typing", "import os\nfrom typing")
    status, out, err = apply({**SYNTHETIC_FILES, "dynamo/common/backend/logprobs.py": unused})
    assert status == 2
    assert err.strip() == (
        f"error: ruff (upstream settings) fails at {HELPER}:4: F401 `os` imported but unused "
        "[fixable: ruff --fix would change the file]"
    )
    assert "upstream pre-commit findings" not in out


def test_a_passing_series_records_every_hook_for_the_pr(apply, tmp_path: Path) -> None:
    status, out, err = apply(SYNTHETIC_FILES)
    assert status == 0, err
    assert (
        "upstream pre-commit: isort, black, flake8, ruff, codespell, SPDX header, DCO pass "
        "(2 files, 1 commit message)"
    ) in out
    (saved,) = (tmp_path / "out" / "evidence" / "pre-commit").glob("*.json")
    record = json.loads(saved.read_text())
    assert record["command"] == "nox -s apply" and record["problems"] == []
    hooks = {h["name"]: h for h in record["facts"]["hooks"]}
    assert hooks["DCO"] == {
        "name": "DCO",
        "version": "`^Signed-off-by: .+ <.+>$`, by the author",
        "files": 1,
        "findings": [],
        "scope": "commit messages",
    }
    assert record["facts"]["paths"] == sorted([HELPER, HANDLER])
    assert record["facts"]["base_config"] is False  # a wheel's tree has none
    lines = record["details"]  # each target's lines, as the table shows them
    assert set(lines) >= {"extract_from_completion_output", "HandlerBase._extract_logprobs"}
    assert all(re.fullmatch(r"\+\d+ -\d+", v) for v in lines.values())
    assert f"│ {lines['extract_from_completion_output']} " in out
    status, out, err = apply(SYNTHETIC_FILES, "--check")
    assert status == 0, err
    assert json.loads(saved.read_text())["command"] == "nox -s apply -- --check"


def test_a_candidate_upstream_fix_is_drifted_here_and_names_the_command(apply, tmp_path) -> None:
    # apply has no replay environment: it never calls a release fixed upstream
    status, out, err = apply(FIXED_UPSTREAM)
    assert status == 2 and "fixed-upstream" not in out and "DRIFTED" in out.upper()
    judge = "to judge it by running its code: nox -s matrix -- --no-newest --versions 9.9.9"
    assert judge in out
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith("error: upstream's own fix? extract_from_completion_output takes `delta_ids`; ")
    )
    assert "not judged (only a run of the release's code can tell)" in err
    assert not (tmp_path / "patches").exists()
