"""Do two runs of one tree count the same? The bench's instruction counts on fresh trees.

Run it in the bench session's environment (valgrind on PATH), from the repository root:

    nox -s bench                          # once: builds .nox/bench and out/trees
    .nox/bench/bin/python tools/instruction_agreement.py --trees 20

Each round clones the baseline and the patched tree afresh, at a path of its own length
(so every round's child lays memory out differently), counts each tree twice exactly as
``nox -s bench`` does (``plan.count`` with two full runs, both forked from
the tree's copy once it has imported everything), and prints how far apart the two runs are:
the reference case (what the bench's agreement gate compares) and, for information, the
worst of all counted parts. Exit status 1 when the reference case of any pair is more
than ``--within`` percent apart (default 0.1). The spread of a tree's counts
*across* rounds is what the forks keep out of the comparison: the memory layout's share.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dynpatch.fetch import FetchOptions, pinned
from dynpatch.replay import runner
from dynpatch.services.bench import plan, valgrind
from dynpatch.services.bench.counts import TreeCounts
from dynpatch.services.trees import prepare_trees
from dynpatch.workspace import Workspace

TREES = ("baseline", "patched")


def difference_pct(first: float, second: float) -> float:
    """How far apart two counts are, in percent of the first."""
    return 100.0 * abs(second - first) / first


def worst_part_pct(a: TreeCounts, b: TreeCounts) -> float:
    """The largest difference between the two runs over every counted part."""
    theirs = {p.label: p.instructions for p in b.parts}
    return max(difference_pct(p.instructions, theirs[p.label]) for p in a.parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", type=int, default=20, help="rounds of fresh trees (20)")
    parser.add_argument("--within", type=float, default=0.1, help="percent allowed (0.1)")
    args = parser.parse_args()
    ws = Workspace.find(Path.cwd())
    _pin, checkout = pinned(FetchOptions(), ws)
    how = {"valgrind_path": valgrind.find(), "prefix": valgrind.fixed_layout()}
    runs = [plan.measures(), plan.measures()]
    reference: dict[str, list[int]] = {t: [] for t in TREES}
    worst, worst_part = 0.0, 0.0
    ws.out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agreement-", dir=ws.out) as tmp:
        print("round  tree      run 1 (256x4)  run 2 (256x4)  apart   worst part  seconds")
        for i in range(1, args.trees + 1):
            start = time.perf_counter()
            root = Path(tmp) / f"round-{i:02d}{'-' * i}"  # a path of another length
            trees = prepare_trees(checkout, ws.patches, root / "trees")
            pair = [runner.Tree(t, trees.src(getattr(trees, t))) for t in TREES]
            found = plan.count(pair, dict.fromkeys(TREES, runs), root / "counts", **how)
            for label, counted in found.items():
                one, two = counted.runs
                a = one.request(plan.REFERENCE).instructions
                b = two.request(plan.REFERENCE).instructions
                part = worst_part_pct(one, two)
                worst, worst_part = max(worst, difference_pct(a, b)), max(worst_part, part)
                reference[label].append(a)
                print(
                    f"{i:5}  {label:8}  {a:13,}  {b:13,}  {difference_pct(a, b):5.3f}%  "
                    f"{part:9.3f}%  {time.perf_counter() - start:7.0f}",
                    flush=True,
                )
    for label, seen in reference.items():
        lo, hi = min(seen), max(seen)
        print(
            f"{label}: run 1 across {len(seen)} fresh trees {lo:,} .. {hi:,} "
            f"(median {statistics.median(seen):,.0f}; {difference_pct(lo, hi):.3f}% apart)"
        )
    verdict = "agree" if worst <= args.within else "DO NOT agree"
    print(
        f"two runs of one tree {verdict} within {args.within}% at 256x4: worst pair "
        f"{worst:.3f}% (worst of all parts: {worst_part:.3f}%)"
    )
    return 0 if worst <= args.within else 1


if __name__ == "__main__":
    sys.exit(main())
