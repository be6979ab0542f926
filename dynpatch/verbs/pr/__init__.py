"""``python -m dynpatch pr``: the PR branch and its description, for the person to read,
sign, push and submit. Every check that can refuse comes before anything is written (the
checkout, the identity and signing key, with ``--run-checks`` every check on this base, the
push gate, the commits in a scratch clone); only then is the branch placed, pushed when
asked, and the description written."""

from __future__ import annotations

import os
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dynpatch import console, series
from dynpatch.designs import RELATED
from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout, FetchOptions, locked, source_options
from dynpatch.io import faults, files
from dynpatch.io import git as gitio
from dynpatch.io.git import Identity
from dynpatch.pin import Pin, load_pin
from dynpatch.results import StageResult
from dynpatch.verbs.pr import branch as branches
from dynpatch.verbs.pr import checks, claims, description, governance, publish, signing, validation
from dynpatch.workspace import Workspace

DEFAULT_BRANCH = "perf/trtllm-logprob-delta"
BRANCH_ENV = "DYNPATCH_PR_BRANCH"
IDENTITY_ENV = "DYNPATCH_PR_IDENTITY"
DESCRIPTION_FILE = "PR_DESCRIPTION.md"  # in out/pr/ unless --out says otherwise
VALIDATION_FILE = "VALIDATION.md"  # the full record, beside the description
COMMENT_FILE = description.COMMENT_FILE  # to post on #14402 first, beside it
RESERVED = ("example", "invalid", "test")  # top-level domains no person's email is on


@dataclass(frozen=True, kw_only=True)
class PrOptions(FetchOptions):
    branch: str | None = None  # None: $DYNPATCH_PR_BRANCH, else DEFAULT_BRANCH
    identity: str | None = None  # 'Name <email>' (None: see resolve_identity)
    allow_placeholder: bool = False  # accept an identity on a reserved domain (dry runs, CI)
    replace: bool = False  # --force: replace a different branch instead of keeping it as vN
    sign: bool = False  # sign every commit with the person's key (git's signing settings)
    signing_key: str | None = None  # user.signingkey (None: git config)
    signing_format: str | None = None  # gpg.format (None: git config, else from the key)
    run_checks: bool = False  # every check the description cites, on this base, first
    reviewed: str | None = None  # the disclosure's "what I reviewed myself" line
    request: int | None = None  # the Contribution Request issue this PR closes
    supersedes: bool = False  # #14402 agreed this PR replaces it
    posted: bool = False  # the earlier revision was posted for review (else: if pushed)
    discussed: str | None = None  # the link to the comment's answer on #14402
    push: str | None = None  # the fork: remote name, URL or path (None: push nothing)
    out: Path | None = None  # None: out/pr/PR_DESCRIPTION.md


def run(args: PrOptions, ws: Workspace) -> StageResult:
    pin = load_pin(ws.pin)
    with locked(pin, args, ws) as checkout:  # no other run moves its refs meanwhile
        return _run(args, ws, checkout, pin)


