"""``pr --sign``: every commit signed with the person's own key through git's signing
settings, each then checked by ``git verify-commit``; a missing or unusable key refuses
before anything is written. The keys are throwaway ssh keys made here."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from dynpatch.io import git as gitio
from dynpatch.io.git import Identity, Signing
from tests.fixtures.pr import V1, V2, World, git, nothing_written, one_error, refused


def keygen(path: Path) -> Path:
    """A throwaway ed25519 key at ``path`` (its public half at ``path.pub``)."""
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return path


@pytest.fixture
def key(tmp_path: Path) -> Path:
    (tmp_path / "keys").mkdir()
    return keygen(tmp_path / "keys" / "id_ed25519")


def test_every_commit_is_signed_by_the_key_and_verified(world: World, pr, key: Path) -> None:
    status, out, err = pr("--sign", "--signing-key", str(key))
    assert status == 0, err
    tip = world.tip()
    assert tip is not None and "gpgsig" in git(world.repo, "cat-file", "commit", tip).stdout
    assert f'signature    {tip[:12]} [G] Good "git" signature for jane@example.invalid' in out
    # no allowed signers configured: it says what the check rests on
    assert "against the signing key itself (gpg.ssh.allowedSignersFile is not set)" in out
    record = world.out.with_name("VALIDATION.md").read_text()
    assert "and signed with its author's key" in record
    # the same series unsigned is another revision
    status, out, err = pr()
    assert status == 0, err
    assert "commit 1: signature signed -> unsigned" in out


def test_a_key_path_relative_to_where_it_runs_signs(
    world: World, pr, key: Path, monkeypatch
) -> None:
    monkeypatch.chdir(key.parent.parent)  # git itself runs in the checkout
    status, _out, err = pr("--sign", "--signing-key", "keys/id_ed25519")
    assert status == 0, err
    assert "gpgsig" in git(world.repo, "cat-file", "commit", world.tip() or "").stdout


@pytest.fixture
def other(key: Path, isolated_git: Path) -> Path:
    """A second key, which the person's allowed signers give someone else (``key``: jane)."""
    other, allowed = keygen(key.parent / "other"), isolated_git / "allowed_signers"
    allowed.write_text(
        f"jane@example.invalid {key.with_suffix('.pub').read_text()}"
        f"someone@else.org {other.with_suffix('.pub').read_text()}"
    )
    (isolated_git / ".gitconfig").write_text(
        f'[gpg]\n\tformat = ssh\n[gpg "ssh"]\n\tallowedSignersFile = {allowed}\n'
    )
    return other


def test_the_persons_allowed_signers_file_is_what_verification_trusts(
    world: World, pr, key: Path, other: Path, isolated_git: Path
) -> None:
    # a key the allowed signers do not name, or name for another: refused, nothing written
    third = keygen(key.parent / "third")
    one_error(refused(pr, "--sign", "--signing-key", str(third)), "git verify-commit")
    nothing_written(world)
    err = refused(pr, "--sign", "--signing-key", str(other))
    one_error(err, "signed by someone@else.org, not by jane@example.invalid")
    nothing_written(world)
    with (isolated_git / ".gitconfig").open("a") as config:
        config.write(f"[user]\n\tsigningkey = {key}\n")
    status, out, err = pr("--sign")  # the key and its format from git config
    assert status == 0, err
    assert f"against your allowed signers ({isolated_git / 'allowed_signers'})" in out
    allowed = (isolated_git / ".gitconfig").read_text().split("allowedSignersFile = ")[1].split()[0]
    (isolated_git / ".gitconfig").write_text(f"[user]\n\tsigningkey = {key}\n")
    git(world.repo, "config", "gpg.ssh.allowedSignersFile", allowed)  # the checkout's own
    status, out, err = pr("--sign", "--force")
    assert status == 0, err
    assert "against your allowed signers" in out and allowed not in world.out.read_text()


def test_every_commit_of_the_series_is_checked_not_only_the_tip(
    world: World, pr, key: Path, other: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.series(V1, V2)  # two commits: the first signed by the key of someone else
    amend, keys = gitio.amend_head, iter([str(other)])

    def first_by_other(repo: Path, message: str, author: Identity, signing: Signing) -> None:
        amend(repo, message, author, dataclasses.replace(signing, key=next(keys, signing.key)))

    monkeypatch.setattr(gitio, "amend_head", first_by_other)
    one_error(refused(pr, "--sign", "--signing-key", str(key)), "signed by someone@else.org")
    nothing_written(world)


def test_a_missing_or_unusable_key_refuses_before_anything_is_written(
    world: World, pr, tmp_path: Path
) -> None:
    one_error(refused(pr, "--sign", "--signing-key", str(tmp_path / "nope")), "not found")
    nothing_written(world)
    garbage = tmp_path / "garbage"
    garbage.write_text("not a key\n")
    garbage.chmod(0o600)
    err = refused(pr, "--sign", "--signing-format", "ssh", "--signing-key", str(garbage))
    one_error(err, f"cannot read the public key of {garbage}")
    nothing_written(world)
    one_error(refused(pr, "--sign", "--signing-format", "ssh"), "needs a key")
    nothing_written(world)
