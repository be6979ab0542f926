"""Regression tests for the delta change, carried in the patch itself.

Two codemods, one per target:

* ``HelperDeltaTests`` inserts tests for ``extract_from_completion_output(...,
  new_token_ids=...)`` into dynamo's ``common/backend/tests/test_logprobs.py``, right
  after its last ``test_extract_completion_*`` test. They run on the CPU (the module is
  marked unit, gpu_0, core, pre_merge) and fail on the unpatched helper.
* ``HandlerDeltaTestModule`` creates ``trtllm/tests/test_trtllm_logprob_delta.py``, a
  gpu_1 test that the TRT-LLM response loop passes its delta on. Importing HandlerBase
  needs TensorRT-LLM and a GPU, so it runs only in dynamo's TRT-LLM container.

The test code below is this project's own, written in the style of dynamo's tests.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.codemod import Codemod

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, Target

HELPER_TESTS_PATH = "components/src/dynamo/common/backend/tests/test_logprobs.py"
HANDLER_TEST_PATH = "components/src/dynamo/trtllm/tests/test_trtllm_logprob_delta.py"
CPU_MARKS = ("unit", "gpu_0", "core", "pre_merge")
ANCHOR_PREFIX = "test_extract_completion_"

HELPER_TESTS_TARGET = Target(
    path=HELPER_TESTS_PATH,
    qualname="(new tests: new_token_ids)",
    expected=(
        "a test module that imports extract_from_completion_output from "
        "dynamo.common.backend.logprobs and SimpleNamespace from types, defines "
        f"`_logprob(...)`, is marked {', '.join(CPU_MARKS)} by `pytestmark`, and has "
        f"`{ANCHOR_PREFIX}*` tests to add to"
    ),
)
HANDLER_TEST_TARGET = Target(
    path=HANDLER_TEST_PATH,
    qualname="(new module)",
    expected="no such file yet (the series creates it)",
)

# Inserted after the last `test_extract_completion_*` test of test_logprobs.py.
HELPER_TESTS = '''\
class _UntouchableTokenIds:
    """Stands in for the cumulative `token_ids` when the caller passes its delta.

    TRT-LLM's `token_ids` holds every token the request has produced so far, so
    reading it costs more with every chunk. Given `new_token_ids`, the helper has
    all it needs: copying (iterating), measuring or slicing the history raises.
    """

    def __iter__(self):
        raise AssertionError("token_ids iterated though new_token_ids was given")

    def __len__(self):
        raise AssertionError("len(token_ids) taken though new_token_ids was given")

    def __getitem__(self, index):
        raise AssertionError("token_ids sliced though new_token_ids was given")


@pytest.mark.parametrize(
    ("num_output_tokens_so_far", "new_token_ids"),
    [(0, [7]), (1, [8, 9]), (3, [10])],
    ids=["first-token", "multi-token", "last-token"],
)
def test_extract_completion_with_delta_never_reads_token_ids(
    num_output_tokens_so_far, new_token_ids
):
    output = SimpleNamespace(
        token_ids=_UntouchableTokenIds(),
        logprobs=[
            {7: _logprob(-0.7, decoded="a")},
            {8: _logprob(-0.8, decoded="b")},
            {9: _logprob(-0.9, decoded="c")},
            {10: _logprob(-1.0, decoded="d")},
        ],
    )
    log_probs, top_logprobs = extract_from_completion_output(
        output, num_output_tokens_so_far, new_token_ids=new_token_ids
    )
    assert log_probs == [-t / 10 for t in new_token_ids]
    assert [pos[0]["token_id"] for pos in top_logprobs] == new_token_ids


def test_extract_completion_delta_window_follows_the_stream():
    """Replay a TRT-LLM stream whose cumulative ids grow by 1, 3, then 2 tokens.

    Each chunk's logprobs are those of exactly the chunk's new tokens, at the
    cursor, and equal what the helper returns when it slices the history itself.
    """
    token_ids = [11, 12, 13, 14, 15, 16]
    logprobs = [{t: _logprob(-t / 100, decoded=f"<{t}>")} for t in token_ids]
    cursor = 0
    for end in (1, 4, 6):
        output = SimpleNamespace(token_ids=token_ids[:end], logprobs=logprobs[:end])
        delta = output.token_ids[cursor:]

        log_probs, top_logprobs = extract_from_completion_output(
            output, cursor, new_token_ids=delta
        )

        assert log_probs == [-t / 100 for t in delta]
        assert [pos[0]["token_id"] for pos in top_logprobs] == delta
        assert (log_probs, top_logprobs) == extract_from_completion_output(
            output, cursor
        )
        cursor = end


def test_extract_completion_delta_cuts_the_logprob_window_to_its_length():
    # The window starts at the cursor in `output.logprobs` and is as long as the
    # delta, even when the engine already holds logprobs for later positions.
    output = SimpleNamespace(
        token_ids=_UntouchableTokenIds(),
        logprobs=[
            {7: _logprob(-0.7)},
            {8: _logprob(-0.8)},
            {9: _logprob(-0.9)},
            {10: _logprob(-1.0)},
        ],
    )
    log_probs, _ = extract_from_completion_output(output, 1, new_token_ids=[8, 9])
    assert log_probs == [-0.8, -0.9]


def test_extract_completion_delta_keeps_fallback_bytes_and_tokenizer():
    class FakeTok:
        def decode(self, ids):
            return f"<{ids[0]}>"

    logprobs = [
        {5: _logprob(-0.5, decoded="x")},
        {99: _logprob(-0.1, rank=1, decoded=None), 6: _logprob(-2.0, rank=2)},
    ]
    options = {
        "tokenizer": FakeTok(),
        "fallback_to_first_on_missing": True,
        "include_bytes": True,
    }
    with_delta = extract_from_completion_output(
        SimpleNamespace(token_ids=_UntouchableTokenIds(), logprobs=logprobs),
        1,
        new_token_ids=[7],
        **options,
    )
    without = extract_from_completion_output(
        SimpleNamespace(token_ids=[5, 7], logprobs=logprobs), 1, **options
    )
    assert with_delta == without
    assert with_delta[0] == [-0.1]
    assert with_delta[1][0][0]["bytes"] == list(b"<99>")


@pytest.mark.parametrize(
    ("token_ids", "logprobs", "cursor", "options", "expected"),
    [
        ([7], [], 0, {}, (None, None)),
        ([7], None, 0, {}, (None, None)),
        ([7, 8], [{7: _logprob(-0.7)}, {8: _logprob(-0.8)}], 2, {}, (None, None)),
        ([7, 8], [{7: _logprob(-0.7)}, {8: _logprob(-0.8)}], 5, {}, (None, None)),
        ([7, 8], [-0.7, -0.8], 0, {}, ([-0.7, -0.8], None)),
        ([7, 8], [None, {8: _logprob(-0.8)}], 0, {}, (None, None)),
        ([7], [{99: _logprob(-1.0)}], 0, {}, (None, None)),
        (
            [7],
            [{}],
            0,
            {"fallback_to_first_on_missing": True},
            (None, None),
        ),
    ],
    ids=[
        "logprobs-empty",
        "logprobs-none",
        "nothing-new",
        "cursor-past-end",
        "flat-floats",
        "none-position",
        "selected-missing",
        "selected-missing-nothing-to-fall-back-to",
    ],
)
def test_extract_completion_bails_out_the_same_with_delta(
    token_ids, logprobs, cursor, options, expected
):
    """Each early return gives what it gave before, and reads no history."""
    without = extract_from_completion_output(
        SimpleNamespace(token_ids=token_ids, logprobs=logprobs), cursor, **options
    )
    with_delta = extract_from_completion_output(
        SimpleNamespace(token_ids=_UntouchableTokenIds(), logprobs=logprobs),
        cursor,
        new_token_ids=token_ids[cursor:],
        **options,
    )
    assert without == expected
    assert with_delta == expected
'''

HANDLER_TEST_MODULE = '''\
# SPDX-FileCopyrightText: Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0

"""HandlerBase hands each chunk's delta token ids to the shared logprob helper.

