"""The HTML report's rows filter and search, in headless Chromium: the URL's query sets the controls (agent, judge,
verdict, path, disagreement, search words) and exactly the matching rows stay shown, with their count; cells that
are embedded compressed are filled in first."""

from __future__ import annotations

import html
import os
import re
import subprocess
from pathlib import Path

import pytest

from skillbench.report import build_report, load_jobs
from skillbench.report.html import render_html

CHROMIUM = Path(os.environ.get("SKILLBENCH_CHROMIUM", "/usr/bin/chromium"))
ROW = re.compile(r'<tr data-agent="([^"]*)" data-judge="([^"]*)" data-verdict="([^"]*)" data-path="([^"]*)" '
                 r'data-disagree="([^"]*)" data-search="([^"]*)"( hidden="")?>'
                 r"<td>([^<]*)</td><td>([^<]*)</td><td>.*?</td><td>([^<]*)</td>")


def _rows(page: str) -> list[dict[str, object]]:
    """Each cell row's filter attributes, its scenario, and the text the search looks in (agent, judge, scenario,
    path, industry and skill, reasons: lower-cased)."""
    keys = ("agent", "judge", "verdict", "path", "disagree", "search")
    rows: list[dict[str, object]] = []
    for m in ROW.finditer(page):
        row: dict[str, object] = {k: html.unescape(v) for k, v in zip(keys, m.groups()[:6], strict=True)}
        scenario, path, why = (html.unescape(v) for v in m.groups()[7:])
        text = " ".join([str(row["agent"]), str(row["judge"]), scenario, path, str(row["search"]), why])
        rows.append({**row, "scenario": scenario, "text": text.lower(), "hidden": bool(m.group(7))})
    return rows


def _matches(row: dict[str, object], query: dict[str, str]) -> bool:
    words = query.get("q", "").split()
    return all((
        not query.get("agent") or row["agent"] == query["agent"],
        not query.get("judge") or row["judge"] == query["judge"],
        not query.get("verdict") or row["verdict"] == query["verdict"],
        not query.get("path") or row["path"] == query["path"],
        not query.get("disagree") or row["disagree"] == "1",
        all(w in str(row["text"]) for w in words),
    ))


def _dom(page: Path, query: str, tmp_path: Path) -> str:
    flags = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"]
    done = subprocess.run([*flags, "--virtual-time-budget=10000", "--dump-dom", f"{page.resolve().as_uri()}?{query}"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)}, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install -y chromium)")
@pytest.mark.parametrize("inline", [True, False], ids=["inline cells", "compressed cells"])
def test_the_query_filters_the_rows(grid: Path, tmp_path: Path, inline: bool) -> None:
    jobs = load_jobs([grid])
    report, frame = build_report(jobs, draws=20)
    page = tmp_path / "report.html"
    page.write_text(render_html(report, frame, jobs, {}, transcripts=False, inline_cell_rows=10**6 if inline else 0))
    every = _rows(page.read_text()) if inline else []
    if inline:
        assert len(every) == len(frame) and not any(r["hidden"] for r in every)
        disagreeing = {r["scenario"] for r in every if r["disagree"]}
        assert disagreeing  # the synthetic judges differ on some transcripts
    query = {"agent": "sim_sloppy", "verdict": "fail", "q": "transfer_0"}
    dom = _dom(page, "agent=sim_sloppy&verdict=fail&q=transfer_0", tmp_path)
    rows = _rows(dom)
    assert len(rows) == len(frame)  # every cell filled in, compressed or not
    shown = [r for r in rows if not r["hidden"]]
    assert shown and all(_matches(r, query) for r in shown) and not any(_matches(r, query) for r in rows if r["hidden"])
    expected = frame[(frame["agent_label"] == "sim_sloppy") & (frame["passed"] == False)  # noqa: E712
                     & frame["scenario_id"].str.contains("transfer_0")]
    assert len(shown) == len(expected)
    assert f"{len(shown)} of {len(frame)} rows" in dom
    assert 'id="filter-agent"' in dom and '<option value="sim_sloppy">' in dom
    # disagreement with a judge: the rows of transcripts the judges split on, under that judge
    dom = _dom(page, "judge=sim_strict&disagree=1", tmp_path)
    rows = _rows(dom)
    shown = [r for r in rows if not r["hidden"]]
    assert shown and all(r["judge"] == "sim_strict" and r["disagree"] == "1" for r in shown)
    assert len(shown) == sum(1 for r in rows if r["judge"] == "sim_strict" and r["disagree"] == "1")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install -y chromium)")
def test_the_search_finds_what_only_data_search_holds(grid: Path, tmp_path: Path) -> None:
    """The industry is in no column of a cell row: the search finds it through the row's data-search."""
    jobs = load_jobs([grid])
    report, frame = build_report(jobs, draws=20)
    page = tmp_path / "report.html"
    page.write_text(render_html(report, frame, jobs, {}, transcripts=False, inline_cell_rows=0))
    rows = _rows(_dom(page, "agent=sim_careful&q=HealthCare", tmp_path))
    shown = [r for r in rows if not r["hidden"]]
    assert len(shown) == int((frame["agent_label"] == "sim_careful").sum()) > 0
    assert all("healthcare" not in f"{r['scenario']} {r['path']}".lower() for r in shown)
