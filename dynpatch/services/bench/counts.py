"""The counted parts of one tree's child, and the figures derived from them."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from dynpatch.errors import ToolkitError


@dataclass(frozen=True)
class Case:
    """One benchmark stream: tokens x interleaved choices (top-1 logprobs per token)."""

    tokens: int
    choices: int

    def to_json(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Part:
    """One counted part: ``what`` (request, engine or windows) of one case, and its counts."""

    label: str
    what: str
    case: Case
    chunks: int
    instructions: int
    history: tuple[int, int] | None = None  # windows: the choice history [lo, hi)

    @property
    def per_chunk(self) -> float:
        return self.instructions / self.chunks


def choices(n: int) -> str:
    return f"{n} choice{'s' * (n > 1)}"


def parts_of(result: dict[str, Any], counts: dict[str, int], tree: str) -> list[Part]:
    """The child's parts joined with the dumps' counts; a ToolkitError unless they match."""
    parts = []
    for p in result.get("parts", []):
        if p["label"] not in counts:
            raise ToolkitError(f"{tree}: callgrind wrote no dump for {p['label']!r}")
        history = tuple(p["history"]) if "history" in p else None
        case, count = Case(**p["case"]), counts[p["label"]]
        parts.append(Part(p["label"], p["what"], case, int(p["chunks"]), count, history))
    if extra := sorted(set(counts) - {p.label for p in parts}):
        raise ToolkitError(f"{tree}: callgrind dumps for parts the child did not report: {extra}")
    return parts


@dataclass(frozen=True)
class TreeCounts:
    tree: str
    parts: list[Part]

    def request(self, case: Case, what: str = "request") -> Part:
        """The part of one whole request (``engine``: the engine double's stream alone)."""
        for p in self.parts:
            if p.what == what and p.case == case:
                return p
        raise ToolkitError(f"{self.tree}: no {what} count for {case.tokens}x{case.choices}")

    def windows(self, case: Case) -> list[Part]:
        found = [p for p in self.parts if p.what == "windows" and p.case == case]
        return sorted(found, key=lambda p: p.history or (0, 0))

    def late_vs_early_pct(self, case: Case) -> float:
        """Per-chunk instructions of the last window against the first, in percent."""
        w = self.windows(case)
        if len(w) < 2:
            raise ToolkitError(
                f"{self.tree}: fewer than two windows of {case.tokens}x{case.choices}"
            )
        return 100.0 * (w[-1].per_chunk - w[0].per_chunk) / w[0].per_chunk

    def slope(self, case: Case) -> float:
        """Per-chunk instructions per history token, over the windows' middles."""
        w = self.windows(case)
        return slope([sum(p.history or (0, 0)) / 2 for p in w], [p.per_chunk for p in w])


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``ys`` over ``xs`` (0 when ``xs`` do not vary)."""
    if len(xs) != len(ys) or not xs:
        raise ValueError("slope needs two equally long, non-empty sequences")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