TensorRT-LLM streams cumulative `token_ids`. The response loop already slices each
chunk's new tokens for the response; passing that slice on as `new_token_ids` keeps
the helper from copying the whole history again on every chunk.
"""

import asyncio
from dataclasses import dataclass
from types import SimpleNamespace
from unittest import mock
from unittest.mock import MagicMock

import pytest
import torch

if not torch.cuda.is_available():
    pytest.skip(
        "HandlerBase imports the native TRT-LLM bindings, which need a GPU.",
        allow_module_level=True,
    )

from dynamo.common.backend import logprobs as shared_logprobs
from dynamo.trtllm.constants import DisaggregationMode
from dynamo.trtllm.request_handlers.handler_base import HandlerBase

pytestmark = [
    pytest.mark.unit,
    pytest.mark.trtllm,
    pytest.mark.pre_merge,
    pytest.mark.gpu_1,
]


@dataclass
class _SamplingParams:
    """The fields the response loop sets; `dataclasses.replace` needs a dataclass."""

    max_tokens: int | None = None
    min_tokens: int | None = None
    ignore_eos: bool = False
    stop_token_ids: list[int] | None = None


class _Handler(HandlerBase):
    async def generate(self, *args, **kwargs):
        raise NotImplementedError


def _make_handler() -> HandlerBase:
    config = MagicMock()
    config.shutdown_event = None
    config.disaggregation_mode = DisaggregationMode.AGGREGATED
    config.conversation_affinity = False
    handler = _Handler(config)
    handler.publisher = None
    handler.multimodal_processor = None
    handler.additional_metrics = None
    handler.first_token_source = None
    handler.max_seq_len = None
    handler.default_sampling_params = _SamplingParams()
    handler._conversation_affinity = False
    return handler


def _cumulative_results(token_ids, chunk_ends):
    """One engine result per chunk end, each holding every token so far."""
    logprobs = [
        {t: SimpleNamespace(logprob=-t / 1000, rank=1, decoded_token=f"<{t}>")}
        for t in token_ids
    ]
    results = []
    for end in chunk_ends:
        last = end == chunk_ends[-1]
        output = MagicMock()
        output.index = 0
        output.token_ids = token_ids[:end]
        output.logprobs = logprobs[:end]
        output.prompt_logprobs = []
        output.finish_reason = "length" if last else None
        output.stop_reason = None
        output.request_perf_metrics = None
        res = MagicMock()
        res.outputs = [output]
        res.finished = last
        res.cached_tokens = None
        results.append(res)
    generation_result = MagicMock()
    generation_result.__aiter__.return_value = results
    return generation_result


@pytest.mark.asyncio
async def test_response_loop_passes_its_delta_to_the_logprob_helper():
    handler = _make_handler()
    token_ids = [100, 101, 102, 103, 104, 105]
    handler.engine.llm.generate_async = MagicMock(
        return_value=_cumulative_results(token_ids, chunk_ends=[1, 4, 6])
    )
    context = MagicMock()
    context.async_killed_or_stopped.return_value = (
        asyncio.get_running_loop().create_future()
    )
    context.id.return_value = "logprob-delta"
    request = {
        "token_ids": [1, 2, 3],
        "stop_conditions": {"max_tokens": len(token_ids)},
        "sampling_options": {},
    }

    with mock.patch.object(
        shared_logprobs,
        "extract_from_completion_output",
        wraps=shared_logprobs.extract_from_completion_output,
    ) as helper:
        chunks = [c async for c in handler.generate_locally(request, context)]

    deltas = [[100], [101, 102, 103], [104, 105]]
    assert [chunk["token_ids"] for chunk in chunks] == deltas
    assert [call.kwargs.get("new_token_ids") for call in helper.call_args_list] == (
        deltas
    )
    assert [chunk["log_probs"] for chunk in chunks] == [
        [-t / 1000 for t in delta] for delta in deltas
    ]
'''


def _names(body: list[cst.BaseStatement] | tuple[cst.BaseStatement, ...]) -> dict[str, int]:
    """Top-level def/class names -> index in ``body``."""
    return {
        stmt.name.value: i
        for i, stmt in enumerate(body)
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef)
    }


def added_names(template: str = HELPER_TESTS) -> tuple[str, ...]:
    """The top-level names ``HelperDeltaTests`` adds, in order."""
    return tuple(_names(cst.parse_module(template).body))


def _imports(tree: cst.Module, module: str, name: str) -> bool:
    wanted = m.ImportFrom(
        module=m.MatchIfTrue(lambda node: shape.code(node) == module),
        names=[m.ZeroOrMore(), m.ImportAlias(name=m.Name(name), asname=None), m.ZeroOrMore()],
    )
    return bool(m.findall(tree, wanted))


def _module_marks(tree: cst.Module) -> set[str]:
    """``pytest.mark.X`` names in a module-level ``pytestmark = [...]``."""
    for stmt in tree.body:
        if m.matches(
            stmt,
            m.SimpleStatementLine(
                body=[m.Assign(targets=[m.AssignTarget(target=m.Name("pytestmark"))])]
            ),
        ):
            marks = m.findall(
                stmt,
                m.Attribute(value=m.Attribute(value=m.Name("pytest"), attr=m.Name("mark"))),
            )
            return {node.attr.value for node in marks if isinstance(node, cst.Attribute)}
    return set()


class HelperDeltaTests(Codemod):
    DESCRIPTION: str = (
        "test_logprobs.py: add CPU tests of extract_from_completion_output(..., "
        "new_token_ids=...): no history read, window aligned, bail-outs unchanged."
    )

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        new_stmts = list(cst.parse_module(HELPER_TESTS).body)
        wanted = _names(new_stmts)
        present = _names(tree.body)
        clashes = [n for n in wanted if n in present]
        if clashes:
            same = all(
                shape.same_code(tree.body[present[n]], shape.code(new_stmts[wanted[n]]))
                for n in clashes
            )
            if same and len(clashes) == len(wanted):
                raise AlreadyApplied(f"{HELPER_TESTS_PATH} already has the delta tests")
            raise Drifted(
                HELPER_TESTS_TARGET,
                f"{', '.join(clashes)} already defined "
                + ("(only some of the new tests)" if same else "with other content"),
            )

        module = "dynamo.common.backend.logprobs"
        if not _imports(tree, module, "extract_from_completion_output"):
            raise Drifted(
                HELPER_TESTS_TARGET, f"no `from {module} import extract_from_completion_output`"
            )
        if not _imports(tree, "types", "SimpleNamespace"):
            raise Drifted(HELPER_TESTS_TARGET, "no `from types import SimpleNamespace`")
        if "_logprob" not in present:
            raise Drifted(HELPER_TESTS_TARGET, "no module-level `_logprob(...)` helper")
        marks = _module_marks(tree)
        missing = [mark for mark in CPU_MARKS if mark not in marks]
        if missing:
            # The new tests are selected as CPU tests only through the module's marks.
            raise Drifted(
                HELPER_TESTS_TARGET,
                f"`pytestmark` without {', '.join(missing)} (has: {', '.join(sorted(marks)) or 'none'})",
            )
        anchors = [i for n, i in present.items() if n.startswith(ANCHOR_PREFIX)]
        if not anchors:
            raise Drifted(HELPER_TESTS_TARGET, f"no `{ANCHOR_PREFIX}*` test to add after")

        at = max(anchors) + 1
        two_blank = (cst.EmptyLine(), cst.EmptyLine())
        new_stmts[0] = new_stmts[0].with_changes(leading_lines=two_blank)
        body = [*tree.body[:at], *new_stmts, *tree.body[at:]]
        return tree.with_changes(body=body)


class HandlerDeltaTestModule(Codemod):
    DESCRIPTION: str = (
        "test_trtllm_logprob_delta.py (new, gpu_1): the TRT-LLM response loop passes "
        "its delta token ids to the shared logprob helper."
    )

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        if not tree.body and not tree.header:  # absent (or empty): create it
            return cst.parse_module(HANDLER_TEST_MODULE)
        wanted = cst.parse_module(HANDLER_TEST_MODULE)
        if shape.same_code(tree, wanted.code):
            raise AlreadyApplied(f"{HANDLER_TEST_PATH} already exists with these tests")
        raise Drifted(HANDLER_TEST_TARGET, "a file of that name with other content")
