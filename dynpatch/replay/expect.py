"""What a named scenario must make the handler do (equal streams prove nothing if it never reaches
its code): :data:`CHECKS` that some record passes or, with a ``no_`` prefix, none does."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Record = dict[str, Any]


def _chunk(test: Callable[[dict[str, Any]], bool]) -> Callable[[Record], bool]:
    return lambda r: r["kind"] == "chunk" and bool(test(r["value"]))


def _event(kind: str) -> Callable[[Record], bool]:
    return lambda r: r["kind"] == kind


def _carries(key: str) -> tuple[str, Callable[[Record], bool]]:
    return f"a chunk carries {key}", _chunk(lambda c: key in c)


def _cached(c: dict[str, Any]) -> Any:
    # Releases before 1.5 send prompt_tokens_details = None when nothing was cached.
    usage = c.get("completion_usage") or {}
    return (usage.get("prompt_tokens_details") or {}).get("cached_tokens")


def _multi_token(c: dict[str, Any]) -> bool:
    new = c.get("token_ids") or ()
    return len(new) > 1 and len(c.get("log_probs") or ()) == len(new)


def _error(c: dict[str, Any]) -> bool:
    return c.get("finish_reason") == "error" or isinstance(c.get("finish_reason"), dict)


CHECKS: dict[str, tuple[str, Callable[[Record], bool]]] = {
    "finish": (
        "a chunk has a finish_reason and usage",
        _chunk(lambda c: isinstance(c.get("finish_reason"), str) and "completion_usage" in c),
    ),
    "log_probs": _carries("log_probs"),
    "top_logprobs": _carries("top_logprobs"),
    "stop_reason": _carries("stop_reason"),
    "flat": (
        "a chunk has log_probs without top_logprobs",
        _chunk(lambda c: "log_probs" in c and "top_logprobs" not in c),
    ),
    "dropped": (
        "a chunk with tokens has no log_probs",
        _chunk(lambda c: c.get("token_ids") and "log_probs" not in c),
    ),
    "empty_delta": (
        "a chunk has no new tokens",
        _chunk(lambda c: c.get("token_ids") == [] and "index" in c),
    ),
    "multi_token": ("a chunk has several new tokens, each with log_probs", _chunk(_multi_token)),
    "prompt_logprobs": (
        "a chunk carries engine_data.prompt_logprobs",
        _chunk(lambda c: "prompt_logprobs" in (c.get("engine_data") or {})),
    ),
    "cached_tokens": ("usage reports cached tokens", _chunk(_cached)),
    "unknown_finish": (
        "a chunk ends as 'unknown'",
        _chunk(lambda c: c.get("finish_reason") == "unknown"),
    ),
    "error_chunk": ("an error chunk is emitted", _chunk(_error)),
    "worker_exit": ("dynamo's fatal path asks to exit the worker", _event("worker_exit")),
    "raised": ("an exception leaves the handler", _event("raised")),
}


def unmet(expectations: tuple[str, ...], records: list[str]) -> list[str]:
    """Descriptions of the expectations ``records`` do not meet."""
    parsed = [json.loads(r) for r in records]
    missing = []
    for name in expectations:
        description, check = CHECKS[name.removeprefix("no_")]  # KeyError: no such check
        negated = name.startswith("no_")
        if any(map(check, parsed)) == negated:
            missing.append(f"not: {description}" if negated else description)
    return missing
