"""The I/O layer: every git call, download, pip install and program the toolkit starts."""

import os

# GitPython looks for git when imported and, without it, raises a traceback before the
# command line could say one line; quiet, a missing git fails at first use, as one line.
os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
