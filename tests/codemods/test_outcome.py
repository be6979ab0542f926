"""Target: which file is a command's target (clone or wheel layout); and what each ending
means to libcst.tool (a skip or a failure) and to the series."""

from __future__ import annotations

import contextlib
import pickle
from textwrap import dedent

import libcst
import pytest
from libcst.codemod import CodemodContext, SkipFile

from codemods.outcome import ENDINGS, Drifted, NotTarget, Outcome, Status
from codemods.series import SERIES
from tests.codemods.test_logprobs_helper import BEFORE

TARGET = SERIES[0].target  # components/src/dynamo/common/backend/logprobs.py
HERE = "/home/me/dynamo/components/src/dynamo/"


@pytest.mark.parametrize(
    ("filename", "is_target"),
    [
        (TARGET.path, True),
        (f"{HERE}common/backend/logprobs.py", True),
        (f"./{TARGET.path}", True),
        ("/venv/lib/python3.12/site-packages/dynamo/common/backend/logprobs.py", True),
        (None, True),  # stdin: the caller vouches for the file
        ("backend/logprobs.py", False),
        (f"{HERE}vllm/logprobs.py", False),
        ("/src/components/src/mydynamo/common/backend/logprobs.py", False),
        (f"{HERE}common/backend/logprobs.pyi", False),
        (f"{HERE}common/backend/logprobs.py.orig", False),
    ],
)
def test_the_target_in_a_clone_or_a_wheel_and_nothing_else(filename, is_target) -> None:
    assert TARGET.is_file(filename) is is_target


@pytest.mark.parametrize("step", SERIES, ids=lambda s: s.codemod.__name__)
def test_every_command_skips_what_is_not_its_target(step) -> None:
    """The same text under another name is skipped untouched; in the wheel, or from stdin,
    it is the target."""
    tree = libcst.parse_module(dedent(BEFORE))
    other = f"{HERE}sglang/{step.target.path.rpartition('/')[2]}"
    with pytest.raises(NotTarget, match=f"^not {step.target.path} \\(or {step.target.wheel_path}"):
        step.codemod(CodemodContext(filename=other)).transform_module(tree)
    wheel = CodemodContext(filename=f"/site-packages/{step.target.wheel_path}")
    for context in (wheel, CodemodContext()):  # libcst.tool's for a module from stdin
        with contextlib.suppress(*ENDINGS):  # not NotTarget
            step.codemod(context).transform_module(tree)


def test_skips_are_skips_and_drift_a_failure_that_survives_a_worker() -> None:
    assert [issubclass(k, SkipFile) for k in (NotTarget, *ENDINGS)] == [True] * 3 + [False]
    exc = pickle.loads(pickle.dumps(Drifted(TARGET, "parameters (output, i)")))
    assert str(exc) == (
        "components/src/dynamo/common/backend/logprobs.py: extract_from_completion_output: "
        f"expected {TARGET.expected}; found parameters (output, i)"
    )
    assert exc.target == TARGET and exc.found == "parameters (output, i)"


def test_only_applied_and_already_applied_are_ok() -> None:
    assert {s for s in Status if Outcome(TARGET, s).ok} == {Status.APPLIED, Status.ALREADY_APPLIED}
