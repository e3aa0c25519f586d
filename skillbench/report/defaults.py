"""Report defaults the command line needs before anything heavy (pandas, scipy, matplotlib) is imported."""

from __future__ import annotations

DEFAULT_DRAWS = 2000
DEFAULT_SEED = 0
FORMATS: tuple[str, ...] = ("md", "csv", "tex", "json", "png", "html")
