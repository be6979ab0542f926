"""dynpatch.pr.identity through `pr`: who signs off, and signing verified by git."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.pr import BRANCH, JANE, World, git, nothing_written, one_error, refused, ssh_key


def test_an_identity_on_a_reserved_domain_is_refused_unless_allowed(world: World, pr) -> None:
    for email in ("jane@example.invalid", "jane@dynpatch.example", "ci@build.TEST"):
        err = refused(world, pr, identity=f"Jane Doe <{email}>", placeholder=False)
        one_error(err, "is on the reserved domain", "--allow-placeholder-identity")
    nothing_written(world)
    status, _out, err = pr(identity="Jane Doe <jane@example.invalid>")  # the flag given
    assert status == 0, err
    assert git(world.repo, "log", "-1", "--format=%an <%ae>", BRANCH).stdout.strip() == JANE
    # a newline in the identity is refused also when a branch exists
    err = refused(world, pr, "--force", identity="Jane\nDoe <jane@example.invalid>")
    one_error(err, "not an identity of the form 'Name <email>'")


def test_identity_from_environment_then_git_config(
    world: World, pr, isolated_git: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (isolated_git / ".gitconfig").write_text(
        "[user]\n\tname = Cfg Person\n\temail = cfg@example.invalid\n"
    )
    status, out, err = pr(identity=None)
    assert status == 0, err
    assert "Cfg Person <cfg@example.invalid> (from git config user.name/email)" in out
    monkeypatch.setenv("DYNPATCH_PR_IDENTITY", "Env Person <env@example.invalid>")
    status, out, err = pr("--force", identity=None)
    assert status == 0, err
    assert "Env Person <env@example.invalid> (from $DYNPATCH_PR_IDENTITY)" in out
    assert "replaced" in out and "author Cfg Person" in out
    assert git(world.repo, "log", "-1", "--format=%ae %ce", BRANCH).stdout.split() == [
        "env@example.invalid",
        "env@example.invalid",
    ]


def test_ssh_signed_commits_verify_with_git(world: World, pr) -> None:
    key = ssh_key(world.tmp)
    status, out, err = pr("--sign", "--signing-key", str(key))
    assert status == 0, err
    tip = world.tip()
    assert '[G] Good "git" signature for jane@example.invalid with ED25519 key' in out
    assert "`git verify-commit" in world.out.with_name("VALIDATION.md").read_text()

    # checked again with git alone, against an allowed-signers file made here; a different
    # key is not accepted (the check can fail)
    (world.tmp / "second").mkdir()
    allowed = world.tmp / "allowed"
    cfg = ["-c", f"gpg.ssh.allowedSignersFile={allowed}"]
    for signer, verified in ((key, True), (ssh_key(world.tmp / "second"), False)):
        public = signer.with_suffix(".pub").read_text()
        allowed.write_text(f'jane@example.invalid namespaces="git" {public}')
        ran = git(world.repo, *cfg, "verify-commit", tip, check=False)
        assert (ran.returncode == 0) is verified

    # signing is part of what a regeneration compares
    status, _out, err = pr()
    assert status == 2
    one_error(err, "signature signed -> unsigned", "--force")


def test_gpg_signed_commits_verify_with_git(
    world: World, pr, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("gpg") is None or shutil.which("gpgconf") is None:
        pytest.skip("gpg is not installed")
    home = world.tmp / "gnupg"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("GNUPGHOME", str(home))
    try:
        gpg = [*["gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase"], ""]
        gpg += ["--quick-gen-key", JANE, "ed25519", "sign", "1d"]
        subprocess.run(gpg, check=True, capture_output=True, timeout=120)
        status, out, err = pr("--sign", "--signing-format", "openpgp")
        assert status == 0, err
        assert '[G] Good signature from "Jane Doe <jane@example.invalid>"' in out
        assert git(world.repo, "verify-commit", world.tip(), check=False).returncode == 0
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env={**os.environ}, check=False)
