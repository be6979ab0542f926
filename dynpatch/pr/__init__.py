"""``python -m dynpatch pr``: the PR branch and its description; pushes only when told.

Every check that can refuse comes before anything is written: the pinned checkout (clean,
a valid branch name) -> identity and signing options -> saved evidence (and, with
``--push``, the push gate and the remote: a name, URL or path, never an option) -> the
commits, built in a scratch clone -> DCO and title checks on what git recorded ->
signatures verified by git -> an existing branch of that name compared with them
(differs: range-diff shown, ``--force`` needed) -> with ``--push``, the remote's branch
inspected (foreign commits: refused). Only then is anything written: the branch placed in
the checkout -> with ``--push``, the push (failing: the branch is put back) -> the
description and VALIDATION.md beside it -> the ``gh pr create`` line.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dynpatch import console, series
from dynpatch.errors import ToolkitError
from dynpatch.evidence import StageResult
from dynpatch.fetch import Checkout, FetchOptions, locked
from dynpatch.io import faults, files
from dynpatch.io import git as gitio
from dynpatch.pin import Pin, load_pin
from dynpatch.pr import branch as branches
from dynpatch.pr import description, identity, publish, validation
from dynpatch.workspace import Workspace

DEFAULT_BRANCH = "perf/trtllm-logprob-delta"
BRANCH_ENV = "DYNPATCH_PR_BRANCH"
DESCRIPTION_FILE = "PR_DESCRIPTION.md"  # in out/pr/ unless --out says otherwise
VALIDATION_FILE = "VALIDATION.md"  # the full record, beside the description


@dataclass(frozen=True)
class PrResult:
    """The branch as it will be, decided in the scratch clone (nothing placed yet)."""

    tip: str
    old: str | None  # the checkout's branch tip now (None: no branch); == tip: unchanged
    state: str  # created | unchanged ... | replaced ...
    commits: list[gitio.CommitInfo]
    signatures: list[str]  # git's verification line per commit; empty when unsigned


@dataclass(frozen=True, kw_only=True)
class PrOptions(FetchOptions):
    timeout: float = 120.0
    branch: str | None = None  # None: $DYNPATCH_PR_BRANCH, else DEFAULT_BRANCH
    identity: str | None = None  # 'Name <email>' (None: see identity.resolve_identity)
    allow_placeholder: bool = False  # accept an identity on a reserved domain (dry runs, CI)
    sign: bool = False
    signing_key: str | None = None
    signing_format: str | None = None
    replace: bool = False  # --force: replace an existing branch whose commits differ
    push: str | None = None  # the fork: remote name, URL or path (None: push nothing)
    out: Path | None = None  # None: out/pr/PR_DESCRIPTION.md


def run(args: PrOptions, ws: Workspace) -> StageResult:
    pin = load_pin(ws.pin)
    with locked(pin, args, ws.vendor) as checkout:  # no other run moves its refs meanwhile
        return _run(args, ws, pin, checkout)


def _run(args: PrOptions, ws: Workspace, pin: Pin, checkout: Checkout) -> StageResult:
    series_identity = gitio.parse_identity(pin.author)
    name = args.branch or os.environ.get(BRANCH_ENV) or DEFAULT_BRANCH
    _check_checkout(checkout, name)
    signer = identity.resolve_identity(
        args.identity, checkout.path, series_identity, allow_placeholder=args.allow_placeholder
    )
    signing = None
    if args.sign:
        signing = identity.resolve_signing(args.signing_key, args.signing_format, checkout.path)
    digest = series.series_digest(ws.patches)
    names = series.names(ws.patches)
    found = validation.gather(ws.patches, checkout.base, ws.evidence)
    out = args.out or ws.out / "pr" / DESCRIPTION_FILE
    remote = None
    if args.push:  # refuse before anything is written, let alone sent
        source = publish.source_problem(checkout)
        blockers = ([source] if source else []) + validation.push_blockers(found)
        if blockers:
            raise ToolkitError(f"refusing to push (nothing written): {'; '.join(blockers)}")
        remote = _remote(args.push)
    _check_writable(out)
    shown = StageResult()

    def _show(label: str, text: str) -> None:
        shown.say(f"{label:<12} {text}")

    patches = [ws.patches / n for n in names]
    with tempfile.TemporaryDirectory(prefix="dynpatch-pr-") as tmp:
        scratch = Path(tmp) / "branch"
        result = _make_branch(
            checkout,
            name,
            patches,
            signer.identity,
            series_identity,
            signing,
            args.replace,
            scratch,
        )
        plan = owner = None
        if remote is not None:
            plan = publish.inspect(checkout.path, scratch, remote, name, result.tip, args.timeout)
            owner = publish.fork_owner(gitio.remote_url(checkout.path, remote))
        title = result.commits[0].subject
        base = _base_name(checkout)
        facts = description.Facts(
            title=title,
            base=base,
            changed=gitio.changed_paths(scratch, checkout.base, result.tip),
            evidence=found,
            checks=_checks(base, digest, names, result, name, signer.identity, title),
            release=checkout.release.version,
        )
        text = gitio.redact(description.render(facts))
        record = gitio.redact(description.validation_record(facts))

        # Every refusal is behind us and nothing is written yet. A run killed from here on
        # leaves at most this tool's own branch placed, which a rerun takes as unchanged.
        placed = None
        if result.tip != result.old:
            placed = branches.place(checkout.path, scratch, name, result.tip, result.old)
        faults.checkpoint("pr.placed")
        if plan is not None:
            _push(checkout.path, plan, name, placed, args.timeout)
    files.write_atomic(out.with_name(VALIDATION_FILE), record)
    files.write_atomic(out, text)

    _show(
        "series",
        f"{console.rel(ws.patches)}/series: {_count(len(names), 'patch')}, sha256 {digest[:12]}",
    )
    _show(
        "base",
        f"{checkout.base[:12]} (ai-dynamo {checkout.release.version}, "
        f"{checkout.source}) in {console.rel(checkout.path)}",
    )
    _show("identity", f"{signer.identity} (from {signer.source})")
    made = _count(len(result.commits), "commit")
    _show("branch", f"{name} {result.state} at {result.tip[:12]}: {made} (git am of the series)")
    _show("checks", f"DCO (sign-off matches author): pass; title {title!r}: pass")
    for c, line in zip(result.commits, result.signatures, strict=False):
        _show("signature", f"{c.sha[:12]} {line}")
    if not result.signatures:
        _show("signature", "not signed (--sign signs with git's GPG or SSH signing)")
    for e in found:
        _show("evidence", e.status())
    _show("description", f"{console.rel(out)}, the full record in {VALIDATION_FILE} beside it")
    if plan is not None:
        _show("push", plan.describe(name))
    else:
        hint = publish.source_problem(checkout)
        refused = f"; from this checkout it would be refused: {hint}" if hint else ""
        _show("push", f"nothing pushed (the default): --push REMOTE pushes to your fork{refused}")
    _show(
        "next",
        "dynamo does not accept fully automated submissions: read the diff and the "
        "description, change what you would not say yourself, then open the PR yourself:",
    )
    shown.say(
        "  " + gitio.redact(publish.gh_command(pin.url, owner, name, title, console.rel(out)))
    )
    for line in validation.warnings(found):
        print(f"warning: {line}", file=sys.stderr)
    return shown


def _make_branch(
    checkout: Checkout,
    name: str,
    patches: list[Path],
    signer: gitio.Identity,
    series_identity: gitio.Identity,
    signing: gitio.Signing | None,
    force: bool,
    scratch: Path,
) -> PrResult:
    """Build and check the commits in a new clone ``scratch``, and compare them with the
    checkout's branch ``name`` there; the checkout is only read."""
    if signing is not None:
        signing = _with_allowed_signers(signing, signer, checkout.path, scratch.parent)
    commits = branches.build(checkout, patches, signer, series_identity, signing, scratch)
    problems = branches.check(commits, series_identity)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ToolkitError(f"{problems[0]}{more}")
    if signing is not None:
        for c in commits:
            gitio.verify_commit(scratch, c.sha, signing)
    old = branches.existing_tip(scratch, checkout.path, name)
    tip, state = _decide(checkout, name, commits[-1].sha, old, scratch, force)
    # What the branch will hold (the earlier, identical commits when unchanged).
    commits = gitio.commits_between(scratch, checkout.base, tip)
    signatures = []
    if signing is not None:
        signatures = [gitio.verify_commit(scratch, c.sha, signing) for c in commits]
    return PrResult(tip, old, state, commits, signatures)


