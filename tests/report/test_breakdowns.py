"""Breakdowns by scenario path, industry and skill: rates with CIs per agent × judge in md, csv, json and html, and
a flag where an agent is significantly worse on one path than on its other scenarios (Fisher exact, Holm)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from skillbench.engine.results import ResultRow
from skillbench.report import make_report
from skillbench.report.figures.groups import worse_p_many
from skillbench.report.stats import holm

from .conftest import PATHS, write_sweep


def _fails_transfers(agent: str, judge: str, scenario: str, row: ResultRow) -> ResultRow:
    """sim_sloppy fails every transfer scenario under every judge; everything else passes."""
    passed = not (agent == "sim_sloppy" and scenario.startswith("transfer"))
    return row.model_copy(update={"passed": passed, "fail_reasons": [] if passed else ["planted"]})


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sweep(tmp_path_factory.mktemp("breakdowns"), agents=["sim_careful", "sim_sloppy"],
                       judges=["sim_balanced", "sim_strict"], scenarios=60, hook=_fails_transfers)


def test_path_breakdown_flags_the_path_an_agent_fails(sweep: Path, tmp_path: Path) -> None:
    _, files = make_report(sweep, tmp_path / "r", formats=["md", "csv", "json", "html"], draws=200, transcripts=False)
    with (tmp_path / "r" / "breakdown_path.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {r["path"] for r in rows} == set(PATHS) and len(rows) == 2 * 2 * len(PATHS)
    flagged = {(r["agent"], r["judge"], r["path"]) for r in rows if r["significantly_worse"] == "True"}
    assert flagged == {("sim_sloppy", "sim_balanced", "transfer"), ("sim_sloppy", "sim_strict", "transfer")}
    transfer = next(r for r in rows if (r["agent"], r["judge"], r["path"]) == ("sim_sloppy", "sim_strict", "transfer"))
    assert (int(transfer["n"]), float(transfer["pass_rate"]), float(transfer["rest_pass_rate"])) == (10, 0.0, 1.0)
    assert float(transfer["ci_low"]) == 0.0 and float(transfer["p_holm"]) < 0.05
    md = files["markdown"].read_text()
    assert "## Pass rate by scenario path per agent × judge" in md and "▼ worse" in md
    assert "sim_sloppy under sim_strict on transfer: 0.0 % vs 100.0 %" in md
    assert "## Pass rate by industry per agent × judge" in md and "## Pass rate by skill per agent × judge" in md
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    assert {r["breakdown"] for r in report["breakdowns"]} == {"path", "industry", "skill"}
    worse = [r for r in report["breakdowns"] if r["significantly_worse"]]
    assert {(r["agent"], r["judge"], r["group"]) for r in worse} == flagged
    from skillbench.report.model import Report
    from skillbench.report.write import markdown

    assert markdown(Report.model_validate(report)).count("▼ worse") == md.count("▼ worse")  # read back: the same tables
    assert 'id="breakdown_path"' in (tmp_path / "r" / "report.html").read_text()


def test_the_test_and_its_correction() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    rng = np.random.default_rng(0)
    drawn = [(int(rng.integers(0, n + 1)), n, int(rng.integers(0, m + 1)), m)
             for n, m in rng.integers(1, 500, size=(200, 2))]
    cases = [(0, 10, 50, 50), (3, 10, 40, 50), (7, 9, 2, 30), (5, 5, 0, 0), (0, 0, 3, 4), (12, 30, 60, 90),
             (10, 10, 0, 50), (250, 500, 499, 500), *drawn]
    many = worse_p_many(*(np.array(column, dtype=float) for column in zip(*cases, strict=True)))
    assert many == pytest.approx([_fisher_less(*case) for case in cases], rel=1e-9, abs=1e-300)
    assert many[0] < 1e-6 and many[6] == pytest.approx(1.0) and many[4] == many[3] == 1.0


def _fisher_less(passes: int, n: int, rest_passes: int, rest_n: int) -> float:
    """The reference: scipy's one-sided Fisher exact test (1.0 when either side is empty)."""
    from scipy.stats import fisher_exact

    if n == 0 or rest_n == 0:
        return 1.0
    return float(fisher_exact([[passes, n - passes], [rest_passes, rest_n - rest_passes]], alternative="less").pvalue)
