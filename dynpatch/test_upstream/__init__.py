"""Stage test-upstream: dynamo's own tests on the baseline and the patched tree."""

from dynpatch.test_upstream.stage import register, run

__all__ = ["register", "run"]
