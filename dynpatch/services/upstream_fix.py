"""Is a release on which the series drifted fixed upstream, whatever shape the fix takes? Run
:data:`STREAMS` through its real handler (:mod:`dynpatch.replay.reads` records the token ids
read) and the series' own patched tree: fixed only when no chunk reads outside its delta, all
ids and logprobs equal the reference's, and some chunk carries logprobs; then how is said."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import libcst as cst

from codemods import shape
from codemods.logprobs_helper import TARGET
from dynpatch import evidence, series
from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout, fetch
from dynpatch.io import files
from dynpatch.io import git as gitio
from dynpatch.pin import Pin
from dynpatch.replay import expect, runner
from dynpatch.services import runtimes, variants
from dynpatch.services.export import ApplyReport
from dynpatch.services.trees import prepare_trees
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
    "logprobs-lag-sampled",
    "logprobs-ahead-sampled",
)
# What of a chunk the fix concerns (the rest may change between releases for other reasons).
FIELDS = ("index", "token_ids", "log_probs", "top_logprobs")


@dataclass(frozen=True)
class Reference:
    """The series' own patched tree that a release's chunks must equal, and how to run it."""

    src: Path  # its components/src
    python: Path
    label: str  # as the verdict names it
    baseline_helper: str  # the pinned release's helper, before the series (its logprobs.py)


def reference(pin: Pin, ws: Workspace) -> Reference:
    trees = prepare_trees(fetch(pin, ws), ws.patches, ws.trees)
    helper = (trees.baseline / TARGET.path).read_text()
    python = runtimes.release_python(pin.version, ws.runtimes)
    label = f"the series on ai-dynamo {pin.version}"
    return Reference(trees.src(trees.patched), python, label, helper)


def settle(
    report: ApplyReport,
    checkout: Checkout,
    python: Callable[[], Path],
    ws: Workspace,
    log: Path,
    ref: Callable[[], Reference],
) -> None:
    """Judge ``report``'s release, if the fix drifted on it, by a run of a fresh copy of its base
    against ``ref()``, into ``report.result``; a run that cannot happen: not fixed."""
    if not report.result.drifted:
        return
    how = ""
    try:
        with files.owned_dir(ws.scratch, "judge-") as tmp:
            tree, label = tmp / "tree", f"ai-dynamo {checkout.release.version}"
            gitio.clone_at(checkout.path, checkout.base, tree)
            against = ref()
            how, kept = describe(report, tree, against, ws)
            fixed, why = judge(tree / "components" / "src", against, python(), log, label)
    except ToolkitError as exc:
        fixed, why, kept = False, f"not judged: {exc}", ""
    report.result = report.result.judged(fixed, why, f"{how}{kept}" if fixed else how)


def judge(src: Path, ref: Reference, python: Path, log: Path, label: str) -> tuple[bool, str]:
    """(fixed, why) for the release tree ``src``, from a replay child on it and one on ``ref``."""
    job = {"scenarios": list(STREAMS), "watch": True}
    release = runner.run_child(runner.Tree(label, src.resolve()), job, log, python=str(python))
    against = runner.run_child(
        runner.Tree("reference", ref.src.resolve()),
        job,
        log.with_name(f"{log.stem}.reference{log.suffix}"),
        python=str(ref.python),
    )
    return verdict(release, against, ref.label)


def verdict(release: dict[str, Any], reference: dict[str, Any], label: str) -> tuple[bool, str]:
    """(fixed, why) from what the two children saw (:mod:`dynpatch.replay.reads`)."""
    streams = release["scenarios"]
    read = [
        (s["name"], i, reads, history)
        for s in streams
        for i, (reads, history) in enumerate(s["given"]["reads"])
        if reads
    ]
    if read:
        name, i, reads, history = read[0]
        return False, (
            f"chunk {i} of stream {name} read {reads} token id(s) outside its delta, of a "
            f"history of {history} ({len(read)} chunks did, {sum(r[2] for r in read)} token "
            "ids in all)"
        )
    theirs = {s["name"]: s["given"]["records"] for s in reference["scenarios"]}
    for s in streams:
        name = s["name"]
        if not s["given"]["reads"]:
            return False, f"stream {name} gave no chunk: the judgement saw nothing"
        mine, want = _fields(s["given"]["records"]), _fields(theirs.get(name, []))
        if mine != want:
            return False, f"stream {name}: {_first_difference(mine, want, label)}"
    if expect.unmet(("log_probs",), [r for s in streams for r in s["given"]["records"]]):
        return False, "no chunk carried log_probs: the judgement never saw the helper report"
    chunks = sum(len(s["given"]["reads"]) for s in streams)
    return True, (
        f"run: {chunks} chunks of {len(streams)} streams read no token id outside their delta, "
        f"and their ids and logprobs equal those of {label}"
    )


def _fields(records: Sequence[str]) -> list[dict[str, Any]]:
    chunks = (json.loads(r) for r in records)
    return [{k: c["value"].get(k) for k in FIELDS} for c in chunks if c["kind"] == "chunk"]


def _first_difference(mine: list[dict[str, Any]], want: list[dict[str, Any]], label: str) -> str:
    if len(mine) != len(want):
        return f"{len(mine)} chunks where {label} gives {len(want)}"
    i, a, b = next((i, a, b) for i, (a, b) in enumerate(zip(mine, want, strict=True)) if a != b)
    field = next(k for k in FIELDS if a[k] != b[k])
    return f"chunk {i}: {field} {json.dumps(a[field])} where {label} gives {json.dumps(b[field])}"


def describe(report: ApplyReport, tree: Path, ref: Reference, ws: Workspace) -> tuple[str, str]:
    """How the release fixes the defect, as its code tells, and what that means for the series."""
    candidate = report.result.candidate
    if candidate is not None:
        return f"by a keyword of its own ({candidate.reason})", ": the series can be retired"
    helper = (tree / TARGET.path).read_text() if (tree / TARGET.path).is_file() else ""
    try:
        one_liner = _function(variants.drop_copy(ref.baseline_helper))
    except ToolkitError:
        one_liner = None
    if one_liner is None or _function(helper) != one_liner:
        return "by another design, no keyword", ": the series can be retired from here on"
    figures = _saved_figures(ws)
    kept = (
        f", or kept for what it saves beyond it ({figures[0]:.3f} against {figures[1]:.3f} of "
        f"the baseline's instructions per request at 256 x 4, {figures[2]})"
        if figures
        else ""
    )
    return "by the one-line alternative, no keyword", f": the series can be retired{kept}"


def _function(source: str) -> str | None:
    """The helper's code in ``source``, comments and formatting aside (None: none)."""
    try:
        fn = shape.find_function(cst.parse_module(source), TARGET.qualname)
    except cst.ParserSyntaxError:
        return None
    return None if fn is None else shape.code(fn.with_changes(leading_lines=()))


def _saved_figures(ws: Workspace) -> tuple[float, float, str] | None:
    """This series' and the one-line alternative's share of the baseline's instructions at
    256 x 4, as the bench saved them for ``patches/``, else as its committed reference
    (``docs/bench/``) has them for the same code (None: neither)."""
    try:
        digest = series.series_digest(ws.patches)
        if saved := evidence.of_series(evidence.Bench, ws.evidence, digest):
            bench, trees = saved[-1].facts, {**saved[-1].details.get("trees", {})}
            ours, alt = bench.ratio("256x4", "patched"), bench.ratio("256x4", "alternative")
        else:
            trees = json.loads((ws.bench_docs / "instructions.json").read_text())
            if trees.get("code_sha256") != series.code_digest(ws.patches):
                return None
            ours = trees["requests"]["256x4"]["patched/baseline"]
            alt = (trees.get("alternative/baseline") or {}).get("256x4")
    except (ToolkitError, OSError, KeyError, ValueError):
        return None
    if trees.get("design") != "delta" or not isinstance(alt, float):
        return None
    return float(ours), alt, f"on ai-dynamo {trees.get('release')}"
