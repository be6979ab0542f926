# SPDX-License-Identifier: Apache-2.0
"""Per-chunk cost of extract_from_completion_output: without new_token_ids (copying the
history), with it, and the one-line alternative (the same helper with only its list(...)
copy of token_ids dropped, built in memory from the loaded source).

Standard library only. From the top of a dynamo checkout, or given the helper's path:

    python3 per_chunk_cost.py [PATH/TO/logprobs.py]

Each chunk is one new token on a stream whose cumulative token_ids already hold HISTORY
tokens (TensorRT-LLM's shape), logprobs on (the chosen token and one alternative). A helper
without new_token_ids gets no "with" column; on the one-line alternative itself, "without"
is that helper with its list(...) copy put back (the tree before it).
"""

import inspect
import platform
import re
import sys
import time
import timeit
from pathlib import Path
from types import ModuleType, SimpleNamespace

HELPER = "components/src/dynamo/common/backend/logprobs.py"  # from the checkout's top
# The helper's copy of the cumulative ids: of output.token_ids (before this change), or
# of token_ids on the path without a delta (after it).
COPY = re.compile(r'list\((getattr\(output, "token_ids", None\) or \[\]|token_ids)\)')
path = Path(sys.argv[1] if sys.argv[1:] else HELPER)
if not path.is_file():
    raise SystemExit(f"{path} not found: run from the top of a dynamo checkout or pass its path")


def load(name: str, source: str) -> ModuleType:
    """The module of ``source``, run by itself: the package's __init__ needs dynamo's
    compiled runtime, logprobs.py does not."""
    module = ModuleType(name)
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


source = path.read_text()
extract = load("logprobs", source).extract_from_completion_output
has_delta = "new_token_ids" in inspect.signature(extract).parameters
copies = len(COPY.findall(source))
if copies > 1:
    raise SystemExit(f"{path}: expected one list(...) copy of token_ids, found {copies}")
PLAIN = '= getattr(output, "token_ids", None) or []\n'  # the one-liner's statement
if copies:
    copying = extract
    one_liner = load("one_liner", COPY.sub(r"\1", source)).extract_from_completion_output
elif source.count(PLAIN) == 1:
    copied = source.replace(PLAIN, f"= list({PLAIN[2:-1]})\n")
    copying, one_liner = load("copying", copied).extract_from_completion_output, extract
else:
    raise SystemExit(f"{path}: no list(...) copy of token_ids, nor `token_ids {PLAIN[:-1]}`")


def cost_us(fn, output, history, **delta):
    """Best of 3 repeats, in microseconds of this process's CPU time per chunk."""
    timer = timeit.Timer(lambda: fn(output, history, **delta), timer=time.process_time)
    number, _ = timer.autorange()
    return min(timer.repeat(3, number)) / number * 1e6


print(f"Python {platform.python_version()} ({platform.machine()}), one-token delta, logprobs on")
if not copies:
    print(f"{path} is the one-line alternative: 'without' puts its list(...) copy back")
elif not has_delta:
    print(f"{path} has no new_token_ids (the tree before this change): no 'with' column")
head = f"{'history':>8} {'without (us)':>13}" + f" {'with (us)':>10}" * has_delta
print(head + f" {'one-liner (us)':>15} {'ratio':>6}")
for history in (256, 4096, 16384):
    ids = list(range(history + 1))
    info = SimpleNamespace(logprob=-0.5, rank=1, decoded_token="t")
    output = SimpleNamespace(token_ids=ids, logprobs=[{t: info, -1: info} for t in ids])
    expected = extract(output, history)
    assert one_liner(output, history) == copying(output, history) == expected
    without = cost_us(copying, output, history)
    row = f"{history:>8} {without:>13.2f}"
    if has_delta:
        delta = ids[history:]  # what the TRT-LLM loop already built for the chunk
        assert extract(output, history, new_token_ids=delta) == expected
        with_delta = cost_us(extract, output, history, new_token_ids=delta)
        row += f" {with_delta:>10.2f}"
    alternative = cost_us(one_liner, output, history)
    after = with_delta if has_delta else alternative
    print(row + f" {alternative:>15.2f} {without / after:>5.1f}x")
