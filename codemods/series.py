"""The patch series: the codemods in order, run over file contents. Each target's outcome
and the changed files' text come back; nothing is written, so drift leaves no half-patch."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst
from libcst.codemod import CodemodContext

# Modules, not classes: a class imported here would be listed as `series.<Command>`.
from codemods import (
    fixed_upstream,
    handler_call_passes_delta,
    handler_extract_forwards_delta,
    helper_delta_tests,
    helper_drops_copy,
    logprobs_helper,
    one_liner_helper_tests,
)
from codemods import handler_response_loop_tests as loop_tests
from codemods.outcome import ENDINGS, Outcome, Status, Target, TargetedCommand


@dataclass(frozen=True)
class Step:
    codemod: type[TargetedCommand]
    carries_tests: bool = False  # tests of the change: n/a when it is n/a, never blocking it
    imports: tuple[str, ...] = ()  # names it imports

    @property
    def target(self) -> Target:
        return self.codemod.TARGET

    @cached_property
    def adds(self) -> tuple[str, ...]:
        """The definitions it adds (a test step's; the others rewrite their target): with
        ``imports``, its scope (dynpatch.services.scope.lines_changed_in)."""
        return self.codemod.added_names() if self.carries_tests else ()  # type: ignore[attr-defined]


# A missing file is an empty module: each codemod says whether that is drift.
SERIES: tuple[Step, ...] = (
    Step(logprobs_helper.LogprobsHelperDelta, imports=("Sequence",)),
    Step(handler_extract_forwards_delta.HandlerExtractForwardsDelta, imports=("Sequence",)),
    Step(handler_call_passes_delta.HandlerCallPassesDelta),
    Step(helper_delta_tests.HelperDeltaTests, carries_tests=True),
    Step(loop_tests.HandlerResponseLoopTests, carries_tests=True),
)
# The second design, for when reviewers prefer it: only the helper's copy dropped, with
# its test beside the helper's: one CODEOWNERS area (common/backend), so no Contribution
# Request; dynamo's own handler tests still hold on it (test-upstream runs them).
ONE_LINER: tuple[Step, ...] = (
    Step(helper_drops_copy.HelperDropsCopy),
    Step(one_liner_helper_tests.OneLinerHelperTests, carries_tests=True),
)


@dataclass(frozen=True)
class SeriesResult:
    outcomes: tuple[Outcome, ...]
    changed: Mapping[str, str] = field(default_factory=dict)  # path -> new source, if changed
    optional: frozenset[Target] = frozenset()  # test steps' targets: their n/a never blocks
    # The release's own fix by its syntax, how a run of its code says it fixes it, and why.
    candidate: fixed_upstream.Candidate | None = None
    how: str = ""
    verdict: str = ""

    @property
    def upstream_fix(self) -> str:
        """What the release has instead of the series, when it is fixed upstream (else "")."""
        return f"{self.how}; {self.verdict}" if self.fixed_upstream else ""

    @property
    def drifted(self) -> bool:
        """True when a target of the fix (not its tests) drifted: is it fixed another way?"""
        return any(
            o.status is Status.DRIFTED and o.target not in self.optional for o in self.outcomes
        )

    @property
    def not_applicable(self) -> bool:
        """True when the whole series does not apply (every target says so)."""
        return all(o.status is Status.NOT_APPLICABLE for o in self.outcomes)

    @property
    def fixed_upstream(self) -> bool:
        """True when every target of the fix (the non-test steps) is fixed upstream."""
        change = [o for o in self.outcomes if o.target not in self.optional]
        return bool(change) and all(o.status is Status.FIXED_UPSTREAM for o in change)

    @property
    def ok(self) -> bool:
        """True when every target is applied or already applied, or is a skipped test step."""
        return all(o.ok or self._skipped_tests(o) for o in self.outcomes)

    def _skipped_tests(self, o: Outcome) -> bool:
        return o.target in self.optional and o.status is Status.NOT_APPLICABLE

    def judged(self, fixed: bool, verdict: str, how: str = "") -> SeriesResult:
        """Judged by a run of the release's code; ``fixed``: fixed upstream, tests n/a."""
        if not how:
            how = f"by a keyword of its own ({self.candidate.reason})" if self.candidate else "?"
        if not fixed:
            return dataclasses.replace(self, verdict=verdict, how=how)
        fix = f"fixed upstream {how}; {verdict}"
        untested = "no change to test: the fix is already upstream"
        outcomes = tuple(
            Outcome(o.target, Status.NOT_APPLICABLE, f"{o.target.path}: {untested}")
            if o.target in self.optional
            else Outcome(o.target, Status.FIXED_UPSTREAM, f"{_where(o.target)}: {fix}")
            for o in self.outcomes
        )
        return dataclasses.replace(self, outcomes=outcomes, changed={}, verdict=verdict, how=how)

    def problems(self) -> list[str]:
        """One line per reason the series cannot be written (empty when ``ok``)."""
        if self.ok:
            return []
        if self.not_applicable:
            return [f"series not applicable: {self.outcomes[0].detail}"]
        if self.fixed_upstream:
            return [f"series fixed upstream: {self.upstream_fix}"]
        lines = [o.detail for o in self.outcomes if o.status is Status.DRIFTED]
        if self.verdict and self.candidate is not None:  # a run's word on a look-alike: first
            lines.insert(0, f"upstream's own fix? {self.how}: {self.verdict}")
        elif self.verdict:  # any other drift: did it fix it in a shape of its own? no
            lines.append(f"not fixed another way either, by a run of its code: {self.verdict}")
        elif self.candidate is not None:
            unjudged = "not judged (only a run of the release's code can tell)"
            lines.insert(0, f"upstream's own fix? {self.candidate.reason}: {unjudged}")
        return lines + [
            f"{_where(o.target)}: not applicable while other targets apply ({o.detail}); "
            "refusing a partial series"
            for o in self.outcomes
            if o.status is Status.NOT_APPLICABLE and not self._skipped_tests(o)
        ]


def _where(target: Target) -> str:
    return f"{target.path}: {target.qualname}"


def run_codemod(
    codemod: type[TargetedCommand], path: str, tree: cst.Module
) -> tuple[Status, str, cst.Module]:
    """Run one codemod on one parsed module: (status, detail, resulting module)."""
    try:
        # _impl: no metadata, so no deep copy of the module (nor TargetedCommand's check).
        new = codemod(CodemodContext(filename=path)).transform_module_impl(tree)
    except ENDINGS as exc:
        return exc.status, str(exc), tree
    return Status.APPLIED, codemod.DESCRIPTION, new


def run_series(read: Callable[[str], str | None], steps: tuple[Step, ...] = SERIES) -> SeriesResult:
    """Run ``steps`` over the sources ``read`` gives (None: no file), each file parsed once
    (codemods on one file see each other's results); write nothing."""
    trees: dict[str, cst.Module | str] = {}

    def module(path: str) -> cst.Module | str:
        if path not in trees:
            try:
                trees[path] = cst.parse_module(read(path) or "")
            except cst.ParserSyntaxError as exc:
                trees[path] = f"does not parse: {exc.message} (line {exc.raw_line})"
        return trees[path]

    optional = frozenset(s.target for s in steps if s.carries_tests)
    outcomes: list[Outcome] = []
    for step in steps:
        target, done = step.target, [o for o in outcomes if o.target not in optional]
        if step.carries_tests and done and all(o.status is Status.NOT_APPLICABLE for o in done):
            detail = f"{target.path}: no change to test: the fix does not apply to this release"
            outcomes.append(Outcome(target, Status.NOT_APPLICABLE, detail))
        elif isinstance(tree := module(target.path), str):
            outcomes.append(Outcome(target, Status.DRIFTED, f"{_where(target)}: {tree}"))
        else:
            status, detail, trees[target.path] = run_codemod(step.codemod, target.path, tree)
            outcomes.append(Outcome(target, status, detail))
    touched = {o.target.path for o in outcomes if o.status is Status.APPLIED}
    changed = {p: t.code for p, t in trees.items() if p in touched and isinstance(t, cst.Module)}
    result = SeriesResult(tuple(outcomes), changed, optional)
    if result.drifted:  # the release's own fix by its syntax, looked for only then
        paths = logprobs_helper.TARGET.path, handler_extract_forwards_delta.PATH
        helper, handler = (module(path) for path in paths)
        if isinstance(helper, cst.Module) and isinstance(handler, cst.Module):
            return dataclasses.replace(result, candidate=fixed_upstream.detect(helper, handler))
    return result


COMMIT_MESSAGE = """\
perf(trtllm): reuse the streamed delta for logprob extraction

TensorRT-LLM streams cumulative token ids. For each choice of each
response, the TRT-LLM response loop builds the chunk's delta,
output.token_ids[tokens_so_far:], then calls the shared
extract_from_completion_output, which copied the whole history with
list(output.token_ids) only to slice it again. With logprobs on, each
chunk copied the whole history so far: 1 + 2 + ... + N ids for an
N-token choice streamed a token at a time, and more in responses
where that choice did not advance.

extract_from_completion_output and HandlerBase._extract_logprobs now
take an optional keyword-only new_token_ids, and the response loop
passes its delta. The chunks are unchanged. Callers that do not pass
it, such as vLLM's handler, run the old code.
"""

ONE_LINER_MESSAGE = """\
perf(backend): slice the token history without copying it for logprobs

TensorRT-LLM streams cumulative token ids. For each choice of each
response, the TRT-LLM response loop calls the shared
extract_from_completion_output, which copied the whole history with
list(output.token_ids) only to slice the chunk's ids out of it. With
logprobs on, each chunk copied the whole history so far: 1 + 2 + ... + N
ids for an N-token choice streamed a token at a time, and more in
responses where that choice did not advance.

The helper now slices output.token_ids without copying it first, and
its docstring says the ids must support len() and slicing. No signature
changes: a slice of a list holds what a slice of its copy held.
"""
