"""Stage test-upstream: dynamo's own tests on the baseline and the patched tree."""
