"""What each named scenario must make the handler do, checked on the replayed stream.

Equal streams on both trees prove nothing if a scenario never reaches the code it is
named for (a stand-in that breaks logprob extraction would make every stream equal and
empty). So each named scenario lists *expectations*, and verify fails when a stream
does not show them. Property streams have none: they are checked for equality only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Record = dict[str, Any]


def _chunks(records: list[Record]) -> list[dict[str, Any]]:
    return [r["value"] for r in records if r["kind"] == "chunk"]


def _kinds(records: list[Record]) -> list[str]:
    return [r["kind"] for r in records]


def _finished_cleanly(records: list[Record]) -> bool:
    chunks = _chunks(records)
    if not chunks or set(_kinds(records)) - {"submit", "chunk"}:
        return False
    last = chunks[-1]
    return isinstance(last.get("finish_reason"), str) and "completion_usage" in last


def _error_chunk(records: list[Record]) -> bool:
    return any(
        c.get("finish_reason") == "error" or isinstance(c.get("finish_reason"), dict)
        for c in _chunks(records)
    )


def _dropped(records: list[Record]) -> bool:
    """A chunk with new tokens but no logprobs: the helper bailed out for that chunk."""
    return any(c.get("token_ids") and "log_probs" not in c for c in _chunks(records))


def _per_token(chunk: dict[str, Any]) -> bool:
    return len(chunk.get("log_probs") or ()) == len(chunk["token_ids"])


def _cached(records: list[Record]) -> bool:
    # Releases before 1.5 send prompt_tokens_details = None when nothing was cached.
    return any(
        ((c.get("completion_usage") or {}).get("prompt_tokens_details") or {}).get("cached_tokens")
        for c in _chunks(records)
    )


Check = Callable[[list[Record]], bool]


def _some(test: Callable[[dict[str, Any]], bool]) -> Check:
    """The check that some chunk of the stream passes ``test``."""
    return lambda records: any(test(c) for c in _chunks(records))


def _carries(key: str) -> Check:
    return _some(lambda c: key in c)


CHECKS: dict[str, tuple[str, Check]] = {
    "finish": ("ends with a finish_reason chunk and usage", _finished_cleanly),
    "log_probs": ("some chunk carries log_probs", _carries("log_probs")),
    "top_logprobs": ("some chunk carries top_logprobs", _carries("top_logprobs")),
    "no_log_probs": ("no chunk carries log_probs", lambda r: not _carries("log_probs")(r)),
    "flat": (
        "some chunk has log_probs without top_logprobs",
        _some(lambda c: "log_probs" in c and "top_logprobs" not in c),
    ),
    "dropped": ("some chunk with tokens has no log_probs", _dropped),
    "empty_delta": (
        "some chunk has no new tokens",
        _some(lambda c: c.get("token_ids") == [] and "index" in c),
    ),
    "multi_token": (
        "some chunk carries several new tokens, each with its log_probs",
        _some(lambda c: len(c.get("token_ids") or ()) > 1 and _per_token(c)),
    ),
    "prompt_logprobs": (
        "a finishing chunk carries engine_data.prompt_logprobs",
        _some(lambda c: "prompt_logprobs" in (c.get("engine_data") or {})),
    ),
    "cached_tokens": ("usage reports cached tokens", _cached),
    "stop_reason": ("some chunk carries stop_reason", _carries("stop_reason")),
    "unknown_finish": (
        "a chunk has finish_reason 'unknown'",
        _some(lambda c: c.get("finish_reason") == "unknown"),
    ),
    "error_chunk": ("an error chunk is emitted", _error_chunk),
    "worker_exit": (
        "dynamo's fatal path asks to exit the worker",
        lambda r: "worker_exit" in _kinds(r),
    ),
    "no_worker_exit": ("no worker exit", lambda r: "worker_exit" not in _kinds(r)),
    "raised": ("an exception leaves the handler", lambda r: "raised" in _kinds(r)),
}


def unmet(expectations: tuple[str, ...], records: list[str]) -> list[str]:
    """Descriptions of the expectations ``records`` (canonical strings) do not meet."""
    parsed = [json.loads(r) for r in records]
    missing = []
    for name in expectations:
        if name not in CHECKS:
            raise KeyError(f"unknown expectation {name!r}")
        description, check = CHECKS[name]
        if not check(parsed):
            missing.append(description)
    return missing
