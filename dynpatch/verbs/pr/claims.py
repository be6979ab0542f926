"""The sentences of the PR made from the typed records: each :class:`Claim` names the
record fields it states (``says``) and says pass only where its record passed. Pure: the
records in, the claims out; :mod:`.description` places them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dynpatch.designs import COPY_DIFF, RELATED, Design
from dynpatch.evidence import Bench, PreCommit, TestUpstream, Tier, Verify
from dynpatch.services.upstream_tests import tiers
from dynpatch.verbs.pr.branch import BranchPlan
from dynpatch.verbs.pr.governance import CoreLines
from dynpatch.verbs.pr.validation import Found

DEFECT = (
    "TensorRT-LLM streams cumulative token ids. With logprobs on, the TRT-LLM response loop "
    "calls the shared `extract_from_completion_output` for each choice of each chunk, and "
    "the helper copied the whole history so far (`list(output.token_ids)`) only to slice "
    "out the chunk's ids: 1 + 2 + … + N ids for an N-token choice streamed a token at a "
    "time, and more in responses where that choice does not advance."
)
TO_COMPLETE = (
    "_(complete before submitting: what you read and ran yourself, e.g. the diff line by "
    "line, and `pytest ...` in a dynamo checkout or the TRT-LLM container)_"
)
CR_PLACEHOLDER = "XXXX"  # the Contribution Request's issue number, until the person has one
HANDLER = "`HandlerBase._generate_locally_impl`"
_CASES = {"256x4": "256 tokens, 4 choices", "4096x1": "4,096 tokens, 1 choice"}


@dataclass(frozen=True)
class Claim:
    """One sentence of the PR, and the record fields it states."""

    text: str
    stage: str = ""  # the record it is made from ("": none)
    says: Mapping[str, Any] = field(default_factory=dict)  # field path -> the value stated
    verdict: str = ""  # what it says of its check: pass, fail, not run ("": nothing)


@dataclass(frozen=True)
class Inputs:
    design: Design
    base: str  # the base as a reader names it, Markdown
    wheel_tree: bool  # the base is a PyPI wheel's tree, not an upstream commit
    found: Found
    core: CoreLines
    plan: BranchPlan
    changed: tuple[str, ...]
    digest: str  # the series' sha256
    script: str = ""  # the reviewer's script
    request: int | None = None  # the Contribution Request's issue number
    supersedes: bool = False  # #14402's author and reviewers agreed this one replaces it
    posted: bool = False  # the kept revision was pushed or posted: say what changed
    discussed: str | None = None  # the link to the answer on #14402
    reviewed: str | None = None


def _pytest(marker: str, paths: Sequence[str]) -> str:
    return f'`pytest --import-mode=importlib -m "{marker}" {" ".join(paths)}`'


GPU_TESTS = _pytest("pre_merge and trtllm and gpu_1", [tiers.TRTLLM_TESTS])  # on a GPU


def _counts(c: Mapping[str, int]) -> str:
    return ", ".join(f"{n:,} {o}" for o, n in sorted(c.items())) or "no tests"


def tier_claim(t: Tier, at: int, keyword: str) -> Claim:
    """What one tier of dynamo's tests showed, and the command that reruns it."""
    says: dict[str, Any] = {f"tiers.{at}.before.{o}": n for o, n in t.before.items()}
    says |= {f"tiers.{at}.after.{o}": n for o, n in t.after.items()}
    counts = f"before the change {_counts(t.before)}; after it {_counts(t.after)}"
    carried = len(t.new) + len(t.extended)
    if carried:
        says |= {f"tiers.{at}.{k}": len(getattr(t, k)) for k in ("failed_before", "passed_after")}
        how = f" (`{t.why_before}`)" if t.why_before else ""
        counts += (
            f". Of the {_n(carried, 'case')} this PR {'adds or extends' if t.extended else 'adds'}, {len(t.failed_before)} "
            f"fail before the change{how} and {len(t.passed_after)} pass with it"
        )
        if t.ignored_caught is not None and t.new:
            says[f"tiers.{at}.ignored_caught"] = t.ignored_caught
            counts += (
                f"; {t.ignored_caught} of the {len(t.new)} new ones fail when the helper "
                f"takes `{keyword}` but ignores it"
            )
    says[f"tiers.{at}.changed"] = len(t.changed)
    counts += f"; {len(t.changed) or 'no'} other test{'s' * (len(t.changed) != 1)} changed outcome"
    if t.failed_both:
        says[f"tiers.{at}.failed_both"] = len(t.failed_both)
        why = "they need parts of `tensorrt_llm` the stub lacks" if t.double else "on both sides"
        counts += f"; {len(t.failed_both)} fail before and after alike ({why})"
    command = _pytest(t.marker, t.paths)
    text, verdict = f"{command}: {counts}.", "pass"
    if t.problems:
        text, verdict = f"{command}: {counts}. FAIL: {t.problems[0]}.", "fail"
    elif t.double:  # shows no outcome change, nothing of TensorRT-LLM itself: no pass
        verdict = ""
        text = (
            f"dynamo's TRT-LLM handler tests ({command}) run here on CPU with a stub in place "
            "of `tensorrt_llm`: that cannot show how TensorRT-LLM behaves; it shows whether "
            f"any handler test changed outcome: {counts}."
        )
    return Claim(text, "test-upstream", says, verdict)


