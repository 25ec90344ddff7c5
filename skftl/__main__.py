"""`python -m skftl` is the `skftl` command."""

import sys

from skftl.cli import main

sys.exit(main())
