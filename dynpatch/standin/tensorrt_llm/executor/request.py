"""TEST DOUBLE: ``tensorrt_llm.executor.request`` (see the package docstring).

``GenerationRequest`` is left out: dynamo probes for it inside ``try`` and then keeps
prompts as lists.
"""

from __future__ import annotations

DEFAULT_REQUEST_PRIORITY = 0.5
