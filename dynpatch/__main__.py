from dynpatch.cli import main

raise SystemExit(main())
