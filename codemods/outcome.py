"""What a codemod reports about its target: applied, already-applied or not-applicable
(skips), or drifted (naming the expected shape and what was found); any other file it skips."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import PurePath
from typing import ClassVar

from libcst import Module
from libcst.codemod import CodemodCommand, SkipFile


class Status(enum.StrEnum):
    APPLIED = "applied"
    ALREADY_APPLIED = "already-applied"
    NOT_APPLICABLE = "not-applicable"
    DRIFTED = "drifted"
    FIXED_UPSTREAM = "fixed-upstream"  # set by the series runner, never by a codemod


@dataclass(frozen=True)
class Target:
    """One place a codemod rewrites: a file, a qualified name, and the expected shape."""

    path: str
    qualname: str
    expected: str

    @property
    def wheel_path(self) -> str:
        """``path`` in the wheel's layout: the wheel has what is under components/src/."""
        return self.path.removeprefix("components/src/")

    def is_file(self, filename: str | None) -> bool:
        """True when ``filename`` is this target (repository or wheel layout) or None (stdin)."""
        name = "/" + PurePath(filename or self.path).as_posix()
        return any(name.endswith("/" + p) for p in (self.path, self.wheel_path))


@dataclass(frozen=True)
class Outcome:
    target: Target
    status: Status
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in (Status.APPLIED, Status.ALREADY_APPLIED)


class NotTarget(SkipFile):
    pass


class AlreadyApplied(SkipFile):
    status = Status.ALREADY_APPLIED


class NotApplicable(SkipFile):
    status = Status.NOT_APPLICABLE


class Drifted(Exception):
    status = Status.DRIFTED

    def __init__(self, target: Target, found: str) -> None:
        super().__init__(target, found)  # the args pickle back from libcst.tool's workers
        self.target, self.found = target, found

    def __str__(self) -> str:
        t = self.target
        return f"{t.path}: {t.qualname}: expected {t.expected}; found {self.found}"


ENDINGS = (AlreadyApplied, NotApplicable, Drifted)  # ends short of applying the change


class TargetedCommand(CodemodCommand):
    """A command that rewrites one file, ``TARGET``, and skips every other file."""

    TARGET: ClassVar[Target]

    def transform_module(self, tree: Module) -> Module:
        # Before LibCST copies the module for metadata: over a tree, that copy is most of the run.
        target = self.TARGET
        if not target.is_file(self.context.filename):
            raise NotTarget(f"not {target.path} (or {target.wheel_path} in a wheel)")
        return super().transform_module(tree)
