class TestGenerateLocally:
    """A fragment: the methods of this class are added to dynamo's response-loop test
    class (TestGenerateLocally; TestHealthCheckPriority before 1.5), where they reuse
    its `_make_handler()` and `_make_context()` and the module's imports."""

    def _make_mock_choice_stream(self, ends_per_response, history_reads):
        """Mock GenerationResult streaming choices the way TensorRT-LLM does.

        Every response carries every choice with its cumulative `token_ids` and
        `logprobs`: `ends_per_response[r][c]` is how many tokens choice `c` holds
        after response `r`, so a choice that did not advance repeats its history.
        Each full pass over a `token_ids` (iterating it, as `list(...)` does)
        appends its length to `history_reads`; slicing and `len` are not counted.
        """

        class CumulativeTokenIds(list):
            def __iter__(self):
                history_reads.append(len(self))
                return super().__iter__()

        results = []
        last_index = len(ends_per_response) - 1
        for index, ends in enumerate(ends_per_response):
            outputs = []
            for choice, end in enumerate(ends):
                token_ids = [1000 * (choice + 1) + i for i in range(end)]
                output = MagicMock()
                output.index = choice
                output.token_ids = CumulativeTokenIds(token_ids)
                output.logprobs = [
                    {t: MagicMock(logprob=-t / 1000, rank=1, decoded_token=f"<{t}>")}
                    for t in token_ids
                ]
                output.prompt_logprobs = []
                output.finish_reason = "length" if index == last_index else None
                output.stop_reason = None
                output.request_perf_metrics = None
                outputs.append(output)

            res = MagicMock()
            res.outputs = outputs
            res.finished = index == last_index
            res.cached_tokens = None
            results.append(res)

        generation_result = MagicMock()
        generation_result.abort = MagicMock()

        async def mock_aiter(self_mock):
            for res in results:
                yield res

        generation_result.__aiter__ = mock_aiter
        return generation_result

    async def _run_response_loop(self, ends_per_response, *, pass_delta=True):
        """Chunks, logprob-helper calls and history reads of one request.

        With `pass_delta=False` the helper is called without the delta, as before
        the response loop passed it, so both ways can be compared on one stream.
        """
        handler = self._make_handler()
        history_reads = []
        handler.engine.llm.generate_async = MagicMock(
            return_value=self._make_mock_choice_stream(ends_per_response, history_reads)
        )
        extract_logprobs = HandlerBase._extract_logprobs

        def without_delta(output, num_output_tokens_so_far, **kwargs):
            return extract_logprobs(output, num_output_tokens_so_far)

        request = {
            "token_ids": [1, 2, 3],
            "stop_conditions": {"max_tokens": 64},
            "sampling_options": {},
        }
        with mock.patch.object(
            HandlerBase,
            "_extract_logprobs",
            wraps=extract_logprobs if pass_delta else without_delta,
        ) as helper:
            chunks = [
                chunk
                async for chunk in handler.generate_locally(
                    request, self._make_context()
                )
            ]
        return chunks, helper.call_args_list, history_reads

    @pytest.mark.asyncio
    async def test_response_loop_passes_its_delta_to_the_logprob_helper(self):
        # One choice, growing by 1, 3, then 2 tokens.
        chunks, calls, history_reads = await self._run_response_loop([[1], [4], [6]])

        deltas = [[1000], [1001, 1002, 1003], [1004, 1005]]
        assert [chunk["token_ids"] for chunk in chunks] == deltas
        assert [call.kwargs.get("new_token_ids") for call in calls] == deltas
        assert [chunk["log_probs"] for chunk in chunks] == [
            [-t / 1000 for t in delta] for delta in deltas
        ]
        assert history_reads == []

    @pytest.mark.asyncio
    async def test_interleaved_choices_stream_the_same_chunks_without_history_copies(
        self,
    ):
        """n=4: every response carries all four choices, advanced or not.

        A choice that did not advance has an empty delta: with it the logprob
        helper returns at once, without it the helper copied the choice's whole
        history again. The chunks are the same either way.
        """
        ends_per_response = [
            [1, 0, 2, 1],
            [3, 0, 2, 4],
            [3, 2, 5, 4],
            [6, 5, 5, 7],
        ]
        chunks, calls, history_reads = await self._run_response_loop(ends_per_response)
        old_chunks, _, old_history_reads = await self._run_response_loop(
            ends_per_response, pass_delta=False
        )

        deltas = [
            [1000],
            [],
            [3000, 3001],
            [4000],
            [1001, 1002],
            [],
            [],
            [4001, 4002, 4003],
            [],
            [2000, 2001],
            [3002, 3003, 3004],
            [],
            [1003, 1004, 1005],
            [2002, 2003, 2004],
            [],
            [4004, 4005, 4006],
        ]
        assert [chunk["index"] for chunk in chunks] == [0, 1, 2, 3] * 4
        assert [chunk["token_ids"] for chunk in chunks] == deltas
        assert [chunk.get("log_probs") for chunk in chunks] == [
            [-t / 1000 for t in delta] if delta else None for delta in deltas
        ]
        assert [call.kwargs.get("new_token_ids") for call in calls] == deltas
        assert chunks == old_chunks
        assert history_reads == []
        # Without the delta, every choice holding tokens had its history copied on
        # every response, whether it advanced or not.
        assert old_history_reads == [
            end for ends in ends_per_response for end in ends if end
        ]
