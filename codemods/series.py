"""The patch series, an ordered list of codemods run purely over file contents: every
target's outcome and the changed files' new text come back; nothing is written, so a
drifted target cannot leave a half-patched tree."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst.codemod import CodemodContext

# Modules, not classes: a class imported here would be listed as `series.<Command>`.
from codemods import (
    fixed_upstream,
    handler_call_passes_delta,
    handler_extract_forwards_delta,
    handler_response_loop_tests,
    helper_delta_tests,
    logprobs_helper,
)
from codemods.outcome import (
    AlreadyApplied,
    Drifted,
    NotApplicable,
    Outcome,
    Status,
    Target,
    TargetedCommand,
)


@dataclass(frozen=True)
class Step:
    codemod: type[TargetedCommand]
    # Why the target's file may not exist (it is then not applicable); "": it must.
    missing_reason: str = ""
    # Tests for the other steps' change: not applicable when the change is not, and
    # never blocking it.
    carries_tests: bool = False
    # What the step adds or rewrites (definitions) and imports: its scope in the
    # changed-lines check (dynpatch.apply.scope.lines_changed_in).
    adds: tuple[str, ...] = ()
    imports: tuple[str, ...] = ()

    @property
    def target(self) -> Target:
        return self.codemod.TARGET


SERIES: tuple[Step, ...] = (
    Step(
        logprobs_helper.LogprobsHelperDelta,
        missing_reason="no shared logprob helper module (releases <= 1.2.1)",
        imports=("Sequence",),
    ),
    Step(handler_extract_forwards_delta.HandlerExtractForwardsDelta, imports=("Sequence",)),
    Step(handler_call_passes_delta.HandlerCallPassesDelta),
    Step(
        helper_delta_tests.HelperDeltaTests,
        missing_reason="no shared-logprob test module: the helper's regression tests are not carried",
        carries_tests=True,
        adds=helper_delta_tests.added_names(),
    ),
    Step(
        handler_response_loop_tests.HandlerResponseLoopTests,
        missing_reason="no TRT-LLM handler test module: the response-loop tests are not carried",
        carries_tests=True,
        adds=handler_response_loop_tests.added_names(),
    ),
)


@dataclass(frozen=True)
class SeriesResult:
    outcomes: tuple[Outcome, ...]
    # path -> new source, only for files whose content changed.
    changed: Mapping[str, str] = field(default_factory=dict)
    # Targets of test-carrying steps: their "not applicable" never blocks the change.
    optional: frozenset[Target] = frozenset()
    # The release's own fix as its syntax suggests, and what a run of its code said.
    candidate: fixed_upstream.Candidate | None = None
    verdict: str = ""

    @property
    def upstream_fix(self) -> str:
        """What the release has instead of the series, when it is fixed upstream (else "")."""
        fixed = self.fixed_upstream and self.candidate is not None
        return f"{self.candidate.reason}; {self.verdict}" if fixed else ""

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
        """True when every target is applied or already applied, or is a test step that
        does not apply."""
        return all(o.ok or self._skipped_tests(o) for o in self.outcomes)

    def judged(self, fixed: bool, verdict: str) -> SeriesResult:
        """This result once a run of the release's code judged its candidate, ``verdict``
        saying why: ``fixed`` makes the fix's targets fixed upstream, the test steps not
        applicable and nothing changed."""
        if self.candidate is None:
            raise ValueError("no candidate upstream fix to judge")
        if not fixed:
            return dataclasses.replace(self, verdict=verdict)
        fix = f"fixed upstream: {self.candidate.reason}; {verdict}"
        untested = "no change to test: the fix is already upstream"
        outcomes = tuple(
            Outcome(o.target, Status.NOT_APPLICABLE, f"{o.target.path}: {untested}")
            if o.target in self.optional
            else Outcome(
                o.target, Status.FIXED_UPSTREAM, f"{o.target.path}: {o.target.qualname}: {fix}"
            )
            for o in self.outcomes
        )
        return dataclasses.replace(self, outcomes=outcomes, changed={}, verdict=verdict)

    def _skipped_tests(self, o: Outcome) -> bool:
        return o.target in self.optional and o.status is Status.NOT_APPLICABLE

    def problems(self) -> list[str]:
        """One line per reason the series cannot be written (empty when ``ok``)."""
        if self.ok:
            return []
        if self.not_applicable:
            return [f"series not applicable: {self.outcomes[0].detail}"]
        if self.fixed_upstream:
            return [f"series fixed upstream: {self.upstream_fix}"]
        lines = [o.detail for o in self.outcomes if o.status is Status.DRIFTED]
        if self.candidate is not None:  # first: it says what to do about the drift
            verdict = self.verdict or "not judged (only a run of the release's code can tell)"
            lines.insert(0, f"upstream's own fix? {self.candidate.reason}: {verdict}")
        lines += [
            f"{o.target.path}: {o.target.qualname}: not applicable while other targets "
            f"apply ({o.detail}); refusing a partial series"
            for o in self.outcomes
            if o.status is Status.NOT_APPLICABLE and not self._skipped_tests(o)
        ]
        return lines


def run_codemod(
    codemod: type[TargetedCommand], path: str, tree: cst.Module
) -> tuple[Status, str, cst.Module]:
    """Run one codemod on one parsed module: (status, detail, resulting module)."""
    try:
        # _impl: no metadata, so no deep copy of the module (nor TargetedCommand's check).
        new = codemod(CodemodContext(filename=path)).transform_module_impl(tree)
    except AlreadyApplied as exc:
        return Status.ALREADY_APPLIED, str(exc), tree
    except NotApplicable as exc:
        return Status.NOT_APPLICABLE, str(exc), tree
    except Drifted as exc:
        return Status.DRIFTED, str(exc), tree
    return Status.APPLIED, codemod.DESCRIPTION, new


def run_series(read: Callable[[str], str | None], steps: tuple[Step, ...] = SERIES) -> SeriesResult:
    """Run ``steps`` in order over the sources ``read`` returns, each file parsed once (so
    codemods on one file see each other's results); write nothing."""
    trees: dict[str, cst.Module | str | None] = {}
    outcomes: list[Outcome] = []
    for step in steps:
        path = step.target.path
        if step.carries_tests and _change_not_applicable(outcomes, steps):
            detail = f"{path}: no change to test: the fix does not apply to this release"
            outcomes.append(Outcome(step.target, Status.NOT_APPLICABLE, detail))
            continue
        if path not in trees:
            trees[path] = _parse(read(path))
        tree = trees[path]
        if isinstance(tree, cst.Module):
            status, detail, trees[path] = run_codemod(step.codemod, path, tree)
        elif tree is None and step.missing_reason:
            status, detail = Status.NOT_APPLICABLE, f"{path}: {step.missing_reason}"
        else:  # the file is missing, or does not parse
            status, detail = Status.DRIFTED, f"{path}: {step.target.qualname}: {tree or 'no file'}"
        outcomes.append(Outcome(step.target, status, detail))
    optional = frozenset(s.target for s in steps if s.carries_tests)
    touched = {o.target.path for o in outcomes if o.status is Status.APPLIED}
    changed = {p: t.code for p, t in trees.items() if p in touched and isinstance(t, cst.Module)}
    candidate = _candidate(outcomes, optional, trees, read)
    return SeriesResult(tuple(outcomes), changed, optional, candidate)


def _candidate(
    outcomes: list[Outcome],
    optional: frozenset[Target],
    trees: dict[str, cst.Module | str | None],
    read: Callable[[str], str | None],
) -> fixed_upstream.Candidate | None:
    """The release's own fix by its syntax, when a target of the fix drifted; else None."""
    if not any(o.status is Status.DRIFTED and o.target not in optional for o in outcomes):
        return None

    def module(path: str) -> cst.Module | None:
        tree = trees[path] if path in trees else _parse(read(path))
        return tree if isinstance(tree, cst.Module) else None

    helper, handler = logprobs_helper.TARGET.path, handler_extract_forwards_delta.PATH
    return fixed_upstream.detect(module(helper), module(handler))


def _change_not_applicable(outcomes: list[Outcome], steps: tuple[Step, ...]) -> bool:
    """True when every step of the change so far was not applicable: nothing to test."""
    change = {s.target for s in steps if not s.carries_tests}
    done = [o for o in outcomes if o.target in change]
    return bool(done) and all(o.status is Status.NOT_APPLICABLE for o in done)


def _parse(source: str | None) -> cst.Module | str | None:
    """The parsed module, the parse error as text, or None for a missing file."""
    try:
        return None if source is None else cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return f"does not parse: {exc.message} (line {exc.raw_line})"


COMMIT_MESSAGE = """\
perf(trtllm): reuse the streamed delta for logprob extraction

TensorRT-LLM streams cumulative token ids. For each choice of each
response, the TRT-LLM response loop builds the chunk's delta,
output.token_ids[tokens_so_far:], then calls the shared
extract_from_completion_output, which copied the whole history with
list(output.token_ids) only to slice it again. With logprobs on, an
N-token choice copied 1 + 2 + ... + N ids, even in responses where
it did not advance.

extract_from_completion_output and HandlerBase._extract_logprobs now
take an optional keyword-only new_token_ids, and the response loop
passes its delta. The chunks are unchanged. Callers that do not pass
it, such as vLLM's handler, run the old code.
"""
