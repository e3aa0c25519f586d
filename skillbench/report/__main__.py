"""``python -m skillbench.report DIR...`` (also ``rescore`` and ``diff``, like the skillbench command)."""

import sys

from skillbench.report.cli import main

sys.exit(main())
