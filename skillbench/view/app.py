"""The textual app of ``skillbench view``: a filter line, the conversations as rows, and the selected one's
transcript, rule checks and each judge's reading side by side.

Keys: ``/`` filter, ``d`` disagreements only, ``v`` cycle the verdict filter, ``c`` clear the filter, ``Enter`` / arrows select, ``q`` quit.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Footer, Input, Static

from skillbench.report.transcripts import TranscriptFinder
from skillbench.view.data import (
    FILTER_HELP,
    VERDICTS,
    Conversation,
    ViewFilter,
    checks_text,
    judge_text,
    transcript_text,
)

MARK = {"pass": "✓", "fail": "✗", "error": "!"}


class ViewerApp(App[None]):
    """Rows on the left, the selected conversation on the right."""

    TITLE = "skillbench view"
    CSS = """
    #filter { height: 3; }
    #status { height: 1; color: $text-muted; }
    #main { height: 1fr; }
    #rows { width: 46%; }
    #detail { width: 54%; border-left: solid $primary; padding: 0 1; }
    #judges { height: auto; }
    .judge { width: 1fr; border: round $secondary; padding: 0 1; height: auto; }
    #transcript, #checks { margin-bottom: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("slash", "focus_filter", "Filter"),
        Binding("d", "toggle_disagree", "Disagreements"),
        Binding("v", "cycle_verdict", "Verdict"),
        Binding("c", "clear_filter", "Clear filter"),
        Binding("escape", "focus_rows", "Rows", show=False),
    ]

    def __init__(self, conversations: list[Conversation], finder: TranscriptFinder, initial: ViewFilter | None = None,
                 skipped: str = "") -> None:
        super().__init__()
        self.skipped = skipped  # what the loader left out, said in the status line (skillbench/view/data.py)
        self.conversations = conversations
        self.finder = finder
        self.filter = initial or ViewFilter()
        self.judges = sorted({name for c in conversations for name in c.judges})
        self.shown: list[Conversation] = []

    def compose(self) -> ComposeResult:
        yield Input(value=self.filter.text(), placeholder=FILTER_HELP, id="filter")
        yield Static(id="status")
        with Horizontal(id="main"):
            yield DataTable(id="rows", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="detail"):
                yield Static(id="transcript")
                yield Static(id="checks")
                yield Horizontal(id="judges")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#rows", DataTable)
        table.add_columns("Agent", *self.judges, "≠", "Path", "Trial", "Scenario")
        self.refresh_rows()
        table.focus()

    # Rows and filters.

    def refresh_rows(self) -> None:
        table = self.query_one("#rows", DataTable)
        table.clear()
        self.shown = [c for c in self.conversations if self.filter.matches(c)]
        for c in self.shown:
            verdicts = [MARK[c.judges[j].verdict] if j in c.judges else "" for j in self.judges]
            table.add_row(c.agent, *verdicts, "≠" if c.disagreement else "", c.path, str(c.trial), c.scenario_id, key=c.key)
        shown = self.filter.text() or "none"
        self.query_one("#status", Static).update(
            f"{len(self.shown)} of {len(self.conversations)} conversations · filter: {shown} · "
            + (f"not shown: {self.skipped} (listed on stderr) · " if self.skipped else "") +
            "/ filter  d disagreements  v verdict  c clear  q quit")
        if self.shown:
            self.show(self.shown[0])
        else:
            self.clear_detail()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            self.filter = ViewFilter.parse(event.value)
        except ValueError as exc:
            self.query_one("#status", Static).update(f"filter not applied: {exc}")
            return
        self.refresh_rows()
        self.query_one("#rows", DataTable).focus()

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_focus_rows(self) -> None:
        self.query_one("#rows", DataTable).focus()

    def _set_filter(self, new: ViewFilter) -> None:
        self.filter = new
        self.query_one("#filter", Input).value = new.text()
        self.refresh_rows()

    def action_toggle_disagree(self) -> None:
        self.filter.disagree = not self.filter.disagree
        self._set_filter(self.filter)

    def action_clear_filter(self) -> None:
        self._set_filter(ViewFilter())

    def action_cycle_verdict(self) -> None:
        cycle = ["", *VERDICTS]
        self.filter.verdict = cycle[(cycle.index(self.filter.verdict) + 1) % len(cycle)]
        self._set_filter(self.filter)

    # The selected conversation.

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value if event.row_key is not None else None
        chosen = next((c for c in self.shown if c.key == key), None)
        if chosen is not None:
            self.show(chosen)

    def clear_detail(self) -> None:
        self.query_one("#transcript", Static).update("no conversation matches the filter")
        self.query_one("#checks", Static).update("")
        self.query_one("#judges", Horizontal).remove_children()

    def show(self, conversation: Conversation) -> None:
        rollout, problem = self.finder.load(conversation.job, conversation.rollout_key)
        head = (f"{conversation.agent} — {conversation.scenario_id} (trial {conversation.trial}) · path {conversation.path} · "
                f"{conversation.industry} · {conversation.skill_id} · ended {conversation.termination} after {conversation.turns} turn(s)\n")
        text = Text(head, style="bold")
        text.append_text(transcript_text(rollout, problem))
        self.query_one("#transcript", Static).update(text)
        self.query_one("#checks", Static).update(checks_text(conversation))
        judges = self.query_one("#judges", Horizontal)
        judges.remove_children()
        judges.mount_all([Static(judge_text(reading), classes="judge") for _, reading in sorted(conversation.judges.items())])