def _run(args: PrOptions, ws: Workspace, checkout: Checkout, pin: Pin) -> StageResult:
    series_identity = gitio.parse_identity(pin.author)
    name = args.branch or os.environ.get(BRANCH_ENV) or DEFAULT_BRANCH
    branches.check_checkout(checkout, name)
    signer, source = resolve_identity(args.identity, checkout.path, series_identity)
    if (tld := signer.email.rsplit(".", 1)[-1].lower()) in RESERVED and not args.allow_placeholder:
        raise ToolkitError(
            f"{signer} ({source}) is on the reserved domain .{tld}, not a person's: sign "
            "off as yourself, or pass --allow-placeholder-identity for a dry run"
        )
    key = (
        signing.resolve(args.signing_key, args.signing_format, checkout.path) if args.sign else None
    )
    if args.push and (problem := publish.source_problem(checkout)):  # nothing written or run yet
        raise ToolkitError(f"refusing to push (nothing written): {problem}")
    remote = publish.remote_arg(args.push) if args.push else None
    out = args.out or ws.stage.pr / DESCRIPTION_FILE
    _check_writable(out)
    made, design = ws.patches, series.design_of(ws.patches)
    if args.run_checks:
        command = _command(args)
        made = checks.series_for(checkout, pin, ws, design, command)
        checks.remember(made, checkout, ws)
        checks.run(checkout, pin, ws, made, command)
    elif (earlier := checks.saved_series(checkout, ws, design)) is not None:
        made = earlier
    digest = series.series_digest(made)
    found = validation.gather(ws.evidence, checkout.base, digest, design.name)
    if remote is not None and (blockers := validation.push_blockers(found)):
        raise ToolkitError(f"refusing to push (nothing written): {'; '.join(blockers)}")
    with tempfile.TemporaryDirectory(prefix="dynpatch-pr-") as tmp:
        scratch = Path(tmp) / "branch"
        trust = signing.trust(key, signer, checkout.path, Path(tmp)) if key else None
        patches = [made / n for n in series.names(made)]
        sign = trust.signing if trust else None
        plan = branches.make(
            checkout, name, patches, signer, series_identity, sign, args.replace, scratch
        )
        push = None
        if remote is not None:
            push = publish.inspect(checkout.path, scratch, remote, name, plan.tip, args.timeout)
        numstat = gitio.numstat(scratch, checkout.base, plan.tip)
        base, wheel_tree = base_name(checkout)
        shown_before = plan.keep is not None and gitio.ref_exists(
            checkout.path, f"{publish.PUSHED}/{plan.old}"
        )
        facts = claims.Inputs(
            design=design,
            base=base,
            wheel_tree=wheel_tree,
            found=found,
            core=governance.core_lines(numstat, governance.read_codeowners(checkout.path)),
            plan=plan,
            changed=tuple(p for _, _, p in numstat),
            digest=digest,
            script=ws.rerun.read_text() if ws.rerun.is_file() else "",
            request=args.request,
            supersedes=args.supersedes,
            posted=args.posted or shown_before,
            discussed=args.discussed,
            reviewed=args.reviewed,
        )
        texts = {
            out: description.render(facts),
            out.with_name(VALIDATION_FILE): description.validation(facts),
            out.with_name(COMMENT_FILE): description.comment(facts),
        }
        # Nothing refuses from here on. A run killed after placing leaves this tool's own
        # branch, which a rerun takes as unchanged.
        if plan.tip != plan.old:
            branches.place(checkout.path, scratch, name, plan)
        faults.checkpoint("pr.placed")
        if push is not None:
            publish.push(checkout.path, push, name, args.timeout)
    for path, text in texts.items():
        files.write_atomic(path, gitio.redact(text))
    # What the run made, line by line; what the person does next, in order; and the warnings
    # on what it could not vouch for.
    version = checkout.release.version
    how = "" if args.run_checks else " by an earlier --run-checks"
    where = "patches/" if made == ws.patches else f"{console.rel(made)}/ (made on this base{how})"
    signatures = zip(plan.commits, plan.signatures, strict=False)
    pushed = push.describe(name) if push else "nothing pushed (--push REMOTE pushes to your fork)"
    lines = [
        ("series", f"{where}: {len(plan.commits)} patch(es), design {facts.design.name}"),
        ("base", f"{checkout.base[:12]} (ai-dynamo {version}, {checkout.source})"),
        ("identity", f"{signer} (from {source})"),
        ("branch", f"{name} {plan.state} at {plan.tip[:12]} in {console.rel(checkout.path)}"),
        ("checks", f"DCO (sign-off matches author): pass; title {plan.commits[0].subject!r}: pass"),
        *(("signature", f"{c.sha[:12]} {line}") for c, line in signatures),
        ("signature", trust.checked if trust else "not signed (--sign signs with your key)"),
        ("governance", f"Contribution Request {facts.core.sentence()}"),
        *(("evidence", validation.status(s, r)) for s, r in facts.found.each()),
        ("wrote", f"{console.rel(out)}, and beside it {VALIDATION_FILE} and {COMMENT_FILE}"),
        ("push", pushed),
    ]
    shown = [f"{label:<12} {line}" for label, line in lines]
    shown.append(
        "next         dynamo does not accept fully automated submissions. In this order: "
        f"post {COMMENT_FILE} on #{RELATED.number} first; read the diff and the description "
        "and change what you would not say yourself; run what the checklist below says; "
        "complete the disclosure; open the PR yourself only once #"
        f"{RELATED.number} is settled (docs/pr.md says how)"
    )
    shown += [f"  {line}" for line in description.checklist(facts)]
    if facts.wheel_tree:  # no history shared with dynamo
        shown.append(
            "  this base is the tree of a PyPI wheel, not an upstream commit: rebase the "
            "branch onto dynamo's main and rerun before you push"
        )
    # On the pin's tree the records come from the stages' sessions.
    on_pin = checkout.source == "pypi" and version == pin.version
    rerun = None if on_pin else f"nox -s pr -- {source_options(args, version, 'pr')} --run-checks"
    warnings = validation.warnings(facts.found, rerun)
    if facts.core.reasons and args.request is None:
        warnings.append(
            f"dynamo's governance asks for a Contribution Request first "
            f"({'; '.join(facts.core.reasons)}): open one from its template, wait for "
            "`approved-for-pr`, then pass --contribution-request N"
        )
    if not args.discussed and not args.supersedes:
        warnings.append(
            f"the description links no answer on #{RELATED.number}: post {COMMENT_FILE} there "
            "first, then pass --discussed URL (the link to its answer)"
        )
    if not args.reviewed:
        warnings.append(
            "the description's disclosure asks what you reviewed yourself: complete it, or "
            "pass --reviewed 'TEXT'"
        )
    return StageResult(shown=tuple(shown), warnings=tuple(warnings))


