"""Values from the user on their way to git: identities, and URLs and refs never options."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import proc
from dynpatch.io.proc import redact

# A name git accepts as an identity: no angle brackets, no control characters, and
# something left once git strips its "crud" characters from the ends.
_IDENTITY = re.compile(
    r"^[ \t]*(?P<name>[^<>\x00-\x1f\x7f]*?)[ \t]*<(?P<email>[^<>\s]+@[^<>\s]+)>[ \t]*\Z"
)
_CRUD = " .,:;<>\"\\'"
UPSTREAM_IDENTITY = "upstream release <upstream-release@dynpatch.invalid>"


@dataclass(frozen=True)
class Identity:
    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


def parse_identity(text: str) -> Identity:
    """``Name <email>`` as git records it (git strips "crud" from the ends of both); anything
    git would refuse is an error here, before anything is written."""
    match = _IDENTITY.match(text or "")
    if not match or not match["name"].strip(_CRUD):
        raise ToolkitError(f"not an identity of the form 'Name <email>': {text!r}")
    return Identity(match["name"].strip(_CRUD), match["email"].strip(_CRUD))


_SCP = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^:]")
_SCHEMES = ("https://", "http://", "ssh://", "git://", "file://")
_HEX = re.compile(r"^[0-9a-f]{7,64}$")


def check_url(url: str, what: str = "--url") -> str:
    """A URL or local path git takes as a location, never as an option or helper (``ext::``)."""
    shown = redact(url)
    if not url or url.startswith("-") or any(ord(c) < 32 for c in url):
        raise ToolkitError(f"{what} {shown!r} is not a repository URL or path")
    if url.startswith(_SCHEMES) or _SCP.match(url):
        return url
    if "::" in url or "://" in url:
        raise ToolkitError(
            f"{what} {shown!r}: only https, http, ssh, git and file URLs (or a local path) "
            "are accepted"
        )
    if not Path(url).is_dir():
        raise ToolkitError(f"{what} {shown!r} is neither a URL nor an existing folder")
    return url


def check_ref(ref: str, what: str = "--ref") -> str:
    """A tag, branch or commit id that is a valid git ref name and not an option."""
    if _HEX.match(ref):
        return ref
    cmd = ["git", "check-ref-format", "--allow-onelevel", f"refs/dynpatch-check/{ref}"]
    if (
        not ref
        or ref.startswith("-")
        or any(ord(c) <= 32 for c in ref)
        or proc.run(cmd, doing="git check-ref-format", timeout=30).returncode != 0
    ):
        raise ToolkitError(f"{what} {ref!r} is not a valid git tag, branch or commit id")
    return ref


def check_remote(remote: str, what: str = "--push") -> str:
    """A configured remote's name, or a URL or path (see :func:`check_url`)."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", remote):
        return remote
    return check_url(remote, what)
