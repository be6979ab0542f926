"""``python -m dynpatch VERB``: the options of each verb become that stage's options dataclass;
its ``run`` result is printed and saved here. A fault is one ``error:`` line, exit status 2."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from dynpatch import console, evidence
from dynpatch.console import err, out
from dynpatch.designs import DESIGNS
from dynpatch.errors import ToolkitError
from dynpatch.fetch import SOURCES
from dynpatch.io import files
from dynpatch.io import git as gitio
from dynpatch.results import StageResult
from dynpatch.services import checks as matrix_stages
from dynpatch.verbs import apply as apply_command
from dynpatch.verbs import bench, bump, fetch, pin, test_upstream, verify
from dynpatch.verbs import matrix as matrix_command
from dynpatch.verbs import pr as pr_command
from dynpatch.verbs import wheel as wheel_command
from dynpatch.verbs.pr import signing
from dynpatch.workspace import Workspace

FLAG: dict = {"action": "store_true"}
TOGGLE: dict = {"action": argparse.BooleanOptionalAction}
# An error line over 300 characters keeps its start (what failed) and end (what to do).
KEPT_START, KEPT_END = 193, 97  # with "error: " and " … ", 300
DESCRIPTION = (
    "Carry one performance fix for NVIDIA Dynamo's TRT-LLM logprob path as a patch series on a "
    "pinned dynamo release: make it, test it with dynamo's own tests, replay the real handler, "
    "count its cost, build the PR branch, check other releases, build a patched wheel."
)


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # a usage error is one error line too
        # argparse quotes what it refused, a URL with its password as given: redacted.
        line = gitio.redact(" ".join(message.splitlines()))
        sys.stderr.write(f"error: {self.prog}: {line} (see --help)\n")
        sys.exit(2)


def _calls(run: Callable[..., StageResult]) -> Callable[[argparse.Namespace], int]:
    """``run``'s handler: the options given (else the defaults), and a workspace if it takes one."""
    hints = list(typing.get_type_hints(run).values())

    def handler(args: argparse.Namespace) -> int:
        names = {f.name for f in dataclasses.fields(hints[0])}
        given = hints[0](**{k: v for k, v in vars(args).items() if k in names and v is not None})
        ws = Workspace.find(Path.cwd()) if Workspace in hints else None
        result = run(given, ws) if ws else run(given)
        for item in result.shown:
            console.show(out, item)
        for line in result.warnings:
            err.print(f"warning: {line}", markup=False)
        for record in result.records if ws is not None else ():
            saved = evidence.save(record, ws.patches, ws.evidence)
            out.print(f"evidence: {console.rel(saved)}", markup=False)
        for folder, new in result.then.items():  # only once the record is saved
            evidence.replace_files(folder, new, ws.locks if ws else folder.parent)
            out.print(f"wrote {', '.join(console.rel(folder / n) for n in new)}", markup=False)
        return 0 if result.ok else 1

    return handler


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="dynpatch", description=DESCRIPTION, epilog="docs/ has a page per verb.")
    sub = parser.add_subparsers(dest="command", required=True)

    def verb(name: str, help_: str, run: Callable, checkout: bool = True, force: bool = True):
        p = sub.add_parser(name, help=help_, description=help_)
        p.set_defaults(func=_calls(run))
        add = p.add_argument
        if checkout:
            add("--source", choices=SOURCES, help="where the release comes from: pypi")
            add("--version", help="the release (default: the pin's)")
            add("--url", help="--source git: the repository (default: the pin's)")
            add("--ref", help="--source git: a tag or commit (default: the release's tag)")
            add("--path", type=Path, help="--source path: a clean dynamo clone")
            add("--timeout", type=float, help="seconds a git remote may take")
            if force:
                add("--force", **FLAG, help="rebuild a cached checkout that fails its checks")
        return add

    verb("fetch", "materialise or re-verify the pinned release", fetch.run)
    add = verb("apply", "run the codemods and write patches/", apply_command.run)
    add("--check", **FLAG, help="fail if patches/ is not what the codemods make")
    add("--author", help=f"'Name <email>' (default: ${apply_command.AUTHOR_ENV}, the pin's)")
    add("--design", choices=tuple(DESIGNS), help="default: the design of patches/, else delta")
    add = verb("pin", "print one value of the pin", pin.show, checkout=False)
    add("field", choices=("version", "runtime"))

    add = verb("test-upstream", "dynamo's tests, baseline and patched", test_upstream.run)
    add("--tier", help="cpu, standin, gpu or all (default: what this machine can run)")
    add("--gpu-python", default=os.environ.get("DYNPATCH_GPU_PYTHON"), help="the GPU tier's")
    add("--out", type=Path, help="default: out/test-upstream")
    add = verb("verify", "replay the real handler on both trees, diff the chunks", verify.run)
    add("--budget", type=int, help="hypothesis streams (0: none)")
    add("--seed", type=int, help="hypothesis seed (default: a fresh one, printed)")
    add("--scenario", action="append", metavar="NAME", help="only this scenario")
    add("--python", help="the replay's interpreter (default: this one)")
    add("--out", type=Path, help="default: out/verify")
    add = verb("bench", "instruction counts, baseline vs patched, and a timed A/B", bench.run)
    add("--mutant", **FLAG, help="also count the history copy planted back: gates must fail")
    add("--record", **FLAG, help="write the reference in docs/bench/ (when the gates pass)")

    add = verb("pr", "the PR branch and its description", pr_command.run, force=False)
    add("--branch", help=f"default: ${pr_command.BRANCH_ENV}, {pr_command.DEFAULT_BRANCH}")
    who = f"default: ${pr_command.IDENTITY_ENV}, $GIT_AUTHOR_NAME/EMAIL, git config"
    add("--identity", metavar="'NAME <EMAIL>'", help=who)
    add("--allow-placeholder-identity", **FLAG, dest="allow_placeholder", help="a dry run")
    add("--sign", **FLAG, help="sign each commit with your key (git's signing), then verify")
    add("--signing-key", help="user.signingkey for --sign (default: git config)")
    add("--signing-format", choices=signing.FORMATS, help="gpg.format (default: git config)")
    add("--run-checks", **FLAG, help="first run every check the description cites, here")
    add("--reviewed", metavar="TEXT", help="the disclosure's line on what you reviewed")
    add("--contribution-request", type=int, dest="request", metavar="N", help="its issue")
    add("--supersedes-14402", **FLAG, dest="supersedes", help="say it replaces #14402 (agreed)")
    add("--posted", **FLAG, help="the earlier revision was posted: say what changed since")
    add("--discussed", metavar="URL", help="the link to the answer on #14402, for the description")
    add("--push", metavar="REMOTE", help="push the branch to your fork (default: nothing)")
    add("--force", **FLAG, dest="replace", help="replace a different branch (not keep it as vN)")
    add("--out", type=Path, help="default: out/pr/PR_DESCRIPTION.md")

    add = verb(
        "matrix", "the series on several releases, or a ref", matrix_command.run, force=False
    )
    add("--versions", help="comma-separated (default: the pin's [matrix])")
    add("--newest", **TOGGLE, help="add the newest build on PyPI (default: the pin's)")
    add("--budget", type=int, help="quick verify: hypothesis streams per release")
    add("--seed", type=int, help="quick verify: hypothesis seed")
    add("--jobs", type=int, help="releases tested at once (default: cores, max 2)")
    add("--skip", action="append", choices=matrix_stages.STAGES, help="a check not to run")
    add("--fresh", **FLAG, help="ignore cached test and verify results")
    add("--out", type=Path, help="default: out/matrix")
    add = verb("bump", "move the pin to another release, or refuse", bump.run, checkout=False)
    add("version", help="the ai-dynamo release to pin")
    add("--budget", type=int, help="verify: hypothesis streams")
    add("--seed", type=int, help="verify: hypothesis seed (default 0)")
    add("--skip", action="append", choices=matrix_stages.STAGES, help="a check not to run")
    add("--out", type=Path, help="default: out/bump")

    add = verb("wheel", "the patched release as a reproducible wheel", wheel_command.run, False)
    add("--reproduce", **TOGGLE, help="build twice and compare the bytes (default: yes)")
    add("--prove", **TOGGLE, help="install it in a fresh venv, run dynamo's logprob tests")
    add("--install-into", type=Path, metavar="PYTHON", help="prove in this interpreter")
    add("--tier", choices=("cpu", "gpu"), help="gpu: also dynamo's trtllm tests (needs CUDA)")
    add("--replay", **TOGGLE, help="replay the scenarios on the installed wheels")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ToolkitError as exc:
        for item in exc.shown:  # what failed, as data: shown before the one error line
            console.show(out, item)
        return _fail(str(exc), 2)
    except OSError as exc:  # a file or folder the run needs: say which, in one line
        return _fail(str(files.os_error(exc)), 2)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


def _fail(message: str, status: int) -> int:
    """The one error line: the first line of ``message``, with no credential in it."""
    line = gitio.redact((message.strip() or "failed").splitlines()[0])
    if len(line) > KEPT_START + 3 + KEPT_END:
        line = f"{line[:KEPT_START]} … {line[-KEPT_END:]}"
    err.print(f"error: {line}", markup=False)
    return status


if __name__ == "__main__":
    sys.exit(main())
