"""``python -m dynpatch pr``: the PR branch and its description, for the person to read,
push and submit. Every check that can refuse comes before the branch is placed and the
description written."""

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
from dynpatch.io.git import Identity
from dynpatch.pin import load_pin
from dynpatch.verbs.pr import branch as branches
from dynpatch.verbs.pr import description, validation
from dynpatch.workspace import Workspace

DEFAULT_BRANCH = "perf/trtllm-logprob-delta"
BRANCH_ENV = "DYNPATCH_PR_BRANCH"
IDENTITY_ENV = "DYNPATCH_PR_IDENTITY"
DESCRIPTION_FILE = "PR_DESCRIPTION.md"  # in out/pr/ unless --out says otherwise
VALIDATION_FILE = "VALIDATION.md"  # the full record, beside the description
RESERVED = ("example", "invalid", "test")  # top-level domains no person's email is on


@dataclass(frozen=True, kw_only=True)
class PrOptions(FetchOptions):
    branch: str | None = None  # None: $DYNPATCH_PR_BRANCH, else DEFAULT_BRANCH
    identity: str | None = None  # 'Name <email>' (None: see resolve_identity)
    allow_placeholder: bool = False  # accept an identity on a reserved domain (dry runs, CI)
    replace: bool = False  # --force: replace an existing branch whose commits differ
    out: Path | None = None  # None: out/pr/PR_DESCRIPTION.md


def run(args: PrOptions, ws: Workspace) -> StageResult:
    pin = load_pin(ws.pin)
    with locked(pin, args, ws) as checkout:  # no other run moves its refs meanwhile
        return _run(args, ws, gitio.parse_identity(pin.author), checkout)


def _run(
    args: PrOptions, ws: Workspace, series_identity: Identity, checkout: Checkout
) -> StageResult:
    name = args.branch or os.environ.get(BRANCH_ENV) or DEFAULT_BRANCH
    branches.check_checkout(checkout, name)
    signer, source = resolve_identity(args.identity, checkout.path, series_identity)
    if (tld := signer.email.rsplit(".", 1)[-1].lower()) in RESERVED and not args.allow_placeholder:
        raise ToolkitError(
            f"{signer} ({source}) is on the reserved domain .{tld}, not a person's: sign "
            "off as yourself, or pass --allow-placeholder-identity for a dry run"
        )
    digest, names = series.series_digest(ws.patches), series.names(ws.patches)
    found = validation.gather(ws.patches, checkout.base, ws.evidence)
    out = args.out or ws.out / "pr" / DESCRIPTION_FILE
    _check_writable(out)
    with tempfile.TemporaryDirectory(prefix="dynpatch-pr-") as tmp:
        scratch = Path(tmp) / "branch"
        patches = [ws.patches / n for n in names]
        plan = branches.make(
            checkout, name, patches, signer, series_identity, args.replace, scratch
        )
        title, base = plan.commits[0].subject, description.base_name(checkout)
        facts = description.Facts(
            title=title,
            base=base,
            changed=gitio.changed_paths(scratch, checkout.base, plan.tip),
            evidence=found,
            checks=description.checks(base, digest, len(names), plan, name),
            release=checkout.release.version,
        )
        text = gitio.redact(description.render(facts))
        record = gitio.redact(description.validation_record(facts))
        # Nothing refuses from here on. A run killed after placing leaves this tool's own
        # branch, which a rerun takes as unchanged.
        if plan.tip != plan.old:
            branches.place(checkout.path, scratch, name, plan.tip, plan.old)
        faults.checkpoint("pr.placed")
    files.write_atomic(out.with_name(VALIDATION_FILE), record)
    files.write_atomic(out, text)

    shown = StageResult()
    for label, line in (
        ("series", f"{len(names)} patch(es), sha256 {digest[:12]}"),
        ("base", f"{checkout.base[:12]} (ai-dynamo {checkout.release.version}, {checkout.source})"),
        ("identity", f"{signer} (from {source})"),
        ("branch", f"{name} {plan.state} at {plan.tip[:12]} in {console.rel(checkout.path)}"),
        ("checks", f"DCO (sign-off matches author): pass; title {title!r}: pass"),
        *(("evidence", e.status()) for e in found),
        ("description", f"{console.rel(out)}, the full record in {VALIDATION_FILE} beside it"),
    ):
        shown.say(f"{label:<12} {line}")
    shown.say(
        "next         dynamo does not accept fully automated submissions: read the diff and "
        "the description, change what you would not say yourself, then push the branch to "
        "your fork and open the PR yourself (docs/pr.md says how)"
    )
    if checkout.source == "pypi":  # a base made from the wheel shares no history with dynamo
        shown.say("  to push, rerun on a dynamo clone: this base is the tree of the PyPI wheel")
    for line in validation.warnings(found):
        print(f"warning: {line}", file=sys.stderr)
    return shown


def resolve_identity(option: str | None, repo: Path, series: Identity) -> tuple[Identity, str]:
    """The person's identity and where it was found, first match wins: ``option``,
    ``$DYNPATCH_PR_IDENTITY``, ``$GIT_AUTHOR_NAME``/``EMAIL``, git config
    ``user.name``/``email``. None found, or the series identity, is an error."""
    env = os.environ
    author = _pair(env.get("GIT_AUTHOR_NAME"), env.get("GIT_AUTHOR_EMAIL"))
    given = [(option, "--identity"), (env.get(IDENTITY_ENV), f"${IDENTITY_ENV}")]
    text, source = next(((t, s) for t, s in given if t), (author, "$GIT_AUTHOR_NAME/EMAIL"))
    if not text:
        config = [gitio.config_get(repo, f"user.{k}") for k in ("name", "email")]
        text, source = _pair(*config), "git config user.name/email"
    if not text:
        raise ToolkitError(
            "no identity to author and sign off the PR commits: pass --identity "
            f"'Name <email>', set ${IDENTITY_ENV}, or set git config user.name and user.email"
        )
    person = gitio.parse_identity(text)
    if person == series:
        raise ToolkitError(
            f"{person} ({source}) is the toolkit's series identity, not a person: the PR "
            "commits must be signed off by you (pass --identity 'Name <email>')"
        )
    return person, source


def _pair(name: str | None, email: str | None) -> str | None:
    return f"{name} <{email}>" if name and email else None


def _check_writable(path: Path) -> None:
    """The description can be written to ``path``, as far as can be told without writing."""
    parent = next(p for p in path.parents if p.exists())
    if path.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise ToolkitError(
            f"cannot write the description {path}: it is a folder, or {parent} is not a "
            "folder this user may write to (nothing was written)"
        )
