"""The PR description in dynamo's template, every figure from a record saved for this base
and series (a stage without one: not run), and VALIDATION.md beside it, the full record."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codemods import handler_call_passes_delta, logprobs_helper
from codemods.handler_response_loop_tests import PATH as HANDLER_TESTS
from codemods.helper_delta_tests import PATH as HELPER_TESTS
from codemods.series import SERIES
from dynpatch import evidence
from dynpatch.fetch import Checkout
from dynpatch.io import git as gitio
from dynpatch.services import variants
from dynpatch.services.upstream_tests import tiers
from dynpatch.verbs.pr import validation
from dynpatch.verbs.pr.branch import BranchPlan
from dynpatch.verbs.pr.validation import StageEvidence, State

RELATED_PR = 14402
RELATED_TITLE = "perf(trtllm): avoid cumulative token copies in logprob streaming"
# Not checked by this tool (it has no network): what was seen on GitHub, and when.
RELATED_STATE = (
    "open and approved when last looked at on GitHub, 2026-11; the toolkit does not check it"
)
# The carried tests the text names (tests/dynpatch/pr checks that patches/ adds them).
HELPER_TEST = "test_extract_completion_with_delta_matches_slicing_token_ids"
HANDLER_TEST = "test_interleaved_choices_stream_logprobs_without_copying_token_ids"
# Where a reviewer starts: the helper, then the loop's call site; the tests need no item.
START = (logprobs_helper.TARGET, handler_call_passes_delta.TARGET)
OVERVIEW = (
    "TensorRT-LLM streams cumulative token ids. With logprobs on, each chunk of the TRT-LLM "
    "response loop had the shared `extract_from_completion_output` copy the request's whole "
    "token history (`list(output.token_ids)`) to read the few ids that chunk added: "
    "1 + 2 + … + N ids per choice for an N-token stream arriving one token per response. The "
    "loop already builds each chunk's delta; this PR hands it to the helper, so the helper's "
    "cost per chunk no longer grows with the history."
)
DETAILS = (
    "- `extract_from_completion_output` (`common/backend/logprobs.py`) takes an optional "
    "keyword-only `new_token_ids`. Given it, the helper reads the chunk's ids from that list "
    "and neither copies `output.token_ids` nor slices it again; without it the old code "
    "runs, so vLLM's handler and any other caller are unchanged.\n"
    "- `HandlerBase._generate_locally_impl` passes the delta it already builds through "
    "`HandlerBase._extract_logprobs`, which gains the same keyword; its positional form "
    "`(output, 0)` keeps working. No other signature changes.\n"
    "- Every bail-out returns what it did (no logprobs, nothing new, flat float logprobs, a "
    "`None` position, a missing selected token). With the delta the helper returns what "
    f"slicing returned on every path (`{HELPER_TEST}` in `{HELPER_TESTS}`), and interleaved "
    f"choices stream aligned logprobs (`{HANDLER_TEST}` in `{HANDLER_TESTS}`). The toolkit's "
    "replay also compared the emitted chunk streams exactly (its figure is below)."
)
PUBLIC_API = (
    "No public API change: `extract_from_completion_output` is not in any `__all__`, and "
    "`HandlerBase._extract_logprobs` is private; both gain an optional keyword-only "
    "parameter.\n\n"
    "- [ ] If this PR removes or incompatibly changes a public API, the symbol was "
    "deprecated in a prior release or a waiver is included, per the [API Stability and "
    "Deprecation Policy](docs/fern/pages/community/contributing/api-stability-policy.md)."
)
_TIERS = {
    t.name: f'{t.title} (`-m "{t.marker}"`{note})'
    for t, note in (
        (tiers.CPU, ""),
        (tiers.STANDIN, ": the handler tests on CPU, `tensorrt_llm` a labelled test double"),
        (tiers.GPU, ", in the TRT-LLM container"),
    )
}
CASES, CASES_SHOWN = ("256x4", "4096x1"), "256 tokens x 4 choices, 4096 x 1"
NOT_RUN = "not run for this base and series"


@dataclass(frozen=True)
class Facts:
    title: str
    base: str  # the base as a reader names it (tag, or commit and date), Markdown
    changed: Sequence[str]
    evidence: Sequence[StageEvidence]
    checks: Sequence[str]  # what this run checked and saw, one Markdown line each
    release: str = "<version>"  # the base's dynamo version: the TRT-LLM runtime image's tag


def render(f: Facts) -> str:
    headline, rest = _figures(f)
    sections = [
        f"## Overview:\n\n{OVERVIEW}",
        f"## Details:\n\n{DETAILS}\n- Made on {f.base}.\n{headline}\n{_alternative(f.evidence)}"
        f"\n\n{_rerun(f.evidence)}\n\n{rest}",
        f"## Where should the reviewer start?\n\n{_reviewer_start(f.changed)}",
        f"## Related Issues\n\n{_related(f.evidence)}",
        f"## Public API\n\n{PUBLIC_API}",
    ]
    return "\n\n".join(sections) + "\n"


def validation_record(f: Facts) -> str:
    """VALIDATION.md: every stage's command and saved output, then this run's checks."""
    return (
        f"# Validation: {f.title}\n\nMade on {f.base}. Each stage's exact command and its "
        "saved output for this base and series; a stage without one is named as not run. "
        "A record belongs to this series when its `series_sha256` is this series': sha256 "
        "over `patches/series` and then each patch it lists, in order, each fed as its file "
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


def checks(base: str, digest: str, patches: int, plan: BranchPlan, branch: str) -> list[str]:
    """This run's own checks (all passed to get here), as Markdown lines for VALIDATION.md."""
    signer, title = plan.commits[0].author, plan.commits[0].subject
    return [
        f"`git am` of `patches/series` ({patches} patch(es), sha256 `{digest[:12]}`) onto "
        f"{base}: applies; {len(plan.commits)} commit(s) on `{branch}`.",
        f"DCO: every commit has a `Signed-off-by` matching its author ({signer}): pass.",
        f"Title `{title}` is a Conventional Commit: pass.",
    ]


