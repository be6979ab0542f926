"""What a benchmark worker measures, in process, on the fake replay."""

from __future__ import annotations

import asyncio

import pytest

from dynpatch.replay import scenarios, timing
from tests.fixtures.replay import FakeReplay


def test_time_case_reports_each_op_s_cpu_time() -> None:
    replay = FakeReplay()
    script = scenarios.stream(8, 2)
    result = asyncio.run(timing.time_case(replay, script, 3))
    assert set(result) == {"script", "chunks", "ops_ns"}
    # 16 results (one choice grows in each), each reporting both choices.
    assert result["chunks"] == len(timing.chunk_history(script)) == 32
    assert len(result["ops_ns"]) == 3 and all(ns > 0 for ns in result["ops_ns"])
    assert replay.prepared == ["bench"] * 3  # a fresh handler per op


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
        asyncio.run(timing.time_case(FakeReplay(), script, 1))
    with pytest.raises(RuntimeError, match="4 chunks, expected 5"):
        asyncio.run(timing.alloc_op(FakeReplay(), script, 2))
