"""Run one selection of dynamo's tests on one tree and read back what happened.

pytest runs in a subprocess under the chosen interpreter with the tree's
``components/src`` first on ``PYTHONPATH``, ``--import-mode=importlib`` (``dynamo`` is
a namespace package shared with the runtime wheel) and a root directory outside the
tree (inside it, importlib mode resolves ``dynamo`` to the tree alone and the
runtime's ``dynamo._core`` is lost). Our probe plugin records outcomes and imported
module files; pytest writes JUnit XML beside it.
"""

from __future__ import annotations

import json
import os
import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from dynpatch.io import files, proc
from dynpatch.standin import off_path

PLUGIN_DIR = Path(__file__).resolve().parent / "pytest_plugin"
SRC = "components/src"

# Marker names dynamo's tests use (registered so pytest does not warn about them).
MARKERS = [
    "pre_merge",
    "post_merge",
    "nightly",
    "weekly",
    "release",
    "unit",
    "integration",
    "e2e",
    "core",
    "none",
    "gpu_0",
    "gpu_1",
    "gpu_2",
    "gpu_4",
    "gpu_8",
    "vllm",
    "trtllm",
    "sglang",
    "multimodal",
    "unified",
    "slow",
    "timeout",
    "profiled_vram_gib",
    "requested_trtllm_vram_gib",
    "requested_trtllm_kv_tokens",
]

INI = "\n".join(
    [
        "[pytest]",
        "asyncio_mode = auto",
        "asyncio_default_fixture_loop_scope = function",
        "markers =",
        *(f"    {name}" for name in MARKERS),
        "",
    ]
)


@dataclass(frozen=True)
class CaseResult:
    outcome: str  # passed | failed | skipped | error
    message: str = ""


@dataclass(frozen=True)
class Failure:
    """A failed or erroring testcase as the JUnit XML records it."""

    message: str  # its first line: "AssertionError: ...", "assert 2 == 3", "TypeError: ..."
    path: str  # the file it was raised in (a repository path when in the tree)
    line: int

    def __str__(self) -> str:
        return f"{self.message} ({Path(self.path).name}:{self.line})"


@dataclass
class Run:
    """One pytest run: outcomes keyed ``repo/path.py::test[param]``."""

    label: str  # e.g. "cpu-patched"
    tree: Path
    exit_code: int
    tests: dict[str, CaseResult] = field(default_factory=dict)
    collect_errors: dict[str, str] = field(default_factory=dict)  # repo path -> message
    modules: dict[str, str | None] = field(default_factory=dict)  # name -> file
    junit: Path | None = None
    junit_cases: int | None = None  # testcases in the JUnit XML
    failures: dict[str, Failure] = field(default_factory=dict)  # from the JUnit XML
    seconds: float = 0.0
    problem: str = ""  # set when pytest did not run to the end
    output_tail: str = ""

    @property
    def src(self) -> Path:
        return self.tree / SRC


def pytest_command(python: str | Path, paths: list[Path], ini: Path, work: Path) -> list[str]:
    """``python -m pytest PATHS`` as dynamo's tests run here: this ini and rootdir, importlib
    mode (nothing on the way shadows what is tested), no cache."""
    where = ["-c", str(ini), "--rootdir", str(work), "--import-mode=importlib"]
    return [str(python), "-m", "pytest", *map(str, paths), *where, "-p", "no:cacheprovider"]


