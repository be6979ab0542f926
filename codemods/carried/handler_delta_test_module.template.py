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
