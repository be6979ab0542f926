"""Sessions of the pipeline: fetch -> apply (codemod, format, patch) -> test-upstream ->
verify -> bench -> pr. Each session is a thin call into ``python -m dynpatch``.

    nox -s apply            # the main job: regenerate patches/ from the pinned release
    nox -s tests            # this toolkit's own tests (unit + integration on the real pin)
"""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests"]


def _toolkit(session: nox.Session, *extras: str) -> None:
    session.install("-e", f".[{','.join(extras)}]" if extras else ".")


def _runtime(session: nox.Session) -> str:
    """``ai-dynamo-runtime==<the pinned version>``: dynamo's own tests import the runtime
    wheel (dynamo._core, dynamo.llm) at the pinned version. The toolkit reads the pin (it is
    never parsed here), so a bad pin ends in the toolkit's own one `error:` line."""
    out = session.run("python", "-m", "dynpatch", "pin", "runtime", silent=True, stderr=None)
    return str(out).strip()


@nox.session
def fetch(session: nox.Session) -> None:
    """Materialise (or re-verify) the pinned dynamo checkout under vendor/checkouts/."""
    _toolkit(session)
    session.run("python", "-m", "dynpatch", "fetch", *session.posargs)


@nox.session
def apply(session: nox.Session) -> None:
    """Codemods -> upstream formatting -> commit -> patches/. `-- --check` only compares."""
    _toolkit(session)
    session.run("python", "-m", "dynpatch", "apply", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """This toolkit's tests: codemod units, bad inputs, integration on the real pin."""
    _toolkit(session, "test")
    session.install(_runtime(session), "typing-extensions")
    # The integration test running dynamo's own tests must run here, never skip.
    session.run("pytest", *session.posargs, env={"DYNPATCH_REQUIRE_UPSTREAM_RUNTIME": "1"})


@nox.session
def lint(session: nox.Session) -> None:
    """pre-commit on every file (ruff, ruff-format, the patch freshness check)."""
    _toolkit(session)
    session.install("pre-commit")
    session.run("pre-commit", "run", "--all-files", "--show-diff-on-failure")


# --- later stages (each a thin call into its own module) ---------------------------


# What dynamo's CPU-tier tests import beyond the runtime wheel: pytest-asyncio for the
# async tests, prometheus-client, numpy and imageio[ffmpeg] for three test modules;
# the runtime needs pydantic <= 2.13.5 (see shared/UPSTREAM.md).
UPSTREAM_TEST_DEPS = (
    "typing-extensions",
    "pytest",
    "pytest-asyncio",
    "pydantic<=2.13.5",
    "prometheus-client>=0.23.1,<1.0",
    "numpy",
    "imageio[ffmpeg]",
)


@nox.session(name="test-upstream")
def test_upstream(session: nox.Session) -> None:
    """dynamo's own tests, baseline vs patched: the CPU tier in this venv (with the pinned
    ai-dynamo-runtime); the GPU tier under $DYNPATCH_GPU_PYTHON, the TRT-LLM container's
    own Python, when that has tensorrt_llm and CUDA. `-- --tier cpu|gpu|all`."""
    _toolkit(session)
    session.install(_runtime(session), *UPSTREAM_TEST_DEPS)
    session.run("python", "-m", "dynpatch", "test-upstream", *session.posargs)


# The replay children import dynamo's real TRT-LLM handler on CPU: torch's CPU build is
# installed first and stays pinned in every later resolve (any other torch spec would
# download GBs); then the `replay` extra and ai-dynamo-runtime at the pin.
REPLAY_TORCH = "torch==2.13.0"


@nox.session
def verify(session: nox.Session) -> None:
    """Replay TRT-LLM-shaped streams through the real handler on both trees and compare the
    chunk streams exactly; then the replay harness's own integration tests (which plant a
    divergence and must see it). `-- --budget N --seed S --scenario NAME`."""
    session.install(REPLAY_TORCH)
    session.install("-e", ".[replay,test]", REPLAY_TORCH)
    session.install(_runtime(session), REPLAY_TORCH)
    session.run("python", "-m", "dynpatch", "verify", *session.posargs)
    session.run("pytest", "-m", "integration", "tests/test_replay_integration.py")


@nox.session
def bench(session: nox.Session) -> None:
    """A/B benchmark of the real handler, baseline vs patched: reference case, scaling sweep,
    allocation profile; JSON, Markdown and PNG under out/bench/. `-- --quick` for CI."""
    session.install(REPLAY_TORCH)
    session.install("-e", ".[replay,bench]", REPLAY_TORCH)
    session.install(_runtime(session), REPLAY_TORCH)
    session.run("python", "-m", "dynpatch", "bench", *session.posargs)


@nox.session
def pr(session: nox.Session) -> None:
    """The PR branch (git am of patches/, re-signed off by you, `-- --sign` to sign) and
    out/pr/PR_DESCRIPTION.md. Pushes nothing unless `-- --push REMOTE`; never opens the PR."""
    _toolkit(session)
    session.run("python", "-m", "dynpatch", "pr", *session.posargs)


# --- version matrix and pin bumps ---------------------------------------------------

# One shared environment for every release's checks: what test-upstream and verify need,
# without ai-dynamo-runtime. Each release's runtime is installed on its own under
# vendor/runtimes/<X>/ and put in front of this environment (dynpatch/releases/matrix/envs.py).
# The runtimes are installed --no-deps, so their own requirements are here: uvloop, and
# pydantic <= 2.13, the tightest bound among the releases (1.3-1.5 declare <=2.13).
# httpx: the TRT-LLM handler of 1.3-1.4 imports it (multimodal_processor, httpx_client).
MATRIX_DEPS = (
    *(d for d in UPSTREAM_TEST_DEPS if not d.startswith("pydantic")),
    "pydantic<=2.13",
    "uvloop>=0.21.0",
    "httpx",
)


@nox.session
def matrix(session: nox.Session) -> None:
    """The series against the pin's [matrix] releases and the newest build on PyPI: per
    target outcome, `git am` of the release's own series and of patches/, CPU
    test-upstream and quick verify; out/matrix/matrix.{md,json}. `-- --versions 1.5.1,1.6.1`,
    `--all`, `--no-newest`, `--jobs N`, `--skip verify`, `--fresh`."""
    session.install(REPLAY_TORCH)
    session.install("-e", ".[replay,test]", REPLAY_TORCH, *MATRIX_DEPS)
    session.run("python", "-m", "dynpatch", "matrix", *session.posargs)


@nox.session
def bump(session: nox.Session) -> None:
    """Move the pin to another release (`-- VERSION`): regenerate patches/, run CPU
    test-upstream and verify on it, show the series' git range-diff old -> new; refuse and
    leave the pin and patches/ as they were if anything fails."""
    session.install(REPLAY_TORCH)
    session.install("-e", ".[replay,test]", REPLAY_TORCH, *MATRIX_DEPS)
    session.run("python", "-m", "dynpatch", "bump", *session.posargs)
