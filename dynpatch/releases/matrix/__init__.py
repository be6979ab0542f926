"""Version matrix: the series against several dynamo releases (``python -m dynpatch matrix``)."""

from dynpatch.releases.matrix.command import main, register

__all__ = ["main", "register"]
