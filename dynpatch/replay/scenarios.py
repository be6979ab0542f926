"""The named replay scenarios and the benchmark streams (deterministic, standard library only).

Each named scenario is a small, reviewable :class:`Script` aimed at one behaviour of the
handler's response loop (see ``NAMED``), built from :mod:`~dynpatch.replay.streams`:
token ids and logprob values come from a ``random.Random`` seeded by the scenario name,
so both trees replay identical bytes. :func:`stream` builds the long uniform streams the
benchmark uses.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from typing import Any

from dynpatch.replay.script import Delta, Position, ReplayStep, Script
from dynpatch.replay.streams import Gen, interleaved, uneven


def stream(tokens: int, choices: int, *, k: int = 1, increment: int = 1) -> Script:
    """The benchmark shape: ``choices`` interleaved choices, ``increment`` tokens a step."""
    return interleaved(
        f"stream-{tokens}x{choices}-top{k}-inc{increment}",
        n=choices,
        tokens=tokens,
        k=k,
        sizes=lambda r: increment,
    )


# --- named scenarios ------------------------------------------------------------------


def _with_step(script: Script, at: int, step: ReplayStep, *, replace: bool = False) -> Script:
    steps = list(script.steps)
    steps[at : at + (1 if replace else 0)] = [step]
    return dataclasses.replace(script, steps=tuple(steps))


def _edit_position(
    script: Script, step: int, edit: Callable[[Gen, int, Position], Position]
) -> Script:
    """Replace the first logprob position of ``step``'s first delta."""
    g = Gen(script.name + "/edit")
    old = script.steps[step]
    d = old.deltas[0]
    new = dataclasses.replace(d, logprobs=(edit(g, d.tokens[0], d.logprobs[0]), *d.logprobs[1:]))
    return _with_step(
        script, step, ReplayStep((new, *old.deltas[1:]), old.finished, old.no_outputs), replace=True
    )


def _sizes(*choices: int) -> Callable[[random.Random], int]:
    return lambda r: r.choice(choices)


def _empty_increments(name: str) -> Script:
    # Results where the choice did not grow (TRT-LLM re-sends the same cumulative state).
    base = interleaved(name, n=1, tokens=12, k=1)
    steps: list[ReplayStep] = []
    for i, s in enumerate(base.steps):
        steps.append(s)
        if i % 3 == 1 and not s.finished:
            steps.append(ReplayStep(deltas=()))
    return dataclasses.replace(base, steps=tuple(steps))


def _logprobs_lagging(name: str) -> Script:
    # Logprobs arrive one result after their tokens, then catch up.
    g = Gen(name)
    toks = g.tokens(6)
    pos = g.positions(toks, 2)
    steps = (
        ReplayStep((Delta(0, toks[:2], pos[:1]),)),
        ReplayStep((Delta(0, toks[2:4], pos[1:3]),)),
        ReplayStep((Delta(0, toks[4:6], pos[3:6], finish_reason="length"),), finished=True),
    )
    return Script(name=name, steps=steps, logprobs=2, max_tokens=6)


def _logprobs_ahead(name: str) -> Script:
    # More logprob positions than tokens in a result (the helper cuts to the delta).
    g = Gen(name)
    toks = g.tokens(5)
    pos = g.positions(toks, 3)
    steps = (
        ReplayStep((Delta(0, toks[:1], pos[:3]),)),
        ReplayStep((Delta(0, toks[1:3], ()),)),
        ReplayStep(
            (Delta(0, toks[3:5], pos[3:5], finish_reason="stop", stop_reason=toks[4]),), True
        ),
    )
    return Script(name=name, steps=steps, logprobs=3, max_tokens=5)


def _prompt_logprobs(name: str) -> Script:
    g = Gen(name)
    prompt = g.tokens(5)
    engine = (None, *(g.position(t, 2) for t in prompt[1:]))
    return interleaved(
        name,
        n=2,
        tokens=4,
        k=1,
        prompt=prompt,
        prompt_logprobs=2,
        engine_prompt_logprobs=engine,
    )


