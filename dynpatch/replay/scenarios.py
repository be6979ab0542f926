"""The replayed streams (verify's named scenarios, the bench's), standard library only; a
``random.Random`` seeded by the script's name makes both trees replay identical bytes."""

from __future__ import annotations

import dataclasses
import random
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from dynpatch.replay.script import Delta, Position, ReplayStep, Script

VOCAB = (1000, 150_000)  # token ids outside CPython's small-int cache, like a real vocab


class Gen:
    """Deterministic token ids and logprob positions for one script."""

    def __init__(self, name: str):
        self.rng = random.Random(zlib.crc32(name.encode()))

    def tokens(self, count: int) -> tuple[int, ...]:
        return tuple(self.rng.randrange(*VOCAB) for _ in range(count))

    def position(
        self, token: int, k: int, *, with_selected: bool = True, sampled: bool = False
    ) -> Position:
        """``k`` entries: the selected token first, or (``sampled``) second."""
        lps = sorted((-self.rng.random() * 8 for _ in range(max(k, 1))), reverse=True)
        ids = [token] if with_selected else []
        while len(ids) < max(k, 1):
            t = self.rng.randrange(*VOCAB)
            if t != token and t not in ids:
                ids.append(t)
        if not with_selected:
            self.rng.shuffle(ids)
        elif sampled and len(ids) > 1:
            ids[0], ids[1] = ids[1], ids[0]
        return tuple((t, lp, r) for r, (t, lp) in enumerate(zip(ids, lps, strict=True), 1))

    def positions(
        self, tokens: Sequence[int], k: int, sampled: bool = False
    ) -> tuple[Position, ...]:
        return tuple(self.position(t, k, sampled=sampled) for t in tokens)


def _finish(steps: list[ReplayStep]) -> tuple[ReplayStep, ...]:
    return (*steps[:-1], dataclasses.replace(steps[-1], finished=True))


def interleaved(
    name: str,
    *,
    n: int,
    tokens: int,
    k: int | None,
    sizes: tuple[int, ...] = (1,),
    lockstep: bool = False,
    finish_reason: str = "length",
    stop_reason: str | int | None = None,
    engine_logprobs: bool = True,
    flat: bool = False,
    **script: Any,
) -> Script:
    """``n`` choices growing by ``sizes`` tokens a step, round robin or (``lockstep``) all."""
    g = Gen(name)
    plan = []
    for _ in range(n):
        left, sizes_c = tokens, []
        while left:
            # One size is no draw: the benchmark's streams draw only tokens and positions.
            sizes_c.append(min(g.rng.choice(sizes) if len(sizes) > 1 else sizes[0], left))
            left -= sizes_c[-1]
        plan.append(sizes_c)
    steps: list[ReplayStep] = []
    for r in range(max(map(len, plan))):
        group: list[Delta] = []
        for c in (c for c in range(n) if r < len(plan[c])):
            toks = g.tokens(plan[c][r])
            lps: tuple[Position, ...] = ()
            if engine_logprobs and k is not None:
                lps = (
                    tuple(-g.rng.random() * 8 for _ in toks) if flat else g.positions(toks, k or 1)
                )
            ends = (finish_reason, stop_reason) if r == len(plan[c]) - 1 else (None, None)
            group.append(Delta(c, toks, lps, *ends))
        steps += [ReplayStep(tuple(group))] if lockstep else [ReplayStep((d,)) for d in group]
    return Script(name, _finish(steps), n=n, max_tokens=tokens, logprobs=k, **script)


def uneven(name: str, *, n: int, tokens: int, k: int, sizes: tuple[int, ...]) -> Script:
    """``n`` choices in every result, each growing by ``sizes`` or, half the time, not."""
    g = Gen(name)
    left = [tokens] * n
    steps: list[ReplayStep] = []
    while any(left):
        live = [c for c in range(n) if left[c]]
        deltas = []
        for c in [c for c in live if g.rng.random() < 0.5] or [g.rng.choice(live)]:
            toks = g.tokens(min(g.rng.choice(sizes), left[c]))
            left[c] -= len(toks)
            finish = None if left[c] else "length"
            deltas.append(Delta(c, toks, g.positions(toks, k), finish_reason=finish))
        steps.append(ReplayStep(tuple(deltas)))
    return Script(name, _finish(steps), n=n, max_tokens=tokens, logprobs=k)


def stream(tokens: int, choices: int, *, k: int = 1) -> Script:
    """The benchmark's shape: ``choices`` interleaved choices growing one token a step."""
    return interleaved(f"stream-{tokens}x{choices}-top{k}-inc1", n=choices, tokens=tokens, k=k)


Builder = Callable[[str], Script]  # the scenario's name -> its script


def _i(**stream: Any) -> Builder:
    return lambda name: interleaved(name, **stream)


