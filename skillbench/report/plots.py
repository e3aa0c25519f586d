"""PNG plots: pass-rate heatmap with CIs, judge κ heatmap, rubric profile per agent.

Figures are drawn on matplotlib's Agg canvas directly (no pyplot), so building a report never
switches the backend of a notebook or GUI that imported matplotlib first.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.report.model import Report
from skillbench.report.tables import DIMENSION_HEADERS, STATUS_TEXT

DPI = 110


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return buffer.getvalue()


def pass_rate_heatmap(report: Report) -> bytes:
    columns = [*report.judges, "Mean"]
    agents = report.agents
    values = np.full((len(agents), len(columns)), np.nan)
    texts: list[list[str]] = []
    for i, row in enumerate(report.table1):
        line = []
        for j, judge in enumerate(report.judges):
            cell = report.cell(row.agent, judge)
            if cell.pass_rate is None:
                line.append(STATUS_TEXT.get(cell.status, cell.status))
                continue
            values[i, j] = cell.pass_rate * 100
            band = f"\n[{cell.ci_low * 100:.0f}–{cell.ci_high * 100:.0f}]" if cell.ci_low is not None else ""
            line.append(f"{cell.pass_rate * 100:.1f}{band}")
        if row.mean_pass_rate is not None:
            values[i, -1] = row.mean_pass_rate * 100
            band = (
                f"\n[{row.mean_ci_low * 100:.0f}–{row.mean_ci_high * 100:.0f}]"
                if row.mean_ci_low is not None
                else ""
            )
            line.append(f"{row.mean_pass_rate * 100:.1f}{band}")
        else:
            line.append("—")
        texts.append(line)
    figure = Figure(figsize=(1.3 * len(columns) + 3.0, 0.55 * len(agents) + 1.8))
    axes = figure.add_subplot()
    axes.set_facecolor("#d9d9d9")  # missing cells show the background, labelled with their status
    image = axes.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=0, vmax=100, aspect="auto")
    for i in range(len(agents)):
        for j in range(len(columns)):
            dark = not np.isnan(values[i, j]) and values[i, j] < 55
            axes.text(
                j, i, texts[i][j], ha="center", va="center", fontsize=7, color="white" if dark else "black"
            )
    axes.axvline(len(report.judges) - 0.5, color="white", linewidth=3)
    axes.set_xticks(range(len(columns)), columns, rotation=30, ha="right")
    axes.set_yticks(range(len(agents)), agents)
    axes.set_xlabel("judge")
    axes.set_title(f"Pass rate (%) with {report.bootstrap.level:.0%} bootstrap CI")
    figure.colorbar(image, ax=axes, label="pass rate (%)")
    return _png(figure)


def kappa_heatmap(report: Report) -> bytes:
    judges = report.judges
    n = len(judges)
    values = np.full((n, n), np.nan)
    texts = [["" for _ in judges] for _ in judges]
    index = {j: i for i, j in enumerate(judges)}
    for pair in report.table3:
        a, b = index[pair.judge_a], index[pair.judge_b]
        text = (f"{pair.kappa:.2f}" if pair.kappa is not None else "undef.") + f"\nn={pair.n}"
        for x, y in ((a, b), (b, a)):
            texts[x][y] = text
            if pair.kappa is not None:
                values[x, y] = pair.kappa
    for i in range(n):
        texts[i][i] = "—"
    figure = Figure(figsize=(1.2 * n + 2.5, 1.0 * n + 1.5))
    axes = figure.add_subplot()
    axes.set_facecolor("#d9d9d9")
    image = axes.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=-1, vmax=1)
    for i in range(n):
        for j in range(n):
            axes.text(j, i, texts[i][j], ha="center", va="center", fontsize=8)
    axes.set_xticks(range(n), judges, rotation=30, ha="right")
    axes.set_yticks(range(n), judges)
    axes.set_title("Cohen's κ on pass/fail between judges")
    figure.colorbar(image, ax=axes, label="κ")
    return _png(figure)


def rubric_profile(report: Report) -> bytes:
    figure = Figure(figsize=(8.0, 4.5))
    axes = figure.add_subplot()
    x = np.arange(len(DIMENSION_NAMES))
    for row in report.table2:
        y = [row.means[d] if row.means[d] is not None else np.nan for d in DIMENSION_NAMES]
        if not np.all(np.isnan(y)):
            axes.plot(x, y, marker="o", label=row.agent)
    axes.set_xticks(x, [DIMENSION_HEADERS[d] for d in DIMENSION_NAMES])
    axes.set_ylim(0.8, 5.2)
    axes.set_ylabel("mean score (1–5), averaged over judges")
    axes.set_title("Rubric profile per agent")
    axes.grid(axis="y", alpha=0.3)
    if axes.get_lines():
        axes.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return _png(figure)


PLOTS = {
    "pass_rate_heatmap.png": pass_rate_heatmap,
    "kappa_heatmap.png": kappa_heatmap,
    "rubric_profile.png": rubric_profile,
}


def render_plots(report: Report) -> dict[str, bytes]:
    """File name → PNG bytes of every plot."""
    return {name: draw(report) for name, draw in PLOTS.items()}
