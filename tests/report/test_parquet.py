"""Parquet export (the parquet extra, pyarrow): rows.parquet reads back as load_results' frame; without pyarrow, one
clear error naming the extra and nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from skillbench.cli import main
from skillbench.report import load_results

pytest.importorskip("pyarrow", reason="the parquet extra (pyarrow) is not installed: pip install 'skillbench[parquet]'")


def test_rows_parquet_reads_back_as_the_frame(grid: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    assert main(["report", str(grid), "--out", str(out), "--formats", "parquet,md", "--draws", "20", "--quiet"]) == 0
    assert "parquet" in capsys.readouterr().out
    back = pd.read_parquet(out / "rows.parquet")
    frame = load_results(grid)
    assert back.shape == frame.shape and list(back.columns) == list(frame.columns)
    assert str(back["passed"].dtype) == "boolean" and back["passed"].isna().sum() == frame["passed"].isna().sum()
    assert list(back["fail_reasons"].iloc[0]) == list(frame["fail_reasons"].iloc[0])
    assert not (tmp_path / "default").exists()
    assert main(["report", str(grid), "--out", str(tmp_path / "default"), "--draws", "20", "--quiet"]) == 0
    assert not (tmp_path / "default" / "rows.parquet").exists()  # asked for by name only


def test_without_pyarrow_one_clear_error(grid: Path, tmp_path: Path) -> None:
    """A Python where pyarrow cannot be imported (blocked before pandas loads, as if the extra were absent)."""
    out = tmp_path / "report"
    code = ("import sys; sys.modules['pyarrow'] = None; from skillbench.cli import main; "
            f"sys.exit(main(['report', {str(grid)!r}, '--out', {str(out)!r}, '--formats', 'parquet', '--quiet']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1 and "pip install 'skillbench[parquet]'" in err[0], done.stderr
    assert not out.exists()
