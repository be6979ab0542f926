"""What an instruction-count run measures, as typed records: the cases, the counted parts
of one tree's child, and the derived figures (per request, per chunk, slopes)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from dynpatch.errors import ToolkitError


@dataclass(frozen=True)
class Case:
    """One benchmark stream: tokens x interleaved choices, top-k logprobs per token."""

    tokens: int
    choices: int
    k: int = 1

    def to_json(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Part:
    """One counted part: ``what`` (request, engine or windows) of one case, the requests
    and chunks it covers, and the instructions callgrind counted for it."""

    label: str
    what: str
    case: Case
    requests: int
    chunks: int
    instructions: int
    history: tuple[int, int] | None = None  # windows: the choice history [lo, hi)

    @property
    def per_request(self) -> float:
        return self.instructions / self.requests

    @property
    def per_chunk(self) -> float:
        return self.instructions / self.chunks

    @property
    def mid(self) -> float:
        """The middle of the window's history (a window's x in the slope)."""
        assert self.history is not None
        return (self.history[0] + self.history[1]) / 2

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parts_of(result: dict[str, Any], counts: dict[str, int], tree: str) -> list[Part]:
    """The child's account of its parts joined with the dumps' counts (every part needs
    exactly one dump, and every dump a part)."""
    parts = []
    for p in result.get("parts", []):
        if p["label"] not in counts:
            raise ToolkitError(f"{tree}: callgrind wrote no dump for {p['label']!r}")
        history = p.get("history")
        parts.append(
            Part(
                label=p["label"],
                what=p["what"],
                case=Case(**p["case"]),
                requests=int(p["requests"]),
                chunks=int(p["chunks"]),
                instructions=counts[p["label"]],
                history=None if history is None else (int(history[0]), int(history[1])),
            )
        )
    extra = sorted(set(counts) - {p.label for p in parts})
    if extra:
        raise ToolkitError(f"{tree}: callgrind dumps for parts the child did not report: {extra}")
    return parts


@dataclass(frozen=True)
class TreeCounts:
    """Every part counted in one tree's child."""

    tree: str
    parts: list[Part]

    def _one(self, what: str, case: Case) -> Part:
        for p in self.parts:
            if p.what == what and p.case == case:
                return p
        raise ToolkitError(f"{self.tree}: no {what} count for {case.tokens}x{case.choices}")

    def request(self, case: Case) -> Part:
        return self._one("request", case)

    def engine(self, case: Case) -> Part:
        return self._one("engine", case)

    def windows(self, case: Case) -> list[Part]:
        """The stream's windows, by history."""
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
        """Least-squares slope of per-chunk instructions over the windows' history:
        instructions per history token."""
        w = self.windows(case)
        return slope([p.mid for p in w], [p.per_chunk for p in w])

    def to_json(self) -> dict[str, Any]:
        return {"tree": self.tree, "parts": [p.to_json() for p in self.parts]}


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``ys`` over ``xs`` (0 when ``xs`` do not vary)."""
    if len(xs) != len(ys) or not xs:
        raise ValueError("slope needs two equally long, non-empty sequences")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
