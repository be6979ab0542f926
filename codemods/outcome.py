"""What a codemod reports about its target, and the exceptions that carry it.

Every codemod ends in exactly one of four states. ``applied`` and ``already-applied``
are successes; ``not-applicable`` is a reasoned skip (the defect does not exist in that
shape of the code); ``drifted`` means upstream moved away from the shape the codemod
was written against, and names what was expected and what was found.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from libcst.codemod import SkipFile


class Status(enum.StrEnum):
    APPLIED = "applied"
    ALREADY_APPLIED = "already-applied"
    NOT_APPLICABLE = "not-applicable"
    DRIFTED = "drifted"


@dataclass(frozen=True)
class Target:
    """One place a codemod rewrites: a file, a qualified name, and the expected shape."""

    path: str
    qualname: str
    expected: str


@dataclass(frozen=True)
class Outcome:
    target: Target
    status: Status
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in (Status.APPLIED, Status.ALREADY_APPLIED)


class AlreadyApplied(SkipFile):
    """The target already has the change; the module is returned untouched."""


class NotApplicable(SkipFile):
    """The target's code has no such defect (e.g. a release without the shared helper)."""


class Drifted(Exception):
    """The target no longer has the shape the codemod expects."""

    def __init__(self, target: Target, found: str) -> None:
        super().__init__(
            f"{target.path}: {target.qualname}: expected {target.expected}; found {found}"
        )
        self.target = target
        self.found = found
