"""What a benchmark worker measures, in process, on the fake replay."""

from __future__ import annotations

import asyncio

import pytest

from dynpatch.replay import scenarios, timing
from tests.fixtures.replay import FakeReplay


def test_bins_are_power_of_two_history_ranges_with_their_medians() -> None:
    bins = timing.bins([0, 1, 2, 3, 4, 7, 8], [10, 20, 30, 50, 5, 7, 9])
    assert bins == [
        {"lo": 1, "hi": 2, "count": 2, "median_ns": 15.0},
        {"lo": 2, "hi": 4, "count": 2, "median_ns": 40.0},
        {"lo": 4, "hi": 8, "count": 2, "median_ns": 6.0},
        {"lo": 8, "hi": 16, "count": 1, "median_ns": 9},
    ]


def test_time_case_without_stamps_reports_ops_only() -> None:
    replay = FakeReplay()
    script = scenarios.stream(8, 2)
    result = asyncio.run(timing.time_case(replay, script, 3, False))
    assert set(result) == {"script", "chunks", "ops_ns"}
    # 16 results (one choice grows in each), each reporting both choices.
    assert result["chunks"] == len(timing.chunk_history(script)) == 32
    assert len(result["ops_ns"]) == 3 and all(ns > 0 for ns in result["ops_ns"])
    assert replay.prepared == ["bench"] * 3  # a fresh handler per op


def test_time_case_with_stamps_keeps_steady_chunks_per_op_and_in_bins() -> None:
    script = scenarios.stream(16, 1)
    result = asyncio.run(timing.time_case(FakeReplay(), script, 2, True))
    assert len(result["per_op_chunk_median_ns"]) == 2
    # Steady state: not the first chunk, not the final result's chunk (one per choice).
    assert sum(b["count"] for b in result["bins"]) == 2 * (16 - 1 - 1)
    assert [b["lo"] for b in result["bins"]] == [2, 4, 8]
    assert result["chunk_median_ns"] > 0


def test_alloc_op_samples_chunks_after_the_first() -> None:
    script = scenarios.stream(64, 1)
    samples = asyncio.run(timing.alloc_op(FakeReplay(), script, 8))
    history = timing.chunk_history(script)
    assert 8 <= len(samples) <= 9
    assert all(h in history[1:] and peak >= 0 for h, peak in samples)


def test_a_stream_that_is_not_the_expected_length_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script = scenarios.stream(4, 1)
    expected = [*timing.chunk_history(script), 4]
    monkeypatch.setattr(timing, "chunk_history", lambda s: expected)
    with pytest.raises(RuntimeError, match="4 chunks, expected 5"):
        asyncio.run(timing.time_case(FakeReplay(), script, 1, False))
    with pytest.raises(RuntimeError, match="4 chunks, expected 5"):
        asyncio.run(timing.alloc_op(FakeReplay(), script, 2))
