"""TEST DOUBLE: ``tensorrt_llm.executor.utils`` (see the package docstring)."""


class RequestError(RuntimeError):
    """A per-request engine error; dynamo catches it and answers with an error chunk."""
