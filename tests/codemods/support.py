"""``TargetedCodemodTest``: LibCST's ``CodemodTest`` for one command, run on its target
file as ``libcst.tool`` names it, with skips and drift checked with their reasons."""

from __future__ import annotations

from textwrap import dedent

import libcst
from libcst.codemod import CodemodContext, CodemodTest, SkipFile

from codemods.outcome import Drifted, TargetedCommand


class TargetedCodemodTest(CodemodTest):
    TRANSFORM: type[TargetedCommand]

    def assertApplies(self, before: str, after: str) -> None:
        self.assertCodemod(before, after, context_override=self.context())

    def assertSkips(self, source: str, kind: type[SkipFile], reason: str) -> None:
        """Skipped untouched, raising ``kind`` with ``reason`` in it."""
        self.assertIn(reason, self.raised(kind, source))

    def assertDrifts(self, source: str, found: str, *edits: tuple[str, str]) -> None:
        """``source`` with each ``(old, new)`` of ``edits`` made (the first ``old``) is
        refused, the message naming the file, function, expected shape and ``found``."""
        source = dedent(source)
        for old, new in edits:
            self.assertIn(old, source)
            source = source.replace(old, new, 1)
        target = self.TRANSFORM.TARGET
        message = self.raised(Drifted, source)
        self.assertTrue(message.startswith(f"{target.path}: {target.qualname}: expected "))
        self.assertIn(f"expected {target.expected}; found ", message)
        self.assertIn(found, message)

    def context(self) -> CodemodContext:
        return CodemodContext(filename=f"/src/dynamo/{self.TRANSFORM.TARGET.path}")

    def raised(self, kind: type[Exception], source: str) -> str:
        """The message of the ``kind`` the command raises on ``source``."""
        with self.assertRaises(kind) as caught:
            self.run_on(source)
        return str(caught.exception)

    def run_on(self, source: str) -> str:
        """The command's output on ``source`` (dedented; exceptions propagate)."""
        tree = libcst.parse_module(dedent(source))
        return self.TRANSFORM(self.context()).transform_module(tree).code
