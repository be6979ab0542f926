"""The bench's measurements: what the change saves in dynamo's real TRT-LLM handler,
baseline vs patched, in instructions counted under callgrind (gated) and in one timed A/B
(informative)."""