def _stop_word_trimmed(name: str) -> Script:
    # TRT-LLM drops a matched stop word from token_ids on the last result, so the
    # cumulative list gets shorter than what dynamo already streamed.
    g = Gen(name)
    toks = g.tokens(7)
    pos = g.positions(toks, 1)
    steps = (
        ReplayStep((Delta(0, toks[:3], pos[:3]),)),
        ReplayStep((Delta(0, toks[3:6], pos[3:6]),)),
        ReplayStep((Delta(0, toks[6:], pos[6:], "stop", "</end>", trim=2),), finished=True),
    )
    return Script(name=name, steps=steps, logprobs=1, max_tokens=16)


def _staggered_finish(name: str) -> Script:
    # Choice 0 finishes early; later results still carry it (with its finish_reason).
    g = Gen(name)
    a, b = g.tokens(2), g.tokens(5)
    steps = (
        ReplayStep((Delta(0, a[:1], g.positions(a[:1], 1)),)),
        ReplayStep((Delta(1, b[:2], g.positions(b[:2], 1)),)),
        ReplayStep((Delta(0, a[1:], g.positions(a[1:], 1), "stop", b[0]),)),
        ReplayStep((Delta(1, b[2:4], g.positions(b[2:4], 1)),)),
        ReplayStep((Delta(1, b[4:], g.positions(b[4:], 1), "length"),), finished=True),
    )
    return Script(name=name, steps=steps, n=2, logprobs=1, max_tokens=5)


Builder = Callable[[str], Script]  # the scenario's name -> its script


def _i(**stream: Any) -> Builder:
    """An interleaved stream (:func:`~dynpatch.replay.streams.interleaved`) of the name."""
    return lambda name: interleaved(name, **stream)


def _edit(step: int, edit: Callable[[Gen, int, Position], Position], **stream: Any) -> Builder:
    return lambda name: _edit_position(interleaved(name, **stream), step, edit)


def _mid_stream(kind: str, message: str) -> Builder:
    def build(name: str) -> Script:
        base = interleaved(name, n=2, tokens=6, k=1)
        return dataclasses.replace(
            base, steps=(*base.steps[:5], ReplayStep(raise_kind=kind, message=message))
        )

    return build


def _no_outputs(name: str) -> Script:
    return _with_step(interleaved(name, n=1, tokens=6, k=1), 3, ReplayStep(no_outputs=True))


def _finished_without_reason(name: str) -> Script:
    base = interleaved(name, n=1, tokens=4, k=1)
    last = base.steps[-1].deltas[0]
    bare = Delta(last.index, last.tokens, last.logprobs)
    return _with_step(base, len(base.steps) - 1, ReplayStep((bare,), finished=True), replace=True)


def _missing(g: Gen, token: int, old: Position) -> Position:
    return g.position(token, 3, with_selected=False)


LOGPROBS = ("finish", "log_probs", "top_logprobs", "no_worker_exit")
GROWING = (*LOGPROBS, "empty_delta")  # n > 1: some results grow another choice
STOP = (*LOGPROBS, "stop_reason")
FAILED = ("log_probs", "error_chunk", "no_worker_exit")