def _check_checkout(checkout: Checkout, branch: str) -> None:
    """The checkout is clean, the name is a valid branch, and that branch is not checked out
    (its HEAD would then not be the base, and a work tree would go stale under it)."""
    changes = gitio.local_changes(checkout.path)
    if changes:
        shown = ", ".join(c[3:] for c in changes[:3]) + (" ..." if len(changes) > 3 else "")
        raise ToolkitError(
            f"{checkout.path} has local changes ({shown}); commit or stash them first "
            "(nothing was written)"
        )
    if not gitio.valid_branch_name(checkout.path, branch):
        raise ToolkitError(f"{branch!r} is not a valid branch name")
    busy = gitio.worktrees_on(checkout.path, branch)
    if busy:
        raise ToolkitError(
            f"{branch} is checked out in {busy[0]}: check out the base there "
            f"(git checkout --detach {checkout.base[:12]}) and rerun"
        )


def _with_allowed_signers(
    signing: gitio.Signing, signer: gitio.Identity, repo: Path, tmp: Path
) -> gitio.Signing:
    """SSH signatures are verified against ``gpg.ssh.allowedSignersFile``: the person's own
    when configured, else a temporary one naming their key for their email."""
    if signing.format != "ssh" or gitio.config_get(repo, "gpg.ssh.allowedSignersFile"):
        return signing
    allowed = tmp / "allowed_signers"
    public = gitio.ssh_public_key(signing.key or "")
    allowed.write_text(identity.allowed_signers_line(signer, public))
    return gitio.Signing(signing.format, signing.key, allowed)


