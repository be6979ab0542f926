import sys

from dynpatch.cli import main

sys.exit(main())
