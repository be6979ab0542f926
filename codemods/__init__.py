"""The LibCST codemod commands that make the patch, one module per command, each
rewriting one file of dynamo (``series`` runs them in order). Only ``libcst`` and the
standard library are imported here."""
