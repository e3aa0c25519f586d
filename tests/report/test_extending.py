"""Report tables are an extension point: the worked example of docs/extending-reports.md, and its rules."""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from skillbench.core.registry import UnknownComponentError
from skillbench.report import build_report, load_jobs, load_results, make_report
from skillbench.report.build import ReportContext
from skillbench.report.tables import TABLES, Table, all_tables, pct, report_table
from skillbench.report.write import latex, markdown

from .conftest import PATHS

DOC = Path(__file__).resolve().parents[2] / "docs" / "extending-reports.md"


def _doc_example() -> dict[str, Any]:
    """Run the first Python block of docs/extending-reports.md (it registers ``path_rates``); its namespace."""
    code = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert code, f"{DOC} has no Python example"
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), str(DOC), "exec"), namespace)
    return namespace


def path_rates(ctx: ReportContext) -> Table:
    """The docs' example (the same function, for the tests that register it under other names)."""
    rates = ctx.frame.groupby("path")["passed"].mean()  # NA (judge or infra error) is no verdict
    return Table(
        headers=["Path", "Pass rate %"],
        display=[[path, pct(rate)] for path, rate in rates.items()],
        data=[[path, rate] for path, rate in rates.items()],
    )


def test_a_registered_table_is_in_markdown_csv_and_html(grid: Path, tmp_path: Path) -> None:
    _doc_example()
    try:
        _, files = make_report(
            grid, tmp_path / "report", formats=["md", "csv", "tex", "html"], draws=20, transcripts=False
        )
    finally:
        TABLES.unregister("path_rates")

    md = files["markdown"].read_text()
    assert md.index("## Coverage") < md.index("## Pass rate by scenario path") < md.index("## Table 2")
    with (tmp_path / "report" / "path_rates.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    expected = load_results(grid).groupby("path")["passed"].mean()
    assert [r["Path"] for r in rows] == sorted(PATHS)
    assert [float(r["Pass rate %"]) for r in rows] == pytest.approx(list(expected))
    page = files["html"].read_text()
    assert '<section id="path_rates"><h2>Pass rate by scenario path</h2>' in page
    assert '<a href="#path_rates">Pass rate by scenario path</a>' in page
    assert "scenario path" not in files["latex"].read_text()  # latex=False by default
    assert "path_rates" not in TABLES


def test_flags_none_and_order_come_from_the_registration(grid: Path) -> None:
    report, _ = build_report(load_jobs([grid]), draws=20)
    with pytest.raises(UnknownComponentError):
        TABLES.unregister("no_such_table")
    report_table("paper_only", title="Paper only", order=1000, latex=True, terminal=False)(path_rates)
    report_table("never", title="Never applies", order=1001)(lambda ctx: None)
    try:
        keys = [t.key for t in all_tables(ReportContext.of(report))]
        assert keys[-1] == "paper_only" and "never" not in keys and "rescore" not in keys
        assert keys.index("table1") < keys.index("coverage") < keys.index("adjacent")
        assert "Paper only" in latex(report) and "Paper only" not in markdown(report)
    finally:
        TABLES.unregister("paper_only")
        TABLES.unregister("never")


def test_parts_nobody_asks_for_are_not_computed(grid: Path) -> None:
    context = ReportContext(load_jobs([grid]), draws=20)
    assert context.panel.judges == context.judges
    computed = set(vars(context))
    assert "weights" not in computed and "cells" not in computed and "table1" not in computed
    report = context.report
    assert ReportContext.of(report) is context  # tables of a built report reuse its parts
    again = type(report).model_validate_json(report.model_dump_json())
    assert again == report and markdown(again) == markdown(report)  # a report read back from JSON


def test_the_docs_table_renders_the_same_from_report_json_as_a_built_in_would(grid: Path) -> None:
    """One recipe inside and outside the package: a frame-based table renders from a report read back from
    report.json (its rows are re-read from the job folders report.json lists)."""
    _doc_example()
    try:
        report, _ = build_report(load_jobs([grid]), draws=20)
        again = type(report).model_validate_json(report.model_dump_json())
        md = markdown(report)
        assert "## Pass rate by scenario path\n" in md
        assert markdown(again) == md
    finally:
        TABLES.unregister("path_rates")


def test_a_report_whose_job_folders_are_gone_leaves_out_only_the_tables_that_need_rows(
    grid: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "sweep"
    shutil.copytree(grid, copy)
    _doc_example()
    try:
        report, _ = build_report(load_jobs([copy]), draws=20)
        again = type(report).model_validate_json(report.model_dump_json())
        shutil.rmtree(copy)
        md = markdown(again)
    finally:
        TABLES.unregister("path_rates")
    assert "## Pass rate by scenario path\n" not in md  # needs the rows, which are gone
    assert "## Coverage" in md and "## Table 2" in md  # stored in report.json
