"""The LibCST codemods that make the patch, one module per command rewriting one file of
dynamo (``series`` runs them in order). They import only ``libcst`` and the standard library."""
