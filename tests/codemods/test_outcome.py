"""Target: which file is the target (clone or wheel layout); and what each ending means
to libcst.tool (a skip) or to the series (drift)."""

from __future__ import annotations

import pickle

import pytest
from libcst.codemod import SkipFile

from codemods.outcome import (
    AlreadyApplied,
    Drifted,
    NotApplicable,
    NotTarget,
    Outcome,
    Status,
    Target,
)

TARGET = Target(
    path="components/src/dynamo/common/backend/logprobs.py",
    qualname="extract_from_completion_output",
    expected="a shape",
)


@pytest.mark.parametrize(
    "filename",
    [
        "components/src/dynamo/common/backend/logprobs.py",
        "/home/me/dynamo/components/src/dynamo/common/backend/logprobs.py",
        "./components/src/dynamo/common/backend/logprobs.py",
        "dynamo/common/backend/logprobs.py",
        "/venv/lib/python3.12/site-packages/dynamo/common/backend/logprobs.py",
        None,  # stdin: the caller vouches for the file
    ],
)
def test_the_target_in_a_clone_or_a_wheel(filename: str | None) -> None:
    assert TARGET.is_file(filename)
    TARGET.require_file(filename)


@pytest.mark.parametrize(
    "filename",
    [
        "logprobs.py",
        "backend/logprobs.py",
        "/home/me/dynamo/components/src/dynamo/vllm/logprobs.py",
        "/home/me/dynamo/components/src/mydynamo/common/backend/logprobs.py",
        "/home/me/dynamo/components/src/dynamo/common/backend/logprobs.pyi",
        "/home/me/dynamo/components/src/dynamo/common/backend/logprobs.py.orig",
    ],
)
def test_anything_else_is_not_the_target(filename: str) -> None:
    assert not TARGET.is_file(filename)
    with pytest.raises(NotTarget, match=r"^not components/src/dynamo/common/backend/logprobs\.py "):
        TARGET.require_file(filename)


def test_wheel_path_drops_the_repository_prefix() -> None:
    assert TARGET.wheel_path == "dynamo/common/backend/logprobs.py"


def test_skips_are_what_libcst_tool_reports_as_skipped() -> None:
    for skip in (NotTarget, AlreadyApplied, NotApplicable):
        assert issubclass(skip, SkipFile)
    # Drift is a failure, never a skip.
    assert not issubclass(Drifted, SkipFile)


def test_drift_names_file_function_expected_and_found() -> None:
    exc = Drifted(TARGET, "parameters (output, i)")
    assert str(exc) == (
        "components/src/dynamo/common/backend/logprobs.py: extract_from_completion_output: "
        "expected a shape; found parameters (output, i)"
    )
    assert exc.target is TARGET and exc.found == "parameters (output, i)"


def test_drift_survives_the_trip_back_from_a_libcst_tool_worker() -> None:
    exc = pickle.loads(pickle.dumps(Drifted(TARGET, "parameters (output, i)")))
    assert isinstance(exc, Drifted) and str(exc) == str(Drifted(TARGET, "parameters (output, i)"))
    assert exc.target == TARGET and exc.found == "parameters (output, i)"


def test_only_applied_and_already_applied_are_ok() -> None:
    ok = {s for s in Status if Outcome(TARGET, s).ok}
    assert ok == {Status.APPLIED, Status.ALREADY_APPLIED}
