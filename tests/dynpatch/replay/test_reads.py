"""WatchedIds sees every spelling of a history read (and none in ``len`` or the engine's
appends); outside_delta charges a chunk with what was read beyond its own delta."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from dynpatch.replay import scenarios
from dynpatch.replay.engine import ReplayEngine
from dynpatch.replay.reads import WatchedIds, outside_delta
from tests.fixtures.replay import ERRORS

SPELLINGS: dict[str, tuple[Callable[[Any], object], set[int]]] = {
    "len": (len, set()),
    "truth": (bool, set()),
    "delta slice": (lambda ids: ids[3:], {3, 4}),
    "last": (lambda ids: ids[-1], {4}),
    "list": (list, {0, 1, 2, 3, 4}),
    "full slice": (lambda ids: ids[:], {0, 1, 2, 3, 4}),
    "copy()": (lambda ids: ids.copy(), {0, 1, 2, 3, 4}),
    "copy.copy": (copy.copy, {0, 1, 2, 3, 4}),
    "islice": (lambda ids: list(itertools.islice(ids, 3, None)), {0, 1, 2, 3, 4}),
    "reversed, one": (lambda ids: next(reversed(ids)), {4}),
    "reversed, all": (lambda ids: list(reversed(ids)), {0, 1, 2, 3, 4}),
    "membership": (lambda ids: 7 in ids, {0, 1, 2, 3, 4}),
    "index": (lambda ids: ids.index(14), {0, 1, 2, 3, 4}),
    "count": (lambda ids: ids.count(7), {0, 1, 2, 3, 4}),
    "equality": (lambda ids: ids == [1], {0, 1, 2, 3, 4}),
    "less": (lambda ids: ids < [1], {0, 1, 2, 3, 4}),
    "less or equal": (lambda ids: ids <= [1], {0, 1, 2, 3, 4}),
    "greater": (lambda ids: ids > [1], {0, 1, 2, 3, 4}),
    "greater or equal": (lambda ids: ids >= [1], {0, 1, 2, 3, 4}),
    "concatenation": (lambda ids: [0] + ids, {0, 1, 2, 3, 4}),  # noqa: RUF005
    "repetition": (lambda ids: 3 * ids, {0, 1, 2, 3, 4}),
    "sort": (lambda ids: ids.sort(), {0, 1, 2, 3, 4}),
    "reverse": (lambda ids: ids.reverse(), {0, 1, 2, 3, 4}),
    "repr": (repr, {0, 1, 2, 3, 4}),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_what_each_spelling_reads(spelling: str) -> None:
    ids = WatchedIds()
    ids.extend([10, 11, 12, 13, 14])  # the engine appends: no read
    read, positions = SPELLINGS[spelling]
    read(ids)
    assert ids.read == positions


def test_a_chunk_is_charged_with_reads_outside_its_own_delta() -> None:
    engine = ReplayEngine(scenarios.stream(4, 2), ERRORS, WatchedIds)
    engine.llm.generate_async([1], None)
    first, second = engine.llm.submitted._all
    first.token_ids.extend([1, 2, 3])
    second.token_ids.extend([4, 5])
    engine.llm.submitted.outputs = [first, second]
    first.token_ids[1:]  # its delta (two tokens after one of history): allowed
    assert outside_delta({"index": 0, "token_ids": [2, 3]}, engine) == [0, 1]
    list(first.token_ids)
    second.token_ids[-1]  # another choice's token: outside this chunk's delta
    assert outside_delta({"index": 0, "token_ids": [2, 3]}, engine) == [2, 1]
    assert first.token_ids.read == second.token_ids.read == set()  # forgotten once charged


def test_a_chunk_without_an_index_is_choice_0s_and_one_not_a_dict_has_no_delta() -> None:
    engine = ReplayEngine(scenarios.stream(4, 2), ERRORS, WatchedIds)
    assert outside_delta({}, engine) == [0, 0]  # nothing submitted yet
    engine.llm.generate_async([1], None)
    first, second = engine.llm.submitted._all
    first.token_ids.extend([1, 2, 3])
    second.token_ids.extend([4, 5])
    engine.llm.submitted.outputs = [first, second]
    assert first.token_ids[1:] == [2, 3]  # the values, as a list reads them
    assert outside_delta({"token_ids": [3]}, engine) == [1, 2]
    list(second.token_ids)
    assert outside_delta({"index": 1, "token_ids": [5]}, engine) == [1, 1]
    list(second.token_ids)
    assert outside_delta("an error", engine) == [2, 0]  # every position is outside