def test_claims(i: Inputs) -> list[Claim]:
    got = i.found.tests
    if isinstance(got, str):
        said = f"dynamo's tests before and after the change: not run ({got})."
        return [Claim(said, "test-upstream", verdict="not run")]
    facts: TestUpstream = got.facts
    lines = [tier_claim(t, n, i.design.keyword) for n, t in enumerate(facts.tiers)]
    if tiers.GPU.name in facts.not_run and all(t.name != tiers.GPU.name for t in facts.tiers):
        said = "The TRT-LLM tests on a GPU were not run (no GPU where this was made); in the "
        said += f"TRT-LLM container: {GPU_TESTS}."
        lines.append(Claim(said, "test-upstream", verdict="not run"))
    return lines


def verify_claim(i: Inputs) -> Claim:
    got = i.found.verify
    head = f"The chunks {HANDLER} emits, replayed before and after the change with a "
    head += "scripted engine"
    if isinstance(got, str):
        return Claim(f"{head}: not run ({got}).", "verify", verdict="not run")
    v: Verify = got.facts
    says = {"streams": v.streams, "drawn": v.drawn, "chunks": v.chunks}
    seen = f"{v.streams:,} streams, {v.drawn:,} of them drawn at random with seed {v.seed}, {v.chunks:,} chunks"
    tail = "; the replay runs in the tool named in the disclosure, not in a dynamo checkout"
    said, verdict = "every chunk identical", "pass"
    if got.problems:
        says["differ"] = len(v.differ)
        said, verdict = f"FAIL: {len(v.differ)} differ ({got.problems[0]})", "fail"
    return Claim(f"{head} ({seen}): {said}{tail}.", "verify", says, verdict)


def pre_commit_claim(i: Inputs) -> Claim:
    got = i.found.pre_commit
    command = f"`pre-commit run --files {' '.join(i.changed)}`"
    if isinstance(got, str):
        said = f"dynamo's pre-commit hooks ({command}): not run ({got})."
        return Claim(said, "pre-commit", verdict="not run")
    p: PreCommit = got.facts
    hooks = ", ".join(
        f"{h.name} {v}" if (v := h.version.split(" ")[0])[0].isdigit() else f"the {h.name} check"
        for h in p.hooks
        if h.scope != "commit messages"
    )
    own = "this base has no `.pre-commit-config.yaml`"
    if p.base_config:
        own = "this base's own `.pre-commit-config.yaml` was not read"
    found = len(p.findings)
    says = {"paths": len(p.paths), "findings": found}
    head = f"dynamo's pre-commit hooks ({hooks}), each run on its own at the pins and with the "
    head += f"settings of {p.config}, on the {len(p.paths)} changed files"
    said, verdict = "no findings", "pass"
    if got.problems:
        said, verdict = f"FAIL: {_n(found, 'finding')}, the first {got.problems[0]}", "fail"
    text = f"{head}: {said} ({own}; in a checkout: {command})."
    return Claim(text, "pre-commit", says, verdict)


