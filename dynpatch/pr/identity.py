"""Who signs the PR commits off (a person, never the series identity of ``patches/``),
and how they are signed."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import git as gitio
from dynpatch.io.git import Identity, Signing

IDENTITY_ENV = "DYNPATCH_PR_IDENTITY"
SIGNING_KEY_ENV = "DYNPATCH_SIGNING_KEY"
FORMATS = ("openpgp", "ssh", "x509")
RESERVED = ("example", "invalid", "test")  # top-level domains no person's email is on
_PROGRAMS = {
    "openpgp": ("gpg.program", "gpg"),
    "ssh": ("gpg.ssh.program", "ssh-keygen"),
    "x509": ("gpg.x509.program", "gpgsm"),
}


@dataclass(frozen=True)
class Signer:
    identity: Identity
    source: str  # where it was found, shown to the person


def resolve_identity(
    option: str | None,
    repo: Path,
    series: Identity | None = None,
    env: Mapping[str, str] | None = None,
    allow_placeholder: bool = False,
) -> Signer:
    """The person's identity, first match wins: ``option``, ``$DYNPATCH_PR_IDENTITY``,
    ``$GIT_AUTHOR_NAME``/``EMAIL``, git config ``user.name``/``email``. None found, the
    series identity, or (unless ``allow_placeholder``) an email on a domain reserved for
    examples and tests (RFC 2606, RFC 6761) is an error."""
    env = os.environ if env is None else env
    signer = _find_identity(option, repo, env)
    if signer is None:
        raise ToolkitError(
            "no identity to author and sign off the PR commits: pass --identity "
            f"'Name <email>', set ${IDENTITY_ENV}, or set git config user.name and user.email"
        )
    if series is not None and signer.identity == series:
        raise ToolkitError(
            f"{signer.identity} ({signer.source}) is the toolkit's series identity, not a "
            "person: the PR commits must be signed off by you (pass --identity 'Name <email>')"
        )
    tld = signer.identity.email.rsplit(".", 1)[-1].lower()
    if tld in RESERVED and not allow_placeholder:
        raise ToolkitError(
            f"{signer.identity} ({signer.source}) is on the reserved domain .{tld}, not a "
            "person's: sign off as yourself, or pass --allow-placeholder-identity for a dry run"
        )
    return signer


def _find_identity(option: str | None, repo: Path, env: Mapping[str, str]) -> Signer | None:
    if option:
        return Signer(gitio.parse_identity(option), "--identity")
    if env.get(IDENTITY_ENV):
        return Signer(gitio.parse_identity(env[IDENTITY_ENV]), f"${IDENTITY_ENV}")
    name, email = env.get("GIT_AUTHOR_NAME"), env.get("GIT_AUTHOR_EMAIL")
    if name and email:
        return Signer(gitio.parse_identity(f"{name} <{email}>"), "$GIT_AUTHOR_NAME/EMAIL")
    name, email = gitio.config_get(repo, "user.name"), gitio.config_get(repo, "user.email")
    if name and email:
        return Signer(gitio.parse_identity(f"{name} <{email}>"), "git config user.name/email")
    return None


def resolve_signing(
    key: str | None, fmt: str | None, repo: Path, env: Mapping[str, str] | None = None
) -> Signing:
    """What ``--sign`` signs with: the options, else ``$DYNPATCH_SIGNING_KEY``, else git
    config ``user.signingkey`` / ``gpg.format`` (an SSH-looking key means ``ssh``)."""
    env = os.environ if env is None else env
    key = key or env.get(SIGNING_KEY_ENV) or gitio.config_get(repo, "user.signingkey")
    fmt = fmt or gitio.config_get(repo, "gpg.format") or ("ssh" if _looks_ssh(key) else "openpgp")
    if fmt not in FORMATS:
        raise ToolkitError(f"signing format {fmt!r} is not one git knows ({', '.join(FORMATS)})")
    if fmt == "ssh" and not key:
        raise ToolkitError(
            "SSH signing needs a key: pass --signing-key PATH or set git config user.signingkey"
        )
    setting, default = _PROGRAMS[fmt]
    program = gitio.config_get(repo, setting) or default
    if shutil.which(program) is None:
        raise ToolkitError(f"--sign with format {fmt} needs {program}, which is not installed")
    literal = key is not None and key.startswith(("key::", "ssh-"))
    if fmt == "ssh" and key and not literal and not Path(key).expanduser().is_file():
        raise ToolkitError(f"SSH signing key {key} not found")
    return Signing(fmt, key)


def _looks_ssh(key: str | None) -> bool:
    if not key:
        return False
    if key.startswith(("key::", "ssh-", "ecdsa-", "sk-")) or key.endswith(".pub"):
        return True
    path = Path(key).expanduser()
    try:
        with path.open("rb") as fh:
            head = fh.read(64)
    except OSError:
        return False
    return head.startswith((b"-----BEGIN OPENSSH PRIVATE KEY", b"ssh-"))


def with_allowed_signers(signing: Signing, signer: Identity, repo: Path, tmp: Path) -> Signing:
    """SSH signatures are verified against ``gpg.ssh.allowedSignersFile``: the person's own
    when configured, else one in ``tmp`` naming their key for their email."""
    if signing.format != "ssh" or gitio.config_get(repo, "gpg.ssh.allowedSignersFile"):
        return signing
    allowed = tmp / "allowed_signers"
    public = gitio.ssh_public_key(signing.key or "")
    allowed.write_text(f'{signer.email} namespaces="git" {public}\n')
    return Signing(signing.format, signing.key, allowed)
