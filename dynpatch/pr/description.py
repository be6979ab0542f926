"""The PR description: dynamo's template sections, filled from what this run saw.

Sections: Overview, Details, Where should the reviewer start?, Related Issues, Public
API (dynamo's pull-request template) and Validation (their contribution guide). Details
is the commit messages; the reviewer's path comes from the codemod series; Public API
facts are read from the base tree; Validation shows only saved results for this exact
series and this run's own checks, the bench's strongest first (instruction counts, then a
full timed run; a quick timed run only as indicative). Nothing else is claimed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from codemods import handler_extract_forwards_delta, logprobs_helper
from codemods.outcome import Target
from codemods.series import SERIES
from dynpatch import evidence
from dynpatch.fetch import Checkout
from dynpatch.io.git import CommitInfo
from dynpatch.patch.apply import read_at
from dynpatch.pr import validation
from dynpatch.pr.validation import StageEvidence, State

RELATED_PR = 14402
RELATED_TITLE = "perf(trtllm): avoid cumulative token copies in logprob streaming"
ANNOTATIONS = ".github/api-surface/annotations.yaml"
# Targets whose signature the series changes (the rest change only a body).
SIGNATURE_TARGETS = (logprobs_helper.TARGET, handler_extract_forwards_delta.TARGET)

OVERVIEW = (
    "TensorRT-LLM streams cumulative token ids. With logprobs requested, the TRT-LLM "
    "handler's response loop already builds each chunk's delta, "
    '`out["token_ids"] = output.token_ids[tokens_so_far:]`, and then calls the shared '
    "`extract_from_completion_output`, which copied the whole token history with "
    "`list(output.token_ids)` and sliced it again. This change hands the delta the loop "
    f"already has to the helper as an optional keyword-only `{logprobs_helper.PARAM}`, so "
    "that copy and the second slice no longer happen on the TRT-LLM path."
)
_TRAILER = re.compile(r"^[A-Za-z0-9-]+: \S")


@dataclass(frozen=True)
class Facts:
    """Everything the description states, gathered by the caller from this run."""

    title: str
    commits: Sequence[CommitInfo]
    checkout: Checkout
    diffstat: str
    changed: Sequence[str]
    evidence: Sequence[StageEvidence]
    checks: Sequence[str]  # what this run checked and saw, one Markdown line each


def render(f: Facts) -> str:
    sections = [
        (
            "<!-- Prepared with the dynamo-logprob-delta toolkit (`nox -s pr`). dynamo does "
            "not accept fully automated submissions: read the diff and this text, change "
            "what you would not say yourself, and open the PR yourself. -->"
        ),
        f"## Overview:\n\n{OVERVIEW}",
        f"## Details:\n\n{_details(f)}",
        f"## Where should the reviewer start?\n\n{_reviewer_start(f.changed)}",
        f"## Related Issues\n\n{_related(f.evidence)}",
        f"## Public API\n\n{_public_api(f.checkout)}",
        f"## Validation\n\n{_validation(f)}",
    ]
    return "\n\n".join(s.rstrip() for s in sections) + "\n"


def message_body(message: str) -> str:
    """A commit message without its subject line and its closing trailer block."""
    paragraphs = message.strip().split("\n\n")[1:]
    if paragraphs and all(_TRAILER.match(ln) for ln in paragraphs[-1].splitlines()):
        paragraphs = paragraphs[:-1]
    return "\n\n".join(p.strip("\n") for p in paragraphs)


def _details(f: Facts) -> str:
    parts = []
    for c in f.commits:
        body = message_body(c.message)
        parts.append(body if len(f.commits) == 1 else f"**{c.subject}**\n\n{body}")
    parts.append(f"```\n{f.diffstat.rstrip()}\n```")
    return "\n\n".join(parts)


def _reviewer_start(changed: Sequence[str]) -> str:
    """The series' targets in the order the codemods apply them, then other files."""
    lines, seen = [], set()
    for step in SERIES:
        if step.target.path in changed:
            what = step.codemod.DESCRIPTION.partition(": ")[2] or step.codemod.DESCRIPTION
            name = step.target.qualname
            name = name if name.startswith("(") else f"`{name}`"
            lines.append(f"1. `{step.target.path}`, {name}: {what}")
            seen.add(step.target.path)
    lines += [f"1. `{path}`" for path in changed if path not in seen]
    return "\n".join(lines) if lines else "(the series changes no file)"


def _related(found: Sequence[StageEvidence]) -> str:
    verify = next((e for e in found if e.stage == "verify"), None)
    verdict = verify.verdict if verify is not None else None
    if verdict == "pass":
        evidence = "with the replay-equivalence results in Validation below"
    elif verdict == "fail":
        evidence = "(its replay-equivalence check FAILED for this version: see Validation)"
    else:
        evidence = "(its replay-equivalence check has no saved result for this version)"
    return (
        f"- Relates to #{RELATED_PR}\n\n"
        f'#{RELATED_PR} ("{RELATED_TITLE}"), an open, approved PR, proposes the same change. '
        "This PR is not a competing merge: it is an independent version of the same fix, "
        "generated by LibCST codemods from the release sources, offered to the reviewers "
        f"of #{RELATED_PR} for comparison {evidence}. If #{RELATED_PR} lands, this one "
        "should be closed; anything useful here can be carried over there."
    )


