"""The lab's plot (detection heatmap) and HTML page: the tables, each cell linking to the transcripts
behind it with every judge's verdict (the page is built from the report's HTML parts)."""

from __future__ import annotations

import base64
import html
import io
from collections import Counter
from collections.abc import Callable

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from skillbench.core.records import Rollout
from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.lab.judging import JudgeRun, Reading
from skillbench.lab.labelled import CONTROL
from skillbench.lab.metrics import LabSet, detected, judge_value
from skillbench.lab.records import LabelledTranscript
from skillbench.report.html import CSS, PAGE_JS, anchor, embedded_transcripts, html_table, messages_html
from skillbench.report.tables import DIMENSION_HEADERS, Table


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


def human_confusion_plot(tables: list[Table]) -> bytes:
    """PNG of ``judges validate --run``'s confusion counts: a row of heatmaps per judge (pass/fail from ``lab_human``,
    then the outcome and the hallucination flag from their confusion tables), human values down, the judge's across."""
    by_key = {t.key: t for t in tables}
    panels: list[tuple[str, Table]] = [("pass/fail", by_key["lab_human"])]
    panels += [(t.title.split("— ", 1)[1].split(" (", 1)[0], t) for k, t in by_key.items() if k.startswith("lab_human_") and k != "lab_human_labels"]
    judges = [str(row[0]) for row in by_key["lab_human"].data]
    figure = Figure(figsize=(4.4 * len(panels), 3.3 * len(judges) + 0.6), layout="constrained")
    FigureCanvasAgg(figure)
    grid = figure.subplots(len(judges), len(panels), squeeze=False)
    for i, judge in enumerate(judges):
        for j, (name, table) in enumerate(panels):
            axes = grid[i][j]
            if name == "pass/fail":
                row = next(r for r in table.data if r[0] == judge)
                rows, columns = ["pass", "fail"], ["pass", "fail"]
                counts = np.array([[row[2], row[3]], [row[4], row[5]]], dtype=float)
            else:
                mine = [n for n, r in enumerate(table.data) if r[0] == judge]
                rows, columns = [table.display[n][1] for n in mine], [h.removeprefix("Judge: ") for h in table.headers[3:]]
                counts = np.array([[float(v) for v in table.data[n][3:]] for n in mine]) if mine else np.zeros((0, len(columns)))
            if not len(counts):  # the rule checks give no outcome and no flag
                axes.axis("off")
                continue
            axes.imshow(counts, cmap="Blues", aspect="auto", vmin=0)
            for y in range(counts.shape[0]):
                for x in range(counts.shape[1]):
                    axes.text(x, y, f"{counts[y, x]:.0f}", ha="center", va="center",
                              color="white" if counts[y, x] > counts.max() / 2 else "black")
            axes.set_xticks(range(len(columns)), [c.replace("appropriately_", "approp. ") for c in columns], rotation=30, ha="right", fontsize=7)
            axes.set_yticks(range(len(rows)), [r.replace("appropriately_", "approp. ") for r in rows], fontsize=7)
            axes.set_title(f"{judge}: {name}", fontsize=9)
    figure.suptitle("Confusion with human labels (rows: human, columns: judge)")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return buffer.getvalue()


def _dash(value: object) -> object:
    return "—" if value is None else value


def _verdict(passed: bool | None) -> str:
    return "—" if passed is None else ("pass" if passed else "fail")


def _outcome(lab: LabSet, item: LabelledTranscript, run: JudgeRun) -> str:
    """What this judge's reading means for this item: detected/missed, flipped/same, passed/false alarm."""
    reading = run.readings.get(item.key)
    if reading is not None and reading.error_kind is not None:
        return f"judge error ({reading.error_kind}): not counted"
    if reading is None or reading.passed is None:
        return "no verdict"
    control = lab.control.get(item.source_key)
    control_reading = run.readings.get(control.key) if control is not None else None
    if item.label.kind == "control":
        return "passed" if reading.passed else "false alarm"
    if item.label.kind == "paraphrase":
        if control_reading is None or control_reading.passed is None:
            return "no control verdict"
        return "flipped" if reading.passed != control_reading.passed else "same verdict"
    return "detected" if detected(item, reading, control_reading) else "missed"


def _scores(reading: Reading | None) -> str:
    if reading is None or not reading.scores:
        return "—"
    return " ".join(str(reading.scores[d]) for d in DIMENSION_NAMES)


def _readings(key: str, runs: list[JudgeRun], column: str, value: Callable[[JudgeRun, Reading | None], str]) -> str:
    """Every judge's reading of one transcript: verdict, ``column`` (from ``value``), scores and flag."""
    rows = []
    for run in runs:
        reading = run.readings.get(key)
        flagged = "—" if reading is None or reading.hallucinated is None else ("yes" if reading.hallucinated else "no")
        verdict = _verdict(None if reading is None else reading.passed)
        if reading is not None and reading.judge_error:  # say why there is none
            verdict = f"judge error ({reading.error_kind}): {html.escape(reading.judge_error[:300])}"
        rows.append(f"<tr><td>{html.escape(run.name)}</td><td>{verdict}</td>"
                    f"<td>{html.escape(value(run, reading))}</td><td>{_scores(reading)}</td><td>{flagged}</td></tr>")
    scores = f"Scores ({', '.join(DIMENSION_HEADERS[d] for d in DIMENSION_NAMES)})"
    headers = "".join(f"<th>{html.escape(h)}</th>" for h in ("Judge", "Verdict", column, scores, "Halluc. flag"))
    return f"<table><tr>{headers}</tr>{''.join(rows)}</table>"


