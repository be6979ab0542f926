"""Version matrix: the series against several dynamo releases (``python -m codemods matrix``)."""

from codemods.matrix.command import main, register

__all__ = ["main", "register"]
