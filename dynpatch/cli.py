"""Command line: ``python -m dynpatch <verb>`` (the nox sessions call this).

All argparse lives here. Each verb's options become that stage's options dataclass
(``ApplyOptions``, ``VerifyOptions``, ...), handed to its ``run`` with the workspace found
from the working directory; no stage imports this module. ``run`` returns a
``StageResult``: this module prints it, saves its record and exits 0 (passed) or 1. Every
failure the user can cause ends in one ``error: ...`` line on stderr and exit status 2;
nothing is left half-written.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from dynpatch import apply as apply_command
from dynpatch import bench, bump, console, evidence, fetch, pin, test_upstream, verify
from dynpatch import matrix as matrix_command
from dynpatch import pr as pr_command
from dynpatch import wheel as wheel_command
from dynpatch.console import err, out
from dynpatch.errors import ToolkitError
from dynpatch.evidence import StageResult
from dynpatch.io import git as gitio
from dynpatch.matrix import join as matrix_join
from dynpatch.matrix import stages as matrix_stages
from dynpatch.pr import identity
from dynpatch.workspace import Workspace

Run = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one ``error:`` line too (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"error: {self.prog}: {message} (see --help)\n")
        sys.exit(2)


def _calls(run: Callable[..., StageResult]) -> Run:
    """The verb's handler: the parsed values as the options dataclass ``run`` takes (and
    the workspace found from the working directory, when it takes one)."""
    hints = list(typing.get_type_hints(run).values())
    options = hints[0]

    def handler(args: argparse.Namespace) -> int:
        names = {f.name for f in dataclasses.fields(options)}
        given = options(**{k: v for k, v in vars(args).items() if k in names})
        if Workspace not in hints:
            return _show(run(given), None)
        ws = Workspace.find(Path.cwd())
        return _show(run(given, ws), ws)

    return handler


def _show(result: StageResult, ws: Workspace | None) -> int:
    """Print what the run returned, save its record; 0 when it passed, else 1."""
    for item in result.shown:
        evidence.show(out, item)
    if result.record is not None and ws is not None:
        saved = evidence.save(result.record, ws.patches, ws.evidence)
        out.print(f"evidence: {console.rel(saved)}", markup=False)
    return 0 if result.ok else 1


def _flag(add: Callable[..., Any], name: str, help_: str, **kw: Any) -> None:
    add(name, action="store_true", help=help_, **kw)


def _toggle(add: Callable[..., Any], name: str, default: bool | None, help_: str) -> None:
    add(name, action=argparse.BooleanOptionalAction, default=default, help=help_)


def _fetch_args(p: argparse.ArgumentParser, timeout: float = 60.0, force: bool = True) -> None:
    g = p.add_argument_group("upstream checkout")
    add = g.add_argument
    add(
        "--source",
        choices=fetch.SOURCES,
        default="pypi",
        help="where the pinned tree comes from (default: pypi)",
    )
    add("--version", help="release to use (default: the pin)")
    add("--url", help="git source: repository URL (default: the pin's)")
    add("--ref", help="git source: tag or commit (default: the release tag)")
    add("--path", type=Path, help="path source: a clean local dynamo clone")
    if force:
        _flag(
            add, "--force", "rebuild a cached checkout that fails verification or has local edits"
        )
    add(
        "--timeout",
        type=float,
        default=timeout,
        help=f"seconds before an unreachable git remote fails (default: {timeout:.0f})",
    )


Sub = argparse._SubParsersAction  # type: ignore[type-arg]


def _verb(
    sub: Sub,
    name: str,
    help_: str,
    run: Callable[..., StageResult],
    fetch_args: dict[str, Any] | None = None,
) -> argparse.ArgumentParser:
    """A verb's parser: the fetch options (unless ``fetch_args`` is None) and the handler
    that hands the options to ``run``; the caller adds the rest."""
    p = sub.add_parser(name, help=help_)
    if fetch_args is not None:
        _fetch_args(p, **fetch_args)
    p.set_defaults(func=_calls(run))
    return p


def _add_fetch(sub: Sub) -> None:
    help_ = "materialise or re-verify the pinned upstream checkout"
    _verb(sub, "fetch", help_, fetch.run, {})


def _add_apply(sub: Sub) -> None:
    help_ = "codemods -> format -> commit -> patches/ (and check)"
    p = _verb(sub, "apply", help_, apply_command.run, {})
    _flag(p.add_argument, "--check", "regenerate in a temporary place; fail if patches/ differs")
    author = f"'Name <email>' of the series commit (default: ${apply_command.AUTHOR_ENV}, else the pin's)"
    p.add_argument("--author", help=author)


def _add_pin(sub: Sub) -> None:
    p = _verb(sub, "pin", "print one value of the pin (for the noxfile)", pin.show)
    p.add_argument("field", choices=("version", "runtime"))


REPLAY_PYTHON = "interpreter of the replay children (default: this one)"


def _add_test_upstream(sub: Sub) -> None:
    help_ = "dynamo's own tests on the baseline and the patched tree"
    p = _verb(sub, "test-upstream", help_, test_upstream.run, {})
    add = p.add_argument
    add("--tier", help="cpu, standin, gpu or all (default: every tier this machine can run)")
    gpu = "Python of the GPU tier, e.g. the TRT-LLM container's (default: $DYNPATCH_GPU_PYTHON, else this interpreter)"
    add("--gpu-python", default=os.environ.get("DYNPATCH_GPU_PYTHON"), help=gpu)
    add("--out", type=Path, help="folder for JUnit XML and logs (default: out/test-upstream)")


def _add_verify(sub: Sub) -> None:
    help_ = "replay the real TRT-LLM handler on both trees and diff the chunks"
    p = _verb(sub, "verify", help_, verify.run, {})
    add = p.add_argument
    budget = f"hypothesis property streams (default: {verify.DEFAULT_BUDGET}; 0: none)"
    add("--budget", type=int, default=verify.DEFAULT_BUDGET, help=budget)
    add("--seed", type=int, help="hypothesis seed (default: a fresh one, printed)")
    add("--scenario", action="append", metavar="NAME", help="replay only this named scenario")
    add("--python", default=sys.executable, help=REPLAY_PYTHON)
    add("--out", type=Path, help="folder for the report and logs (default: out/verify)")


def _add_bench(sub: Sub) -> None:
    help_ = "instruction counts of the handler, baseline vs patched (gated), and a timed A/B"
    p = _verb(sub, "bench", help_, bench.run, {})
    mutant = "also count the patched tree with the history copy planted back; its gates must fail"
    _flag(p.add_argument, "--mutant", mutant)
    record = "write the reference docs/bench/instructions.json and .png (when the gates pass)"
    _flag(p.add_argument, "--record", record)


def _add_pr(sub: Sub) -> None:
    help_ = "the PR branch (git am of patches/, DCO, optional signing) and its description; pushes only with --push"
    p = _verb(sub, "pr", help_, pr_command.run, {"timeout": 120.0, "force": False})
    add = p.add_argument
    add(
        "--branch",
        help=f"branch name (default: ${pr_command.BRANCH_ENV}, else {pr_command.DEFAULT_BRANCH})",
    )
    who = f"who authors and signs off the commits (default: ${identity.IDENTITY_ENV}, $GIT_AUTHOR_NAME/EMAIL, then git config user.name/email)"
    add("--identity", metavar="'NAME <EMAIL>'", help=who)
    placeholder = "accept an identity on a reserved domain (.example, .invalid, .test): a dry run"
    _flag(add, "--allow-placeholder-identity", placeholder, dest="allow_placeholder")
    _flag(add, "--sign", "sign the commits with git (GPG or SSH) and verify them")
    add("--signing-key", help="user.signingkey for --sign (default: git config)")
    fmt = "gpg.format for --sign (default: git config, else from the key)"
    add("--signing-format", choices=identity.FORMATS, help=fmt)
    replace = "replace an existing branch whose commits differ (range-diff shown)"
    _flag(add, "--force", replace, dest="replace")
    push = "push the branch to REMOTE (your fork: remote name or URL); default: push nothing"
    add("--push", metavar="REMOTE", help=push)
    out = "description file (default: out/pr/PR_DESCRIPTION.md; VALIDATION.md beside it)"
    add("--out", type=Path, help=out)


def _add_matrix(sub: Sub) -> None:
    help_ = "run the series against several dynamo releases; one row per release"
    p = _verb(sub, "matrix", help_, matrix_command.run)
    add, m = p.add_argument, matrix_command
    add("--versions", help="comma-separated releases (default: the pin's [matrix])")
    every = "every release the pin lists, and every wheel on PyPI from the pin's [matrix] all_from on (dev builds included)"
    _flag(add, "--all", every)
    newest = "add the newest release or dev wheel on PyPI (default: the pin's [matrix] newest)"
    _toggle(add, "--newest", None, newest)
    budget = f"quick verify: hypothesis streams per release (default {m.QUICK_BUDGET})"
    add("--budget", type=int, default=m.QUICK_BUDGET, help=budget)
    seed = f"hypothesis seed of quick verify (default {m.DEFAULT_SEED})"
    add("--seed", type=int, default=m.DEFAULT_SEED, help=seed)
    jobs = "releases whose tests and replay run at once (default: cores, max 2)"
    add("--jobs", type=int, default=m.default_jobs(), help=jobs)
    add(
        "--fetch-jobs", type=int, default=3, help="releases fetched and patched at once (default 3)"
    )
    skip = "do not run this check (shown as skipped, never as passed)"
    add("--skip", action="append", choices=matrix_stages.STAGES, default=[], help=skip)
    _flag(add, "--fresh", "ignore cached test and verify results")
    add("--out", type=Path, help="folder for matrix.md, matrix.json (default: out/matrix)")
    listing = "print the releases it would check as a JSON array (last line); run nothing"
    _flag(add, "--list-json", listing)


def _add_matrix_join(sub: Sub) -> None:
    help_ = "join one-release matrix runs (DIR/*/matrix.json) into one matrix"
    p = _verb(sub, "matrix-join", help_, matrix_join.run)
    p.add_argument("dir", type=Path, help="folder holding DIR/<version>/matrix.json")
    out = "folder for the joined matrix.md, matrix.json (default: DIR)"
    p.add_argument("--out", type=Path, help=out)


def _add_bump(sub: Sub) -> None:
    help_ = "move the pin to another release: regenerate, test, verify, or refuse"
    p = _verb(sub, "bump", help_, bump.run)
    add = p.add_argument
    add("version", help="the ai-dynamo release to pin")
    budget = f"verify: hypothesis streams (default {bump.DEFAULT_BUDGET})"
    add("--budget", type=int, default=bump.DEFAULT_BUDGET, help=budget)
    add("--seed", type=int, default=0, help="verify: hypothesis seed (default 0)")
    skip = "do not run this check; the output says the pin moved without it"
    add("--skip", action="append", choices=matrix_stages.STAGES, default=[], help=skip)
    add("--out", type=Path, help="staging folder, logs stay there (default: out/bump)")


def _add_wheel(sub: Sub) -> None:
    help_ = "the pinned release with patches/ applied, as a reproducible wheel in dist/"
    p = _verb(sub, "wheel", help_, wheel_command.run)
    add = p.add_argument
    again = "build a second time in a scratch folder and compare the bytes (default: yes)"
    _toggle(add, "--reproduce", True, again)
    prove = "install the wheel in a fresh venv and run dynamo's logprob tests from site-packages"
    _toggle(add, "--prove", False, prove)
    into = "prove in this interpreter (pip install --no-deps into it), e.g. the TRT-LLM container's, instead of a fresh venv"
    add("--install-into", type=Path, metavar="PYTHON", help=into)
    tier = "the proof's tests: cpu (dynamo's logprob tests) or gpu (also its trtllm tests; NVIDIA's tensorrt_llm and a CUDA device required)"
    add("--tier", choices=("cpu", "gpu"), default="cpu", help=tier)
    replay = "replay the named scenarios through the installed stock and patched wheels; 0 divergences required (needs the replay dependency group)"
    _toggle(add, "--replay", False, replay)


DESCRIPTION = (
    "Carry one performance fix for NVIDIA Dynamo's TRT-LLM logprob path as a patch series "
    "on a pinned dynamo release: make it (apply), test it with dynamo's own tests "
    "(test-upstream), replay the real handler (verify), count its cost (bench), build the "
    "PR branch and description (pr), check other releases (matrix, bump) and build a "
    "patched wheel (wheel)."
)

VERBS = (
    _add_fetch,
    _add_apply,
    _add_pin,
    _add_test_upstream,
    _add_verify,
    _add_bench,
    _add_pr,
    _add_matrix,
    _add_matrix_join,
    _add_bump,
    _add_wheel,
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="dynpatch",
        description=DESCRIPTION,
        epilog="Each verb has its own --help. The nox sessions (nox -s VERB) install what a "
        "verb needs and call it; docs/ has one page per verb.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for add in VERBS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    func: Run = args.func
    try:
        return func(args)
    except ToolkitError as exc:
        return _fail(str(exc), 2)
    except OSError as exc:  # a file or folder the run needs: say which, in one line
        where = f" ({exc.filename})" if exc.filename else ""
        return _fail(f"{exc.strerror or exc}{where}", 2)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


def _fail(message: str, status: int) -> int:
    """The one error line: the first line of ``message``, with no credential in it."""
    line = gitio.redact(message.strip().splitlines()[0] if message.strip() else "failed")
    err.print(f"error: {line}", markup=False)
    return status


if __name__ == "__main__":
    sys.exit(main())