def _article(lab: LabSet, item: LabelledTranscript, runs: list[JudgeRun]) -> str:
    label = item.label
    flag = {True: "must fire", False: "must not fire", None: "either"}[label.hallucination]
    return (
        f'<article class="transcript" id="{_tr_id(item)}"><h3>{html.escape(item.perturbation)} — {html.escape(item.rollout.scenario_id)}</h3>'
        f'<p class="foot">{html.escape(label.kind)} · labelled dimension {html.escape(label.dimension or "none")} · hallucination flag {flag} · '
        f'expected {_verdict(label.expected_pass)} · edit: {html.escape(item.edit)} · source rollout {html.escape(item.source_key)} · '
        f"labelled transcript {html.escape(item.key)}</p>"
        f"{messages_html(item.rollout)}{_readings(item.key, runs, 'Against the label', lambda run, _: _outcome(lab, item, run))}</article>"
    )


def _tr_id(item: LabelledTranscript) -> str:
    return anchor("tr", item.key)


def _cell_id(perturbation: str, judge: str) -> str:
    return anchor("cell", perturbation, judge)


def _links(table: Table) -> Callable[[int, int], str | None]:
    """Which cell of a lab table opens which perturbation × judge list (None: a plain cell)."""
    columns = table.columns

    def link(i: int, j: int) -> str | None:
        row = table.data[i]
        if table.key == "lab_sensitivity":  # rows: perturbations (last: controls); columns from the third: judges
            name = CONTROL if i == len(table.data) - 1 else str(row[0])
            return _cell_id(name, columns[j]) if j >= 2 else None
        if table.key in ("lab_detail", "lab_paraphrase"):  # one judge × perturbation per row
            return _cell_id(str(row[1]), str(row[0]))
        if table.key == "lab_summary" and 1 <= j <= 3:  # controls, specificity, false alarms
            return _cell_id(CONTROL, str(row[0]))
        return None

    return link


def _cells(lab: LabSet, runs: list[JudgeRun]) -> str:
    parts = ['<section id="cells"><h2>Cells — every labelled transcript of every perturbation × judge</h2>']
    names = [CONTROL, *lab.defects, *lab.paraphrases]
    for name in names:
        items = lab.of(name)
        for run in runs:
            outcomes = [(item, _outcome(lab, item, run)) for item in items]
            counts = ", ".join(f"{n} {o}" for o, n in sorted(Counter(o for _, o in outcomes).items()))
            rows = "".join(
                f"<tr><td>{html.escape(item.rollout.scenario_id)}</td><td>{_verdict(run.readings[item.key].passed)}</td>"
                f'<td>{html.escape(outcome)}</td><td><a href="#{_tr_id(item)}">transcript</a></td></tr>'
                for item, outcome in outcomes
            )
            parts.append(
                f'<div class="cell" id="{_cell_id(name, run.name)}"><h3>{html.escape(name)} × {html.escape(run.name)}</h3>'
                f'<p class="foot">{len(items)} transcript(s): {html.escape(counts)}</p>'
                f"<table><tr><th>Scenario</th><th>Verdict</th><th>Against the label</th><th></th></tr>{rows}</table></div>"
            )
    parts.append("</section>")
    return "".join(parts)


def _page(title: str, notes: list[str], tables: list[Table], links: Callable[[Table], Callable[[int, int], str | None]],
          sections: list[tuple[str, str, str]], chunks: dict[str, dict[str, str]], heatmap: bytes | None = None) -> str:
    """The page scaffold shared by both lab pages, built like the report's: header with the notes (the
    simulated-judge warning as a banner), the linked tables, optional plot, the cell lists, the transcripts."""
    banner = [n.lstrip("> ") for n in notes if n.startswith(">")]
    text = [n for n in notes if n and not n.startswith(">")]
    parts = [f"<header><h1>{html.escape(title)}</h1>", *(f"<p>{html.escape(n)}</p>" for n in text),
             *(f'<p class="banner">{html.escape(b)}</p>' for b in banner), "</header>"]
    nav = [(t.key, t.title.split(" —")[0]) for t in tables] + ([("plot", "Plot")] if heatmap else [])
    nav += [(key, label) for key, label, _ in sections] + [("transcripts", "Transcripts")]
    parts.append("<nav>" + "".join(f'<a href="#{k}">{html.escape(label)}</a>' for k, label in nav) + "</nav>")
    parts += [html_table(t, links(t)) for t in tables]
    if heatmap:
        parts.append(f'<section id="plot"><h2>Plot</h2><img alt="detection heatmap" '
                     f'src="data:image/png;base64,{base64.b64encode(heatmap).decode()}"></section>')
    parts += [body for _, _, body in sections]
    parts.append(embedded_transcripts(chunks.items(), "follow a cell of the tables above, then a transcript link"))
    parts.append(f"<script>{PAGE_JS}</script>")
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>{''.join(parts)}</body></html>")


