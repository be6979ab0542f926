"""The I/O layer: every git call, download, pip install and program the toolkit starts."""

import os

# GitPython looks for git when it is first imported (by dynpatch.io.git) and, without git,
# raises there: a traceback before the command line could say one line. Quiet, a missing
# git fails at first use, as one line.
os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
