"""The instruction-count gates (CI fails when one is missed) and the two-run agreement.

Counts are deterministic, so the thresholds are tight where the code decides them and
loose only where the replay's own work does: per request, the patched tree must execute
at most 95 % of the baseline's instructions at 256 x 4 and 60 % at 4096 x 1; inside one
16384-token stream its per-chunk count late in the stream must be within 3 % of early in
it; its allocation per chunk must not grow with the history (under 1 byte per history
token, where a copy of the history costs at least a pointer, 8 bytes, per token).
"""

from __future__ import annotations

from dataclasses import dataclass

from dynpatch.bench.counts import Case, TreeCounts
from dynpatch.bench.plan import EARLY, LATE, REFERENCE, REQUEST_CASES, STREAMS, AllocSlopes

MAX_RATIO = {REQUEST_CASES[0]: 0.95, REQUEST_CASES[1]: 0.60}
FLAT_PCT = 3.0
MAX_ALLOC_SLOPE = 1.0  # bytes per history token
AGREE_PCT = 0.5


@dataclass(frozen=True)
class Gate:
    label: str
    met: bool
    detail: str

    def line(self) -> str:
        return f"{self.label}: {self.detail} -> {'met' if self.met else 'MISSED'}"


def ratio(base: TreeCounts, other: TreeCounts, case: Case) -> float:
    """``other``'s instructions per request over the baseline's."""
    return other.request(case).per_request / base.request(case).per_request


def _choices(c: int) -> str:
    return f"{c} choice{'s' * (c > 1)}"


def evaluate(
    base: TreeCounts, other: TreeCounts, alloc: AllocSlopes, *, name: str = "patched"
) -> list[Gate]:
    """The gates for tree ``other`` (the patched tree, or a mutant of it) against the
    baseline, each met or not, with the numbers that decide it."""
    gates = []
    for i, case in enumerate(REQUEST_CASES, 1):
        r, limit = ratio(base, other, case), MAX_RATIO[case]
        b, o = base.request(case).per_request, other.request(case).per_request
        gates.append(
            Gate(
                f"gate {i}: {case.tokens}x{case.choices} instructions per request, "
                f"{name}/baseline <= {limit:.2f}",
                r <= limit,
                f"{r:.3f} ({b:,.0f} -> {o:,.0f})",
            )
        )
    flat = [(s.choices, other.late_vs_early_pct(s)) for s in STREAMS]
    gates.append(
        Gate(
            f"gate 3: {name} instructions per chunk inside one {STREAMS[0].tokens}-token "
            f"stream, history {LATE[0]}-{LATE[1] - 1} vs {EARLY[0]}-{EARLY[1] - 1}, "
            f"within {FLAT_PCT:.0f}%",
            all(abs(v) <= FLAT_PCT for _, v in flat),
            ", ".join(f"{_choices(c)} {v:+.2f}%" for c, v in flat),
        )
    )
    slopes = [alloc.get(name, {}).get(str(s.choices)) for s in STREAMS]
    gates.append(
        Gate(
            f"gate 4: {name} allocation per chunk flat in history "
            f"(slope < {MAX_ALLOC_SLOPE:.0f} B per history token)",
            all(v is not None and abs(v) < MAX_ALLOC_SLOPE for v in slopes),
            "; ".join(f"{tree} {_slopes(alloc.get(tree, {}))}" for tree in (name, "baseline")),
        )
    )
    return gates


def _slopes(by_choices: dict[str, float | None]) -> str:
    parts = []
    for s in STREAMS:
        v = by_choices.get(str(s.choices))
        parts.append(f"{'n/a' if v is None else f'{v:.3f}'} B/token ({s.choices}ch)")
    return ", ".join(parts)


def difference_pct(first: float, second: float) -> float:
    """How far apart two counts are, in percent of the first."""
    return 100.0 * abs(second - first) / first


def agreement(first: dict[str, TreeCounts], second: dict[str, TreeCounts]) -> Gate:
    """The reference case counted in two runs per tree (forked from one child after its
    imports: the same memory image) agrees within 0.5 %."""
    parts, worst = [], 0.0
    for tree in first:
        a = first[tree].request(REFERENCE).per_request
        b = second[tree].request(REFERENCE).per_request
        worst = max(worst, difference_pct(a, b))
        parts.append(f"{tree} {a:,.0f} and {b:,.0f} ({difference_pct(a, b):.3f}%)")
    return Gate(
        f"two runs agree within {AGREE_PCT}% ({REFERENCE.tokens}x{REFERENCE.choices}, "
        "each tree counted twice, both runs forked from one child)",
        worst <= AGREE_PCT,
        "; ".join(parts),
    )
