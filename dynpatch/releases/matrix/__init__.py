"""Version matrix: the series against several dynamo releases (``python -m dynpatch matrix``)."""
