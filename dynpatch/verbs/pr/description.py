"""The PR description in dynamo's template, every figure and every verdict from a record
saved for this base and series (a stage without one: not run), the alternative computed
from the saved figures, the disclosure the governance asks for, and VALIDATION.md beside
it, the full record. The fixed prose per design is :mod:`.texts`."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codemods import helper_drops_copy
from codemods.series import Design, design_titled
from dynpatch.fetch import MATERIALISED, Checkout
from dynpatch.io import git as gitio
from dynpatch.services.bench.gates import FLAT_PCT
from dynpatch.services.upstream_tests import tiers
from dynpatch.verbs.pr import validation
from dynpatch.verbs.pr.branch import BranchPlan
from dynpatch.verbs.pr.governance import CoreLines
from dynpatch.verbs.pr.texts import PROSE, RELATED_PR
from dynpatch.verbs.pr.validation import StageEvidence, State

# Each tier of dynamo's tests as the description names it, in plain words.
_TIERS = {
    tiers.CPU.name: f'dynamo\'s CPU tests (`-m "{tiers.CPU.marker}"`)',
    tiers.STANDIN.name: (
        f'the TRT-LLM handler tests (`-m "{tiers.STANDIN.marker}"`) on CPU, a test double '
        "standing in for `tensorrt_llm`"
    ),
    tiers.GPU.name: f'the TRT-LLM tests on a GPU, in the TRT-LLM container (`-m "{tiers.GPU.marker}"`)',
}
# Why a tier's tests fail before and after the change alike, where the tier says.
_BOTH = {tiers.STANDIN.name: "what they need of `tensorrt_llm` is not in the test double"}
CASES, CASES_SHOWN = ("256x4", "4096x1"), ("256 tokens x 4 choices", "4096 x 1")
LONG = "16384x1"  # the long stream whose per-chunk counts the text quotes
NOT_RUN = "not run for this base and series"
TO_COMPLETE = (
    "_(complete before submitting: what you read and ran yourself, e.g. the diff line by "
    "line, and `pytest ...` in a dynamo checkout or the TRT-LLM container)_"
)
CR_PLACEHOLDER = "XXXX"  # the Contribution Request's issue number, until the person has one
MEASURE = (
    "valgrind instruction counts (deterministic) of dynamo's `AggregatedHandler.generate` "
    "run on CPU with logprobs on, a scripted engine in place of TRT-LLM: the handler's own "
    "work, not serving throughput"
)
GPU_NOT_RUN = (
    "not run (no GPU where this was made): the change is pure Python on the `token_ids` "
    "list of TRT-LLM's `CompletionOutput`; left to dynamo's GPU CI"
)


@dataclass(frozen=True)
class Facts:
    title: str
    base: str  # the base as a reader names it (tag, or commit and date), Markdown
    changed: Sequence[str]
    evidence: Sequence[StageEvidence]
    checks: Sequence[str]  # what this run checked and saw, one Markdown line each
    design: Design
    core: CoreLines
    plan: BranchPlan
    request: int | None = None  # the Contribution Request's issue number
    script: str = ""  # the reviewer's script (docs/bench/per_chunk_cost.py)
    reviewed: str | None = None  # the person's own line in the disclosure
    release: str = "<version>"  # the base's dynamo version: the TRT-LLM runtime image's tag
    branch: str = ""


def render(f: Facts) -> str:
    prose = PROSE[f.design.name]
    sections = [f"## Overview:\n\n{prose.overview}"]
    if f.plan.keep:
        sections.append(_changes(f))
    sections += [
        f"## Details:\n\n{prose.details}\n\nMade on {f.base}.\n\n{_table(f)}\n\n"
        f"{_checks(f)}\n\n{_alternative(f.evidence, f.design)}\n\n{prose.related}\n\n"
        "Every check's command and output, and a standard-library script that times the "
        "helper per chunk in a plain checkout: `VALIDATION.md`, attached.",
        f"## Where should the reviewer start?\n\n{_reviewer_start(f.changed, f.design)}",
        f"## Related Issues\n\n{_related(f)}",
        f"## Public API\n\n{prose.public_api}",
        _disclosure(f),
    ]
    return "\n\n".join(sections) + "\n"


def _related(f: Facts) -> str:
    """dynamo's template: the issue this PR closes (the Contribution Request, when the
    governance asks for one), and the PR it relates to (#14402)."""
    related = f"- Relates to #{RELATED_PR} (the same copy, fixed another way)"
    if f.request is not None:
        return f"- Closes #{f.request} (the Contribution Request)\n{related}"
    if f.core.reasons:
        return (
            f"- Closes #{CR_PLACEHOLDER} (the Contribution Request this change needs: "
            f"{'; '.join(f.core.reasons)}; open it from the template, and open this PR once "
            f"it has `approved-for-pr`)\n{related}"
        )
    return related


def validation_record(f: Facts) -> str:
    """VALIDATION.md: every stage's command and saved output, what a reviewer reruns, then
    this run's checks."""
    return (
        f"# Validation: {f.title}\n\nMade on {f.base}. Each stage's exact command and its "
        "saved output for this base and series; a stage without one is named as not run. "
        "A record belongs to this series when its `series_sha256` is this series': sha256 "
        "over its `series` file and then each patch it lists, in order, each fed as its file "
        "name, a NUL byte, the file's bytes and a NUL byte (commit messages included).\n\n"
        + "\n".join(map(validation.markdown, f.evidence))
        + f"\n## What a reviewer reruns\n\n{_reviewer_runs(f)}\n\n{_rerun(f.evidence, f.script)}\n"
        + "\n## This branch (`python -m dynpatch pr`)\n\n"
        + "".join(f"- {line}\n" for line in f.checks)
    )


def base_name(checkout: Checkout) -> str:
    """The base as a reader names it: the release tag for the tree made from its PyPI
    wheel; else the ref asked for (git) or a tag at the commit (path), and the commit with
    its date."""
    if checkout.source == "pypi":
        return (
            f"`{checkout.release.tag}` (ai-dynamo {checkout.release.version}, from its PyPI wheel)"
        )
    title = gitio.commit_message(checkout.path, checkout.base).split("\n", 1)[0]
    if title.endswith(f") {MATERIALISED}"):  # a clone of a tree laid out from a wheel
        return (
            f"the tree of the PyPI wheel ai-dynamo {checkout.release.version}, laid out as the "
            "repository (not an upstream commit: rebase onto `main` before opening)"
        )
    tags, date = gitio.tags_and_date(checkout.path, checkout.base)
    names = [t for t in tags if t != checkout.release.base_tag]  # not the toolkit's own
    label = gitio.config_get(checkout.path, "dynpatch.ref") if checkout.source == "git" else None
    label = label or next(iter(names), None)
    commit = f"commit `{checkout.base[:12]}` of {date}"
    return f"`{label}`, {commit}" if label and not checkout.base.startswith(label) else commit


def checks(
    base: str, digest: str, patches: int, plan: BranchPlan, branch: str, trusted: str
) -> list[str]:
    """This run's own checks (all passed to get here), as Markdown lines for VALIDATION.md."""
    signer, title = plan.commits[0].author, plan.commits[0].subject
    lines = [
        f"`git am` of the series ({patches} patch(es), sha256 `{digest[:12]}`) onto {base}: "
        f"applies; {len(plan.commits)} commit(s) on `{branch}`, revision v{plan.revision}.",
        f"DCO: every commit has a `Signed-off-by` matching its author ({signer}): pass.",
        f"Title `{title}` is a Conventional Commit: pass.",
    ]
    if plan.signatures:
        lines.append(f"Signatures ({trusted}): " + "; ".join(plan.signatures) + ".")
    else:
        lines.append("Signatures: not signed (`--sign` signs with your key through git).")
    return lines


def _reviewer_start(changed: Sequence[str], design: Design) -> str:
    start = PROSE[design.name].start
    lines = [
        f"1. `{step.target.path}`, `{step.target.qualname}`: "
        + step.codemod.DESCRIPTION.partition(": ")[2]
        for step in design.steps
        if step.target in start and step.target.path in changed
    ]
    return "\n".join(lines) if lines else "(the series changes none of them)"


def _saved(found: Sequence[StageEvidence], stage: str) -> dict[str, Any] | None:
    """The details ``stage`` saved for this base and series, with verdict and date (None:
    nothing saved)."""
    e = next((e for e in found if e.stage == stage and e.state is State.CURRENT), None)
    if e is None or not e.record:
        return None
    r = e.record
    return {**(r.get("details") or {}), "verdict": r.get("verdict"), "at": r.get("created")}


def _ratios(counted: Mapping[str, Any] | None, tree: str) -> list[float] | None:
    """``tree``/baseline instructions per request at 256 x 4 and 4096 x 1 (None: not saved)."""
    got = [(counted or {}).get("requests", {}).get(c, {}).get(f"{tree}/baseline") for c in CASES]
    return got if all(isinstance(r, float) for r in got) else None


def _flat(counted: Mapping[str, Any], tree: str) -> float:
    return float(counted["per_chunk"][LONG][tree]["late_vs_early_pct"])


def _alternative(found: Sequence[StageEvidence], design: Design) -> str:
    """The other design, as a one-line diff where it is one, and what the saved figures say
    of it against this one: each sentence computed from them."""
    prose = PROSE[design.name]
    head = f"**Alternatives considered.** {prose.alternative}"
    if design.keyword:
        before, after = helper_drops_copy.COPY, helper_drops_copy.NO_COPY
        head += f":\n\n```diff\n-    {before}\n+    {after}\n```\n\n"
    else:
        head += ". "
    counted = _saved(found, "bench")
    alt, ours = _ratios(counted, "alternative"), _ratios(counted, "patched")
    if counted is None or alt is None or ours is None:
        return f"{head}It was not measured for this base and series."
    more = [(a / o - 1) * 100 for a, o in zip(alt, ours, strict=True)]
    flat = {t: _flat(counted, t) for t in ("alternative", "patched")}
    kept = [t for t, v in flat.items() if abs(v) <= FLAT_PCT]
    verdict = (
        "both stay flat per chunk as the history grows"
        if len(kept) == 2
        else f"only {'it' if kept == ['alternative'] else 'this change'} stays flat per chunk "
        f"(within {FLAT_PCT:.0f} %)"
        if kept
        else f"neither stays flat per chunk (within {FLAT_PCT:.0f} %)"
    )
    than = [f"{abs(m):.1f} % {'more' if m >= 0 else 'fewer'}" for m in more]
    text = (
        f"{head}Measured the same way, it executes {than[0]} instructions per request than "
        f"this change at {CASES_SHOWN[0]}, and {than[1]} at {CASES_SHOWN[1]}; {verdict}."
    )
    line = str((_saved(found, "verify") or {}).get("alternative", {}).get("line", ""))
    if line:
        said = line.rpartition(": ")[2].removesuffix(" from the baseline")
        text += f" Its chunks against those before the change: {said}."
    return text


def _rerun(found: Sequence[StageEvidence], script: str) -> str:
    """The script a reviewer reruns, and the output the bench saved for this very script."""
    counted = _saved(found, "bench") or {}
    saved = counted.get("rerun") or {}
    shown = "The toolkit has no saved run of this script for this base and series."
    if script and saved.get("sha256") == hashlib.sha256(script.encode()).hexdigest():
        shown = (
            f"Its output as the toolkit ran it on this branch's tree, {counted['at']}, on "
            f"{saved.get('cpu')} (timings move with the machine's load; the instruction "
            f"counts above do not):\n\n```text\n{str(saved.get('output')).rstrip()}\n```"
        )
    return (
        "<details><summary>Rerun it: the helper's cost per chunk before and after, and the "
        "alternative, in a plain dynamo checkout</summary>\n\n"
        "Save as `per_chunk_cost.py` at the top of a dynamo checkout and run "
        "`python3 per_chunk_cost.py [PATH/TO/logprobs.py]` (standard library only; it "
        "loads the helper by its path and builds the one-line variant from its source).\n\n"
        f"```python\n{script.rstrip()}\n```\n\n{shown}\n\n</details>"
    )


def _gate_reasons(counted: Mapping[str, Any]) -> list[str]:
    """Why the bench failed: its missed gates, and the mutant's gates that were met."""
    missed = [str(g["label"]).split(":")[0] for g in counted.get("gates") or [] if not g["met"]]
    blind = [str(g["label"]).split(":")[0] for g in counted.get("mutant_gates") or [] if g["met"]]
    return [f"{m} missed" for m in missed] + (
        [f"the planted copy passes {', '.join(blind)}"] if blind else []
    )


def _verify_reasons(verify: Mapping[str, Any]) -> list[str]:
    found = []
    for s in verify.get("scenarios") or []:
        if s.get("divergence"):
            d = s["divergence"]
            found.append(
                f"{s['name']} diverged (chunk {d.get('chunk')}, field {d.get('field') or '<whole>'})"
            )
        elif s.get("unmet"):
            found.append(f"{s['name']}: {s['unmet'][0]}")
    return found


def _said(verdict: str | None, why: Sequence[str]) -> str:
    """``pass``, or ``FAIL`` and the first reason (and how many more)."""
    if verdict == "pass" and not why:
        return "pass"
    more = f" (+{len(why) - 1} more)" if len(why) > 1 else ""
    return f"FAIL: {why[0]}{more}" if why else f"{verdict or 'no verdict'}"


def _table(f: Facts) -> str:
    """Instructions per request against the baseline's, before, with this change and with
    the other design, and the bench's verdict, from its saved record."""
    counted = _saved(f.evidence, "bench")
    ours, alt = _ratios(counted, "patched"), _ratios(counted, "alternative")
    if counted is None or ours is None:
        return f"Instructions per request ({MEASURE}): {NOT_RUN}."
    rows = [("before", [1.0, 1.0], "baseline"), ("this change", ours, "patched")]
    rows += [(PROSE[f.design.name].other, alt, "alternative")] if alt else []
    flat = counted.get("per_chunk", {}).get(LONG, {})
    late = f"one chunk, late vs early in a {LONG.split('x')[0]}-token stream"
    table = [
        "Instructions per request, against before:",
        "",
        f"| | {' | '.join(CASES_SHOWN)} | {late} |",
        "|---|---:|---:|---:|",
        *(
            f"| {name} | {r[0]:.3f} | {r[1]:.3f} | "
            f"{flat.get(tree, {}).get('late_vs_early_pct', float('nan')):+.1f} % |"
            for name, r, tree in rows
        ),
    ]
    said = _said(counted["verdict"], _gate_reasons(counted))
    failed = "" if said == "pass" else f"; the bench's own thresholds: {said}"
    return "\n".join(table) + f"\n\nMeasured by {MEASURE}{failed}."


def _checks(f: Facts) -> str:
    """One line per check the toolkit ran on this base and series: what it saw, and pass or
    FAIL and why; a check without a record is said to be not run."""
    found = f.evidence
    verify, tests = _saved(found, "verify"), _saved(found, "test-upstream")
    hooks = _saved(found, "pre-commit")
    lines = []
    ran = (tests or {}).get("tiers") or {}
    for name, tier in ran.items():
        problems = tier.get("problems") or []
        new = len(tier.get("carried_tests") or [])
        saw = (
            f"the {new} new case{'s' * (new != 1)} fail before the change and pass with it"
            if new
            else "no new test here"
        )
        if tier.get("keyword_ignored_caught"):
            saw += f", and fail when the helper takes `{f.design.keyword}` but ignores it"
        regressions = len(tier.get("regressions") or [])
        both = len(tier.get("fail_on_both") or [])
        if both:
            why = _BOTH.get(name, "this machine")
            saw += f"; {both} fail{'s' * (both == 1)} before and after alike ({why})"
        saw += f"; {regressions or 'no'} other test{'s' * (regressions != 1)} changed outcome"
        verdict = _said("pass", problems)  # a problem is a FAIL, with its reason
        lines.append(f"{_TIERS.get(name, name)}: {saw}: {verdict}")
    lines += [
        f"{_TIERS[t]}: {(GPU_NOT_RUN if t == tiers.GPU.name else 'not run') if tests else NOT_RUN}"
        for t in _TIERS
        if t not in ran
    ]
    if verify:
        streams = verify.get("scenarios") or []
        apart = sum(1 for s in streams if s.get("divergence"))
        lines.append(
            f"the chunks the handler emits, compared exactly before and after the change: "
            f"{len(streams)} streams ({verify.get('budget')} of them drawn at random), {apart} "
            f"differ: {_said(verify['verdict'], _verify_reasons(verify))}"
        )
    else:
        lines.append(f"the chunks the handler emits, compared before and after: {NOT_RUN}")
    lines.append(
        "dynamo's pre-commit hooks at their pinned versions: "
        + ((hooks or {}).get("verdict") or NOT_RUN)
    )
    signed = ", signature" if f.plan.signatures else ""
    lines.append(f"this branch: DCO sign-off{signed} and title checked: pass")
    return "Checked on this base:\n\n" + "".join(f"- {line}\n" for line in lines).rstrip()


def _reviewer_runs(f: Facts) -> str:
    """The commands a reviewer runs in a dynamo checkout, and in the TRT-LLM image."""
    tests = PROSE[f.design.name].tests
    image = (  # NGC publishes the runtime image of releases, not of dev builds
        "a TRT-LLM image built from this branch (`container/build.sh --framework trtllm`)"
        if ".dev" in f.release
        else f"`nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:{f.release}`"
    )
    handler_tests = "components/src/dynamo/trtllm/tests/test_trtllm_handler_base.py"
    return (
        f"- `pre-commit run --files {' '.join(f.changed)}`\n"
        f"- `pytest {' '.join(dict.fromkeys(file for _, file in tests))}`\n"
        f'- inside {image}: `pytest -m "pre_merge and trtllm and gpu_1" {handler_tests}`'
    )


def _changes(f: Facts) -> str:
    """What this revision changes from the one kept, as b4 says it for a kernel series."""
    p, said = f.plan, {"content": "the change", "message": "the message"}
    lines = []
    for change in p.changes:
        before = design_titled(change.split("`")[1]) if change.startswith("title: ") else None
        if before is not None and before.name != f.design.name:
            lines.append(
                f"- the design: {PROSE[before.name].called} -> {PROSE[f.design.name].called}"
            )
        what, _, differs = change.partition(": ")
        words = [said.get(w, w) for w in differs.split(", ")] if what.startswith("commit") else []
        lines.append(f"- {what}: {', '.join(words)}" if words else f"- {change}")
    lines.append(
        f"- v{p.revision - 1} is kept as the branch `{p.keep}`; `git range-diff` of the two:"
    )
    return (
        f"## Changes in v{p.revision}\n\n" + "\n".join(lines) + f"\n\n```text\n{p.range_diff}\n```"
    )


def _disclosure(f: Facts) -> str:
    """The disclosure dynamo's governance asks for, for the person to edit: what the
    toolkit generated, and what they reviewed themselves."""
    tests = ", ".join(f"`{name}`" for name, _ in PROSE[f.design.name].tests)
    return (
        "## Disclosure\n\n"
        "This change, its tests and this description were generated by an AI-assisted "
        "tool: dynpatch, a patch toolkit itself written with substantial AI assistance.\n\n"
        "- the change: LibCST codemods run on this base, formatted with dynamo's pinned "
        "isort and black;\n"
        f"- the tests: {tests};\n"
        "- the commit message, this description and its figures, from the tool's runs on "
        "this base: dynamo's tests before and after the change, a replay of the real "
        "handler, valgrind instruction counts.\n\n"
        f"What I reviewed myself: {f.reviewed or TO_COMPLETE}"
    )
