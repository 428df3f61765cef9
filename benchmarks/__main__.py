"""``python -m benchmarks``: the project's main job."""

import sys

from benchmarks.cli import main

sys.exit(main())
