"""A large report's HTML page: cell tables embedded compressed and filled in when a cell is opened,
the same tables as a small page shows inline; opened in headless Chromium when it is installed."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from skillbench.report import build_report, load_jobs
from skillbench.report.html import anchor, decode_cells, decode_transcripts, render_html

from .test_outputs import CHROMIUM

CELL_TABLE = re.compile(r'<div class="cell" id="(cell-[0-9a-f]+)"><h3>[^<]*</h3>(<table>.*?</table>)</div>')


@pytest.fixture(scope="module")
def pages(grid: Path) -> tuple[str, str]:
    """The grid's page with cell tables inline (the default at this size) and embedded compressed."""
    jobs = load_jobs([grid])
    report, frame = build_report(jobs, draws=50)
    inline = render_html(report, frame, jobs, {})
    embedded = render_html(report, frame, jobs, {}, inline_cell_rows=0)
    return inline, embedded


def test_large_page_embeds_the_same_cell_tables_compressed(pages: tuple[str, str]) -> None:
    inline, embedded = pages
    assert decode_cells(inline) == {}
    tables = dict(CELL_TABLE.findall(inline))
    assert len(tables) == 9
    assert decode_cells(embedded) == tables  # byte for byte the inline tables
    # Table 1 still links to every cell, and each target is in the page (a heading with a button).
    links = set(re.findall(r'href="#(cell-[0-9a-f]+)"', embedded))
    assert links == set(tables)
    assert all(f'id="{cell}"' in embedded and f'data-cell="{cell}"' in embedded for cell in links)
    # No scenario row is inflated into the page; every transcript link inside the cells resolves.
    assert "<td>happy_path_000</td>" in inline and "<td>happy_path_000</td>" not in embedded
    transcript_links = {t for table in tables.values() for t in re.findall(r'href="#(tr-[0-9a-f]+)"', table)}
    assert transcript_links == set(decode_transcripts(embedded)) and len(transcript_links) == 3 * 24
    assert len(embedded) < len(inline)


def _dom(page: Path, fragment: str, tmp_path: Path) -> str:
    """The page's DOM after its script ran, opened from file:// with a URL fragment."""
    result = subprocess.run(
        [
            str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=10000", "--dump-dom", f"{page.resolve().as_uri()}#{fragment}",
        ],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)}, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install -y chromium)")
def test_a_cell_opened_by_its_link_is_filled_in_by_chromium(pages: tuple[str, str], tmp_path: Path) -> None:
    _, embedded = pages
    page = tmp_path / "report.html"
    page.write_text(embedded)
    cell = anchor("cell", "sim_careful", "sim_strict")
    html = _dom(page, cell, tmp_path)
    opened = html[html.index(f'id="{cell}"') :]
    opened = opened[: opened.index("</table>")]
    assert "<td>happy_path_000</td>" in opened and "<td>transfer_023</td>" in opened
    assert len(re.findall(r'href="#tr-[0-9a-f]+"', opened)) == 24
    assert html.count("<td>happy_path_000</td>") == 1  # only the opened cell was filled in
    # A transcript link of the opened cell opens the transcript (its agent's chunk, gunzipped).
    first = re.search(r'href="#(tr-[0-9a-f]+)"', opened)
    assert first is not None
    html = _dom(page, first.group(1), tmp_path)
    assert (
        html.count('<article class="transcript"') == 1 and "Hello, I need help with happy_path_000." in html
    )


def test_a_long_table_is_collapsed_with_every_cell_in_the_page() -> None:
    """Above COLLAPSED_TABLE_ROWS rows a table is in a closed <details> (not laid out on load; the browser's find
    opens it): every cell is still in the page; a table at the limit is shown open."""
    from skillbench.report.html import COLLAPSED_TABLE_ROWS, html_table
    from skillbench.report.tables import Table

    def table(rows: int) -> Table:
        return Table(key="long", title="Long", headers=["Group", "n"],
                     display=[[f"group_{i:04d}", str(i)] for i in range(rows)], footnotes=["a note"])

    shown = html_table(table(COLLAPSED_TABLE_ROWS))
    assert "<details" not in shown and shown.count("<tr>") == COLLAPSED_TABLE_ROWS + 1
    collapsed = html_table(table(COLLAPSED_TABLE_ROWS + 1))
    details = re.search(r'<details class="rows"><summary>(\d+) rows</summary>(.*)</details>', collapsed)
    assert details is not None and int(details.group(1)) == COLLAPSED_TABLE_ROWS + 1
    assert all(f"<td>group_{i:04d}</td>" in details.group(2) for i in range(COLLAPSED_TABLE_ROWS + 1))
    assert collapsed.index("<h2>Long</h2>") < details.start() and '<p class="foot">a note</p>' in collapsed[details.end():]