def _reviewer_start(changed: Sequence[str]) -> str:
    lines = [
        f"1. `{step.target.path}`, `{step.target.qualname}`: "
        + step.codemod.DESCRIPTION.partition(": ")[2]
        for step in SERIES
        if step.target in START and step.target.path in changed
    ]
    return "\n".join(lines) if lines else "(the series changes neither)"


def _related(found: Sequence[StageEvidence]) -> str:
    measured = "measured " if _ratios(_saved(found, "bench"), "alternative") else ""
    return (
        f"- Relates to #{RELATED_PR} (pull request)\n\n"
        f'#{RELATED_PR} ("{RELATED_TITLE}") proposes the same change ({RELATED_STATE}). What '
        f"this PR adds that a reviewer of #{RELATED_PR} could take: the helper's equivalence "
        f"test over every bail-out (`{HELPER_TEST}`), the interleaved-choices handler test "
        f"(`{HANDLER_TEST}`), and the {measured}one-line alternative above. If "
        f"#{RELATED_PR} lands first, close this one."
    )


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


def _alternative(found: Sequence[StageEvidence]) -> str:
    """The one-line alternative, its saved figures, and what this design costs against it."""
    head = (
        "**Alternatives considered.** Dropping only the helper's `list(...)` copy "
        f"(`{variants.ALTERNATIVE}`)"
    )
    why = (
        "The cost of this design: the keyword's value is not validated, so a caller passing a "
        "wrong delta would pair logprobs with the wrong ids. This series still passes the "
        "delta because the loop already built it, the history is not sliced a second time, "
        "and the helper reads exactly the ids the chunk emits. If reviewers prefer the "
        "one-liner, it is a one-line change."
    )
    counted = _saved(found, "bench")
    alt, ours = _ratios(counted, "alternative"), _ratios(counted, "patched")
    if counted is None or alt is None or ours is None:
        return (
            f"{head} needs no new parameter and helps every caller; it was not measured for "
            f"this base and series. {why}"
        )
    extra = [
        _mean(c["alternative"]) / _mean(c["patched"]) - 1 for c in counted["per_chunk"].values()
    ]
    line = str((_saved(found, "verify") or {}).get("alternative", {}).get("line", ""))
    apart = re.search(r"(\d+) divergences", line)
    replayed = f"; its replay shows {apart[1]} divergences from the baseline" if apart else ""
    return (
        f"{head} gets nearly all of the gain with no new parameter, and helps every caller: "
        f"{alt[0]:.3f} and {alt[1]:.3f} of the baseline's instructions per request "
        f"({CASES_SHOWN}) against {ours[0]:.3f} and {ours[1]:.3f} here; it is flat per chunk "
        f"too, with about {sum(extra) / len(extra) * 100:.0f} % more instructions per "
        f"chunk{replayed}. {why}"
    )


def _mean(tree: Mapping[str, Any]) -> float:
    return float(sum(w["per_chunk"] for w in tree["windows"]) / len(tree["windows"]))


