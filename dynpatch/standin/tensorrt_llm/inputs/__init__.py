"""TEST DOUBLE: ``tensorrt_llm.inputs`` (see the package docstring)."""
