"""The LibCST codemod commands that make the patch, one module per command.

Each command rewrites one file of dynamo and skips every other, so LibCST's own CLI can
run it over a whole tree (``python -m libcst.tool list`` / ``codemod``; see
``.libcst.codemod.yaml``). ``series`` runs them in order for the toolkit; ``outcome``
and ``shape`` are what they share; ``carried/`` holds the tests the patch adds.
Only ``libcst`` and the standard library are imported here.
"""
