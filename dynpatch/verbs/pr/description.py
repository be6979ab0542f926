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
from codemods.series import Design
from dynpatch.fetch import Checkout
from dynpatch.io import git as gitio
from dynpatch.services.bench.gates import FLAT_PCT
from dynpatch.services.upstream_tests import tiers
from dynpatch.verbs.pr import validation
from dynpatch.verbs.pr.branch import BranchPlan
from dynpatch.verbs.pr.texts import PROSE, RELATED_PR
from dynpatch.verbs.pr.validation import CoreLines, StageEvidence, State

_TIERS = {
    t.name: f'{t.title} (`-m "{t.marker}"`{note})'
    for t, note in (
        (tiers.CPU, ""),
        (tiers.STANDIN, ": the handler tests on CPU, `tensorrt_llm` a labelled test double"),
        (tiers.GPU, ", in the TRT-LLM container"),
    )
}
CASES, CASES_SHOWN = ("256x4", "4096x1"), ("256 tokens x 4 choices", "4096 x 1")
LONG = "16384x1"  # the long stream whose per-chunk counts the text quotes
NOT_RUN = "not run for this base and series"
TO_COMPLETE = (
    "_(complete before submitting: what you read and ran yourself, e.g. the diff line by "
    "line, and `pytest ...` in a dynamo checkout or the TRT-LLM container)_"
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
    script: str = ""  # the reviewer's script (docs/bench/per_chunk_cost.py)
    reviewed: str | None = None  # the person's own line in the disclosure
    release: str = "<version>"  # the base's dynamo version: the TRT-LLM runtime image's tag
    branch: str = ""


def render(f: Facts) -> str:
    prose = PROSE[f.design.name]
    headline, rest = _figures(f)
    sections = [f"## Overview:\n\n{prose.overview}"]
    if f.plan.keep:
        sections.append(_changes(f))
    sections += [
        f"## Details:\n\n{prose.details}\n- Made on {f.base}.\n{headline}\n"
        f"{_alternative(f.evidence, f.design)}\n\n{_rerun(f.evidence, f.script)}\n\n{rest}",
        f"## Where should the reviewer start?\n\n{_reviewer_start(f.changed, f.design)}",
        f"## Related Issues\n\n- Relates to #{RELATED_PR} (pull request)\n"
        f"- Contribution Request: {f.core.sentence()}\n\n{prose.related}",
        f"## Public API\n\n{prose.public_api}",
        _disclosure(f),
    ]
    return "\n\n".join(sections) + "\n"


def validation_record(f: Facts) -> str:
    """VALIDATION.md: every stage's command and saved output, then this run's checks."""
    return (
        f"# Validation: {f.title}\n\nMade on {f.base}. Each stage's exact command and its "
        "saved output for this base and series; a stage without one is named as not run. "
        "A record belongs to this series when its `series_sha256` is this series': sha256 "
        "over its `series` file and then each patch it lists, in order, each fed as its file "
        "name, a NUL byte, the file's bytes and a NUL byte (commit messages included).\n\n"
        + "\n".join(map(validation.markdown, f.evidence))
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
    share = [
        (1 - a) / (1 - o) * 100 if o < 1 else float("nan") for a, o in zip(alt, ours, strict=True)
    ]
    more = (alt[0] / ours[0] - 1) * 100
    text = (
        f"{head}Measured on this base (instructions per request, against the baseline's): "
        f"{alt[0]:.3f} and {alt[1]:.3f} for it ({CASES_SHOWN[0]}, {CASES_SHOWN[1]}), "
        f"{ours[0]:.3f} and {ours[1]:.3f} for this change. It saves {share[0]:.0f} % and "
        f"{share[1]:.0f} % of what this change saves, executing "
        f"{abs(more):.1f} % {'more' if more >= 0 else 'fewer'} instructions per request at "
        f"{CASES_SHOWN[0]}."
    )
    flat = {t: _flat(counted, t) for t in ("alternative", "patched")}
    kept = [t for t, v in flat.items() if abs(v) <= FLAT_PCT]
    verdict = (
        "both stay flat"
        if len(kept) == 2
        else f"only {'the alternative' if kept == ['alternative'] else 'this change'} stays "
        f"flat (within {FLAT_PCT:.0f} %)"
        if kept
        else f"neither stays within {FLAT_PCT:.0f} %"
    )
    text += (
        f" Per chunk, late against early in a {LONG.split('x')[0]}-token stream: "
        f"{flat['alternative']:+.1f} % for it, {flat['patched']:+.1f} % for this change: "
        f"{verdict}."
    )
    line = str((_saved(found, "verify") or {}).get("alternative", {}).get("line", ""))
    if line:
        text += f" Its replay against the baseline: {line.rsplit(': ', 1)[-1]}."
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


def _figures(f: Facts) -> tuple[str, str]:
    """The toolkit's headline figures, each with its stage's verdict, as Markdown bullets;
    the rest of what it checked and the commands a reviewer runs, in a ``<details>``."""
    found = f.evidence
    counted, verify = _saved(found, "bench"), _saved(found, "verify")
    tests, hooks = _saved(found, "test-upstream"), _saved(found, "pre-commit")
    lines = [f"instructions per request (valgrind callgrind, deterministic): {NOT_RUN}"]
    if (ours := _ratios(counted, "patched")) and counted:
        chunk = counted["per_chunk"][LONG]
        lines[0] = (
            "instructions per request (valgrind callgrind, deterministic), logprobs on, the "
            f"real `AggregatedHandler.generate` replayed on CPU: {ours[0]:.3f} of the baseline "
            f"at {CASES_SHOWN[0]}, {ours[1]:.3f} at {CASES_SHOWN[1]}; per chunk, late vs early "
            f"in a 16384-token stream, {chunk['patched']['late_vs_early_pct']:+.1f} % "
            f"(baseline {chunk['baseline']['late_vs_early_pct']:+.0f} %); gates: "
            f"{_said(counted['verdict'], _gate_reasons(counted))}"
        )
    lines.append(f"replay of the real handler on both trees: {NOT_RUN}")
    if verify:
        apart = sum(1 for s in verify.get("scenarios") or [] if s.get("divergence"))
        lines[-1] = (
            "replay of the real handler on both trees, chunk streams compared exactly: "
            f"{len(verify.get('scenarios') or [])} streams ({verify.get('budget')} of them "
            f"hypothesis-drawn), {apart} divergences: "
            f"{_said(verify['verdict'], _verify_reasons(verify))}"
        )
    ran = (tests or {}).get("tiers") or {}
    for name, tier in ran.items():
        title = tiers.ALL_BY_NAME[name].title if name in tiers.ALL_BY_NAME else name
        problems = tier.get("problems")
        if problems is None:  # a record of before per-tier problems: the tier's own lines
            problems = [p for p in (tests or {}).get("problems") or [] if title in p]
        mutation = str(tier.get("mutation") or "no carried test ran here")
        regressions = len(tier.get("regressions") or []) or "none"
        lines.append(
            f"dynamo's own tests, {_TIERS.get(name, name)}: {mutation}; regressions: "
            f"{regressions}; {_said('pass' if not problems else 'fail', problems)}"
        )
    said = "not run" if tests else NOT_RUN
    lines += [f"dynamo's own tests, {_TIERS[t]}: {said}" for t in _TIERS if t not in ran]
    lines.append(
        "upstream's pre-commit hooks at their pinned versions: "
        + ((hooks or {}).get("verdict") or NOT_RUN)
    )
    signed = " and signature" if f.plan.signatures else ""
    lines.append(
        f"this branch: `git am` onto its base, DCO sign-off{signed} and title checked: pass"
    )
    helper_tests = next(file for _, file in PROSE[f.design.name].tests)
    handler_tests = PROSE[f.design.name].tests[-1][1]
    lines.append(
        f"a reviewer runs, in a dynamo checkout: `pre-commit run --files {' '.join(f.changed)}`, "
        f"`pytest {helper_tests}`, and inside "
        f"`nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:{f.release}` "
        f'`pytest -m "pre_merge and trtllm and gpu_1" {handler_tests}`'
    )
    head = 2 + len(ran)  # instructions, the replay, the tiers that ran
    return "".join(f"- {line}\n" for line in lines[:head]), (
        "<details><summary>What else the toolkit checked on this base and series, and what a "
        "reviewer runs (the full record is in VALIDATION.md)</summary>\n\n"
        + "".join(f"- {line}\n" for line in lines[head:])
        + "\n</details>"
    )


def _changes(f: Facts) -> str:
    """What this revision changes from the one kept, as b4 says it for a kernel series."""
    p = f.plan
    lines = [f"- {c}" for c in p.changes]
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
        "Prepared with dynpatch, a patch toolkit whose code, codemods and test templates "
        "were written with substantial AI assistance. What it generated here:\n\n"
        "- the change, by LibCST codemods run on this base, formatted with dynamo's pinned "
        "isort and black;\n"
        f"- the tests it adds: {tests};\n"
        "- the figures above and this description, from its own runs on this base: "
        "dynamo's tests baseline against patched, a replay of the real handler, valgrind "
        "instruction counts.\n\n"
        f"What I reviewed myself: {f.reviewed or TO_COMPLETE}"
    )
