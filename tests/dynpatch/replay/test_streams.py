"""The stream building blocks: deterministic per name, and shaped as they promise."""

from __future__ import annotations

import random

import pytest

from dynpatch.replay import streams
from dynpatch.replay.timing import chunk_history


def sizes(r: random.Random) -> int:
    return r.choice((1, 2, 3, 4))


def test_uneven_is_deterministic_per_name() -> None:
    a = streams.uneven("u", n=4, tokens=20, k=2, sizes=sizes)
    assert a == streams.uneven("u", n=4, tokens=20, k=2, sizes=sizes)
    assert a != streams.uneven("v", n=4, tokens=20, k=2, sizes=sizes)


@pytest.mark.parametrize("advancing", [0.0, 0.5, 1.0])
def test_uneven_grows_every_choice_to_its_length_unevenly(advancing: float) -> None:
    script = streams.uneven("u", n=4, tokens=20, k=2, sizes=sizes, advancing=advancing)
    grown = [0] * 4
    for step in script.steps:
        assert step.deltas, "a result in which nothing grew"
        assert len({d.index for d in step.deltas}) == len(step.deltas)
        for d in step.deltas:
            assert d.tokens and len(d.logprobs) == len(d.tokens)
            assert all(len(p) == 2 for p in d.logprobs)  # type: ignore[arg-type]
            assert d.tokens[0] == d.logprobs[0][0][0]  # type: ignore[index]  # the selected token, rank 1
            grown[d.index] += len(d.tokens)
            assert (d.finish_reason == "length") == (grown[d.index] == 20)
    assert grown == [20] * 4
    assert script.steps[-1].finished and not any(s.finished for s in script.steps[:-1])
    assert (script.n, script.logprobs, script.max_tokens) == (4, 2, 20)
    # Every result reports all four choices (the engine double hands out every output).
    assert len(chunk_history(script)) == 4 * len(script.steps)


def test_uneven_at_one_half_leaves_live_choices_behind_and_grows_several_tokens() -> None:
    script = streams.uneven("u", n=4, tokens=20, k=1, sizes=sizes)
    grown, behind = [0] * 4, 0
    for step in script.steps:
        live = [c for c in range(4) if grown[c] < 20]
        behind += len(live) - len(step.deltas)
        for d in step.deltas:
            grown[d.index] += len(d.tokens)
    assert behind > 0
    assert any(len(d.tokens) > 1 for s in script.steps for d in s.deltas)
