"""The gates (CI fails when one is missed): per request the patched tree runs at most 95 % of the
baseline's instructions at 256 x 4, 60 % at 4096 x 1; per chunk, late within 3 % of early in a
16384-token stream, allocation under 1 B per history token (a copy costs 8); runs agree to 0.1 %."""

from __future__ import annotations

from dataclasses import dataclass

from dynpatch.services.bench.counts import TreeCounts, choices
from dynpatch.services.bench.plan import EARLY, LATE, REFERENCE, REQUEST_CASES, STREAMS

MAX_RATIO = {REQUEST_CASES[0]: 0.95, REQUEST_CASES[1]: 0.60}
FLAT_PCT = 3.0
MAX_ALLOC_SLOPE = 1.0  # bytes per history token
AGREE_PCT = 0.1
# Per tree, per number of choices (a string): allocated bytes per history token.
AllocSlopes = dict[str, dict[str, float | None]]


@dataclass(frozen=True)
class Gate:
    label: str
    met: bool
    detail: str

    def line(self) -> str:
        return f"{self.label}: {self.detail} -> {'met' if self.met else 'MISSED'}"


def _bytes(slopes: dict[str, float | None]) -> str:
    shown = [(slopes.get(str(s.choices)), s.choices) for s in STREAMS]
    return ", ".join(f"{'n/a' if v is None else f'{v:.3f}'} B/token ({c}ch)" for v, c in shown)


def evaluate(
    base: TreeCounts, other: TreeCounts, alloc: AllocSlopes, *, name: str = "patched"
) -> list[Gate]:
    """The gates for tree ``other`` (patched, or a variant) against the baseline, met or not."""
    gates = []
    for i, case in enumerate(REQUEST_CASES, 1):
        b, o = base.request(case).instructions, other.request(case).instructions
        r, limit = o / b, MAX_RATIO[case]
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
            ", ".join(f"{choices(c)} {v:+.2f}%" for c, v in flat),
        )
    )
    slopes = [alloc.get(name, {}).get(str(s.choices)) for s in STREAMS]
    gates.append(
        Gate(
            f"gate 4: {name} allocation per chunk flat in history "
            f"(slope < {MAX_ALLOC_SLOPE:.0f} B per history token)",
            all(v is not None and abs(v) < MAX_ALLOC_SLOPE for v in slopes),
            "; ".join(f"{tree} {_bytes(alloc.get(tree, {}))}" for tree in (name, "baseline")),
        )
    )
    return gates


def agreement(first: dict[str, TreeCounts], second: dict[str, TreeCounts]) -> Gate:
    """The reference case's two runs per tree (one memory image) agree within AGREE_PCT."""
    parts, worst = [], 0.0
    for tree in first:
        a = first[tree].request(REFERENCE).instructions
        b = second[tree].request(REFERENCE).instructions
        apart = 100.0 * abs(b - a) / a
        worst = max(worst, apart)
        parts.append(f"{tree} {a:,.0f} and {b:,.0f} ({apart:.3f}%)")
    return Gate(
        f"two runs agree within {AGREE_PCT}% ({REFERENCE.tokens}x{REFERENCE.choices}, "
        "each tree counted twice, both runs forked from one child)",
        worst <= AGREE_PCT,
        "; ".join(parts),
    )
