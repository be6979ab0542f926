"""dynpatch.pr: the order of its checks and writes (refusals write nothing; a run
killed after placing the branch is finished by a rerun)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from dynpatch.io import git as gitio
from dynpatch.pr.branch import MADE
from dynpatch.workspace import TOOLKIT as ROOT
from tests.fixtures.pr import (
    BRANCH,
    HELPER,
    V1,
    World,
    nothing_written,
    one_error,
    pr_argv,
    refused,
)


def test_dirty_checkout_is_an_error(world: World, pr) -> None:
    (world.repo / HELPER).write_text("edited\n")
    status, _out, err = pr()
    assert status == 2
    one_error(err, "local changes", "logprobs.py")
    assert world.tip() is None and not world.out.exists()


def test_a_title_that_is_not_a_conventional_commit_is_refused(world: World, pr) -> None:
    world.series(V1, message="Reuse the streamed delta\n\nBody.\n")
    status, _out, err = pr()
    assert status == 2
    one_error(err, "is not a Conventional Commit")
    nothing_written(world)


def test_invalid_branch_name(world: World, pr) -> None:
    err = refused(world, pr, "--branch", "bad..name")
    one_error(err, "not a valid branch name")
    nothing_written(world)


def test_a_run_killed_after_placing_the_branch_is_finished_by_a_rerun(world: World) -> None:
    world.save("test-upstream", "verify")
    cmd = [sys.executable, "-m", "dynpatch", *pr_argv(world, "--push", str(world.fork))]
    # the codemods under test, wherever the subprocess starts
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DYNPATCH_FAULT_AT": "pr.placed"}
    died = subprocess.run(cmd, env=env, cwd=world.tmp, capture_output=True, text=True)
    assert died.returncode == -signal.SIGKILL, died.stderr
    tip = world.tip()
    assert tip is not None and gitio.ref_exists(world.repo, f"{MADE}/{tip}")
    assert not world.out.exists() and world.fork_refs() == ""

    env.pop("DYNPATCH_FAULT_AT")
    rerun = subprocess.run(cmd, env=env, cwd=world.tmp, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{BRANCH} unchanged" in rerun.stdout and "(new branch)" in rerun.stdout
    assert world.tip() == tip and world.fork_refs().split()[0] == tip
    assert world.out.is_file()
