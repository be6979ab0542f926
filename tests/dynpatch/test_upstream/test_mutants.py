"""The two mutants of the mutation proof, built from real git trees."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codemods.handler_extract_forwards_delta import PATH as HANDLER
from codemods.logprobs_helper import TARGET
from dynpatch.test_upstream import mutants
from dynpatch.trees import Trees
from tests.fixtures import snippets

TESTS = "components/src/dynamo/common/backend/tests/test_logprobs.py"


def repo(root: Path, files: dict[str, str]) -> str:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "tree"], check=True)
    return subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def trees(tmp_path: Path) -> Trees:
    base = {TARGET.path: snippets.HELPER, HANDLER: snippets.HANDLER, TESTS: "# old tests\n"}
    patched = {
        TARGET.path: snippets.HELPER_PATCHED,
        HANDLER: snippets.HANDLER_PATCHED,
        TESTS: "# new tests\n",
    }
    commit = repo(tmp_path / "baseline", base)
    repo(tmp_path / "patched", patched)
    return Trees(tmp_path / "baseline", tmp_path / "patched", commit, "0" * 64)


def test_the_mutants_lack_the_fix_and_carry_the_patched_tests(tmp_path: Path) -> None:
    """The baseline mutant is the baseline with the patched tests. The ignored mutant keeps
    the patched handler, which passes the keyword (else the tests would fail on its
    absence), over a helper that accepts it and still copies the history."""
    made = trees(tmp_path)
    built = mutants.build_baseline(made, {TESTS}, tmp_path / "mutant")
    assert (built / TESTS).read_text() == "# new tests\n"
    assert (built / TARGET.path).read_text() == snippets.HELPER
    assert (built / HANDLER).read_text() == snippets.HANDLER
    built = mutants.build_ignored(made, tmp_path / "ignored")
    assert (built / TESTS).read_text() == "# new tests\n"
    assert (built / TARGET.path).read_text() == mutants.accept_and_ignore(snippets.HELPER)
    assert (built / HANDLER).read_text() == snippets.HANDLER_PATCHED


def test_accept_and_ignore_changes_only_the_signature() -> None:
    mutated = mutants.accept_and_ignore(snippets.HELPER)
    assert "    new_token_ids: object = None,\n) -> tuple[" in mutated
    body = snippets.HELPER.split(") -> tuple[", 1)[1]
    assert mutated.split(") -> tuple[", 1)[1] == body
    namespace: dict[str, object] = {}
    exec(compile(mutated, "logprobs.py", "exec"), namespace)  # the mutant still runs
