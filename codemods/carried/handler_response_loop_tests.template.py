class _CumulativeTokenIds(list):
    """TRT-LLM's cumulative ids, counting the ids read: a copy would read them all.

    Iterating fails the test with pytest.fail, which the loop's handler of fatal
    errors does not catch.
    """

    ids_read = 0

    def __getitem__(self, index):
        items = super().__getitem__(index)
        self.ids_read += len(items) if isinstance(index, slice) else 1
        return items

    def __iter__(self):
        pytest.fail("token_ids history copied")


class TestGenerateLocally:
    def _make_mock_interleaved_choices(self, token_ids_per_chunk):
        """Mock GenerationResult: per chunk, one output per choice, its cumulative ids."""
        last = len(token_ids_per_chunk) - 1
        results = []
        for index, per_choice in enumerate(token_ids_per_chunk):
            outputs = [
                MagicMock(
                    index=choice,
                    token_ids=_CumulativeTokenIds(ids),
                    logprobs=[{t: _logprob(-t / 10)} for t in ids],
                    finish_reason="stop" if index == last else None,
                    stop_reason=None,
                    request_perf_metrics=None,
                    prompt_logprobs=[],
                )
                for choice, ids in enumerate(per_choice)
            ]
            results.append(MagicMock(outputs=outputs, finished=index == last))
        return MagicMock(**{"__aiter__.return_value": results})

    @pytest.mark.asyncio
    async def test_interleaved_choices_stream_logprobs_without_copying_token_ids(self):
        cumulative = [  # per chunk, each choice's ids so far (the third lags a chunk)
            [[10], [20, 21], []],
            [[10, 11, 12], [20, 21], [30]],
            [[10, 11, 12, 13], [20, 21, 22], [30, 31]],
        ]
        result = self._make_mock_interleaved_choices(cumulative)
        handler = self._make_handler()
        handler._initiate_shutdown = mock.AsyncMock()
        handler.engine.llm.generate_async = MagicMock(return_value=result)
        request = {"token_ids": [1, 2, 3], "stop_conditions": {"max_tokens": 10}}
        request["output_options"] = {"logprobs": 1}
        context = self._make_context()
        chunks = [c async for c in handler.generate_locally(request, context)]

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
        # Each chunk's ids are read once, by the loop's own slice.
        outputs = [o for r in result.__aiter__.return_value for o in r.outputs]
        assert [o.token_ids.ids_read for o in outputs] == [len(d) for d in deltas]


def test_trtllm_handler_matches_shared():
    output.token_ids = _CumulativeTokenIds(output.token_ids)
    top = [[{"rank": 1, "token_id": 99, "token": None, "logprob": -9.9}]]
    assert HandlerBase._extract_logprobs(output, 1, new_token_ids=[12]) == ([-9.9], top)
    assert output.token_ids.ids_read == 0
