"""What the codemod twins share: a ``CodemodTest`` that runs a command on its target
file (as ``libcst.tool`` names it) and checks skips and drift with their reasons, and a
synthetic test module in the shape of dynamo's ``test_logprobs.py``."""

from __future__ import annotations

import libcst
from libcst.codemod import CodemodContext, CodemodTest, SkipFile

from codemods.outcome import Drifted, NotTarget, Target, TargetedCommand

# Paths as libcst.tool hands them over: absolute, in a clone or an unpacked wheel.
CLONE = "/src/dynamo"
WHEEL = "/site-packages"
# A file of the tree no command targets.
OTHER_FILE = f"{CLONE}/components/src/dynamo/vllm/handlers.py"


class TargetedCodemodTest(CodemodTest):
    """A twin for one command, ``TRANSFORM``, run as libcst.tool runs it on a file."""

    TRANSFORM: type[TargetedCommand]

    @property
    def TARGET(self) -> Target:
        return self.TRANSFORM.TARGET

    def in_clone(self) -> str:
        return f"{CLONE}/{self.TARGET.path}"

    def in_wheel(self) -> str:
        return f"{WHEEL}/{self.TARGET.wheel_path}"

    def context(self, filename: str | None = None) -> CodemodContext:
        return CodemodContext(filename=filename or self.in_clone())

    def assertApplies(self, before: str, after: str, filename: str | None = None) -> None:
        self.assertCodemod(before, after, context_override=self.context(filename))

    def assertSkips(
        self,
        source: str,
        kind: type[SkipFile],
        reason: str,
        filename: str | None = None,
    ) -> None:
        """The command skips ``source`` untouched, raising ``kind`` with ``reason`` in it."""
        self.assertCodemod(
            source, source, context_override=self.context(filename), expected_skip=True
        )
        with self.assertRaises(kind) as raised:
            self.run_on(source, filename)
        self.assertIn(reason, str(raised.exception))

    def assertNotTarget(self, source: str, filename: str = OTHER_FILE) -> None:
        self.assertSkips(source, NotTarget, f"not {self.TARGET.path}", filename)

    def assertDrifts(self, source: str, *found: str) -> str:
        """The command refuses ``source`` naming file, function, expected shape and
        each of ``found``; returns the message."""
        with self.assertRaises(Drifted) as raised:
            self.run_on(source)
        message = str(raised.exception)
        self.assertTrue(
            message.startswith(
                f"{self.TARGET.path}: {self.TARGET.qualname}: expected {self.TARGET.expected}; "
                "found "
            ),
            message,
        )
        for text in found:
            self.assertIn(text, message)
        return message

    def run_on(self, source: str, filename: str | None = None) -> str:
        """The command's output on ``source`` (exceptions propagate)."""
        command = self.TRANSFORM(self.context(filename))
        return command.transform_module(libcst.parse_module(source)).code


# A test module in the shape of dynamo's test_logprobs.py (written for these tests).
TEST_MODULE = """\
# SPDX-License-Identifier: Apache-2.0
from types import SimpleNamespace

import pytest

from dynamo.common.backend.logprobs import (
    extract_from_completion_output,
    parse_logprob_options,
)

pytestmark = [
    pytest.mark.unit,
    pytest.mark.gpu_0,
    pytest.mark.core,
    pytest.mark.pre_merge,
]


def _logprob(lp, rank=1, decoded=None):
    return SimpleNamespace(logprob=lp, rank=rank, decoded_token=decoded)


class _ExplodingTokenIds:
    def __len__(self):
        return 2

    def __iter__(self):
        raise AssertionError("token_ids copied though no logprobs were requested")


def test_parse_options():
    assert parse_logprob_options({}) == (None, None)


def test_extract_completion_returns_none_when_logprobs_absent():
    output = SimpleNamespace(token_ids=[1], logprobs=None)
    assert extract_from_completion_output(output, 0) == (None, None)


# ---- prompt logprobs ----


def test_prompt_logprobs():
    assert True
"""
