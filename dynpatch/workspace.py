"""Where the toolkit reads and writes: one root (the folder holding the pin, found upwards
from the working directory as git finds ``.git``), every path below it named once."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from dynpatch.errors import ToolkitError

# The toolkit's own source (codemods/, dynpatch/, docs/bench/per_chunk_cost.py).
TOOLKIT = Path(__file__).resolve().parent.parent
PIN = "dynamo.toml"


@dataclass(frozen=True)
class StageFolders:
    """Each stage's folder under out/ (its reports, logs and figures), named once."""

    test_upstream: Path
    verify: Path
    bench: Path
    pr: Path
    matrix: Path
    bump: Path
    wheel: Path


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.pin = root / PIN
        self.vendor = root / "vendor"  # the fetched releases, one folder each
        self.cache = root / ".cache"
        self.wheels = self.cache / "wheels"
        self.tofu = self.cache / "tofu"  # sha256 trusted on first use, per release
        self.runtimes = self.cache / "runtimes"  # one venv per release
        self.tools = self.cache / "tools"  # upstream's formatters
        self.scratch = self.cache / "scratch"
        self.locks = self.cache / "locks"
        self.patches = root / "patches"
        self.out = root / "out"
        self.evidence = self.out / "evidence"
        self.trees = self.out / "trees"
        stages = {f.name: self.out / f.name.replace("_", "-") for f in fields(StageFolders)}
        self.stage = StageFolders(**stages)
        self.dist = root / "dist"
        self.bench_docs = root / "docs" / "bench"  # the recorded bench reference
        self.rerun = self.bench_docs / "per_chunk_cost.py"  # the reviewer's script

    @classmethod
    def find(cls, start: Path) -> Workspace:
        """The workspace whose root holds the pin: ``start`` or the nearest folder above."""
        start = start.absolute()
        for folder in (start, *start.parents):
            if (folder / PIN).exists():  # a broken pin is load_pin's to report
                return cls(folder)
        raise ToolkitError(f"no {PIN} in {start} or any folder above it: run in a dynpatch clone")
