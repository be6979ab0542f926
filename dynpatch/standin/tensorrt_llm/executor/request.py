"""TEST DOUBLE: ``tensorrt_llm.executor.request`` (no ``GenerationRequest``: prompts stay lists)."""

DEFAULT_REQUEST_PRIORITY = 0.5
