"""Parent side of the replay: run one child process per tree and read back its result.

A child gets ``PYTHONPATH`` = the tree's ``components/src`` (first, so that tree's
``dynamo`` wins), the ``tensorrt_llm`` stand-in and this toolkit. Its stdout and stderr
go to a log file; every way it can fail (setup refused, crash, ``os._exit`` from a
fatal path that was not intercepted, time-out) becomes one :class:`ToolkitError` line
naming the tree and the log.
"""

from __future__ import annotations

import json
import os
import select
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
    label: str  # "baseline" or "patched"
    src: Path  # the tree's components/src


def child_env(src: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join([str(src), str(STANDIN_DIR), str(TOOLKIT)])
    env.pop("PYTHONHOME", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # keep the trees clean (they are reused by digest)
    return env


def _tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " / ".join(t.strip() for t in text[-lines:])


def _require_dynamo(tree: Tree) -> None:
    if not (tree.src / "dynamo").is_dir():
        raise ToolkitError(f"{tree.label} tree has no dynamo package under {tree.src}")


def run_child(
    tree: Tree,
    job: dict[str, Any],
    log: Path,
    *,
    python: str = sys.executable,
    timeout: float = 1200.0,
    folder: Path | None = None,
    module: str = CHILD_MODULE,
    wrap: Callable[[list[str]], Sequence[str]] = list,
    env: dict[str, str] | None = None,
    what: str = "replay",
) -> dict[str, Any]:
    """Run one child (``module``, its command line passed through ``wrap``) on ``tree``
    with ``env`` added, its job and result in ``folder`` (None: a temporary one); its
    parsed result (``ok`` is true) or a ToolkitError."""
    _require_dynamo(tree)
    log.parent.mkdir(parents=True, exist_ok=True)
    job = {**job, "tree": tree.label, "standin": str(STANDIN_DIR)}
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        where = Path(tmp) if folder is None else folder
        job_file, result_file = where / "job.json", where / "result.json"
        job_file.write_text(json.dumps(job))
        with log.open("w") as fh:
            child = proc.run(
                list(wrap([python, "-m", module, str(job_file), str(result_file)])),
                doing=f"the {tree.label} {what} (log: {log})",
                timeout=timeout,
                cwd=where,
                env={**child_env(tree.src), **(env or {})},
                stdout=fh,
                merge_stderr=True,
            )
        return child_result(tree, what, child.returncode, result_file, log)


def child_result(
    tree: Tree, what: str, returncode: int, result_file: Path, log: Path
) -> dict[str, Any]:
    """The result a child (``what``: "replay", "counted replay") wrote, once it has exited
    with ``returncode``: refused, crashed or from the wrong tree is a ToolkitError."""
    if not result_file.is_file():
        raise ToolkitError(
            f"{tree.label} {what} exited with status {returncode} without a result "
            f"(a crash or an uncaught process exit); log {log}: {_tail(log)}"
        )
    result: dict[str, Any] = json.loads(result_file.read_text())
    if not result.get("ok"):
        raise ToolkitError(f"{tree.label} {what} refused to run: {result.get('error')}")
    if returncode != 0:
        raise ToolkitError(f"{tree.label} {what} exited with status {returncode}; log {log}")
    check_origins(tree, result)
    return result


def check_origins(tree: Tree, report: dict[str, Any]) -> None:
    """The child's setup report says it imported dynamo's modules from ``tree`` (every one
    of ``TREE_MODULES``, and any other ``dynamo.`` module it names but the runtime's
    ``dynamo._core``); else a ToolkitError naming the module and where it came from."""
    modules = report.get("modules", {})
    missing = [m for m in TREE_MODULES if m not in modules]
    if missing:
        raise ToolkitError(f"{tree.label} replay did not report where {missing[0]} came from")
    for name, path in modules.items():
        if name.startswith("dynamo.") and name != "dynamo._core" and not inside(path, tree.src):
            raise ToolkitError(f"{tree.label} replay imported {name} from {path}, not {tree.src}")


def check_trees(baseline: dict[str, Any], patched: dict[str, Any]) -> None:
    """The two children really ran two different trees: the baseline without the change,
    the patched one with it (a comparison of a tree with itself proves nothing), and both
    observed dynamo's fatal exit through the same seam."""
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


class Worker:
    """A persistent benchmark child (``--serve``) for one tree (:mod:`dynpatch.replay.serve`).

    ``with Worker(tree, log) as w: w.ask({...})``. Every failure (setup refused, crash,
    silence past ``timeout``) is one ToolkitError naming the tree and the log.
    """

    def __init__(
        self, tree: Tree, log: Path, *, python: str = sys.executable, timeout: float = 900
    ):
        _require_dynamo(tree)
        self.tree, self.log, self.timeout = tree, log, timeout
        log.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = tempfile.TemporaryDirectory(prefix="replay-worker-")
        job_file = Path(self._tmp.name) / "job.json"
        job_file.write_text(json.dumps({"tree": tree.label, "standin": str(STANDIN_DIR)}))
        self._log = log.open("w")
        self._proc = proc.spawn(
            [python, "-m", CHILD_MODULE, str(job_file), "--serve"],
            doing=f"the {tree.label} replay worker",
            cwd=self._tmp.name,
            env=child_env(tree.src),
            stderr=self._log,
        )
        self.hello: dict[str, Any] = {}

    def ready(self) -> Worker:
        """Wait for the child's setup report and check it ran the intended tree.

        Separate from ``__init__`` so two workers can import dynamo at the same time.
        """
        if self.hello:
            return self
        hello = self._read()
        try:
            if not hello.get("ok"):
                raise ToolkitError(f"{self.tree.label} replay refused to run: {hello.get('error')}")
            check_origins(self.tree, hello)
        except ToolkitError:
            self.close()
            raise
        self.hello = hello
        return self

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        self.ready()
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(command) + "\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            pass  # reported by _read, with the exit status
        return self._read()

    def _read(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        ready, _, _ = select.select([self._proc.stdout], [], [], self.timeout)
        line = self._proc.stdout.readline() if ready else None
        if line is None:
            self.close()
            raise ToolkitError(
                f"{self.tree.label} replay worker gave no answer in {self.timeout:.0f}s; log {self.log}"
            )
        if not line:
            status = self._proc.wait()
            self.close()
            raise ToolkitError(
                f"{self.tree.label} replay worker exited with status {status} without an answer "
                f"(a crash or an uncaught process exit); log {self.log}: {_tail(self.log)}"
            )
        reply: dict[str, Any] = json.loads(line)
        return reply

    def close(self) -> None:
        proc.stop(self._proc, goodbye=json.dumps({"cmd": "quit"}) + "\n")
        self._log.close()
        self._tmp.cleanup()


class Steps:
    """The parent's child runs, one line each on ``console`` (stderr):
    ``[2/3] what (+12 s)``."""

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
