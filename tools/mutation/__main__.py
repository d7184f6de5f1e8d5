"""``python -m mutation``: the command line of :mod:`mutation.cli`."""

import sys

from mutation.cli import main

sys.exit(main())
