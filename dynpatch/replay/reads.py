"""Job ``watch``: per chunk ``[reads, history]``, the token-id positions read outside its delta
since the chunk before (through :class:`WatchedIds`), and that choice's history length."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from dynpatch.replay import scenarios
from dynpatch.replay.engine import ReplayEngine
from dynpatch.replay.handler import Replay, replay_records

HELPER = "extract_from_completion_output"


class WatchedIds(list):  # type: ignore[type-arg]
    """TEST DOUBLE of ``token_ids``: records the positions read (not by len() or appends)."""

    __slots__ = ("read",)

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.read: set[int] = set()

    def __iter__(self) -> Iterator[Any]:  # list(), tuple(), [*ids], for, sum(), islice()
        for i in range(len(self)):
            self.read.add(i)
            yield list.__getitem__(self, i)

    def __reversed__(self) -> Iterator[Any]:
        for i in reversed(range(len(self))):
            self.read.add(i)
            yield list.__getitem__(self, i)

    def __getitem__(self, key: Any) -> Any:
        value = list.__getitem__(self, key)
        at = range(len(self))[key]
        self.read.update(at if isinstance(at, range) else (at,))
        return value

    def __radd__(self, other: list[Any]) -> list[Any]:  # [] + ids
        self.read.update(range(len(self)))
        return other + list.copy(self)


def _reading_all(name: str) -> Callable[..., Any]:
    method = getattr(list, name)

    def read_all(self: WatchedIds, *args: Any) -> Any:
        self.read.update(range(len(self)))
        return method(self, *args)

    return read_all


_WHOLE = (  # what reads the whole list at once (sort() and reverse() do, in place)
    *("__contains__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__repr__"),
    *("__add__", "__mul__", "__rmul__", "copy", "count", "index", "sort", "reverse"),
)
for _name in _WHOLE:
    setattr(WatchedIds, _name, _reading_all(_name))


def outside_delta(chunk: Any, engine: ReplayEngine) -> list[int]:
    """``[reads, history]`` of ``chunk`` (another choice's positions are all outside it)."""
    result = engine.llm.submitted
    index = chunk.get("index", 0) if isinstance(chunk, dict) else None
    delta = len(chunk.get("token_ids") or ()) if isinstance(chunk, dict) else 0
    reads = history = 0
    for out in result.outputs if result is not None else ():
        ids = out.token_ids
        start = len(ids) - delta if out.index == index else len(ids)
        if out.index == index:
            history = start
        reads += sum(1 for p in ids.read if p < start)
        ids.read.clear()
    return [reads, history]


async def _run(replay: Replay, script: Any, timeout: float) -> dict[str, Any]:
    reads: list[list[int]] = []
    records = await replay_records(
        replay, script, timeout, WatchedIds, lambda c, e: reads.append(outside_delta(c, e))
    )
    return {"records": records, "reads": reads}


async def judge(replay: Replay, job: dict[str, Any]) -> list[dict[str, Any]]:
    """Per named scenario of ``job``, its replay as ``given``: records and reads."""
    timeout = float(job.get("timeout", 120))
    return [
        {"name": script.name, "given": await _run(replay, script, timeout)}
        for script in scenarios.named(job["scenarios"])
    ]
