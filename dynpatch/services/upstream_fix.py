"""Is a release's own candidate fix the fix? Judged by running that release's code.

A candidate (:func:`codemods.fixed_upstream.detect`) only says that the release's loop hands
its delta to some parameter of the helper. The judgement replays streams (:data:`STREAMS`:
deltas of every size, interleaved choices, every bail-out) through that release's real
``AggregatedHandler.generate`` in a child (:mod:`dynpatch.replay.reads`), with cumulative
``token_ids`` that record which positions are read. Fixed upstream only when no chunk reads
a token id outside its delta and every chunk equals the one the release gives with that
parameter withheld.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import files
from dynpatch.io import git as gitio
from dynpatch.replay import expect, runner, wire
from dynpatch.services.export import ApplyReport
from dynpatch.workspace import Workspace

STREAMS = (
    "1-choice-one-token-top1",
    "1-choice-multi-token-top5",
    "empty-increments",
    "4-choices-uneven-multi-token-top5",
    "logprobs-requested-engine-empty",
    "flat-float-logprobs",
    "none-position",
    "empty-position-dict",
    "missing-selected-token-falls-back-to-first",
    "logprobs-lag",
    "logprobs-ahead",
)


def settle(
    report: ApplyReport, checkout: Checkout, python: Callable[[], Path], ws: Workspace, log: Path
) -> None:
    """Judge the candidate upstream fix of ``report`` (if it has one) on a fresh copy of
    ``checkout``'s base with the interpreter ``python()`` gives; ``report.result`` then
    records the verdict. A run that cannot happen judges nothing: not fixed."""
    candidate = report.result.candidate
    if candidate is None:
        return
    try:
        with files.owned_dir(ws.scratch, "judge-") as tmp:
            tree, label = tmp / "tree", f"ai-dynamo {checkout.release.version}"
            gitio.clone_at(checkout.path, checkout.base, tree)
            fixed, why = judge(tree / "components" / "src", candidate.param, python(), log, label)
    except ToolkitError as exc:
        fixed, why = False, f"not judged: {exc}"
    report.result = report.result.judged(fixed, why)


def judge(
    src: Path, param: str, python: Path, log: Path, label: str = "release"
) -> tuple[bool, str]:
    """(fixed, why) for the tree ``src`` whose loop hands its delta to the helper's
    ``param``, from one replay child (its output in ``log``)."""
    job = {"scenarios": list(STREAMS), "withhold": param}
    tree = runner.Tree(label, src.resolve())  # the child runs elsewhere
    return verdict(runner.run_child(tree, job, log, python=str(python)), param)


def verdict(result: dict[str, Any], param: str) -> tuple[bool, str]:
    """(fixed, why) from what the child saw (:mod:`dynpatch.replay.reads`)."""
    streams = result["scenarios"]
    read = [
        (s["name"], i, reads, history)
        for s in streams
        for i, (reads, history) in enumerate(s["given"]["reads"])
        if reads
    ]
    if read:
        name, i, reads, history = read[0]
        return False, (
            f"with `{param}` given, chunk {i} of stream {name} read {reads} token id(s) outside "
            f"its delta, of a history of {history} ({len(read)} chunks did, "
            f"{sum(r[2] for r in read)} token ids in all)"
        )
    for s in streams:
        name, given = s["name"], s["given"]
        d = wire.first_divergence(name, s["withheld"]["records"], given["records"])
        if d is not None:
            where = f"chunk {d.chunk}" if d.chunk is not None else f"record {d.index} ({d.kind})"
            return False, (
                f"stream {name}, {where} differs from the same release without `{param}`: "
                f"field {d.field or '<whole>'}: {d.patched} instead of {d.baseline}"
            )
        if not given["reads"]:
            return False, f"stream {name} gave no chunk: the judgement saw nothing"
    if expect.unmet(("log_probs",), [r for s in streams for r in s["given"]["records"]]):
        return False, "no chunk carried log_probs: the judgement never saw the helper report"
    chunks = sum(len(s["given"]["reads"]) for s in streams)
    reading = sum(1 for s in streams for reads, _ in s["withheld"]["reads"] if reads)
    return True, (
        f"run: {chunks} chunks of {len(streams)} streams read no token id outside their "
        f"delta and equal those without `{param}` (of which {reading} read the history)"
    )