def _public_api(checkout: Checkout) -> str:
    annotations = read_at(checkout.path, checkout.base, ANNOTATIONS)
    lines = []
    for target in SIGNATURE_TARGETS:
        lines.append(f"- {_api_fact(checkout, target, annotations)}")
    if annotations is None:
        lines.append(
            f"- dynamo's API annotations file (`{ANNOTATIONS}`) is not in this checkout "
            f"({checkout.source} source), so it was not checked."
        )
    lines.append(
        "\nNo public API is removed or changed incompatibly: the only signature change is "
        "a new optional keyword-only parameter whose default keeps the old behaviour."
    )
    return "\n".join(lines)


def _api_fact(checkout: Checkout, target: Target, annotations: str | None) -> str:
    name = target.qualname
    head = (
        f"`{name}` (`{target.path}`) gains an optional keyword-only "
        f"`{logprobs_helper.PARAM}` (default `None`: the old code path)."
    )
    if any(part.startswith("_") for part in name.split(".")):
        return f"{head} It is private (leading underscore); positional calls keep working."
    source = read_at(checkout.path, checkout.base, target.path)
    package = target.path.rsplit("/", 1)[0] + "/__init__.py"
    listed = [
        where
        for where, text in (
            (target.path, source),
            (package, read_at(checkout.path, checkout.base, package)),
        )
        if text is not None and name in _all_names(text)
    ]
    if annotations is not None and name in annotations:
        listed.append(ANNOTATIONS)
    if listed:
        return (
            f"{head} It is named in {', '.join(f'`{w}`' for w in listed)}: the change is additive."
        )
    return (
        f"{head} At the base it is in no `__all__` of its module or package"
        + ("" if annotations is None else " and not in the API annotations file")
        + ": an experimental helper under dynamo's API policy."
    )


def _all_names(source: str) -> set[str]:
    """Names listed in a module's top-level ``__all__`` (empty when it has none)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else ([node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else [])
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = getattr(node, "value", None)
            if isinstance(value, ast.List | ast.Tuple):
                names |= {
                    e.value
                    for e in value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                }
    return names


def _validation(f: Facts) -> str:
    own = [f"- {line}" for line in f.checks]
    own.append(
        "- Not checked by this tool: whether the series applies to upstream `main` "
        f"(it is made against {f.checkout.release.tag})."
    )
    return (
        "Each stage's exact command and its saved output for this version of the patch; "
        "a stage without one is marked not run.\n\n"
        + _stages(f.evidence)
        + "\n#### This branch (`python -m dynpatch pr`)\n\n"
        + "\n".join(own)
        + "\n"
    )


# The bench's saved runs, strongest first, as the description names them.
_BENCH_TITLES = {
    "instructions": "instruction counts (valgrind callgrind: deterministic, gated)",
    "full": "time-based A/B, full run (handler CPU time; informative, the machine's load moves it)",
    "quick": "time-based A/B, quick run: indicative only, not a verdict",
}


def _stages(found: Sequence[StageEvidence]) -> str:
    """Every stage's saved result; the bench's from its strongest runs (:func:`_bench`)
    when its record says which kinds of run it holds (one that does not is shown as
    saved)."""
    return "\n".join(
        _bench(e) if e.stage == "bench" and _kinds_known(e) else validation.markdown([e])
        for e in found
    )


def _kinds_known(e: StageEvidence) -> bool:
    details = (e.record or {}).get("details")
    known = isinstance(details, dict) and ("runs" in details or "settings" in details)
    return e.state is State.CURRENT and known


def _bench(e: StageEvidence) -> str:
    """The bench's saved runs, strongest first: instruction counts (the headline), then a
    full time-based run; a quick run only when nothing stronger is saved, and then as
    indicative, with neither a pass nor a fail."""
    runs = evidence.bench_runs(dict(e.record or {}))
    kinds = [r.get("kind") for r in runs]
    shown = [r for r in runs if r.get("kind") != "quick" or kinds == ["quick"]]
    if "instructions" in kinds:
        counted = runs[kinds.index("instructions")]
        head = f"instruction counts {_gate(counted.get('verdict'))}"
    elif "full" in kinds:
        head = "time-based run only (informative, no instruction counts saved)"
    else:
        head = "quick time-based run only (indicative, no verdict)"
    series = str((e.record or {}).get("series_sha256", ""))[:12]
    parts = [f"#### bench: {head}\n"]
    for r in shown:
        kind = str(r.get("kind"))
        host = r.get("host") if isinstance(r.get("host"), dict) else {}
        where = ", ".join(str(host[k]) for k in ("python", "machine") if host.get(k))
        verdict = "" if kind == "quick" else f" {_gate(r.get('verdict'), kind)}"
        parts.append(
            f"##### {_BENCH_TITLES.get(kind, kind)}{verdict}\n\n"
            f"```console\n$ {r.get('command')}\n```\n\n"
            f"saved {r.get('created', '?')}" + (f" (Python {where})" if where else "")
            + f", for this patch series (sha256 `{series}`).\n\n"
            f"{str(r.get('summary_md') or '').strip()}\n"
        )  # fmt: skip
    return "\n".join(parts)


def _gate(verdict: object, kind: str = "instructions") -> str:
    if kind == "full":
        return "(targets met)" if verdict == "pass" else "(targets not all met)"
    return "pass" if verdict == "pass" else "**FAIL**"
