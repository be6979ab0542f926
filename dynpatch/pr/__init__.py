"""``python -m dynpatch pr``: the PR branch and its description; pushes only when told.

Every check that can refuse comes before anything is written (the checkout, the identity
and signing, the saved evidence and the push gate, the commits in a scratch clone, an
existing branch, the remote's branch); only then is the branch placed, pushed (failing:
put back) and the description written.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dynpatch import console
from dynpatch.apply.export import PATCHES, series_names
from dynpatch.errors import ToolkitError
from dynpatch.evidence import EVIDENCE, OUT, series_digest
from dynpatch.fetch import Checkout, FetchOptions, locked
from dynpatch.io import faults, files
from dynpatch.io import git as gitio
from dynpatch.pin import Pin, load_pin
from dynpatch.pr import branch as branches
from dynpatch.pr import description, identity, publish, validation

DEFAULT_BRANCH = "perf/trtllm-logprob-delta"
BRANCH_ENV = "DYNPATCH_PR_BRANCH"
DESCRIPTION_FILE = OUT / "pr" / "PR_DESCRIPTION.md"
VALIDATION_FILE = "VALIDATION.md"  # the full record, beside the description


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
    out: Path = DESCRIPTION_FILE
    patches: Path = PATCHES
    evidence: Path = EVIDENCE


def run(args: PrOptions) -> int:
    pin = load_pin(args.pin)
    with locked(pin, args) as checkout:  # no other run moves its refs meanwhile
        return _run(args, pin, checkout)


def _run(args: PrOptions, pin: Pin, checkout: Checkout) -> int:
    series_identity = gitio.parse_identity(pin.author)
    name = args.branch or os.environ.get(BRANCH_ENV) or DEFAULT_BRANCH
    branches.check_checkout(checkout, name)
    signer = identity.resolve_identity(
        args.identity, checkout.path, series_identity, allow_placeholder=args.allow_placeholder
    )
    signing = None
    if args.sign:
        signing = identity.resolve_signing(args.signing_key, args.signing_format, checkout.path)
    digest = series_digest(args.patches)
    names = series_names(args.patches)
    found = validation.gather(args.patches, checkout.base, args.evidence)
    remote = None
    if args.push:  # refuse before anything is written, let alone sent
        source = publish.source_problem(checkout)
        blockers = ([source] if source else []) + validation.push_blockers(found)
        if blockers:
            raise ToolkitError(f"refusing to push (nothing written): {'; '.join(blockers)}")
        remote = publish.remote_arg(args.push)
    _check_writable(args.out)

    patches = [args.patches / n for n in names]
    with tempfile.TemporaryDirectory(prefix="dynpatch-pr-") as tmp:
        scratch = Path(tmp) / "branch"
        plan = branches.make(
            checkout,
            name,
            patches,
            signer.identity,
            series_identity,
            signing,
            args.replace,
            scratch,
        )
        push = owner = None
        if remote is not None:
            push = publish.inspect(checkout.path, scratch, remote, name, plan.tip, args.timeout)
            owner = publish.fork_owner(gitio.remote_url(checkout.path, remote))
        title = plan.commits[0].subject
        base = description.base_name(checkout)
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

        # Every refusal is behind us and nothing is written yet. A run killed from here on
        # leaves at most this tool's own branch placed, which a rerun takes as unchanged.
        placed = None
        if plan.tip != plan.old:
            placed = branches.place(checkout.path, scratch, name, plan.tip, plan.old)
        faults.checkpoint("pr.placed")
        if push is not None:
            publish.push(checkout.path, push, name, placed, args.timeout)
    files.write_atomic(args.out.with_name(VALIDATION_FILE), record)
    files.write_atomic(args.out, text)

    made = description.count(len(plan.commits), "commit")
    patch_count = description.count(len(names), "patch")
    _show("series", f"{console.rel(args.patches)}/series: {patch_count}, sha256 {digest[:12]}")
    release = f"ai-dynamo {checkout.release.version}, {checkout.source}"
    _show("base", f"{checkout.base[:12]} ({release}) in {console.rel(checkout.path)}")
    _show("identity", f"{signer.identity} (from {signer.source})")
    _show("branch", f"{name} {plan.state} at {plan.tip[:12]}: {made} (git am of the series)")
    _show("checks", f"DCO (sign-off matches author): pass; title {title!r}: pass")
    for c, line in zip(plan.commits, plan.signatures, strict=False):
        _show("signature", f"{c.sha[:12]} {line}")
    if not plan.signatures:
        _show("signature", "not signed (--sign signs with git's GPG or SSH signing)")
    for e in found:
        _show("evidence", e.status())
    _show("description", f"{console.rel(args.out)}, the full record in {VALIDATION_FILE} beside it")
    if push is not None:
        _show("push", push.describe(name))
    else:
        hint = publish.source_problem(checkout)
        refused = f"; from this checkout it would be refused: {hint}" if hint else ""
        _show("push", f"nothing pushed (the default): --push REMOTE pushes to your fork{refused}")
    _show(
        "next",
        "dynamo does not accept fully automated submissions: read the diff and the "
        "description, change what you would not say yourself, then open the PR yourself:",
    )
    print(
        "  " + gitio.redact(publish.gh_command(pin.url, owner, name, title, console.rel(args.out)))
    )
    for line in validation.warnings(found):
        print(f"warning: {line}", file=sys.stderr)
    return 0


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


def _show(label: str, text: str) -> None:
    print(f"{label:<12} {text}")