def cost_claims(i: Inputs) -> list[Claim]:
    """The helper's cost per chunk and per request (the script), then instructions per
    request of the whole handler (valgrind), each with its measured spread."""
    got = i.found.bench
    if isinstance(got, str):
        return [
            Claim(f"The cost was not measured on this base ({got}).", "bench", verdict="not run")
        ]
    b: Bench = got.facts
    out = []
    heads = {
        "per_chunk_us": "The helper's CPU time per chunk (one new token, logprobs on), by how many "
        "tokens the choice already holds; median of {runs} runs on {machine}, lowest to "
        "highest in brackets:",
        "request_ms": "Over a whole single-choice request, the helper's CPU time (pure Python, "
        "so the GIL is held throughout; median of {runs} runs):",
    }
    for key, head in heads.items() if b.script else ():
        rows = getattr(b.script, key)
        cells = {(n, c): v for n, row in rows.items() for c, v in row.items()}
        runs = max(len(v.runs) for v in cells.values())
        says = {f"script.{key}.{n}.{c}.median": v.median for (n, c), v in cells.items()}
        head = head.format(runs=runs, machine=b.script.machine)
        out.append(Claim(f"{head}\n\n" + "\n".join(b.script.table(key)), "bench", says))
    ours = {c: b.ratio(c, "patched") for c in _CASES}
    failed = f" FAIL: the handler's own thresholds: {got.problems[0]}." if got.problems else ""
    verdict = "fail" if got.problems else ""
    if None in ours.values():
        out.append(Claim(failed.strip() or "Instructions: not counted.", "bench", verdict=verdict))
        return out
    said = "; ".join(f"{_CASES[c]}: {r:.3f} of before" for c, r in ours.items())
    text = (
        f"Instructions per request of the whole handler ({HANDLER} through "
        "`AggregatedHandler.generate`, on CPU with logprobs on, a scripted engine in place "
        f"of TensorRT-LLM; valgrind): {said}. The 256-token, 4-choice request was "
        f"counted twice; the two counts differ by at most {b.apart_pct:.6f} %. These counts "
        f"come from a harness of the tool named in the disclosure, not a dynamo checkout.{failed}"
    )
    says = {f"ratio.{c}.patched": r for c, r in ours.items()} | {"apart_pct": b.apart_pct}
    return [*out, Claim(text, "bench", says, verdict)]


def alternative_claim(i: Inputs) -> Claim:
    """The other design, and where the choice between the two is made: not here."""
    head = f"**Alternatives considered.** {i.design.other}"
    head += f":\n\n{COPY_DIFF}\n\n" if i.design.keyword else ". "
    where = f" ({i.discussed})" if i.discussed else ""
    return Claim(
        f"{head}Which of the two to take is for #{RELATED.number}'s discussion{where}; "
        "VALIDATION.md has the instructions per request of both, counted the same way."
    )


def branch_claim(i: Inputs) -> Claim:
    n, signed = len(i.plan.commits), "not signed"
    if i.plan.signatures:
        signed = "and signed with its author's key (whether GitHub shows it Verified is seen "
        signed += "once pushed)"
    said = f"This branch: {_n(n, 'commit')}, {'each ' * (n > 1)}with a DCO sign-off by its author "
    return Claim(f"{said}and a Conventional Commit title, {signed}.", verdict="pass")


def _n(count: int, thing: str) -> str:
    return f"{count:,} {thing}{'s' * (count != 1)}"


def claims(i: Inputs) -> list[Claim]:
    """Every sentence made from a record, as :func:`render` places them."""
    return [
        *cost_claims(i),
        *test_claims(i),
        verify_claim(i),
        pre_commit_claim(i),
        alternative_claim(i),
    ]
