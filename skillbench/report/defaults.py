"""Report defaults the command line needs before anything heavy (pandas, scipy, matplotlib) is imported."""

from __future__ import annotations

DEFAULT_DRAWS = 2000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95  # of every confidence interval (report/resampling.py)
FORMATS: tuple[str, ...] = ("md", "csv", "tex", "json", "png", "html", "parquet")
# parquet (rows.parquet) needs pyarrow, the optional extra skillbench[parquet]: asked for by name, never by default.
DEFAULT_FORMATS: tuple[str, ...] = tuple(f for f in FORMATS if f != "parquet")
PARQUET_HINT = "pip install 'skillbench[parquet]' (pyarrow)"
