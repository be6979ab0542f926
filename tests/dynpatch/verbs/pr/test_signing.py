"""``pr --sign``: every commit signed with the person's own key through git's signing
settings, each then checked by ``git verify-commit``; a missing or unusable key refuses
before anything is written. The keys are throwaway ssh keys made here."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fixtures.pr import World, git, nothing_written, one_error, refused


@pytest.fixture
def key(tmp_path: Path) -> Path:
    path = tmp_path / "keys" / "id_ed25519"
    path.parent.mkdir()
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "throwaway", "-f", str(path)],
        check=True,
    )
    return path


def test_every_commit_is_signed_by_the_key_and_verified(world: World, pr, key: Path) -> None:
    status, out, err = pr("--sign", "--signing-key", str(key))
    assert status == 0, err
    tip = world.tip()
    assert tip is not None and "gpgsig" in git(world.repo, "cat-file", "commit", tip).stdout
    assert f'signature    {tip[:12]} [G] Good "git" signature for jane@example.invalid' in out
    # no allowed signers configured: it says what the check rests on
    assert "against the signing key itself (gpg.ssh.allowedSignersFile is not set)" in out
    record = world.out.with_name("VALIDATION.md").read_text()
    assert (
        "signed, every signature checked (git verify-commit against the signing key itself"
        in record
    )
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


def test_the_persons_allowed_signers_file_is_what_verification_trusts(
    world: World, pr, key: Path, isolated_git: Path
) -> None:
    allowed = isolated_git / "allowed_signers"
    allowed.write_text(f"jane@example.invalid {key.with_suffix('.pub').read_text()}")
    (isolated_git / ".gitconfig").write_text(
        f'[gpg]\n\tformat = ssh\n[gpg "ssh"]\n\tallowedSignersFile = {allowed}\n'
    )
    # a key the allowed signers do not name: verify-commit refuses, nothing is written
    other = key.parent / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    one_error(refused(pr, "--sign", "--signing-key", str(other)), "git verify-commit")
    nothing_written(world)
    with (isolated_git / ".gitconfig").open("a") as config:
        config.write(f"[user]\n\tsigningkey = {key}\n")
    status, out, err = pr("--sign")  # the key and its format from git config
    assert status == 0, err
    assert f"against your allowed signers ({allowed})" in out


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
