import sys

from codemods.cli import main

sys.exit(main())
