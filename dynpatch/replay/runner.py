"""Parent side of the replay: a child per tree or per several; every failure one ToolkitError."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynpatch.errors import ToolkitError
from dynpatch.io import proc
from dynpatch.replay import STANDIN_DIR
from dynpatch.replay.handler import TREE_MODULES, inside
from dynpatch.workspace import TOOLKIT

CHILD_MODULE = "dynpatch.replay.child"
VALGRIND_LINE = re.compile(r"==\d+==")  # valgrind's own lines in a child's log


@dataclass(frozen=True)
class Tree:
    label: str  # "baseline", "patched", or a variant
    src: Path  # the tree's components/src


def child_env(src: Path | None, base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: os.environ) with ``PYTHONPATH`` ``src`` (if any), stand-in, toolkit."""
    env = dict(os.environ if base is None else base)
    path = [*([str(src)] if src else []), str(STANDIN_DIR), str(TOOLKIT)]
    env["PYTHONPATH"] = os.pathsep.join(path)
    env.pop("PYTHONHOME", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # keep the trees clean (they are reused by digest)
    return env


def run_child(tree: Tree, job: dict[str, Any], log: Path, **kw: Any) -> dict[str, Any]:
    """``job``'s result on ``tree``, its origins checked; ``kw``: :func:`_launch`'s options."""
    result = _launch([tree], tree.label, tree.src, {**job, "tree": tree.label}, log, **kw)
    check_origins(tree, result)
    return result


def run_trees(
    trees: Sequence[Tree],
    job: dict[str, Any],
    logs: Path,
    *,
    each: dict[str, dict[str, Any]] | None = None,
    jobs: int = 2,
    **kw: Any,
) -> dict[str, dict[str, Any]]:
    """``job`` per tree in one child (own keys from ``each``): per tree its result, checked."""
    own = each or {}
    specs = {
        t.label: {"src": str(t.src), "log": str(logs / f"{t.label}.log"), **own.get(t.label, {})}
        for t in trees
    }
    what = "/".join(specs)
    logs.mkdir(parents=True, exist_ok=True)
    result = _launch(
        trees, what, None, {**job, "trees": specs, "jobs": jobs}, logs / "child.log", **kw
    )
    found: dict[str, dict[str, Any]] = result["trees"]
    for tree in trees:
        check_origins(tree, found[tree.label])
    return found


def _launch(
    trees: Sequence[Tree],
    what: str,
    src: Path | None,
    job: dict[str, Any],
    log: Path,
    *,
    python: str = sys.executable,
    timeout: float = 1200.0,
    folder: Path | None = None,
    wrap: Callable[[list[str]], Sequence[str]] = list,
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The child's result on ``job`` when it set up and exited 0; else a ToolkitError."""
    for tree in trees:
        if not (tree.src / "dynamo").is_dir():
            raise ToolkitError(f"{tree.label} tree has no dynamo package under {tree.src}")
    log.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        where = Path(tmp) if folder is None else folder
        job_file, result_file = where / "job.json", where / "result.json"
        job_file.write_text(json.dumps({**job, "standin": str(STANDIN_DIR)}))
        with log.open("w") as fh:
            status = proc.run(
                list(wrap([python, "-m", CHILD_MODULE, str(job_file), str(result_file)])),
                doing=f"the {what} replay (log: {log})",
                timeout=timeout,
                cwd=where,
                env={**child_env(src), **(env or {})},
                stdout=fh,
                merge_stderr=True,
            ).returncode
        if not result_file.is_file():
            lines = log.read_text(errors="replace").strip().splitlines()
            tail = [ln for ln in lines if not VALGRIND_LINE.match(ln)][-3:]
            raise ToolkitError(
                f"{what} replay exited with status {status} without a result "
                f"(a crash or an uncaught process exit); log {log}: {' / '.join(tail)}"
            )
        result: dict[str, Any] = json.loads(result_file.read_text())
    if not result.get("ok"):
        raise ToolkitError(f"{what} replay refused to run: {result.get('error')}")
    if status != 0:
        raise ToolkitError(f"{what} replay exited with status {status}; log {log}")
    return result


def check_origins(tree: Tree, report: dict[str, Any]) -> None:
    """A ToolkitError unless every ``dynamo.`` module named (but ``_core``) is from ``tree``."""
    modules = report.get("modules", {})
    if missing := [m for m in TREE_MODULES if m not in modules]:
        raise ToolkitError(f"{tree.label} replay did not report where {missing[0]} came from")
    for name, path in modules.items():
        if name.startswith("dynamo.") and name != "dynamo._core" and not inside(path, tree.src):
            raise ToolkitError(f"{tree.label} replay imported {name} from {path}, not {tree.src}")


def check_trees(baseline: dict[str, Any], patched: dict[str, Any], keyword: str) -> None:
    """A ToolkitError unless only the patched helper takes ``keyword`` (a tree against itself
    proves nothing) and both trees reach dynamo's fatal exit through one seam."""
    helper = f"extract_from_completion_output({keyword}=...)"
    if keyword and baseline.get("has_new_token_ids"):
        raise ToolkitError(f"the baseline tree already has {helper}")
    if keyword and not patched.get("has_new_token_ids"):
        raise ToolkitError(f"the patched tree lacks {helper}: patches/ does not carry the change")
    seams = baseline.get("fatal_seam"), patched.get("fatal_seam")
    if seams[0] != seams[1]:
        raise ToolkitError(
            f"the two trees reach dynamo's fatal exit differently (baseline: {seams[0]}, "
            f"patched: {seams[1]}): their fatal-path events cannot be compared"
        )
