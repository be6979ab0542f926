"""The counted parts: joined with callgrind's dumps, and the figures derived from them."""

from __future__ import annotations

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.services.bench.counts import Case, parts_of, slope
from dynpatch.services.bench.plan import REFERENCE, STREAMS
from tests.fixtures import bench as synthetic

WINDOW = "windows-16384x1-256-512"
RESULT = {
    "parts": [
        {"label": "request-256x4", "what": "request", "case": REFERENCE.to_json(), "chunks": 4096},
        {
            "label": WINDOW,
            "what": "windows",
            "case": STREAMS[0].to_json(),
            "chunks": 256,
            "history": [256, 512],
        },
    ]
}


def test_parts_take_their_counts_from_the_dumps_by_label_and_need_both() -> None:
    request, window = parts_of(RESULT, {"request-256x4": 80_000_000, WINDOW: 10_240_000}, "b")
    assert request.instructions == 80_000_000 and request.history is None
    assert window.per_chunk == 40_000 and window.history == (256, 512)
    with pytest.raises(ToolkitError, match=f"no dump for '{WINDOW}'"):
        parts_of(RESULT, {"request-256x4": 1}, "baseline")
    counts = {"request-256x4": 1, WINDOW: 1, "stray": 5}
    with pytest.raises(ToolkitError, match=r"parts the child did not report: \['stray'\]"):
        parts_of(RESULT, counts, "baseline")


def test_a_tree_s_windows_give_the_late_change_and_the_slope_per_history_token() -> None:
    base = synthetic.counted_trees()["baseline"]
    assert [w.history for w in base.windows(STREAMS[0])][::4] == [(256, 512), (15872, 16128)]
    assert base.late_vs_early_pct(STREAMS[0]) == pytest.approx(507.5)
    assert base.slope(STREAMS[0]) == pytest.approx(203_000 / 15_616, rel=1e-4)
    with pytest.raises(ToolkitError, match="no request count for 1x1"):
        base.request(Case(1, 1))
    assert slope([0, 1, 2, 3], [5, 13, 21, 29]) == pytest.approx(8.0)
    assert slope([4, 4, 4], [1, 2, 3]) == 0.0
    with pytest.raises(ValueError):
        slope([], [])
