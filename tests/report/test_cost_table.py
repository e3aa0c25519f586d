"""The cost table: calls per role, tokens, dollars and wall time per agent × judge, from each job's summary.json."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

from skillbench.report import make_report


def test_cost_table_sums_summaries_per_cell_in_markdown_csv_and_html(grid: Path, tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    shutil.copytree(grid, sweep)
    jobs = sorted(p for p in sweep.iterdir() if (p / "summary.json").exists())
    paid = jobs[0]
    summary = json.loads((paid / "summary.json").read_text())
    summary |= {
        "usage": {"agent": {"calls": 120, "cost_usd": 0.5}, "user": {"calls": 50}, "judge": {"calls": 10, "cache_hits": 2}},
        "cache_hits": 2, "prompt_tokens": 123456, "completion_tokens": 7890, "cost_usd": 0.6543, "wall_time_s": 42.5,
    }
    (paid / "summary.json").write_text(json.dumps(summary))
    (jobs[1] / "summary.json").unlink()  # a stopped job: listed as unfinished, not counted

    _, files = make_report(sweep, tmp_path / "report", formats=["md", "csv", "html"], draws=20, transcripts=False)

    md = files["markdown"].read_text()
    assert "## Cost, tokens and time per agent × judge" in md
    line = next(row for row in md.splitlines() if row.startswith(f"| {summary['agent']} ") and "0.6543" in row)
    assert "120" in line and "123,456" in line and "7,890" in line and "42.5" in line
    assert "unfinished" in md.split("## Cost")[1]
    with (tmp_path / "report" / "cost.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    first = next(r for r in rows if r["agent"] == summary["agent"] and r["judge"] == summary["judge"])
    assert (first["calls_agent"], first["calls_user"], first["calls_judge"]) == ("120", "50", "10")
    assert float(first["cost_usd"]) == 0.6543 and int(first["prompt_tokens"]) == 123456
    total = rows[-1]
    assert total["agent"] == "total" and float(total["cost_usd"]) == 0.6543
    assert '<section id="cost"><h2>Cost, tokens and time per agent × judge</h2>' in files["html"].read_text()
