"""Fixtures of the PR tests (what they build lives in tests/fixtures/pr.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dynpatch.cli import main
from tests.fixtures.pr import JANE, REVIEWED, World, make_world

# An identity from outside the test would change what the commits hold.
_OUTSIDE = "GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL EMAIL"
_OUTSIDE += " GIT_AUTHOR_DATE GIT_COMMITTER_DATE GIT_DIR GIT_WORK_TREE DYNPATCH_PR_IDENTITY"
_OUTSIDE += " DYNPATCH_PR_BRANCH"


def _isolate(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty global git config and no identity variables from outside."""
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in _OUTSIDE.split():
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return _isolate(tmp_path / "home", monkeypatch)


@pytest.fixture(scope="session")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The world made once; each test gets a copy (git repositories hold no paths)."""
    root = tmp_path_factory.mktemp("pr-world")
    with pytest.MonkeyPatch.context() as mp:
        _isolate(root / "home", mp)
        make_world(root)
    shutil.rmtree(root / "home")
    return root


@pytest.fixture
def world(tmp_path: Path, world_template: Path) -> World:
    shutil.copytree(world_template, tmp_path, dirs_exist_ok=True, symlinks=True)
    return World(tmp_path)


@pytest.fixture
def pr(world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Run ``python -m dynpatch pr`` in-process in ``world``'s root: (exit status, stdout,
    stderr). The test identities are on reserved domains: allowed unless ``placeholder``
    is False; the disclosure's line is ``reviewed`` (None: left for the person)."""
    monkeypatch.chdir(world.tmp)

    def run(
        *extra: str,
        identity: str | None = JANE,
        placeholder: bool = True,
        reviewed: str | None = REVIEWED,
    ) -> tuple[int, str, str]:
        argv = ["pr", "--source", "path", "--path", str(world.repo)]
        argv += ["--identity", identity] if identity else []
        argv += ["--allow-placeholder-identity"] if placeholder else []
        argv += ["--reviewed", reviewed] if reviewed else []
        try:
            status = main([*argv, *extra])
        except SystemExit as exc:  # argparse refusing the arguments, as the process would
            status = int(exc.code or 0)
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run