def _steps(edit: Callable[[Gen, list[ReplayStep]], None], **stream: Any) -> Builder:
    """An :func:`interleaved` stream whose steps ``edit`` changes in place."""

    def build(name: str) -> Script:
        script = interleaved(name, **stream)
        steps = list(script.steps)
        edit(Gen(name + "/edit"), steps)
        return dataclasses.replace(script, steps=tuple(steps))

    return build


def _position(at: int, new: Callable[[Gen, int], Position]) -> Callable[[Gen, list], None]:
    """Replace the first logprob position of step ``at`` by ``new(gen, its token)``."""

    def edit(g: Gen, steps: list[ReplayStep]) -> None:
        d, *rest = steps[at].deltas
        d = dataclasses.replace(d, logprobs=(new(g, d.tokens[0]), *d.logprobs[1:]))
        steps[at] = dataclasses.replace(steps[at], deltas=(d, *rest))

    return edit


def _empty_increments(g: Gen, steps: list[ReplayStep]) -> None:
    # Results where the choice did not grow (TRT-LLM re-sends the same cumulative state).
    for i in (10, 7, 4, 1):
        steps.insert(i + 1, ReplayStep())


def _mid_stream(kind: str, message: str) -> Builder:
    """Two choices that stop after five results: the engine raises ``kind`` instead."""

    def edit(g: Gen, steps: list[ReplayStep]) -> None:
        steps[5:] = [ReplayStep(raise_kind=kind, message=message)]

    return _steps(edit, n=2, tokens=6, k=1)


def _one_choice(
    count: int, k: int, rows: list[tuple], sampled: bool = False, **script: Any
) -> Builder:
    """One choice; per step a row: slices ``[a, b)`` of tokens, ``[c, d)`` of positions, finish."""

    def build(name: str) -> Script:
        g = Gen(name)
        toks = g.tokens(count)
        pos = g.positions(toks, k, sampled)
        steps = [ReplayStep((Delta(0, toks[a:b], pos[c:d], *end),)) for a, b, c, d, *end in rows]
        return Script(name, _finish(steps), logprobs=k, **{"max_tokens": count, **script})

    return build


def _prompt_logprobs(name: str) -> Script:
    g = Gen(name)
    prompt = g.tokens(5)
    engine = (None, *(g.position(t, 2) for t in prompt[1:]))
    return interleaved(
        name, n=2, tokens=4, k=1, prompt=prompt, prompt_logprobs=2, engine_prompt_logprobs=engine
    )


def _staggered_finish(name: str) -> Script:
    # Choice 0 finishes early; later results still carry it (with its finish_reason).
    g = Gen(name)
    a, b = g.tokens(2), g.tokens(5)
    rows = [(0, a[:1]), (1, b[:2]), (0, a[1:], "stop", b[0]), (1, b[2:4]), (1, b[4:], "length")]
    steps = [ReplayStep((Delta(c, t, g.positions(t, 1), *end),)) for c, t, *end in rows]
    return Script(name, _finish(steps), n=2, logprobs=1, max_tokens=5)


def _bare_finish(g: Gen, steps: list[ReplayStep]) -> None:
    d = steps[-1].deltas[0]
    steps[-1] = ReplayStep((Delta(d.index, d.tokens, d.logprobs),), finished=True)


LOGPROBS = ("finish", "log_probs", "top_logprobs", "no_worker_exit")
PLAIN = ("finish", "no_log_probs")
GROWING = (*LOGPROBS, "empty_delta")  # n > 1: some results grow another choice
STOP = (*LOGPROBS, "stop_reason")
FAILED = ("log_probs", "error_chunk", "no_worker_exit")
DROPPED = (*LOGPROBS, "dropped")

