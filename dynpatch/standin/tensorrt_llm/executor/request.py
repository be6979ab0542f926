"""TEST DOUBLE: ``tensorrt_llm.executor.request``. No ``GenerationRequest``: dynamo probes
for it and then keeps prompts as lists."""

DEFAULT_REQUEST_PRIORITY = 0.5