def _rerun(found: Sequence[StageEvidence]) -> str:
    """The script a reviewer reruns, and the output the bench saved for this very script."""
    script = evidence.RERUN.read_text()
    counted = _saved(found, "bench") or {}
    saved = counted.get("rerun") or {}
    shown = "The toolkit has no saved run of this script for this base and series."
    if saved.get("sha256") == hashlib.sha256(script.encode()).hexdigest():
        shown = (
            f"Its output as the toolkit ran it on this branch's tree, {counted['at']}, on "
            f"{saved.get('cpu')} (timings move with the machine's load; the instruction "
            f"counts above do not):\n\n```text\n{str(saved.get('output')).rstrip()}\n```"
        )
    return (
        "<details><summary>Rerun it: the helper's cost per chunk with and without "
        "<code>new_token_ids</code>, in a plain dynamo checkout</summary>\n\n"
        f"Save as `{evidence.RERUN.name}` at the top of a dynamo checkout and run "
        f"`python3 {evidence.RERUN.name} [PATH/TO/logprobs.py]` (standard library only; it "
        "loads the helper by its path). On this branch it prints both columns and their "
        'ratio; on a tree before it, the "without" column only.\n\n'
        f"```python\n{script.rstrip()}\n```\n\n{shown}\n\n</details>"
    )


def _figures(f: Facts) -> tuple[str, str]:
    """The toolkit's headline figures as Markdown bullets; the rest of what it checked and
    the commands a reviewer runs, in a ``<details>``."""
    found = f.evidence
    counted, verify = _saved(found, "bench"), _saved(found, "verify")
    tests, hooks = _saved(found, "test-upstream"), _saved(found, "pre-commit")
    lines = [f"instructions per request (valgrind callgrind, deterministic): {NOT_RUN}"]
    if (ours := _ratios(counted, "patched")) and counted:
        chunk = counted["per_chunk"]["16384x1"]
        lines[0] = (
            "instructions per request (valgrind callgrind, deterministic), logprobs on, the "
            f"real `AggregatedHandler.generate` replayed on CPU: {ours[0]:.3f} of the baseline "
            f"at 256 tokens x 4 choices, {ours[1]:.3f} at 4096 x 1; per chunk, late vs early "
            f"in a 16384-token stream, {chunk['patched']['late_vs_early_pct']:+.1f} % "
            f"(baseline {chunk['baseline']['late_vs_early_pct']:+.0f} %); gates: {counted['verdict']}"
        )
    lines.append(f"replay of the real handler on both trees: {NOT_RUN}")
    if verify:
        apart = sum(1 for s in verify.get("scenarios") or [] if s.get("divergence"))
        lines[-1] = (
            "replay of the real handler on both trees, chunk streams compared exactly: "
            f"{len(verify.get('scenarios') or [])} streams ({verify.get('budget')} of them "
            f"hypothesis-drawn), {apart} divergences: {verify['verdict']}"
        )
    ran = (tests or {}).get("tiers") or {}
    for name, tier in ran.items():
        mutation = str(tier.get("mutation") or "no new test ran here").split(" (of")[0]
        regressions = len(tier.get("regressions") or []) or "none"
        lines.append(
            f"dynamo's own tests, {_TIERS.get(name, name)}: {mutation}; regressions: {regressions}"
        )
    said = "not run" if tests else NOT_RUN
    lines += [f"dynamo's own tests, {_TIERS[t]}: {said}" for t in _TIERS if t not in ran]
    hooks_said = (hooks or {}).get("verdict", NOT_RUN)
    lines.append(f"upstream's pre-commit hooks at their pinned versions: {hooks_said}")
    lines.append("this branch: `git am` onto its base, DCO sign-off and title checked: pass")
    lines.append(
        f"a reviewer runs, in a dynamo checkout: `pre-commit run --files {' '.join(f.changed)}`, "
        f"`pytest {HELPER_TESTS}`, and inside "
        f"`nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:{f.release}` "
        f'`pytest -m "pre_merge and trtllm and gpu_1" {HANDLER_TESTS}`'
    )
    head = 2 + len(ran)  # instructions, the replay, the tiers that ran
    return "".join(f"- {line}\n" for line in lines[:head]), (
        "<details><summary>What else the toolkit checked on this base and series, and what a "
        "reviewer runs (the full record is in VALIDATION.md)</summary>\n\n"
        + "".join(f"- {line}\n" for line in lines[head:])
        + "\n</details>"
    )