# name -> (builder, expectations). Every builder is deterministic.
_NAMED: dict[str, tuple[Builder, tuple[str, ...]]] = {
    # choices and increments
    "1-choice-one-token-top1": (_i(n=1, tokens=24, k=1), LOGPROBS),
    "1-choice-multi-token-top5": (_i(n=1, tokens=40, k=5, sizes=_sizes(1, 2, 3, 5, 8)), LOGPROBS),
    "empty-increments": (_empty_increments, GROWING),
    "2-choices-interleaved-top1": (_i(n=2, tokens=16, k=1), GROWING),
    "3-choices-interleaved-top5": (_i(n=3, tokens=12, k=5, sizes=_sizes(1, 2)), GROWING),
    "4-choices-interleaved-top1": (_i(n=4, tokens=32, k=1), GROWING),
    # Where the fix gains most: every result carries all 4 choices, some of which did not
    # advance (an empty delta: the old helper still copied their whole history).
    "4-choices-uneven-multi-token-top5": (
        lambda name: uneven(name, n=4, tokens=48, k=5, sizes=_sizes(1, 2, 3, 4)),
        (*GROWING, "multi_token"),
    ),
    "4-choices-lockstep-multi-token-top5": (
        _i(n=4, tokens=20, k=5, sizes=_sizes(1, 3, 4), lockstep=True),
        LOGPROBS,
    ),
    # logprob shapes
    "logprobs-not-requested": (_i(n=2, tokens=10, k=None), ("finish", "no_log_probs")),
    "logprobs-requested-engine-empty": (
        _i(n=2, tokens=10, k=1, engine_logprobs=False),
        ("finish", "no_log_probs"),
    ),
    "logprobs-zero-means-selected-only": (_i(n=1, tokens=8, k=0), LOGPROBS),
    "none-position": (_edit(4, lambda g, t, p: None, n=1, tokens=8, k=1), (*LOGPROBS, "dropped")),
    "missing-selected-token-falls-back-to-first": (
        _edit(5, _missing, n=2, tokens=8, k=3),
        LOGPROBS,
    ),
    "empty-position-dict": (
        _edit(2, lambda g, t, p: (), n=1, tokens=8, k=1),
        (*LOGPROBS, "dropped"),
    ),
    "flat-float-logprobs": (
        _i(n=2, tokens=6, k=1, sizes=_sizes(1, 2), flat=True),
        ("finish", "log_probs", "flat"),
    ),
    "logprobs-lag": (_logprobs_lagging, LOGPROBS),
    "logprobs-ahead": (_logprobs_ahead, STOP),
    "prompt-logprobs": (_prompt_logprobs, (*LOGPROBS, "prompt_logprobs")),
    # finishing
    "finish-length-cached-tokens": (
        _i(n=1, tokens=6, k=1, cached_tokens=3),
        (*LOGPROBS, "cached_tokens"),
    ),
    "finish-stop-string-reason": (
        _i(n=1, tokens=6, k=1, finish_reason="stop", stop_reason="###"),
        STOP,
    ),
    "finish-stop-token-reason": (
        _i(n=3, tokens=5, k=2, finish_reason="stop", stop_reason=2),
        STOP,
    ),
    "finish-cancelled": (_i(n=1, tokens=3, k=1, finish_reason="cancelled"), LOGPROBS),
    "finished-without-reason": (_finished_without_reason, ("log_probs", "unknown_finish")),
    "stop-word-trimmed": (_stop_word_trimmed, STOP),
    "staggered-finish": (_staggered_finish, STOP),
    # failures
    "no-outputs-while-running": (_no_outputs, FAILED),
    "request-error-mid-stream": (_mid_stream("request", "context too long"), FAILED),
    "fatal-engine-error-mid-stream": (
        _mid_stream("fatal", "executor worker died"),
        ("log_probs", "error_chunk", "worker_exit"),
    ),
    "engine-shutdown-mid-stream": (
        _mid_stream("shutdown", "engine is shutting down"),
        ("log_probs", "raised", "no_worker_exit"),
    ),
    "rejected-at-submission": (
        lambda name: Script(name=name, steps=(), reject="prompt exceeds max_seq_len"),
        ("error_chunk", "no_worker_exit"),
    ),
    # scheduling and length
    "engine-yields-between-results": (_i(n=2, tokens=8, k=1, suspend=True), LOGPROBS),
    "long-stream-16k-top5": (_i(n=1, tokens=16384, k=5, sizes=_sizes(1, 1, 1, 2, 4)), LOGPROBS),
}
NAMED: tuple[str, ...] = tuple(_NAMED)

# Expectations that name behaviour dynamo has only from some release on: (scenario,
# expectation) -> the first release that shows it. Before it the expectation does not
# apply (verify lists it as such); the two trees must still give identical streams.
SINCE: dict[tuple[str, str], str] = {
    # Prompt logprobs reach the client (engine_data.prompt_logprobs) from 1.5.0 on;
    # before, dynamo asks the engine for them and streams nothing of them.
    ("prompt-logprobs", "prompt_logprobs"): "1.5.0",
    # From 1.6.0 a request generate_async rejects is request-local; before, dynamo takes
    # the fatal path for it (an error chunk, then the worker exit).
    ("rejected-at-submission", "no_worker_exit"): "1.6.0",
}


def named(names: Sequence[str] | None = None) -> list[Script]:
    """The named scenarios (all, or the ones listed), built fresh."""
    chosen = list(NAMED) if names is None else list(names)
    unknown = [n for n in chosen if n not in NAMED]
    if unknown:
        raise KeyError(f"unknown scenario(s): {', '.join(unknown)}")
    out = []
    for name in chosen:
        build, expect = _NAMED[name]
        out.append(dataclasses.replace(build(name), expect=expect))
    return out
