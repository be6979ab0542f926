"""Where the toolkit reads and writes: one root, every path below it named once.

The root is the folder holding ``vendor/dynamo.toml`` (the pin); the command line finds
it from the working directory upwards, as git finds ``.git``. The toolkit's own files
(templates, the stand-in, the reviewer's script) are found from the package instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError

# The toolkit's own source (codemods/, dynpatch/, docs/bench/per_chunk_cost.py).
TOOLKIT = Path(__file__).resolve().parent.parent
PIN = Path("vendor") / "dynamo.toml"


@dataclass(frozen=True)
class Workspace:
    root: Path

    @classmethod
    def find(cls, start: Path) -> Workspace:
        """The workspace whose root holds the pin: ``start`` or the nearest folder above."""
        start = start.absolute()
        for folder in (start, *start.parents):
            if (folder / PIN).exists():  # a broken pin is load_pin's to report
                return cls(folder)
        raise ToolkitError(f"no {PIN} in {start} or any folder above it: run in a dynpatch clone")

    @property
    def pin(self) -> Path:
        return self.root / PIN

    @property
    def vendor(self) -> Path:  # fetched checkouts and the caches
        return self.root / "vendor"

    @property
    def checkouts(self) -> Path:
        return self.vendor / "checkouts"

    @property
    def wheels(self) -> Path:
        return self.vendor / "cache" / "wheels"

    @property
    def tofu(self) -> Path:  # sha256 trusted on first use, per release
        return self.vendor / "cache" / "tofu"

    @property
    def runtimes(self) -> Path:  # one venv per release, with its ai-dynamo-runtime
        return self.vendor / "runtimes"

    @property
    def tools(self) -> Path:  # upstream's formatters
        return self.vendor / "tools"

    @property
    def scratch(self) -> Path:
        return self.vendor / "scratch"

    @property
    def locks(self) -> Path:
        return self.vendor / "locks"

    @property
    def patches(self) -> Path:
        return self.root / "patches"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def evidence(self) -> Path:
        return self.out / "evidence"

    @property
    def trees(self) -> Path:
        return self.out / "trees"

    @property
    def dist(self) -> Path:
        return self.root / "dist"

    @property
    def bench_docs(self) -> Path:  # the recorded bench reference
        return self.root / "docs" / "bench"
