# SPDX-License-Identifier: Apache-2.0
"""CPU cost of extract_from_completion_output: with its list(...) copy of the history
("before"), with new_token_ids ("delta", when the helper has it), and the one-line
alternative (only the copy dropped, built in memory from the loaded source).

Standard library only. From the top of a dynamo checkout, or given the helper's path:

    python3 per_chunk_cost.py [PATH/TO/logprobs.py] [--json]

(a) microseconds per chunk of one new token on cumulative token_ids of HISTORY tokens
(TensorRT-LLM's shape); (b) milliseconds for a whole request of N tokens, one choice, one
token per chunk (the helper at every cursor 0..N-1 as the ids grow). Logprobs on (the
chosen token and one alternative). Process CPU time; median and min-max of the repeats. On
the one-line alternative itself, "before" is that helper with its copy put back.
"""

import inspect
import json
import platform
import re
import statistics
import sys
import time
import timeit
from pathlib import Path
from types import ModuleType, SimpleNamespace

HELPER = "components/src/dynamo/common/backend/logprobs.py"  # from the checkout's top
# The helper's copy of the cumulative ids: of output.token_ids (before this change), or
# of token_ids on the path without a delta (after it).
COPY = re.compile(r'list\((getattr\(output, "token_ids", None\) or \[\]|token_ids)\)')
args = [a for a in sys.argv[1:] if a != "--json"]
path = Path(args[0] if args else HELPER)
if not path.is_file():
    raise SystemExit(f"{path} not found: run from the top of a dynamo checkout or pass its path")


def load(name: str, source: str):
    """The helper of ``source``, run by itself: the package's __init__ needs dynamo's
    compiled runtime, logprobs.py does not."""
    module = ModuleType(name)
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module.extract_from_completion_output


source = path.read_text()
extract = load("logprobs", source)
has_delta = "new_token_ids" in inspect.signature(extract).parameters
copies = len(COPY.findall(source))
PLAIN = '= getattr(output, "token_ids", None) or []\n'  # the one-liner's statement
if copies == 1:
    tree = "delta" if has_delta else "before"
    arms = {"before": extract, "one_liner": load("one_liner", COPY.sub(r"\1", source))}
elif not copies and source.count(PLAIN) == 1:
    tree = "one-liner"
    copied = source.replace(PLAIN, f"= list({PLAIN[2:-1]})\n")
    arms = {"before": load("before", copied), "one_liner": extract}
else:
    raise SystemExit(f"{path}: expected one list(...) copy of token_ids or `token_ids {PLAIN}`")
if has_delta:
    arms["delta"] = extract
INFO = SimpleNamespace(logprob=-0.5, rank=1, decoded_token="t")


def per_chunk_us(arm: str, output, history: int) -> list[float]:
    """Microseconds per call, 5 repeats of as many calls as fill about 0.2 s."""
    kw = {"new_token_ids": output.token_ids[history:]} if arm == "delta" else {}
    fn = arms[arm]
    timer = timeit.Timer(lambda: fn(output, history, **kw), timer=time.process_time)
    number, _ = timer.autorange()
    return [t / number * 1e6 for t in timer.repeat(5, number)]


def request_ms(arm: str, tokens: int) -> list[float]:
    """Milliseconds for a request of ``tokens`` one-token chunks, 3 repeats."""
    fn, runs = arms[arm], []
    for _ in range(3):
        output = SimpleNamespace(token_ids=[], logprobs=[])
        start = time.process_time()
        for cursor in range(tokens):
            output.token_ids.append(cursor)  # TRT-LLM extends the ids in place
            output.logprobs.append({cursor: INFO, -1: INFO})
            if arm == "delta":  # the delta as the loop builds it
                fn(output, cursor, new_token_ids=output.token_ids[cursor:])
            else:
                fn(output, cursor)
        runs.append((time.process_time() - start) * 1e3)
    return runs


report = {"python": platform.python_version(), "machine": platform.machine(), "tree": tree}
report["per_chunk_us"], report["request_ms"] = {}, {}
for history in (256, 4096, 16384):
    ids = list(range(history + 1))
    output = SimpleNamespace(token_ids=ids, logprobs=[{t: INFO, -1: INFO} for t in ids])
    results = {arm: arms[arm](output, history) for arm in ("before", "one_liner")}
    if has_delta:
        results["delta"] = extract(output, history, new_token_ids=ids[history:])
    assert len({repr(r) for r in results.values()}) == 1, f"the arms disagree: {results}"
    report["per_chunk_us"][str(history)] = {a: per_chunk_us(a, output, history) for a in arms}
for tokens in (4096, 16384):
    report["request_ms"][str(tokens)] = {arm: request_ms(arm, tokens) for arm in arms}

if "--json" in sys.argv[1:]:
    print(json.dumps(report))
    raise SystemExit
print(f"Python {report['python']} ({report['machine']}), {path}: the {tree} tree")
print("median (min-max) of the repeats, process CPU time, one-token chunks, logprobs on")
names = [a for a in ("before", "delta", "one_liner") if a in arms]


def row(first: str, runs: dict[str, list[float]]) -> str:
    cells = [
        f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f})" for r in map(runs.get, names)
    ]
    return f"{first:>19} " + " ".join(f"{c:>26}" for c in cells)


print(f"{'':>19} " + " ".join(f"{n.replace('_', '-'):>26}" for n in names))
for history, runs in report["per_chunk_us"].items():
    print(row(f"{history} ids, us", runs))
for tokens, runs in report["request_ms"].items():
    print(row(f"{tokens}-token req, ms", runs))
