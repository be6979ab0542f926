"""TEST DOUBLE: ``tensorrt_llm.executor`` (see the package docstring)."""