def lab_html(title: str, notes: list[str], tables: list[Table], lab: LabSet, runs: list[JudgeRun], heatmap: bytes) -> str:
    """One self-contained page: the tables, whose cells open the list of transcripts behind them (each
    judge's verdict and what it means against the label), and every labelled transcript, embedded
    compressed per perturbation and shown when a link to it is followed."""
    chunks: dict[str, dict[str, str]] = {}
    for item in lab.items:
        chunks.setdefault(item.perturbation, {})[_tr_id(item)] = _article(lab, item, runs)
    return _page(title, notes, tables, _links, [("cells", "Cells", _cells(lab, runs))], chunks, heatmap)


# ----------------------------------------------------------------------------- imported conversations

CONFUSION = ("both pass", "human pass, judge fail", "human fail, judge pass", "both fail")


def _confusion(human: bool, judge: bool) -> str:
    return CONFUSION[(0 if human else 2) + (0 if judge else 1)]


def _human_article(key: str, rollout: Rollout, labels: dict[str, object], human: bool | None, runs: list[JudgeRun]) -> str:
    given = ", ".join(f"{k} {v}" for k, v in labels.items()) or "none"
    return (f'<article class="transcript" id="{anchor("tr", key)}"><h3>{html.escape(rollout.agent)} — {html.escape(rollout.scenario_id)}</h3>'
            f'<p class="foot">human: {_verdict(human)} · other labels: {html.escape(given)} · rollout {html.escape(key)}</p>'
            f"{messages_html(rollout)}{_readings(key, runs, 'Outcome', lambda _, r: (r.outcome if r else None) or '—')}</article>")


def human_html(title: str, notes: list[str], tables: list[Table], rollouts: dict[str, Rollout], human: dict[str, bool],
               labels: dict[str, dict[str, object]], runs: list[JudgeRun], heatmap: bytes | None = None) -> str:
    """The page for ``judges validate --run``: each confusion count and each label row opens the
    conversations behind it; every conversation shows the people's labels next to every judge's reading."""
    lists: list[str] = ['<section id="cells"><h2>Cells — the conversations behind each count</h2>']

    def listing(anchor_id: str, heading: str, rows: list[tuple[str, str, str]]) -> str:
        """rows: (rollout key, the people's value, the judge's value)."""
        cells = "".join(f"<tr><td>{html.escape(rollouts[k].scenario_id)}</td><td>{html.escape(h)}</td><td>{html.escape(j)}</td>"
                        f'<td><a href="#{anchor("tr", k)}">transcript</a></td></tr>' for k, h, j in rows)
        return (f'<div class="cell" id="{anchor_id}"><h3>{html.escape(heading)}</h3><p class="foot">{len(rows)} conversation(s)</p>'
                f"<table><tr><th>Conversation</th><th>Human</th><th>Judge</th><th></th></tr>{cells}</table></div>")

    for run in runs:
        judged = [k for k in human if k in run.readings and run.readings[k].passed is not None]
        for name in CONFUSION:
            rows = [(k, _verdict(human[k]), _verdict(run.readings[k].passed)) for k in judged
                    if _confusion(human[k], bool(run.readings[k].passed)) == name]
            lists.append(listing(anchor("cell", "human", run.name, name), f"{run.name}: {name}", rows))
        for label in sorted({n for given in labels.values() for n in given}):
            pairs = [(k, str(given[label]), str(_dash(judge_value(run.readings[k], label)))) for k, given in labels.items()
                     if label in given and k in run.readings]
            pairs.sort(key=lambda row: row[1] == row[2])  # disagreements first
            lists.append(listing(anchor("cell", "label", run.name, label), f"{run.name}: {label} (disagreements first)", pairs))
    lists.append("</section>")

    def links(table: Table) -> Callable[[int, int], str | None]:
        def link(i: int, j: int) -> str | None:
            row = table.data[i]
            if table.key == "lab_human" and 2 <= j < 2 + len(CONFUSION):  # the four confusion counts
                return anchor("cell", "human", str(row[0]), CONFUSION[j - 2])
            if table.key == "lab_human_labels":
                return anchor("cell", "label", str(row[0]), str(row[1]))
            if table.key.startswith("lab_human_"):  # a confusion row opens that label's conversations
                return anchor("cell", "label", str(row[0]), table.key.removeprefix("lab_human_"))
            return None
        return link

    articles = {anchor("tr", k): _human_article(k, r, labels.get(k, {}), human.get(k), runs) for k, r in rollouts.items()}
    return _page(title, notes, tables, links, [("cells", "Cells", "".join(lists))], {"imported": articles}, heatmap)
