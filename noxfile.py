"""Sessions of the pipeline: fetch -> apply (codemod, format, patch) -> test-upstream ->
verify -> bench -> pr. Each session is a thin call into ``python -m codemods``.

    nox -s apply            # the main job: regenerate patches/ from the pinned release
    nox -s tests            # this toolkit's own tests (unit + integration on the real pin)
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests"]


PINNED_VERSION = tomllib.loads(Path("vendor/dynamo.toml").read_text())["upstream"]["version"]
# What dynamo's own CPU tests import (UPSTREAM.md): the runtime wheel at the pinned version.
UPSTREAM_TEST_DEPS = (f"ai-dynamo-runtime=={PINNED_VERSION}", "typing-extensions", "pytest")


def _toolkit(session: nox.Session, *extras: str) -> None:
    session.install("-e", f".[{','.join(extras)}]" if extras else ".")


@nox.session
def fetch(session: nox.Session) -> None:
    """Materialise (or re-verify) the pinned dynamo checkout under vendor/checkouts/."""
    _toolkit(session)
    session.run("python", "-m", "codemods", "fetch", *session.posargs)


@nox.session
def apply(session: nox.Session) -> None:
    """Codemods -> upstream formatting -> commit -> patches/. `-- --check` only compares."""
    _toolkit(session)
    session.run("python", "-m", "codemods", "apply", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """This toolkit's tests: codemod units, bad inputs, integration on the real pin."""
    _toolkit(session, "test")
    session.install(*UPSTREAM_TEST_DEPS)
    # The integration test running dynamo's own tests must run here, never skip.
    session.run("pytest", *session.posargs, env={"DYNPATCH_REQUIRE_UPSTREAM_RUNTIME": "1"})


@nox.session
def lint(session: nox.Session) -> None:
    """pre-commit on every file (ruff, ruff-format, the patch freshness check)."""
    _toolkit(session)
    session.install("pre-commit")
    session.run("pre-commit", "run", "--all-files", "--show-diff-on-failure")


# --- later stages (each a thin call into its own module) ---------------------------


@nox.session(name="test-upstream")
def test_upstream(session: nox.Session) -> None:
    """dynamo's own tests on the baseline and the patched tree (CPU tier; GPU tier)."""
    _toolkit(session)
    session.run("python", "-m", "codemods", "test-upstream", *session.posargs)


@nox.session
def verify(session: nox.Session) -> None:
    """Replay TRT-LLM-shaped streams through the real handler on both trees; diff chunks."""
    _toolkit(session)
    session.run("python", "-m", "codemods", "verify", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """A/B benchmark of the handler's per-chunk cost, baseline vs patched."""
    _toolkit(session)
    session.run("python", "-m", "codemods", "bench", *session.posargs)


@nox.session
def pr(session: nox.Session) -> None:
    """The PR branch (git am of patches/, DCO, optional signing) and its description."""
    _toolkit(session)
    session.run("python", "-m", "codemods", "pr", *session.posargs)
