"""TEST DOUBLE: ``tensorrt_llm._torch`` (see the package docstring)."""
