"""The lab's plot (detection heatmap) and HTML page: the tables, each detection cell linking to the
transcripts behind it with every judge's verdict."""

from __future__ import annotations

import html
import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from skillbench.lab.judging import JudgeRun
from skillbench.lab.records import LabelledTranscript
from skillbench.report.tables import Table


def detection_heatmap(matrix: Table) -> bytes:
    """PNG of the perturbation × judge detection table (``lab_sensitivity``)."""
    judges = matrix.headers[2:]
    rows = [row[0] for row in matrix.data]
    values = np.array([[np.nan if v is None else float(v) * 100 for v in row[2:]] for row in matrix.data])
    figure = Figure(figsize=(1.4 * len(judges) + 3.5, 0.45 * len(rows) + 1.8))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    image = axes.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=0, vmax=100, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(judges)):
            if not np.isnan(values[i, j]):
                axes.text(j, i, f"{values[i, j]:.0f}", ha="center", va="center", color="white" if values[i, j] < 60 else "black")
    axes.set_xticks(range(len(judges)), judges, rotation=30, ha="right")
    axes.set_yticks(range(len(rows)), rows)
    axes.set_title("Detection rate (%) per perturbation; last row: specificity on controls")
    figure.colorbar(image, ax=axes, fraction=0.04)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def _table_html(table: Table, link_rows: bool) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = []
    for display in table.display:
        cells = [html.escape(c) for c in display]
        if link_rows:  # every cell of a perturbation's row opens that perturbation's transcripts
            anchor = "p-" + display[0].split(" ")[0]
            cells = [f'<a href="#{anchor}">{c}</a>' for c in cells]
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    notes = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in table.footnotes)
    return f"<h2>{html.escape(table.title)}</h2><table><tr>{head}</tr>{''.join(body)}</table>{notes}"


def _transcript_html(item: LabelledTranscript) -> str:
    lines = []
    for message in item.rollout.messages[1:]:  # the system prompt is the policy, shown once in the benchmark
        calls = "; ".join(f"{c.name}({html.escape(str(c.arguments))})" for c in message.tool_calls)
        text = html.escape(message.content or "")
        lines.append(f"<div class='{message.role}'><b>{message.role}</b> {text}{' → ' + calls if calls else ''}</div>")
    return "".join(lines)


def lab_html(title: str, notes: list[str], tables: list[Table], items: list[LabelledTranscript], runs: list[JudgeRun]) -> str:
    parts = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title>",
             "<style>body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:2px 6px}.user{color:#225}.tool{color:#555}</style>",
             f"<h1>{html.escape(title)}</h1>", *(f"<p>{html.escape(n.lstrip('> '))}</p>" for n in notes if n),
             "<img src='lab.png' alt='detection heatmap'>"]
    parts += [_table_html(t, link_rows=t.key == "lab_sensitivity") for t in tables]
    for name in sorted({i.perturbation for i in items}):
        anchor = "control" if name == "control" else name
        parts.append(f"<h2 id='p-{anchor}'>{html.escape(name)}</h2>")
        for item in (i for i in items if i.perturbation == name):
            verdicts = ", ".join(
                f"{run.name}: {'—' if item.key not in run.readings or run.readings[item.key].passed is None else ('pass' if run.readings[item.key].passed else 'fail')}"
                for run in runs
            )
            parts.append(f"<details><summary>{html.escape(item.rollout.scenario_id)} · expected "
                         f"{'pass' if item.label.expected_pass else 'fail'} · {html.escape(verdicts)} · "
                         f"{html.escape(item.edit)}</summary>{_transcript_html(item)}</details>")
    return "\n".join(parts) + "\n"
