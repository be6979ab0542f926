"""The verdict of `nox -s mutants`: the mutants ``mutmut run`` tested (mutants/, its
results) against the explained survivors (tests/mutants_explained.toml: mutant name ->
one-line reason). Fails on a mutant no test killed that is not explained, and on an
explanation of a mutant that is gone or now killed (remove it); prints the score. A mutant
that ran past its time is run again alone (``mutmut run --max-children 1 NAME``): load can
slow a survivor's tests past mutmut's limit; if it times out again, no test killed it.

    python tools/mutants_check.py [--since EPOCH] [--complete] NAME_GLOB ...

``NAME_GLOB``: the globs ``mutmut run`` was given (only the mutants they match are judged,
as mutmut matches them). ``--complete``: every explanation must be among them (the full
run). ``--since``: when the run started, for its wall time. Standard library only.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

# mutmut 3's exit codes of a mutant's test run (mutmut/stats.py): a test failed (3: pytest's
# internal error, mutmut counts it a kill). A mutant that ran past its time (SIGXCPU: an
# endless loop, or load) is run again alone; any other code is a mutant no test caught.
KILLED = {1, 3}
TIMEOUT = {24, -24, 36, 152, 255}
NOT_KILLED = {
    **dict.fromkeys(TIMEOUT, "timed out twice, the second time alone"),
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    35: "suspicious",
    37: "caught by type check",
    -9: "segfault",
    -11: "segfault",
    2: "interrupted",
    None: "not checked",
}


def results(folder: Path) -> dict[str, int | None]:
    """Every mutant mutmut made in ``folder`` and its exit code (None: not run)."""
    found: dict[str, int | None] = {}
    for meta in sorted(folder.rglob("*.py.meta")):
        found |= json.loads(meta.read_text())["exit_code_by_key"]
    return found


def module(name: str) -> str:
    """``dynpatch.evidence.x_save__mutmut_3`` -> ``dynpatch.evidence``."""
    return name.rsplit(".", 1)[0]


def judge(
    found: dict[str, int | None], explained: dict[str, str], globs: list[str], complete: bool
) -> tuple[list[str], Counter[tuple[str, str]]]:
    """(the problems, one line each; per module, how many mutants were killed, explained,
    and in total) of the mutants ``globs`` select."""
    picked = {k: v for k, v in found.items() if picks(k, globs)}
    problems: list[str] = []
    score: Counter[tuple[str, str]] = Counter()
    for name, code in sorted(picked.items()):
        where = module(name)
        score[where, "total"] += 1
        if code in KILLED:
            score[where, "killed"] += 1
            if name in explained:
                problems.append(f"killed now, remove its explanation: {name}")
        elif name in explained:
            score[where, "explained"] += 1
        else:
            status = NOT_KILLED.get(code, f"exit code {code}")
            problems.append(f"{status}, not explained: {name} (`mutmut show {name}`)")
    for name in sorted(set(explained) - set(picked)):
        if name not in found:
            problems.append(f"no such mutant, remove its explanation: {name}")
        elif complete:
            problems.append(f"explained but never tested by `nox -s mutants`: {name}")
    return problems, score


def picks(name: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, g) for g in globs)


def again(names: list[str], folder: Path) -> None:
    """``names`` run again by mutmut, one at a time, their results saved in ``folder``."""
    command = ["mutmut", "run", "--max-children", "1", *names]
    subprocess.run(command, cwd=folder.resolve().parent, check=False, capture_output=True)


def main(argv: list[str] | None = None, rerun=again) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("globs", nargs="+", metavar="NAME_GLOB")
    parser.add_argument("--since", type=float, help="when the run started (seconds)")
    parser.add_argument("--complete", action="store_true")
    parser.add_argument("--mutants", type=Path, default=Path("mutants"))
    parser.add_argument("--explained", type=Path, default=Path("tests/mutants_explained.toml"))
    args = parser.parse_args(argv)
    explained = tomllib.loads(args.explained.read_text())
    found = results(args.mutants)
    late = [k for k, v in found.items() if v in TIMEOUT and picks(k, args.globs)]
    if late:
        rerun(late, args.mutants)
        found = results(args.mutants)
    problems, score = judge(found, explained, args.globs, args.complete)
    if not score:
        problems.append(f"no mutant matches {' '.join(args.globs)} in {args.mutants}/")
    for line in problems:
        print(f"mutants: {line}", file=sys.stderr)
    rows = sorted({m for m, _ in score})
    width = max((len(m) for m in rows), default=0)
    for m in rows:
        killed, told, total = (score[m, k] for k in ("killed", "explained", "total"))
        print(f"  {m:<{width}}  {killed:4} killed {told:3} explained {total:4} total")
    killed, told, total = (sum(score[m, k] for m in rows) for k in ("killed", "explained", "total"))
    wall = f", wall time {time.time() - args.since:.0f} s" if args.since else ""
    verdict = f"{len(problems)} problem(s)" if problems else "pass"
    late_line = f", {len(late)} timed out and run again alone" if late else ""
    print(f"mutants: {killed} killed, {told} explained, {total} total{late_line}{wall}: {verdict}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
