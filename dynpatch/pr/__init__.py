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
    with locked(pin, args, ws) as checkout:  # no other run moves its refs meanwhile
        return _run(args, ws, pin, checkout)


def _run(args: PrOptions, ws: Workspace, pin: Pin, checkout: Checkout) -> StageResult:
    series_identity = gitio.parse_identity(pin.author)
    name = args.branch or os.environ.get(BRANCH_ENV) or DEFAULT_BRANCH
    branches.check_checkout(checkout, name)
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
        remote = publish.remote_arg(args.push)
    _check_writable(out)
    shown = StageResult()

    def _show(label: str, text: str) -> None:
        shown.say(f"{label:<12} {text}")

    patches = [ws.patches / n for n in names]
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
    files.write_atomic(out.with_name(VALIDATION_FILE), record)
    files.write_atomic(out, text)

    made = description.count(len(plan.commits), "commit")
    patch_count = description.count(len(names), "patch")
    _show("series", f"{console.rel(ws.patches)}/series: {patch_count}, sha256 {digest[:12]}")
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
    _show("description", f"{console.rel(out)}, the full record in {VALIDATION_FILE} beside it")
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
    shown.say(
        "  " + gitio.redact(publish.gh_command(pin.url, owner, name, title, console.rel(out)))
    )
    for line in validation.warnings(found):
        print(f"warning: {line}", file=sys.stderr)
    return shown


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
