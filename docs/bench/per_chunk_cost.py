# SPDX-License-Identifier: Apache-2.0
"""Per-chunk cost of extract_from_completion_output, with and without new_token_ids.

Standard library only. From the top of a dynamo checkout, or given the helper's path:

    python3 per_chunk_cost.py [PATH/TO/logprobs.py]

Each chunk is one new token on a stream whose cumulative token_ids already hold HISTORY
tokens (TensorRT-LLM's shape), logprobs on (the chosen token and one alternative). A helper
without new_token_ids (the tree before this change) gets the "without" column only.
"""

import importlib.util
import inspect
import platform
import sys
import time
import timeit
from pathlib import Path
from types import SimpleNamespace

HELPER = "components/src/dynamo/common/backend/logprobs.py"  # from the checkout's top
path = Path(sys.argv[1] if sys.argv[1:] else HELPER)
if not path.is_file():
    raise SystemExit(f"{path} not found: run from the top of a dynamo checkout or pass its path")
# Loaded by path: the package's __init__ needs dynamo's compiled runtime; logprobs.py does not.
spec = importlib.util.spec_from_file_location("logprobs", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
extract = module.extract_from_completion_output
has_delta = "new_token_ids" in inspect.signature(extract).parameters


def cost_us(output, history, **delta):
    """Best of 3 repeats, in microseconds of this process's CPU time per chunk."""
    timer = timeit.Timer(lambda: extract(output, history, **delta), timer=time.process_time)
    number, _ = timer.autorange()
    return min(timer.repeat(3, number)) / number * 1e6


print(f"Python {platform.python_version()} ({platform.machine()}), one-token delta, logprobs on")
if not has_delta:
    print(f"{path} has no new_token_ids (the tree before this change): 'without' only")
print(f"{'history':>8} {'without (us)':>13}" + (f" {'with (us)':>10} {'ratio':>6}" * has_delta))
for history in (256, 4096, 16384):
    ids = list(range(history + 1))
    info = SimpleNamespace(logprob=-0.5, rank=1, decoded_token="t")
    output = SimpleNamespace(token_ids=ids, logprobs=[{t: info, -1: info} for t in ids])
    without = cost_us(output, history)
    if not has_delta:
        print(f"{history:>8} {without:>13.2f}")
        continue
    delta = ids[history:]  # what the TRT-LLM loop already built for the chunk
    with_delta = cost_us(output, history, new_token_ids=delta)
    assert extract(output, history) == extract(output, history, new_token_ids=delta)
    print(f"{history:>8} {without:>13.2f} {with_delta:>10.2f} {without / with_delta:>5.1f}x")
