"""Building blocks of TRT-LLM-shaped streams (deterministic, standard library only).

:class:`Gen` draws token ids and logprob positions from a ``random.Random`` seeded by a
name, so both trees replay identical bytes. :func:`interleaved` and :func:`uneven` build
whole :class:`Script` requests of ``n`` choices; the named scenarios
(:mod:`~dynpatch.replay.scenarios`) and the benchmark streams are made of them.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator, Sequence

from dynpatch.replay.script import Delta, Position, ReplayStep, Script

VOCAB = (1000, 150_000)  # token ids outside CPython's small-int cache, like a real vocab


class Gen:
    """Deterministic token ids and logprob positions for one scenario."""

    def __init__(self, name: str):
        self.rng = random.Random(zlib.crc32(name.encode()))

    def token(self) -> int:
        return self.rng.randrange(*VOCAB)

    def tokens(self, count: int) -> tuple[int, ...]:
        return tuple(self.token() for _ in range(count))

    def position(self, token: int, k: int, *, with_selected: bool = True) -> Position:
        """A ``{token_id: Logprob}`` position with ``k`` entries, ranks 1..k."""
        lps = sorted((-self.rng.random() * 8 for _ in range(max(k, 1))), reverse=True)
        ids = [token] if with_selected else []
        while len(ids) < max(k, 1):
            t = self.token()
            if t != token and t not in ids:
                ids.append(t)
        if not with_selected:
            self.rng.shuffle(ids)
        return tuple((t, lp, r) for r, (t, lp) in enumerate(zip(ids, lps, strict=True), 1))

    def positions(self, tokens: Sequence[int], k: int) -> tuple[Position, ...]:
        return tuple(self.position(t, k) for t in tokens)


def _increments(total: int, sizes: Iterator[int]) -> list[int]:
    """Split ``total`` tokens into increments drawn from ``sizes`` (the last one cut)."""
    out: list[int] = []
    done = 0
    while done < total:
        out.append(min(next(sizes), total - done))
        done += out[-1]
    return out


def interleaved(
    name: str,
    *,
    n: int,
    tokens: int,
    k: int | None,
    sizes: Callable[[random.Random], int] = lambda r: 1,
    lockstep: bool = False,
    finish_reason: str = "length",
    stop_reason: str | int | None = None,
    engine_logprobs: bool = True,
    flat: bool = False,
    **script: object,
) -> Script:
    """``n`` choices of ``tokens`` tokens each.

    Interleaved (TRT-LLM's ``n > 1`` streaming): each result grows one choice, round
    robin, and still carries every choice. Lockstep: every result grows every choice.
    ``k`` is the requested top-k (None: logprobs not requested, engine returns ``[]``);
    ``flat`` makes the engine report bare floats (TRT-LLM's flat-float corner case).
    """
    g = Gen(name)
    plan = {c: _increments(tokens, iter(lambda: sizes(g.rng), None)) for c in range(n)}
    steps: list[ReplayStep] = []
    rounds = max(len(p) for p in plan.values())
    for r in range(rounds):
        group: list[Delta] = []
        for c in range(n):
            if r >= len(plan[c]):
                continue
            toks = g.tokens(plan[c][r])
            last = r == len(plan[c]) - 1
            lps: tuple[Position, ...] = ()
            if engine_logprobs and k is not None:
                lps = (
                    tuple(-g.rng.random() * 8 for _ in toks) if flat else g.positions(toks, k or 1)
                )
            group.append(
                Delta(
                    index=c,
                    tokens=toks,
                    logprobs=lps,
                    finish_reason=finish_reason if last else None,
                    stop_reason=stop_reason if last else None,
                )
            )
        if lockstep:
            steps.append(ReplayStep(deltas=tuple(group)))
        else:
            steps.extend(ReplayStep(deltas=(d,)) for d in group)
    steps[-1] = ReplayStep(deltas=steps[-1].deltas, finished=True)
    return Script(name=name, steps=tuple(steps), n=n, max_tokens=tokens, logprobs=k, **script)  # type: ignore[arg-type]


def uneven(
    name: str,
    *,
    n: int,
    tokens: int,
    k: int,
    sizes: Callable[[random.Random], int],
    advancing: float = 0.5,
) -> Script:
    """``n`` choices of ``tokens`` tokens each, advancing unevenly.

    Like TRT-LLM's ``n > 1`` streaming, every result carries every choice; on each result
    each unfinished choice grows by ``sizes`` tokens with probability ``advancing`` and
    otherwise stays where it was (an empty delta), at least one choice growing. Requested
    top-``k`` logprobs come with every token.
    """
    g = Gen(name)
    left = [tokens] * n
    steps: list[ReplayStep] = []
    while any(left):
        live = [c for c in range(n) if left[c]]
        growing = [c for c in live if g.rng.random() < advancing] or [g.rng.choice(live)]
        deltas = []
        for c in growing:
            toks = g.tokens(min(sizes(g.rng), left[c]))
            left[c] -= len(toks)
            last = "length" if not left[c] else None
            deltas.append(
                Delta(index=c, tokens=toks, logprobs=g.positions(toks, k), finish_reason=last)
            )
        steps.append(ReplayStep(deltas=tuple(deltas)))
    steps[-1] = ReplayStep(deltas=steps[-1].deltas, finished=True)
    return Script(name=name, steps=tuple(steps), n=n, max_tokens=tokens, logprobs=k)
