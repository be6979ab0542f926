# SPDX-License-Identifier: Apache-2.0
"""Per-chunk cost of extract_from_completion_output, with and without new_token_ids.

Run from the top of a dynamo checkout that has the change (standard library and dynamo only):

    PYTHONPATH=components/src python3 per_chunk_cost.py

Each chunk is one new token on a stream whose cumulative token_ids already hold HISTORY
tokens (TensorRT-LLM's shape), logprobs on (the chosen token and one alternative).
"""

import inspect
import platform
import time
import timeit
from types import SimpleNamespace

from dynamo.common.backend.logprobs import extract_from_completion_output as extract

if "new_token_ids" not in inspect.signature(extract).parameters:
    raise SystemExit("this dynamo's helper has no new_token_ids: run it on the patched tree")


def cost_us(output, history, **delta):
    """Best of 3 repeats, in microseconds of this process's CPU time per chunk."""
    timer = timeit.Timer(lambda: extract(output, history, **delta), timer=time.process_time)
    number, _ = timer.autorange()
    return min(timer.repeat(3, number)) / number * 1e6


print(f"Python {platform.python_version()} ({platform.machine()}), one-token delta, logprobs on")
print(f"{'history':>8} {'without (us)':>13} {'with (us)':>10} {'ratio':>6}")
for history in (256, 4096, 16384):
    ids = list(range(history + 1))
    info = SimpleNamespace(logprob=-0.5, rank=1, decoded_token="t")
    output = SimpleNamespace(token_ids=ids, logprobs=[{t: info, -1: info} for t in ids])
    delta = ids[history:]  # what the TRT-LLM loop already built for the chunk
    without = cost_us(output, history)
    with_delta = cost_us(output, history, new_token_ids=delta)
    assert extract(output, history) == extract(output, history, new_token_ids=delta)
    print(f"{history:>8} {without:>13.2f} {with_delta:>10.2f} {without / with_delta:>5.1f}x")
