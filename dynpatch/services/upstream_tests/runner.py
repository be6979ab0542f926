"""One pytest run of dynamo's tests on one tree, read back from its JUnit XML and from
the probe plugin (which file each dynamo module was imported from)."""

from __future__ import annotations

import json
import os
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dynpatch.io import files, proc
from dynpatch.services.upstream_tests.tiers import Tier
from dynpatch.standin import off_path

PLUGIN_DIR = Path(__file__).resolve().parent / "pytest_plugin"
SRC = "components/src"
# Marker names dynamo's tests use (registered so pytest does not warn about them).
MARKERS = ("pre_merge", "post_merge", "nightly", "weekly", "release", "unit", "integration")
MARKERS += ("e2e", "core", "none", "gpu_0", "gpu_1", "gpu_2", "gpu_4", "gpu_8", "vllm", "trtllm")
MARKERS += ("sglang", "multimodal", "unified", "slow", "timeout", "profiled_vram_gib")
MARKERS += ("requested_trtllm_vram_gib", "requested_trtllm_kv_tokens")
INI = "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
INI += "markers =\n" + "".join(f"    {name}\n" for name in MARKERS)
# pytest's own exit codes for "ran to the end": all passed, some failed, none collected.
_FINISHED = (0, 1, 5)
# The last line of a pytest traceback: where the exception was raised.
_RAISED = re.compile(r"^(?P<path>.+):(?P<line>\d+): \S+$")


@dataclass(frozen=True)
class Failure:
    message: str  # its first line: "AssertionError: ...", "assert 2 == 3", "TypeError: ..."
    path: str  # the file it was raised in (a repository path when in the tree)
    line: int

    def __str__(self) -> str:
        return f"{self.message} ({Path(self.path).name}:{self.line})"


@dataclass
class Run:
    """One pytest run: outcomes (passed, failed, skipped, error) by ``path.py::test[param]``."""

    label: str  # e.g. "cpu-patched"
    tree: Path
    exit_code: int
    tests: dict[str, str] = field(default_factory=dict)
    collect_errors: dict[str, str] = field(default_factory=dict)  # repo path -> message
    modules: dict[str, str | None] = field(default_factory=dict)  # name -> file
    junit: Path | None = None
    failures: dict[str, Failure] = field(default_factory=dict)
    seconds: float = 0.0
    problem: str = ""  # set when pytest did not run to the end


def pytest_command(python: str | Path, paths: list[Path], ini: Path, work: Path) -> list[str]:
    """``python -m pytest PATHS`` as dynamo's tests run here: this ini, no cache, and
    importlib mode with the root outside the tree (``dynamo`` is a namespace package shared
    with the runtime wheel, whose ``dynamo._core`` a root inside the tree would hide)."""
    where = ["-c", str(ini), "--rootdir", str(work), "--import-mode=importlib"]
    return [str(python), "-m", "pytest", *map(str, paths), *where, "-p", "no:cacheprovider"]


def run_pytest(
    tier: Tier, side: str, tree: Path, python: str, out: Path, targets: Sequence[str] = ()
) -> Run:
    """pytest on ``tree``: the tier's selection, or ``targets`` (node ids); XML in ``out/junit``."""
    label, timeout = f"{tier.name}-{side}", 1800.0
    work, junit_dir = out / "work" / label, out / "junit"
    paths = [tree / t for t in targets or [d for d in tier.dirs if (tree / d).exists()]]
    ini, probe_out, junit = work / "pytest.ini", work / "probe.json", junit_dir / f"{label}.xml"
    for folder in (work, junit_dir):
        folder.mkdir(parents=True, exist_ok=True)
    for stale in (probe_out, junit):
        stale.unlink(missing_ok=True)
    files.write_atomic(ini, INI)
    cmd = [
        *pytest_command(python, paths, ini, work),
        *("-p", "dynpatch_probe", *(arg for plugin in tier.plugins for arg in ("-p", plugin))),
        # xunit1: each testcase names its file and line, so a failure is matched to its test.
        *("--junitxml", str(junit), "-o", f"junit_suite_name=dynamo-{label}"),
        *("-o", "junit_family=xunit1", "--continue-on-collection-errors", "-q", "-rfE"),
        *(() if targets else ("-m", tier.marker)),
    ]
    inherited = off_path(os.environ.get("PYTHONPATH"))  # the stand-in only via the tier
    # The tree first: it must win over any installed dynamo.
    path = [str(tree / SRC), *map(str, tier.path), str(PLUGIN_DIR), *inherited]
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join(path),
        "PYTHONDONTWRITEBYTECODE": "1",  # leave the cached trees clean
        "DYNPATCH_PROBE_OUT": str(probe_out),
    }
    start, doing = time.perf_counter(), f"pytest on {label}"
    result = proc.run(cmd, doing=doing, timeout=timeout, cwd=work, env=env, allow_timeout=True)
    exit_code, output = result.returncode, result.stdout + result.stderr
    if result.timed_out:
        exit_code, output = -1, f"{result.stdout}\ntimed out after {timeout:.0f}s"
    (work / "pytest-output.txt").write_text(output)
    seconds = time.perf_counter() - start
    run = Run(label, tree, exit_code, junit=junit if junit.is_file() else None, seconds=seconds)
    if exit_code not in _FINISHED:
        last = (output.strip().splitlines() or ["no output"])[-1]
        run.problem = f"pytest did not finish (exit {exit_code}): {last}"
        return run
    if probe_out.is_file():
        probe = json.loads(probe_out.read_text())
        run.modules = probe["modules"]
        run.collect_errors = {_repo_path(tree, p): m for p, m in probe["collect_errors"].items()}
    _read_junit(run, work)
    return run


def _read_junit(run: Run, rootdir: Path) -> None:
    """Each testcase's outcome; for a failure, its first line and where it was raised (the
    last traceback entry). Paths in the XML are relative to ``rootdir``."""
    try:
        cases = ET.parse(run.junit).getroot().findall(".//testcase") if run.junit else []
    except ET.ParseError:
        run.junit = None  # a broken file is no record
        return
    for case in cases:
        if case.get("line") is None:  # a collection error: the probe's record has its path
            continue
        bad = case.find("failure")
        bad = case.find("error") if bad is None else bad
        # The class is the `Test*` tail of the dotted classname (pytest collects only those).
        classes = [c for c in case.get("classname", "").split(".") if c.startswith("Test")]
        file = _repo_path(run.tree, str(rootdir / case.get("file", "")))
        key = "::".join([file, *classes, case.get("name", "")])
        if run.tests.get(key) in ("failed", "error"):
            continue  # a teardown error after a failure: the failure stands
        if bad is None:
            run.tests[key] = "skipped" if case.find("skipped") is not None else "passed"
            continue
        run.tests[key] = "failed" if bad.tag == "failure" else "error"
        lines = (bad.text or "").strip().splitlines()
        raised = _RAISED.match(lines[-1]) if lines else None
        message = (bad.get("message") or "").strip().splitlines()
        run.failures[key] = Failure(
            message[0] if message else "",
            _repo_path(run.tree, str(rootdir / raised["path"])) if raised else "",
            int(raised["line"]) if raised else 0,
        )


def _repo_path(tree: Path, path: str) -> str:
    try:
        return Path(path).resolve().relative_to(tree.resolve()).as_posix()
    except ValueError:
        return path
