"""Fixtures of the PR tests (what they build lives in tests/fixtures/pr.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.cli import main
from tests.fixtures.pr import JANE, World, make_world, pr_argv


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty global git config and no identity or signing variables from outside."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in (
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_DATE",
        "EMAIL",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "DYNPATCH_PR_IDENTITY",
        "DYNPATCH_SIGNING_KEY",
        "DYNPATCH_PR_BRANCH",
    ):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


@pytest.fixture
def pr(world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Run ``python -m dynpatch pr`` in-process in ``world``'s root: (exit status, stdout,
    stderr)."""
    monkeypatch.chdir(world.tmp)

    def run(
        *extra: str, identity: str | None = JANE, placeholder: bool = True
    ) -> tuple[int, str, str]:
        try:
            status = main(pr_argv(world, *extra, identity=identity, placeholder=placeholder))
        except SystemExit as exc:  # argparse refusing the arguments, as the process would
            status = int(exc.code or 0)
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run
