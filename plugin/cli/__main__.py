"""`python -m plugin.cli ...` is `autohost ...`."""

import sys

from plugin.cli import main

sys.exit(main())
