"""What the engine double replays: a :class:`Script` of engine results, JSON round-trippable.

The shapes follow TRT-LLM's streaming API as dynamo consumes it: one ``GenerationResult``
per engine iteration, carrying *every* choice's ``CompletionOutput`` with cumulative
``token_ids`` and ``logprobs`` (for ``n > 1`` each iteration usually grows one choice, so
the others show an empty delta). A :class:`ReplayStep` says how the cumulative state changes
before a result is handed out, or which exception the engine raises instead.

A logprob *position* (one entry of ``CompletionOutput.logprobs``) is written as:

* ``None`` - a missing position,
* a ``float`` - TRT-LLM's flat-float corner case,
* a list of ``[token_id, logprob, rank]`` triples (``rank`` may be ``None``) - the
  ``{token_id: Logprob}`` dict, in that order.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

Entry = tuple[int, float, int | None]
Position = None | float | tuple[Entry, ...]

# Exceptions a step can raise from the engine's iterator, by how dynamo treats them.
RAISE_KINDS = ("request", "fatal", "shutdown")


@dataclass(frozen=True)
class Delta:
    """One choice's change in one step: appended tokens and logprob positions."""

    index: int
    tokens: tuple[int, ...] = ()
    logprobs: tuple[Position, ...] = ()
    finish_reason: str | None = None
    stop_reason: str | int | None = None
    # Tokens dropped from the end after appending (TRT-LLM trims a matched stop word).
    trim: int = 0


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
    # What the engine reports as CompletionOutput.prompt_logprobs (on every choice).
    engine_prompt_logprobs: tuple[Position, ...] | None = None
    cached_tokens: int | None = None  # on every result, read on the finishing chunk
    reject: str | None = None  # generate_async raises ValueError(reject) at submission
    suspend: bool = False  # the engine yields to the event loop before each result
    # What the replayed stream must show (names in dynpatch.replay.expect.CHECKS).
    expect: tuple[str, ...] = field(default=())


# --- JSON ---------------------------------------------------------------------------


def to_json(script: Script) -> dict[str, Any]:
    """``script`` as JSON-able data (tuples become lists when dumped); :func:`from_json`
    reads it back."""
    return dataclasses.asdict(script)


def _position_from_json(p: Any) -> Position:
    if p is None or isinstance(p, float):
        return p
    if isinstance(p, int) and not isinstance(p, bool):
        return float(p)
    return tuple((int(t), float(lp), None if r is None else int(r)) for t, lp, r in p)


def from_json(data: dict[str, Any]) -> Script:
    steps = []
    for s in data["steps"]:
        deltas = tuple(
            Delta(
                index=int(d["index"]),
                tokens=tuple(int(t) for t in d.get("tokens", ())),
                logprobs=tuple(_position_from_json(p) for p in d.get("logprobs", ())),
                finish_reason=d.get("finish_reason"),
                stop_reason=d.get("stop_reason"),
                trim=int(d.get("trim", 0)),
            )
            for d in s.get("deltas", ())
        )
        kind = s.get("raise_kind")
        if kind is not None and kind not in RAISE_KINDS:
            raise ValueError(f"unknown raise_kind {kind!r} (expected one of {RAISE_KINDS})")
        steps.append(
            ReplayStep(
                deltas=deltas,
                finished=bool(s.get("finished", False)),
                no_outputs=bool(s.get("no_outputs", False)),
                raise_kind=kind,
                message=str(s.get("message", "")),
            )
        )
    epl = data.get("engine_prompt_logprobs")
    return Script(
        name=str(data["name"]),
        steps=tuple(steps),
        n=int(data.get("n", 1)),
        prompt=tuple(int(t) for t in data.get("prompt", (101, 102, 103, 104))),
        max_tokens=data.get("max_tokens", 64),
        logprobs=data.get("logprobs"),
        prompt_logprobs=data.get("prompt_logprobs"),
        engine_prompt_logprobs=None if epl is None else tuple(_position_from_json(p) for p in epl),
        cached_tokens=data.get("cached_tokens"),
        reject=data.get("reject"),
        suspend=bool(data.get("suspend", False)),
        expect=tuple(data.get("expect", ())),
    )


def request_for(script: Script) -> dict[str, Any]:
    """The dynamo request dict a client would send for ``script`` (a fresh copy each call)."""
    request: dict[str, Any] = {
        "token_ids": list(script.prompt),
        "stop_conditions": {"max_tokens": script.max_tokens},
        "sampling_options": {"n": script.n} if script.n > 1 else {},
    }
    options: dict[str, Any] = {}
    if script.logprobs is not None:
        options["logprobs"] = script.logprobs
    if script.prompt_logprobs is not None:
        options["prompt_logprobs"] = script.prompt_logprobs
    if options:
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


def check_chunks(script: Script, got: int, requests: int = 1) -> None:
    """A RuntimeError unless ``got`` is the chunk count of ``requests`` whole ``script``s."""
    want = len(chunk_history(script)) * requests
    if got != want:
        raise RuntimeError(f"{script.name}: {got} chunks, expected {want}")