def run_pytest(
    *,
    label: str,
    tree: Path,
    python: str,
    targets: list[str],
    marker: str | None,
    work: Path,
    junit_dir: Path,
    path: tuple[Path, ...] = (),
    plugins: tuple[str, ...] = (),
    timeout: float = 1800.0,
) -> Run:
    """pytest ``targets`` (repository paths or node ids) of ``tree`` under ``python``;
    ``path`` goes on ``PYTHONPATH`` right after the tree, ``plugins`` are loaded with -p."""
    work.mkdir(parents=True, exist_ok=True)
    junit_dir.mkdir(parents=True, exist_ok=True)
    ini = work / "pytest.ini"
    files.write_atomic(ini, INI)
    probe_out = work / "probe.json"
    probe_out.unlink(missing_ok=True)
    junit = junit_dir / f"{label}.xml"
    junit.unlink(missing_ok=True)
    cmd = [
        *pytest_command(python, [tree / t for t in targets], ini, work),
        "-p",
        "dynpatch_probe",
        *(arg for plugin in plugins for arg in ("-p", plugin)),
        # xunit1: each testcase names its file, so a failure is matched to its test.
        "--junitxml",
        str(junit),
        "-o",
        f"junit_suite_name=dynamo-{label}",
        "-o",
        "junit_family=xunit1",
        "--continue-on-collection-errors",
        "-q",
        "-rfE",
    ]
    if marker:
        cmd += ["-m", marker]
    inherited = off_path(os.environ.get("PYTHONPATH"))  # the stand-in only via ``path``
    env = dict(os.environ)
    env |= {
        # The tree first: it must win over any installed dynamo.
        "PYTHONPATH": os.pathsep.join(
            [str(tree / SRC), *map(str, path), str(PLUGIN_DIR), *inherited]
        ),
        "PYTHONDONTWRITEBYTECODE": "1",  # leave the cached trees clean
        "DYNPATCH_PROBE_OUT": str(probe_out),
    }
    start = time.perf_counter()
    result = proc.run(
        cmd, doing=f"pytest on {label}", timeout=timeout, cwd=work, env=env, allow_timeout=True
    )
    exit_code, output = result.returncode, result.stdout + result.stderr
    if result.timed_out:
        exit_code, output = -1, f"{result.stdout}\ntimed out after {timeout:.0f}s"
    (work / "pytest-output.txt").write_text(output)
    run = Run(label, tree, exit_code, junit=junit if junit.is_file() else None)
    run.seconds = time.perf_counter() - start
    run.output_tail = "\n".join(output.strip().splitlines()[-15:])
    _read_probe(run, probe_out)
    _read_junit(run, work)
    return run


# pytest's own exit codes for "ran to the end": all passed, some failed, none collected.
_FINISHED = (0, 1, 5)


def _read_probe(run: Run, probe_out: Path) -> None:
    if run.exit_code not in _FINISHED or not probe_out.is_file():
        last = (run.output_tail.splitlines() or ["no output"])[-1]
        run.problem = f"pytest did not finish (exit {run.exit_code}): {last}"
        return
    data = json.loads(probe_out.read_text())
    for key, value in data["tests"].items():
        path, _, name = key.partition("::")
        run.tests[f"{_repo_path(run.tree, path)}::{name}"] = CaseResult(
            value["outcome"] or "error", value["message"]
        )
    for error in data["collect_errors"]:
        run.collect_errors[_repo_path(run.tree, error["path"])] = error["message"]
    run.modules = data["modules"]


def _read_junit(run: Run, rootdir: Path) -> None:
    """The testcase count, and each failure's first line and where it was raised (the
    last traceback entry's ``path:line: Type``). Paths are relative to ``rootdir``."""
    if run.junit is None:
        return
    try:
        root = ET.parse(run.junit).getroot()
    except ET.ParseError:
        return
    cases = root.findall(".//testcase")
    run.junit_cases = len(cases)
    for case in cases:
        bad = case.find("failure")
        bad = case.find("error") if bad is None else bad
        if bad is None or case.get("line") is None:  # no line: a collection error
            continue
        # The class is the `Test*` tail of the dotted classname (pytest collects only those).
        classes = [c for c in case.get("classname", "").split(".") if c.startswith("Test")]
        file = _repo_path(run.tree, str(rootdir / case.get("file", "")))
        lines = (bad.text or "").strip().splitlines()
        raised = _RAISED.match(lines[-1]) if lines else None
        message = (bad.get("message") or "").strip().splitlines()
        run.failures["::".join([file, *classes, case.get("name", "")])] = Failure(
            message[0] if message else "",
            _repo_path(run.tree, str(rootdir / raised["path"])) if raised else "",
            int(raised["line"]) if raised else 0,
        )


# The last line of a pytest traceback: where the exception was raised.
_RAISED = re.compile(r"^(?P<path>.+):(?P<line>\d+): \S+$")


def _repo_path(tree: Path, path: str) -> str:
    """``path`` relative to the tree's root (as in the repository), else as given."""
    try:
        return Path(path).resolve().relative_to(tree.resolve()).as_posix()
    except ValueError:
        return path