# name -> (builder, what its stream must show: expect.CHECKS). Every builder is deterministic.
_NAMED: dict[str, tuple[Builder, tuple[str, ...]]] = {
    "1-choice-one-token-top1": (_i(n=1, tokens=24, k=1), LOGPROBS),
    "1-choice-multi-token-top5": (_i(n=1, tokens=40, k=5, sizes=(1, 2, 3, 5, 8)), LOGPROBS),
    "empty-increments": (_steps(_empty_increments, n=1, tokens=12, k=1), GROWING),
    "2-choices-interleaved-top1": (_i(n=2, tokens=16, k=1), GROWING),
    "3-choices-interleaved-top5": (_i(n=3, tokens=12, k=5, sizes=(1, 2)), GROWING),
    "4-choices-interleaved-top1": (_i(n=4, tokens=32, k=1), GROWING),
    # The fix gains most: all 4 choices in every result, some not advancing (still copied).
    "4-choices-uneven-multi-token-top5": (
        lambda name: uneven(name, n=4, tokens=48, k=5, sizes=(1, 2, 3, 4)),
        (*GROWING, "multi_token"),
    ),
    "4-choices-lockstep-multi-token-top5": (
        _i(n=4, tokens=20, k=5, sizes=(1, 3, 4), lockstep=True),
        LOGPROBS,
    ),
    "logprobs-not-requested": (_i(n=2, tokens=10, k=None), PLAIN),
    "logprobs-requested-engine-empty": (_i(n=2, tokens=10, k=1, engine_logprobs=False), PLAIN),
    "logprobs-zero-means-selected-only": (_i(n=1, tokens=8, k=0), LOGPROBS),
    "none-position": (_steps(_position(4, lambda g, t: None), n=1, tokens=8, k=1), DROPPED),
    "missing-selected-token-falls-back-to-first": (
        _steps(
            _position(5, lambda g, t: g.position(t, 3, with_selected=False)), n=2, tokens=8, k=3
        ),
        LOGPROBS,
    ),
    "empty-position-dict": (_steps(_position(2, lambda g, t: ()), n=1, tokens=8, k=1), DROPPED),
    "flat-float-logprobs": (
        _i(n=2, tokens=6, k=1, sizes=(1, 2), flat=True),
        ("finish", "log_probs", "flat"),
    ),
    # Logprobs arrive one result after their tokens, then catch up.
    "logprobs-lag": (
        _one_choice(6, 2, [(0, 2, 0, 1), (2, 4, 1, 3), (4, 6, 3, 6, "length")]),
        LOGPROBS,
    ),
    # More logprob positions than tokens (the helper cuts to the delta); stops on a token id.
    "logprobs-ahead": (
        _one_choice(5, 3, [(0, 1, 0, 3), (1, 3, 3, 3), (3, 5, 3, 5, "stop", 97195)]),
        STOP,
    ),
    # The same two sampled: a window cut from the wrong end meets another token's logprobs.
    "logprobs-lag-sampled": (
        _one_choice(6, 3, [(0, 2, 0, 1), (2, 4, 1, 3), (4, 6, 3, 6, "length")], sampled=True),
        LOGPROBS,
    ),
    "logprobs-ahead-sampled": (
        _one_choice(5, 3, [(0, 1, 0, 3), (1, 3, 3, 3), (3, 5, 3, 5, "length")], sampled=True),
        LOGPROBS,
    ),
    "prompt-logprobs": (_prompt_logprobs, (*LOGPROBS, "prompt_logprobs")),
    "finish-length-cached-tokens": (
        _i(n=1, tokens=6, k=1, cached_tokens=3),
        (*LOGPROBS, "cached_tokens"),
    ),
    "finish-stop-string-reason": (
        _i(n=1, tokens=6, k=1, finish_reason="stop", stop_reason="###"),
        STOP,
    ),
    "finish-stop-token-reason": (_i(n=3, tokens=5, k=2, finish_reason="stop", stop_reason=2), STOP),
    "finish-cancelled": (_i(n=1, tokens=3, k=1, finish_reason="cancelled"), LOGPROBS),
    "finished-without-reason": (
        _steps(_bare_finish, n=1, tokens=4, k=1),
        ("log_probs", "unknown_finish"),
    ),
    # TRT-LLM drops a matched stop word: token_ids get shorter than what was streamed.
    "stop-word-trimmed": (
        _one_choice(
            7, 1, [(0, 3, 0, 3), (3, 6, 3, 6), (6, 7, 6, 7, "stop", "</end>", 2)], max_tokens=16
        ),
        STOP,
    ),
    "staggered-finish": (_staggered_finish, STOP),
    "no-outputs-while-running": (
        _steps(lambda g, s: s.insert(3, ReplayStep(no_outputs=True)), n=1, tokens=6, k=1),
        FAILED,
    ),
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
    "engine-yields-between-results": (_i(n=2, tokens=8, k=1, suspend=True), LOGPROBS),
    "long-stream-16k-top5": (_i(n=1, tokens=16384, k=5, sizes=(1, 1, 1, 2, 4)), LOGPROBS),
}
NAMED: tuple[str, ...] = tuple(_NAMED)

SINCE: dict[tuple[str, str], str] = {  # (scenario, expectation) -> first release showing it
    ("prompt-logprobs", "prompt_logprobs"): "1.5.0",  # before: asked for, never streamed
    ("rejected-at-submission", "no_worker_exit"): "1.6.0",  # before: the fatal path
}


def named(names: Sequence[str] | None = None) -> list[Script]:
    """The named scenarios (all, or the ones listed), built fresh."""
    chosen = list(NAMED) if names is None else list(names)
    if unknown := [n for n in chosen if n not in NAMED]:
        raise KeyError(f"unknown scenario(s): {', '.join(unknown)}")
    return [dataclasses.replace(_NAMED[n][0](n), expect=_NAMED[n][1]) for n in chosen]
