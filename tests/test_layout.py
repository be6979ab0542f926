"""The layout's rules, read from the code: imports, where programs start, module size."""

from __future__ import annotations

import ast
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# codemods/carried/ holds the test files the patch carries (dynamo's tests, as text): data
# the codemods insert, not modules of the package.
CODEMODS = sorted(
    p for p in (ROOT / "codemods").rglob("*.py") if "carried" not in p.relative_to(ROOT).parts
)
DYNPATCH = sorted((ROOT / "dynpatch").rglob("*.py"))
MAX_LINES = 420


def imported(path: Path) -> set[str]:
    """Top-level module names ``path`` imports (absolute imports only)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_packages_are_there() -> None:
    assert len(CODEMODS) >= 5 and len(DYNPATCH) >= 30


@pytest.mark.parametrize("path", CODEMODS, ids=rel)
def test_codemods_import_only_libcst_the_standard_library_and_themselves(path: Path) -> None:
    allowed = set(sys.stdlib_module_names) | {"libcst", "codemods", "__future__"}
    foreign = {n for n in imported(path) if n.split(".")[0] not in allowed}
    assert not foreign, f"{rel(path)} imports {sorted(foreign)}"


@pytest.mark.parametrize("path", DYNPATCH, ids=rel)
def test_only_main_imports_the_command_line_and_only_io_starts_programs(path: Path) -> None:
    names = imported(path)
    if path != ROOT / "dynpatch" / "__main__.py":  # stages take their options dataclass
        assert not names & {"dynpatch.cli", "dynpatch.cli.main"}, f"{rel(path)} imports cli"
    starts = {n for n in names if n.split(".")[0] in ("subprocess", "multiprocessing")}
    starts |= names & {"os.system", "os.popen", "os.spawnv"}
    assert (ROOT / "dynpatch" / "io") in path.parents or not starts, f"{rel(path)} starts programs"


@pytest.mark.parametrize("path", CODEMODS + DYNPATCH, ids=rel)
def test_no_module_is_too_large(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{rel(path)} has {lines} lines (at most {MAX_LINES})"


def test_the_io_layer_is_the_only_user_of_git_and_pip() -> None:
    """No module outside dynpatch/io/ names the git or pip executables in a command."""
    offenders = []
    for path in DYNPATCH:
        if (ROOT / "dynpatch" / "io") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.List) and node.elts:
                first = node.elts[0]
                if isinstance(first, ast.Constant) and first.value in ("git", "pip"):
                    offenders.append(f"{rel(path)}:{node.lineno}")
    assert not offenders, offenders


def floor(module: str) -> str:
    """The floor of a ``dynpatch`` module (dotted name): io, base, services, verbs or cli."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in ("io", "services", "verbs"):
        return parts[1]
    return "cli" if parts[1:2] in (["cli"], ["__main__"]) else "base"


# What each floor may import from dynpatch: the floors below it (io needs only errors).
BELOW = {
    "io": {"io", "errors"},
    "base": {"io", "base"},
    "services": {"io", "base", "services"},
    "verbs": {"io", "base", "services", "verbs"},
    "cli": {"io", "base", "services", "verbs", "cli"},
}


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


@pytest.mark.parametrize("path", DYNPATCH, ids=rel)
def test_each_floor_imports_only_the_floors_below_and_no_verb_another(path: Path) -> None:
    me = module_name(path)
    for name in imported(path):
        if name.split(".")[0] != "dynpatch" or name == "dynpatch":
            continue
        it, allowed = floor(name), BELOW[floor(me)]
        errors = name.startswith("dynpatch.errors") and "errors" in allowed
        assert it in allowed or errors, f"{rel(path)} ({floor(me)}) imports {name} ({it})"
        if floor(me) == it == "verbs" and name.count(".") > 1:  # never another verb
            verb = me.split(".")[2]
            assert name.split(".")[2] == verb, f"{rel(path)} imports the verb {name}"


def test_only_the_io_layer_runs_git() -> None:
    """``git_cmd`` (the one runner of git) is named only inside dynpatch/io/git/."""
    outside = [
        rel(p)
        for p in DYNPATCH
        if "git_cmd" in p.read_text() and ROOT / "dynpatch/io/git" not in p.parents
    ]
    assert not outside, outside


@pytest.mark.parametrize(
    "path", [p for p in DYNPATCH if {"verbs", "services"} & set(p.parts)], ids=rel
)
def test_verbs_and_services_return_results_and_print_only_progress(path: Path) -> None:
    """No ``print(``, ``say(`` or ``out.print(`` (stdout) in a verb or service: they return
    results that the command line prints; progress goes to stderr (``err``)."""
    calls = [n.func for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Call)]
    bare = [f.id for f in calls if isinstance(f, ast.Name) and f.id in ("print", "say")]
    stdout = [
        f.attr
        for f in calls
        if isinstance(f, ast.Attribute)
        and (f.attr == "say" or (f.attr == "print" and getattr(f.value, "id", "") == "out"))
    ]
    assert not bare + stdout, f"{rel(path)} calls {bare + stdout}"


def test_only_the_workspace_builds_its_folders() -> None:
    """``ws.out``, ``ws.cache`` and ``ws.root`` are not joined outside workspace.py: each
    stage's folder, the scratch, lock and tools folders are the workspace's names."""
    joined = [
        f"{rel(path)}:{node.lineno}"
        for path in DYNPATCH
        if path.name != "workspace.py"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div)
        and isinstance(node.left, ast.Attribute)
        and node.left.attr in ("out", "cache", "root")
        and getattr(node.left.value, "id", "") == "ws"
    ]
    assert not joined, joined


@pytest.mark.parametrize("path", sorted((ROOT / "tools").glob("*.py")), ids=rel)
def test_the_tools_import(path: Path) -> None:
    """A hand-run script still imports what it names (run as a module, not as __main__)."""
    runpy.run_path(str(path), run_name="tools_import_check")
