"""Parent side of the replay: one child process per tree (:mod:`~.child`), its result read
back; every way a child fails is one ToolkitError naming the tree and its log."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from dynpatch.errors import ToolkitError
from dynpatch.io import proc
from dynpatch.replay import STANDIN_DIR
from dynpatch.replay.handler import TREE_MODULES, inside
from dynpatch.workspace import TOOLKIT

CHILD_MODULE = "dynpatch.replay.child"


@dataclass(frozen=True)
class Tree:
    label: str  # "baseline", "patched", or a variant
    src: Path  # the tree's components/src


def child_env(src: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this environment) with ``src`` first on ``PYTHONPATH``, then the
    ``tensorrt_llm`` stand-in and this toolkit."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join([str(src), str(STANDIN_DIR), str(TOOLKIT)])
    env.pop("PYTHONHOME", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # keep the trees clean (they are reused by digest)
    return env


def run_child(
    tree: Tree,
    job: dict[str, Any],
    log: Path,
    *,
    python: str = sys.executable,
    timeout: float = 1200.0,
    folder: Path | None = None,
    wrap: Callable[[list[str]], Sequence[str]] = list,
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The result of the child that ran ``job`` on ``tree`` (its command line passed through
    ``wrap``, ``env`` added; job and result in ``folder``, else a temporary one): set up,
    exited 0 and imported dynamo from ``tree``, else a ToolkitError."""
    if not (tree.src / "dynamo").is_dir():
        raise ToolkitError(f"{tree.label} tree has no dynamo package under {tree.src}")
    log.parent.mkdir(parents=True, exist_ok=True)
    job = {**job, "tree": tree.label, "standin": str(STANDIN_DIR)}
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        where = Path(tmp) if folder is None else folder
        job_file, result_file = where / "job.json", where / "result.json"
        job_file.write_text(json.dumps(job))
        with log.open("w") as fh:
            status = proc.run(
                list(wrap([python, "-m", CHILD_MODULE, str(job_file), str(result_file)])),
                doing=f"the {tree.label} replay (log: {log})",
                timeout=timeout,
                cwd=where,
                env={**child_env(tree.src), **(env or {})},
                stdout=fh,
                merge_stderr=True,
            ).returncode
        if not result_file.is_file():
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            raise ToolkitError(
                f"{tree.label} replay exited with status {status} without a result "
                f"(a crash or an uncaught process exit); log {log}: {' / '.join(tail)}"
            )
        result: dict[str, Any] = json.loads(result_file.read_text())
    if not result.get("ok"):
        raise ToolkitError(f"{tree.label} replay refused to run: {result.get('error')}")
    if status != 0:
        raise ToolkitError(f"{tree.label} replay exited with status {status}; log {log}")
    check_origins(tree, result)
    return result


def check_origins(tree: Tree, report: dict[str, Any]) -> None:
    """The child imported every one of ``TREE_MODULES``, and any other ``dynamo.`` module
    it names but the runtime's ``dynamo._core``, from ``tree``; else a ToolkitError."""
    modules = report.get("modules", {})
    missing = [m for m in TREE_MODULES if m not in modules]
    if missing:
        raise ToolkitError(f"{tree.label} replay did not report where {missing[0]} came from")
    for name, path in modules.items():
        if name.startswith("dynamo.") and name != "dynamo._core" and not inside(path, tree.src):
            raise ToolkitError(f"{tree.label} replay imported {name} from {path}, not {tree.src}")


def check_trees(baseline: dict[str, Any], patched: dict[str, Any]) -> None:
    """The baseline child ran a tree without the change and the patched one a tree with it
    (a tree compared with itself proves nothing), both observing dynamo's fatal exit
    through the same seam; else a ToolkitError."""
    if baseline.get("has_new_token_ids"):
        raise ToolkitError(
            "the baseline tree already has extract_from_completion_output(new_token_ids=...)"
        )
    if not patched.get("has_new_token_ids"):
        raise ToolkitError(
            "the patched tree lacks extract_from_completion_output(new_token_ids=...): "
            "patches/ does not carry the change"
        )
    seams = baseline.get("fatal_seam"), patched.get("fatal_seam")
    if seams[0] != seams[1]:
        raise ToolkitError(
            f"the two trees reach dynamo's fatal exit differently (baseline: {seams[0]}, "
            f"patched: {seams[1]}): their fatal-path events cannot be compared"
        )


class Steps:
    """The parent's child runs, one line each on ``console``: ``[2/3] what (+12 s)``."""

    def __init__(self, console: Console, total: int):
        self.console, self.total, self.count = console, total, 0
        self._t0 = time.perf_counter()

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def start(self, what: str) -> None:
        elapsed = time.perf_counter() - self._t0
        line = f"[{self.count + 1}/{self.total}] {what} (+{elapsed:.0f} s)"
        self.console.print(line, markup=False)

    def done(self) -> None:
        self.count += 1
