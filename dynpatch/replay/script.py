"""What the engine double replays: a :class:`Script` of TRT-LLM results. A logprob position is
``None``, a bare ``float``, or ``(token_id, logprob, rank)`` triples (a ``{id: Logprob}`` dict)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

Entry = tuple[int, float, int | None]
Position = None | float | tuple[Entry, ...]

RAISE_KINDS = ("request", "fatal", "shutdown")  # what a step can raise, as dynamo tells them


@dataclass(frozen=True)
class Delta:
    """One choice's change in one step: appended tokens and logprob positions."""

    index: int
    tokens: tuple[int, ...] = ()
    logprobs: tuple[Position, ...] = ()
    finish_reason: str | None = None
    stop_reason: str | int | None = None
    trim: int = 0  # tokens dropped from the end afterwards (TRT-LLM trims a stop word)


@dataclass(frozen=True)
class ReplayStep:
    """One engine result, or an exception raised where the result would come."""

    deltas: tuple[Delta, ...] = ()
    finished: bool = False
    no_outputs: bool = False  # the result carries no outputs at all
    raise_kind: str | None = None  # one of RAISE_KINDS
    message: str = ""


@dataclass(frozen=True)
class Script:
    """A whole request: what the client asks for and what the engine streams back."""

    name: str
    steps: tuple[ReplayStep, ...]
    n: int = 1
    prompt: tuple[int, ...] = (101, 102, 103, 104)
    max_tokens: int | None = 64
    logprobs: int | None = None  # output_options.logprobs (None: not requested)
    prompt_logprobs: int | None = None  # output_options.prompt_logprobs
    engine_prompt_logprobs: tuple[Position, ...] | None = None  # on every CompletionOutput
    cached_tokens: int | None = None  # on every result, read on the finishing chunk
    reject: str | None = None  # generate_async raises ValueError(reject) at submission
    suspend: bool = False  # the engine yields to the event loop before each result
    expect: tuple[str, ...] = ()  # what the replayed stream must show (expect.CHECKS)


to_json = dataclasses.asdict  # a Script's JSON data (from_json reads it back)


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _fields(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _tuples(v) for k, v in data.items()}


def from_json(data: dict[str, Any]) -> Script:
    """The script :func:`to_json` gave (JSON lists become the tuples they were)."""
    steps = tuple(
        ReplayStep(**{**s, "deltas": tuple(Delta(**_fields(d)) for d in s["deltas"])})
        for s in data["steps"]
    )
    return Script(**_fields({k: v for k, v in data.items() if k != "steps"}), steps=steps)


def request_for(script: Script) -> dict[str, Any]:
    """The dynamo request a client would send for ``script`` (a fresh dict each call)."""
    request: dict[str, Any] = {
        "token_ids": list(script.prompt),
        "stop_conditions": {"max_tokens": script.max_tokens},
        "sampling_options": {"n": script.n} if script.n > 1 else {},
    }
    options = {"logprobs": script.logprobs, "prompt_logprobs": script.prompt_logprobs}
    if options := {k: v for k, v in options.items() if v is not None}:
        request["output_options"] = options
    return request


def chunk_history(script: Script) -> list[int]:
    """Per expected chunk, the cumulative token count of its choice (what a copy copies)."""
    totals = [0] * script.n
    history: list[int] = []
    for step in script.steps:
        if step.raise_kind or step.no_outputs:
            continue
        for d in step.deltas:
            totals[d.index] += len(d.tokens) - d.trim
        history.extend(totals)
    return history


def check_chunks(script: Script, got: int) -> None:
    """A RuntimeError unless ``got`` is the chunk count of one whole ``script``."""
    want = len(chunk_history(script))
    if got != want:
        raise RuntimeError(f"{script.name}: {got} chunks, expected {want}")