def base_name(checkout: Checkout) -> tuple[str, bool]:
    """The base as a reader names it, and whether it is a PyPI wheel's tree: the release
    tag for the pin's tree; else the ref asked for (git) or a tag at the commit, and the
    commit with its date."""
    if checkout.source == "pypi":
        return f"`{checkout.release.tag}` (the tree of its PyPI wheel)", True
    if publish.wheel_tree(checkout):  # a clone of a tree laid out from a wheel
        return f"the tree of the PyPI wheel ai-dynamo {checkout.release.version}", True
    tags, date = gitio.tags_and_date(checkout.path, checkout.base)
    label = gitio.config_get(checkout.path, "dynpatch.ref") if checkout.source == "git" else None
    label = label or next((t for t in tags if t != checkout.release.base_tag), None)  # not ours
    commit = f"commit `{checkout.base[:12]}` of {date}"
    named = label and not checkout.base.startswith(label)
    return (f"`{label}`, {commit}" if named else commit), False


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


def _command(args: PrOptions) -> str:
    """The command that reran the checks, as a person reruns it (no identity, no key)."""
    names = ("source", "version", "path", "url", "ref")
    given = {n: getattr(args, n) for n in names} | {"url": args.url and gitio.redact(args.url)}
    extra = [f"--{n}={v}" for n, v in given.items() if v]
    return shlex.join(["nox", "-s", "pr", "--", *extra, "--run-checks"])


def _check_writable(path: Path) -> None:
    """The description can be written to ``path``, as far as can be told without writing."""
    parent = next(p for p in path.parents if p.exists())
    if path.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise ToolkitError(
            f"cannot write the description {path}: it is a folder, or {parent} is not a "
            "folder this user may write to (nothing was written)"
        )
