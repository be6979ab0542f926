"""``TargetedCodemodTest``: LibCST's ``CodemodTest`` for one command, run on its target
file as ``libcst.tool`` names it, with skips and drift checked with their reasons."""

from __future__ import annotations

from textwrap import dedent

import libcst
from libcst.codemod import CodemodContext, CodemodTest, SkipFile

from codemods.outcome import Drifted, TargetedCommand

CLONE = "/src/dynamo"  # libcst.tool hands over absolute paths


class TargetedCodemodTest(CodemodTest):
    TRANSFORM: type[TargetedCommand]

    def context(self) -> CodemodContext:
        return CodemodContext(filename=f"{CLONE}/{self.TRANSFORM.TARGET.path}")

    def assertApplies(self, before: str, after: str) -> None:
        self.assertCodemod(before, after, context_override=self.context())

    def assertSkips(self, source: str, kind: type[SkipFile], reason: str) -> None:
        """Skipped untouched (LibCST's own check), raising ``kind`` with ``reason`` in it."""
        self.assertCodemod(source, source, context_override=self.context(), expected_skip=True)
        with self.assertRaises(kind) as raised:
            self.run_on(source)
        self.assertIn(reason, str(raised.exception))

    def assertDrifts(self, source: str, found: str, *edits: tuple[str, str]) -> None:
        """``source`` with each ``(old, new)`` of ``edits`` made (the first ``old``) is
        refused, the message naming the file, function, expected shape and ``found``."""
        source = dedent(source)
        for old, new in edits:
            self.assertIn(old, source)
            source = source.replace(old, new, 1)
        with self.assertRaises(Drifted) as raised:
            self.run_on(source)
        target = self.TRANSFORM.TARGET
        head = f"{target.path}: {target.qualname}: expected {target.expected}; found "
        self.assertTrue(str(raised.exception).startswith(head), raised.exception)
        self.assertIn(found, str(raised.exception))

    def run_on(self, source: str) -> str:
        """The command's output on ``source`` (dedented; exceptions propagate)."""
        tree = libcst.parse_module(dedent(source))
        return self.TRANSFORM(self.context()).transform_module(tree).code
