"""What ``pr --sign`` signs with: git's own settings (``gpg.format``, ``user.signingkey``),
from the options or the person's git config, checked before anything is written; and what
``git verify-commit`` is told to trust."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import git as gitio
from dynpatch.io.git import Identity, Signing

FORMATS = ("openpgp", "ssh", "x509")
_PROGRAMS = {
    "openpgp": ("gpg.program", "gpg"),
    "ssh": ("gpg.ssh.program", "ssh-keygen"),
    "x509": ("gpg.x509.program", "gpgsm"),
}


@dataclass(frozen=True)
class Trust:
    """The signing and what its verification rests on, said in one line."""

    signing: Signing
    checked: str


def resolve(key: str | None, fmt: str | None, repo: Path) -> Signing:
    """``--signing-key``/``--signing-format``, else git config ``user.signingkey`` and
    ``gpg.format`` (of the checkout, which reads the person's global config too); an
    SSH-looking key means ``ssh``. A key that is missing, or a program git would need
    and cannot find, is an error here."""
    key = key or gitio.config_get(repo, "user.signingkey")
    if key and key.startswith(("/", "~", "./", "../")) and not Path(key).expanduser().exists():
        raise ToolkitError(f"signing key {key} not found (nothing was written)")
    fmt = fmt or gitio.config_get(repo, "gpg.format") or ("ssh" if _looks_ssh(key) else "openpgp")
    if fmt not in FORMATS:
        raise ToolkitError(f"signing format {fmt!r} is not one git knows ({', '.join(FORMATS)})")
    if fmt == "ssh" and not key:
        raise ToolkitError(
            "--sign with ssh needs a key: pass --signing-key PATH or set git config "
            "user.signingkey (nothing was written)"
        )
    setting, default = _PROGRAMS[fmt]
    program = gitio.config_get(repo, setting) or default
    if shutil.which(program) is None:
        raise ToolkitError(f"--sign with format {fmt} needs {program}, which is not installed")
    if fmt == "ssh" and key and not key.startswith(("key::", "ssh-")):  # a path
        if not Path(key).expanduser().is_file():
            raise ToolkitError(f"signing key {key} not found (nothing was written)")
        key = str(Path(key).expanduser().absolute())  # git runs in the checkout, not here
    return Signing(fmt, key)


def trust(signing: Signing, signer: Identity, repo: Path, tmp: Path) -> Trust:
    """What ``git verify-commit`` checks each signature (by ``signer``) against. ssh: their
    ``gpg.ssh.allowedSignersFile`` when set, else a file in ``tmp`` naming only this key for
    their email (which shows the key signed them, not that anyone trusts the key)."""
    if signing.format != "ssh":
        return Trust(signing, f"git verify-commit with {signing.format} (your keyring's trust)")
    configured = gitio.config_get(repo, "gpg.ssh.allowedSignersFile")
    if configured:  # named to git outright: the branch is built in a clone without your config
        on = f"your allowed signers ({configured}), each signature by {signer.email}"
        named = Signing(signing.format, signing.key, Path(configured).expanduser())
        return Trust(named, f"git verify-commit against {on}")
    allowed = tmp / "allowed_signers"
    public = gitio.ssh_public_key(signing.key or "")
    allowed.write_text(f'{signer.email} namespaces="git" {public}\n')
    checked = (
        "git verify-commit against the signing key itself (gpg.ssh.allowedSignersFile is "
        "not set): the commits are signed by that key; GitHub shows them Verified once it "
        "is a signing key of your account"
    )
    return Trust(Signing(signing.format, signing.key, allowed), checked)


def _looks_ssh(key: str | None) -> bool:
    if not key:
        return False
    if key.startswith(("key::", "ssh-", "ecdsa-", "sk-")) or key.endswith(".pub"):
        return True
    try:
        with Path(key).expanduser().open("rb") as fh:
            return fh.read(64).startswith((b"-----BEGIN OPENSSH PRIVATE KEY", b"ssh-"))
    except OSError:
        return False
