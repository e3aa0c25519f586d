"""Every output format of `skillbench report`, the CLI entry points and the HTML page in Chromium."""

from __future__ import annotations

import csv
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillbench.cli import main as skillbench_main
from skillbench.report import Report, make_report
from skillbench.report.cli import main as report_module_main
from skillbench.report.html import decode_transcripts
from skillbench.report.write import latex_escape
from tests.support.nonempty import nonempty

# CI apt-installs chromium there; SKILLBENCH_CHROMIUM points the tests at another build.
CHROMIUM = Path(os.environ.get("SKILLBENCH_CHROMIUM", "/usr/bin/chromium"))


@pytest.fixture(scope="module")
def written(grid: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, dict[str, Path], Path]:
    out = tmp_path_factory.mktemp("out") / "report"
    report, files = make_report(grid, out, draws=300)
    return report, files, out


def test_every_format_is_written(written) -> None:
    _, files, out = written
    assert set(files) == {"markdown", "csv", "latex", "json", "plots", "html"}
    names = {p.name for p in out.iterdir()}
    assert {
        "report.md",
        "report.json",
        "tables.tex",
        "report.html",
        "rows.csv",
        "table1.csv",
        "table3.csv",
    } <= names
    assert {"pass_rate_heatmap.png", "kappa_heatmap.png", "rubric_profile.png"} <= names
    for png in nonempty(out.glob("*.png"), "png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [n for n in names if n.endswith(".tmp")]


def test_json_round_trips_and_csv_matches(written) -> None:
    report, _, out = written
    again = Report.model_validate_json((out / "report.json").read_text())
    assert again.table1 == report.table1
    with (out / "table1.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [r["agent"] for r in rows] == report.agents
    assert float(rows[0]["mean_pass_rate"]) == pytest.approx(report.table1[0].mean_pass_rate)
    with (out / "rows.csv").open() as handle:
        assert sum(1 for _ in csv.DictReader(handle)) == report.counts["rows"]


def test_rows_csv_is_the_text_pandas_writes(grid: Path, tmp_path: Path) -> None:
    """rows.csv's own writer against ``DataFrame.to_csv`` byte for byte, on the report's rows plus
    rows holding what CSV must quote or leave empty (commas, quotes, newlines, NA, -0.0)."""
    import pandas as pd

    from skillbench.report import load_results
    from skillbench.report.write import LIST_COLUMNS, _write_rows_csv, csv_text

    frame = load_results(grid)
    odd = frame.iloc[:3].copy()
    odd["explanation"] = ['says "no", then, yes', "two\nlines\r\nhere", ""]
    odd["termination_detail"] = [None, " padded ", "tab\tand\rcarriage"]
    odd["cost_usd"] = [-0.0, float("nan"), 1e16]
    odd["passed"] = pd.array([None, True, False], dtype="boolean")
    odd["turns"] = [0, 12, 3]
    odd["fail_reasons"] = [["a, b", 'c "d"'], [], ["x"]]
    frame = pd.concat([frame, odd], ignore_index=True)
    _write_rows_csv(tmp_path / "rows.csv", frame)
    expected = frame.assign(**{c: frame[c].map("; ".join) for c in LIST_COLUMNS}).to_csv(index=False)
    assert (tmp_path / "rows.csv").read_bytes() == expected.encode()
    assert "".join(csv_text(frame, rows_per_chunk=7)) == expected  # chunk boundaries, caches kept across
    assert "".join(csv_text(frame.iloc[:0])) == frame.iloc[:0].to_csv(index=False)  # no rows: the header


def test_markdown_and_latex(written) -> None:
    _, _, out = written
    md = (out / "report.md").read_text()
    for title in (
        "Table 1",
        "Table 2",
        "Table 3",
        "Judge strictness",
        "Ranking stability",
        "Uncertainty",
        "Coverage",
    ):
        assert title in md
    assert "SIMULATED" in md and "judge error" in md
    tex = (out / "tables.tex").read_text()
    assert tex.count("\\begin{tabular}") == 4 and "\\toprule" in tex
    assert "sim\\_careful" in tex and "$\\kappa$" in tex and "κ" not in tex
    assert latex_escape("50% & a_b #1") == r"50\% \& a\_b \#1"


def test_html_is_self_contained_and_links_cells_to_transcripts(written) -> None:
    _, _, out = written
    page = (out / "report.html").read_text()
    assert not re.search(r"""(src|href)=["'](https?:|//)""", page), (
        "the page must not load anything from the network"
    )
    assert page.count("data:image/png;base64,") == 3
    cell_links = set(re.findall(r'href="#(cell-[0-9a-f]+)"', page))
    assert len(cell_links) == 9
    assert all(f'id="{target}"' in page for target in cell_links)
    transcript_links = set(re.findall(r'href="#(tr-[0-9a-f]+)"', page))
    assert len(transcript_links) == 3 * 24
    # Transcripts are embedded compressed (one chunk per agent), decoded only when opened.
    articles = decode_transcripts(page)
    assert set(articles) == transcript_links
    assert all(f'id="{target}"' in articles[target] for target in transcript_links)
    assert "Hello, I need help with happy_path_000." not in page  # not inflated into the page itself
    text = "".join(articles.values())
    assert "Hello, I need help with happy_path_000." in text  # from the stored rollout
    assert "identity.verify_customer" in text and "required_tools_invoked" in text
    assert "synthetic explanation" in text and "unparseable reply" in text


def test_missing_transcripts_are_reported_not_fatal(grid: Path, tmp_path: Path) -> None:
    copy = tmp_path / "sweep"
    shutil.copytree(grid, copy)
    for config in copy.glob("*/config.json"):
        data = json.loads(config.read_text())
        data["store"]["root"] = str(tmp_path / "nowhere")
        config.write_text(json.dumps(data))
    _, files = make_report(copy, formats=["html"], draws=10)
    assert "not found in the artifact store" in "".join(decode_transcripts(files["html"].read_text()).values())


def test_cli_prints_markdown_and_writes_default_folder(
    grid: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "sweep"
    shutil.copytree(grid, copy)
    assert skillbench_main(["report", str(copy), "--formats", "md,json", "--draws", "50"]) == 0
    printed = capsys.readouterr().out
    assert "## Table 1" in printed and "Report written to" in printed
    assert (copy / "report" / "report.md").exists() and not (copy / "report" / "report.html").exists()


def test_cli_errors_are_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert skillbench_main(["report", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert report_module_main([str(tmp_path / "empty")]) == 2
    assert "no job folders found" in capsys.readouterr().err
    assert report_module_main([str(tmp_path / "empty"), str(tmp_path)]) == 2
    assert "Fix:" in capsys.readouterr().err


def test_python_dash_m_entry_point(grid: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "r"
    argv = [
        "python -m skillbench.report",
        str(grid),
        "--out",
        str(out),
        "--formats",
        "json",
        "--quiet",
        "--draws",
        "10",
    ]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("skillbench.report", run_name="__main__")
    assert exit_info.value.code == 0
    assert (out / "report.json").exists()


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install -y chromium)")
def test_html_renders_in_headless_chromium(written, tmp_path: Path) -> None:
    _, files, _ = written
    flags = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    url = files["html"].resolve().as_uri()
    env = {**os.environ, "HOME": str(tmp_path)}
    page = files["html"].read_text()
    first = next(k for k, v in decode_transcripts(page).items() if "Hello, I need help with happy_path_000." in v)
    # The fragment opens one transcript: the page gunzips its agent's chunk in the browser.
    dom = subprocess.run(
        [*flags, "--virtual-time-budget=10000", "--dump-dom", f"{url}#{first}"],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert "<table>" in html and "Table 1 — pass rate (%) per agent × judge" in html
    assert html.count('<img alt="') == 3 and "data:image/png;base64," in html
    assert "Hello, I need help with happy_path_000." in html and "synthetic explanation" in html
    assert html.count('<article class="transcript"') == 1  # only the opened one is in the DOM
    shot = tmp_path / "shot.png"
    result = subprocess.run(
        [*flags, f"--screenshot={shot}", "--window-size=1280,2000", url],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000  # not a blank page