def _decide(
    checkout: Checkout, name: str, new: str, old: str | None, scratch: Path, force: bool
) -> tuple[str, str]:
    """The tip branch ``name`` is to have and what that does to it; refuses to replace a
    different branch without ``force`` (range-diff shown). Compared in ``scratch``, which
    holds both tips."""
    existing = branches.compare(scratch, old, checkout.base, new)
    if existing is None:
        return new, "created"
    if not existing.differences:
        return existing.tip, "unchanged (same trees, messages, authors and signing)"
    if existing.range_diff:
        print(f"git range-diff {checkout.base[:12]} {existing.tip[:12]} {new[:12]}:")
        print(existing.range_diff.rstrip())
    what = "; ".join(existing.differences)
    if not force:
        raise ToolkitError(
            f"branch {name} already exists at {existing.tip[:12]} and differs ({what}); "
            "rerun with --force to replace it (nothing was changed)"
        )
    return new, f"replaced (was {existing.tip[:12]}: {what}; old tip in the reflog)"


def _push(
    repo: Path, plan: publish.Pushed, name: str, placed: branches.Placed | None, timeout: float
) -> None:
    """Push as ``plan`` says. A push that fails puts the branch placed for it back, so the
    run changed nothing locally."""
    try:
        publish.push(repo, plan, name, timeout)
    except ToolkitError as exc:
        if placed is not None:
            try:
                branches.undo(repo, placed)
            except ToolkitError as undo:
                raise ToolkitError(
                    gitio.redact(f"{exc}; putting {name} back failed too: {undo}")
                ) from None
        raise ToolkitError(
            gitio.redact(f"{exc} (nothing was changed locally: {name} is as it was)")
        ) from None
    publish.confirm(repo, plan, name, timeout)


def _remote(value: str) -> str:
    """``--push`` as git is to get it: never an option or a remote helper, and a relative
    folder made absolute (git runs in the checkout, not in the current folder)."""
    remote = gitio.check_remote(value)
    path = Path(remote)
    if "/" in remote and "://" not in remote and not path.is_absolute() and path.is_dir():
        return str(path.resolve())
    return remote


def _check_writable(path: Path) -> None:
    """The description can be written to ``path``, as far as can be told without writing:
    not a folder, and its nearest existing parent is a folder this process may write to."""
    if path.is_dir():
        raise ToolkitError(f"cannot write the description {path}: it is a folder")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise ToolkitError(
            f"cannot write the description {path}: {parent} is not a folder this user may "
            "write to (nothing was written)"
        )


def _base_name(checkout: Checkout) -> str:
    """The base as a reader names it: the release tag for the tree made from its PyPI
    wheel; else the ref asked for (git) or a tag at the commit (path), and the commit with
    its date."""
    if checkout.source == "pypi":
        return (
            f"`{checkout.release.tag}` (ai-dynamo {checkout.release.version}, from its PyPI wheel)"
        )
    tags, date = gitio.tags_and_date(checkout.path, checkout.base)
    names = [t for t in tags if t != checkout.release.base_tag]  # not the toolkit's own
    label = gitio.config_get(checkout.path, "dynpatch.ref") if checkout.source == "git" else None
    label = label or next(iter(names), None)
    commit = f"commit `{checkout.base[:12]}` of {date}"
    return f"`{label}`, {commit}" if label and not checkout.base.startswith(label) else commit


def _checks(
    base: str,
    digest: str,
    names: list[str],
    result: PrResult,
    branch: str,
    signer: gitio.Identity,
    title: str,
) -> list[str]:
    """This run's own checks (all passed to get here), as Markdown lines for VALIDATION.md."""
    lines = [
        f"`git am` of `patches/series` ({_count(len(names), 'patch')}, sha256 "
        f"`{digest[:12]}`) onto {base}: applies; {_count(len(result.commits), 'commit')} on "
        f"`{branch}`.",
        f"DCO: every commit has a `Signed-off-by` matching its author ({signer}): pass.",
        f"Title `{title}` is a Conventional Commit: pass.",
    ]
    lines += [
        f"`git verify-commit {c.sha[:12]}`: {s}"
        for c, s in zip(result.commits, result.signatures, strict=False)
    ]
    if not result.signatures:
        lines.append("Signatures: the commits are not signed.")
    return lines


def _count(n: int, noun: str) -> str:
    plural = "es" if noun.endswith("h") else "s"
    return f"{n} {noun}{'' if n == 1 else plural}"
