class _CumulativeTokenIds:
    """TRT-LLM's cumulative `token_ids`: the loop takes its length and delta slice.
    A copy calls pytest.fail: the handler would catch an AssertionError."""

    def __init__(self, token_ids):
        self._token_ids = token_ids

    def __len__(self):
        return len(self._token_ids)

    def __getitem__(self, index):
        return self._token_ids[index]

    def __iter__(self):
        pytest.fail("token_ids history copied")


class TestGenerateLocally:
    def _make_mock_interleaved_choices(self, token_ids_per_chunk):
        """Mock GenerationResult streaming several choices: per chunk, one output per
        choice with its index, its cumulative ids (a `_CumulativeTokenIds`) and a
        logprob of -id/10 for each id."""
        results = []
        last_index = len(token_ids_per_chunk) - 1
        for index, per_choice in enumerate(token_ids_per_chunk):
            res = MagicMock()
            res.outputs = []
            for choice, token_ids in enumerate(per_choice):
                output = MagicMock()
                output.index = choice
                output.token_ids = _CumulativeTokenIds(token_ids)
                output.logprobs = [{t: _logprob(-t / 10)} for t in token_ids]
                output.finish_reason = "stop" if index == last_index else None
                output.stop_reason = None
                output.request_perf_metrics = None
                output.prompt_logprobs = []
                res.outputs.append(output)
            res.finished = index == last_index
            results.append(res)

        generation_result = MagicMock()

        async def mock_aiter(self_mock):
            for res in results:
                yield res

        generation_result.__aiter__ = mock_aiter
        return generation_result

    @pytest.mark.asyncio
    async def test_interleaved_choices_stream_logprobs_without_copying_token_ids(self):
        """Each chunk carries its own choice's new ids and their logprobs, which held
        before too; what fails without the delta is the copy of the cumulative ids."""
        result = self._make_mock_interleaved_choices(
            [
                [[10], [20, 21], []],
                [[10, 11, 12], [20, 21], [30]],
                [[10, 11, 12, 13], [20, 21, 22], [30, 31]],
            ]
        )
        handler = self._make_handler()
        handler._initiate_shutdown = mock.AsyncMock()
        handler.engine.llm.generate_async = MagicMock(return_value=result)
        request = {
            "token_ids": [1, 2, 3],
            "stop_conditions": {"max_tokens": 10},
            "sampling_options": {},
            "output_options": {"logprobs": 1},
        }

        chunks = [
            c async for c in handler.generate_locally(request, self._make_context())
        ]

        deltas = [[10], [20, 21], [], [11, 12], [], [30], [13], [22], [31]]
        assert [c["index"] for c in chunks] == [0, 1, 2] * 3
        assert [c["token_ids"] for c in chunks] == deltas
        assert [c.get("log_probs") for c in chunks] == [
            [-t / 10 for t in delta] or None for delta in deltas
        ]
        top = {"rank": 1, "token": None}
        assert [c.get("top_logprobs") for c in chunks] == [
            [[{**top, "token_id": t, "logprob": -t / 10}] for t in delta] or None
            for delta in deltas
        ]
        handler._initiate_shutdown.assert_not_awaited()


def test_trtllm_handler_matches_shared():
    direct = extract_from_completion_output(
        output, 1, fallback_to_first_on_missing=True, include_bytes=False
    )
    output.token_ids = _CumulativeTokenIds(output.token_ids)  # the delta, not a copy
    assert HandlerBase._extract_logprobs(output, 1, new_token_ids=[12]) == direct
