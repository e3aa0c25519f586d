"""The report's tables as plain rows (header + cells), shared by Markdown, CSV, LaTeX and HTML.

Tables are an extension point: ``@report_table(key=..., title=..., order=...)`` registers a function
``(ctx: ReportContext) -> Table | None``; every output lists the registered tables in order
(see docs/extending-reports.md).
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from tabulate import tabulate

from skillbench.core.guest import fault_of
from skillbench.core.plugins import load_plugins
from skillbench.core.registry import Registry
from skillbench.core.rubric import DIMENSION_NAMES, DIMENSIONS
from skillbench.engine.results import JobSummary
from skillbench.report.build import ReportContext
from skillbench.report.model import Cell
from skillbench.report.rows import RowsUnavailable

DIMENSION_HEADERS = {d.name: d.header for d in DIMENSIONS}
# Cell text for cells without a rate: the reason, never a blank or a zero.
STATUS_TEXT = {
    "missing": "missing",
    "unfinished": "unfinished",
    "unreadable": "unreadable",
    "no_verdicts": "no verdicts",
}


@dataclass
class Table:
    """A titled table. ``display`` rows are formatted for people; ``data`` rows keep raw numbers.

    A table function leaves ``key``, ``title`` (unless it depends on the data) and the output flags
    to its registration, which fills them in.
    """

    key: str = ""
    title: str = ""
    headers: list[str] = field(default_factory=list)
    display: list[list[str]] = field(default_factory=list)
    data: list[list[object]] = field(default_factory=list)
    footnotes: list[str] = field(default_factory=list)
    data_headers: list[str] | None = None  # machine-readable layout, when it differs from the display one
    latex: bool = False  # in tables.tex
    terminal: bool = True  # in report.md and the terminal (every table is in CSV, JSON and HTML)

    @property
    def columns(self) -> list[str]:
        return self.data_headers or self.headers


logger = logging.getLogger(__name__)

TableFunction = Callable[[ReportContext], Table | None]


@dataclass(frozen=True)
class TableSpec:
    """A registered table: how to compute it and which outputs show it."""

    key: str
    title: str
    function: TableFunction
    latex: bool
    terminal: bool
    order: float
    plugin: bool = False  # an installed plug-in's table: guest code (docs/extending-reports.md)

    def build(self, context: ReportContext) -> Table | None:
        table = self._computed(context)
        if table is None:
            return None
        return replace(
            table, key=self.key, title=table.title or self.title, latex=self.latex, terminal=self.terminal
        )

    def _computed(self, context: ReportContext) -> Table | None:
        """The function's table. A plug-in's table that raises (SystemExit included) or returns something else
        is the plug-in's fault, not the report's: it is left out, and a one-row table in its place says why."""
        if not self.plugin:
            return self.function(context)
        try:
            table = self.function(context)
        except RowsUnavailable:
            raise
        except (Exception, SystemExit) as exc:  # a real Ctrl-C (KeyboardInterrupt) still stops the report
            return self._left_out(f"its code raised {fault_of(exc).line()}")
        if table is not None and not isinstance(table, Table):
            return self._left_out(f"its code returned {type(table).__name__}, not a Table or None")
        return table

    def _left_out(self, why: str) -> Table:
        line = f"report table {self.key} left out: {why}"
        if line not in _SAID:  # one line per process, however many outputs build the tables
            _SAID.add(line)
            print(f"skillbench: {line}", file=sys.stderr, flush=True)
        return Table(headers=["left out"], display=[[line]], data=[[line]],
                     footnotes=["A plug-in's table; the rest of the report is complete."])


TABLES: Registry[TableSpec] = Registry("report table")
_SAID: set[str] = set()  # the left-out lines already printed


def report_table(
    key: str, *, title: str, order: float, latex: bool = False, terminal: bool = True
) -> Callable[[TableFunction], TableFunction]:
    """Register ``(ctx) -> Table | None`` as a report table (None: does not apply to this report).

    ``key`` names the CSV file and the HTML anchor; ``order`` places it among the others;
    ``latex`` puts it in tables.tex; ``terminal=False`` keeps it out of report.md and the terminal.
    """

    def decorator(function: TableFunction) -> TableFunction:
        name = TABLES.registered_name(key)  # a plug-in's table: '<namespace>/<key>'
        # The key names a file and an HTML anchor: a plug-in's namespace is joined with a dot there.
        TABLES.register(name)(TableSpec(name.replace("/", "."), title, function, latex, terminal, order,
                                        plugin="/" in name))
        return function

    return decorator


# The built-in table families kept in modules of their own (each registers its tables on import). A new
# family is a module of report/ written as docs/extending-reports.md shows, plus its name here.
TABLE_FAMILIES: tuple[str, ...] = (
    "skillbench.report.breakdowns", "skillbench.report.human", "skillbench.report.judge_errors",
    "skillbench.report.panel_verdicts", "skillbench.report.trial_tables",
)


def load_table_families() -> None:
    """Import every built-in table family, so :data:`TABLES` holds all built-in tables."""
    for family in TABLE_FAMILIES:
        importlib.import_module(family)


def all_tables(context: ReportContext) -> list[Table]:
    """Every registered table that applies to this report, in order.

    A table that needs rows of a report read back from report.json whose job folders are gone is left out
    (logged); built-in and plug-in tables are treated alike (docs/extending-reports.md).
    """
    load_table_families()
    load_plugins()  # installed plug-ins' tables too
    specs = sorted((TABLES.get(name) for name in TABLES), key=lambda spec: (spec.order, spec.key))
    tables: list[Table] = []
    for spec in specs:
        try:
            table = spec.build(context)
        except RowsUnavailable as exc:
            logger.warning("report table %s left out: %s", spec.key, exc)
            continue
        if table is not None:
            tables.append(table)
    return tables


def looks_numeric(text: str) -> bool:
    """A display cell that should be right-aligned: a number, possibly marked, or a dash for none."""
    core = text.replace(" †", "").replace(" *", "").strip()
    try:
        float(core)
    except ValueError:
        return core in {"—", ""}
    return True


_MD_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "\\|", "`": "\\`"}


def md_escape(text: object) -> str:
    """Text from data (agent names, scenario ids, notes, imported fields) made inert in Markdown: no HTML tag, no
    table break, no code span, no link or image. Viewers that pass HTML through show it as text."""
    escaped = "".join(_MD_ESCAPES.get(ch, ch) for ch in str(text))
    return escaped.replace("](", "]\\(")


def markdown_table(rows: list[list[str]], headers: list[str]) -> str:
    """GitHub Markdown with numeric columns right-aligned; cells are shown as formatted, their markup escaped."""
    rows = [[md_escape(cell) for cell in row] for row in rows]
    headers = [md_escape(header) for header in headers]
    align = [
        "right"
        if all(looks_numeric(str(r[j])) for r in rows)
        and any(str(r[j]).strip() not in {"", "—"} for r in rows)
        else "left"
        for j in range(len(headers))
    ]
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True, colalign=align)


def pct(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value * 100:.{digits}f}"


def num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def ci(low: float | None, high: float | None) -> str:
    return "—" if low is None or high is None else f"[{low * 100:.1f}, {high * 100:.1f}]"


def cell_text(cell: Cell) -> str:
    if cell.pass_rate is None:
        return STATUS_TEXT.get(cell.status, cell.status)
    errors = " †" if cell.judge_errors or cell.infra_errors else ""
    return pct(cell.pass_rate) + errors


@report_table("table1", title="Table 1 — pass rate (%) per agent × judge", order=10, latex=True)
def table1(ctx: ReportContext) -> Table:
    headers = ["#", "Agent", *ctx.judges, "Rule", "Mean", "Mean 95% CI"]
    display, data = [], []
    partial = False
    for row in ctx.table1:
        cells = [ctx.cell(row.agent, j) for j in ctx.judges]
        mark = ""
        if row.mean_pass_rate is not None and row.judges_in_mean < len(ctx.member_judges):
            mark, partial = " *", True
        display.append(
            [
                str(row.rank),
                row.agent + (" (sim)" if row.simulated else ""),
                *[cell_text(c) for c in cells],
                pct(row.rule_pass_rate),
                pct(row.mean_pass_rate) + mark,
                ci(row.mean_ci_low, row.mean_ci_high),
            ]
        )
        data.append(
            [
                row.rank,
                row.agent,
                *[c.pass_rate if c.pass_rate is not None else c.status for c in cells],
                row.rule_pass_rate,
                row.mean_pass_rate,
                row.mean_ci_low,
                row.mean_ci_high,
            ]
        )
    columns = [
        "rank",
        "agent",
        *ctx.judges,
        "rule_pass_rate",
        "mean_pass_rate",
        "mean_ci_low",
        "mean_ci_high",
    ]
    notes = ["Pass rate in %; judge and infrastructure errors are excluded from rates (see Coverage)."]
    if any(c.judge_errors or c.infra_errors for c in ctx.cells):
        notes.append("† the cell has judge or infrastructure errors, excluded from its rate.")
    if partial:
        notes.append("* mean over the judges with a rate only (some cells are missing or have no verdicts).")
    notes.append("Rule: rule-based pass rate (no hard rule-check failure), one verdict per rollout.")
    if ctx.panel_judges:
        notes.append(f"{', '.join(ctx.panel_judges)}: panel verdicts (a vote of the judges' verdicts), not in the Mean.")
    outside = [judge for judge in ctx.human_judges if judge not in ctx.member_judges]
    if outside:
        notes.append(f"{', '.join(outside)}: people's labels, the reference of the human-agreement tables, not in the Mean.")
    return Table(
        headers=headers,
        display=display,
        data=data,
        footnotes=notes,
        data_headers=columns,
    )


@report_table("coverage", title="Coverage — rows, verdicts and errors per cell", order=20)
def coverage(ctx: ReportContext) -> Table:
    headers = [
        "Agent",
        "Judge",
        "Status",
        "Scenarios",
        "Scored",
        "Passed",
        "Judge errors",
        "Infra errors",
        "Model errors (scored as fails)",
        "Redone after infra errors",
        "Note",
    ]
    display, data = [], []
    for agent in ctx.agents:
        for judge in ctx.judges:
            c = ctx.cell(agent, judge)
            values = [
                agent,
                judge,
                c.status,
                c.scenarios,
                c.scored,
                c.passed,
                c.judge_errors,
                c.infra_errors,
                c.model_errors,
                c.redone_conversations,
                c.note or "",
            ]
            data.append(values)
            display.append([str(v) for v in values])
    return Table(headers=headers, display=display, data=data)


@report_table(
    "table2", title="Table 2 — mean rubric score (1–5) per agent, averaged over judges", order=30, latex=True
)
def table2(ctx: ReportContext) -> Table:
    headers = ["Agent", *[DIMENSION_HEADERS[d] for d in DIMENSION_NAMES], "Hallucinated %", "Judges"]
    display, data = [], []
    for row in ctx.table2:
        means = [row.means[d] for d in DIMENSION_NAMES]
        display.append(
            [row.agent, *[num(m) for m in means], pct(row.hallucination_rate), str(len(row.per_judge))]
        )
        data.append([row.agent, *means, row.hallucination_rate, len(row.per_judge)])
    return Table(
        headers=headers,
        display=display,
        data=data,
        footnotes=[
            "Rows with a judge error have no scores and are left out; per-judge means are in table2_per_judge."
        ],
    )


@report_table(
    "table2_per_judge", title="Table 2 per judge — mean rubric score (1–5)", order=40, terminal=False
)
def table2_per_judge(ctx: ReportContext) -> Table:
    headers = [
        "Agent",
        "Judge",
        "Scored",
        *[DIMENSION_HEADERS[d] for d in DIMENSION_NAMES],
        "Hallucinated %",
    ]
    display, data = [], []
    for row in ctx.table2:
        for judge, values in row.per_judge.items():
            means = [values.get(d) for d in DIMENSION_NAMES]
            display.append(
                [
                    row.agent,
                    judge,
                    str(row.scored.get(judge, 0)),
                    *[num(m) for m in means],
                    pct(values.get("hallucination_rate")),
                ]
            )
            data.append(
                [row.agent, judge, row.scored.get(judge, 0), *means, values.get("hallucination_rate")]
            )
    return Table(headers=headers, display=display, data=data)


@report_table("table3", title="Table 3 — judge agreement on the pass/fail verdict", order=50, latex=True)
def table3(ctx: ReportContext) -> Table:
    headers = ["Judge A", "Judge B", "Shared", "Agreement %", "Cohen's κ", "Note"]
    display, data = [], []
    for p in ctx.table3:
        display.append([p.judge_a, p.judge_b, str(p.n), pct(p.agreement), num(p.kappa, 3), p.note or ""])
        data.append([p.judge_a, p.judge_b, p.n, p.agreement, p.kappa, p.note or ""])
    panel = ctx.panel
    display.append(
        [
            "Mean over pairs",
            "",
            "",
            pct(panel.mean_agreement),
            num(panel.mean_kappa, 3),
            f"{panel.pairs_with_kappa} pair(s) with κ",
        ]
    )
    data.append(["mean", "", "", panel.mean_agreement, panel.mean_kappa, ""])
    notes = [
        f"Fleiss' κ = {num(panel.fleiss_kappa, 3)} over {panel.fleiss_items} transcript(s) judged by all {len(panel.judges)} judges; "
        f"Krippendorff's α (nominal) = {num(panel.krippendorff_alpha, 3)} over {panel.alpha_items} transcript(s) judged by ≥ 2.",
        "κ is undefined (—) when both judges gave one same verdict to every shared transcript; see docs/reports.md.",
    ]
    return Table(
        headers=headers,
        display=display,
        data=data,
        footnotes=notes,
    )


@report_table("strictness_models", title="Judge strictness per agent", order=60)
def strictness_models(ctx: ReportContext) -> Table:
    headers = ["Agent", "Most lenient judge", "Strictest judge", "Spread (points)"]
    display, data = [], []
    for s in ctx.strictness_models:
        display.append(
            [
                s.agent,
                ", ".join(s.most_lenient) or "—",
                ", ".join(s.strictest) or "—",
                num(s.spread_points, 1),
            ]
        )
        data.append([s.agent, ";".join(s.most_lenient), ";".join(s.strictest), s.spread_points])
    return Table(headers=headers, display=display, data=data)


@report_table("strictness_judges", title="Judge strictness per judge", order=70)
def strictness_judges(ctx: ReportContext) -> Table:
    headers = ["Judge", "Models", "Strictest for", "Most lenient for", "Mean offset (points)"]
    display, data = [], []
    for s in ctx.strictness_judges:
        display.append(
            [
                s.judge,
                str(s.models),
                str(s.strictest_for),
                str(s.most_lenient_for),
                num(s.mean_offset_points, 1),
            ]
        )
        data.append([s.judge, s.models, s.strictest_for, s.most_lenient_for, s.mean_offset_points])
    return Table(
        headers=headers,
        display=display,
        data=data,
        footnotes=[
            "Ties count for every tied judge. Offset: judge's pass rate minus the agent's mean over judges."
        ],
    )


@report_table("ranking", title="Ranking stability — Kendall's τ between judges' agent rankings", order=80)
def ranking(ctx: ReportContext) -> Table:
    headers = ["Judge A", "Judge B", "Models", "Kendall τ"]
    display = [[p.judge_a, p.judge_b, str(p.models), num(p.tau, 3)] for p in ctx.ranking.pairs]
    data: list[list[object]] = [[p.judge_a, p.judge_b, p.models, p.tau] for p in ctx.ranking.pairs]
    r = ctx.ranking
    same = {True: "yes", False: "no", None: "n/a (fewer than two judges with rates)"}[
        r.same_top_under_every_judge
    ]
    tops = "; ".join(f"{j}: {', '.join(m)}" for j, m in r.top_by_judge.items()) or "—"
    notes = [
        f"Mean τ over pairs: {num(r.mean_tau, 3)}.",
        f"Top agent by mean: {', '.join(r.top_by_mean) or '—'}. Top per judge: {tops}.",
        f"Same top agent under every judge: {same}.",
    ]
    return Table(
        headers=headers,
        display=display,
        data=data,
        footnotes=notes,
    )


@report_table("uncertainty", title="Uncertainty — pass rate (%) with bootstrap CI", order=90)
def uncertainty(ctx: ReportContext) -> Table:
    headers = ["Agent", *ctx.judges, "Rule", "Mean"]
    display, data = [], []
    for row in ctx.table1:
        cells = [ctx.cell(row.agent, j) for j in ctx.judges]
        display.append(
            [
                row.agent,
                *[
                    f"{pct(c.pass_rate)} {ci(c.ci_low, c.ci_high)}"
                    if c.pass_rate is not None
                    else cell_text(c)
                    for c in cells
                ],
                f"{pct(row.rule_pass_rate)} {ci(row.rule_ci_low, row.rule_ci_high)}",
                f"{pct(row.mean_pass_rate)} {ci(row.mean_ci_low, row.mean_ci_high)}",
            ]
        )
        for label, rate, low, high in [
            *[(c.judge, c.pass_rate, c.ci_low, c.ci_high) for c in cells],
            ("rule", row.rule_pass_rate, row.rule_ci_low, row.rule_ci_high),
            ("mean", row.mean_pass_rate, row.mean_ci_low, row.mean_ci_high),
        ]:
            data.append([row.agent, label, rate, low, high])
    b = ctx.bootstrap
    return Table(
        title=f"Uncertainty — pass rate (%) with {b.level:.0%} bootstrap CI",
        headers=headers,
        display=display,
        data=data,
        footnotes=[
            f"Percentile bootstrap over {b.scenarios} scenario(s), {b.draws} draws, seed {b.seed}; "
            "one set of draws for all cells."
        ],
        data_headers=["agent", "judge", "pass_rate", "ci_low", "ci_high"],
    )


@report_table(
    "adjacent",
    title="Differences between adjacent agents (mean pass rate over judges)",
    order=100,
    latex=True,
)
def adjacent(ctx: ReportContext) -> Table:
    headers = ["Higher", "Lower", "Δ (points)", "95% CI", "CI excludes 0"]
    columns = ["higher", "lower", "difference", "ci_low", "ci_high", "excludes_zero"]
    display, data = [], []
    for d in ctx.adjacent:
        yes = {True: "yes", False: "no", None: "—"}[d.excludes_zero]
        display.append([d.higher, d.lower, num(d.difference * 100, 1), ci(d.ci_low, d.ci_high), yes])
        data.append([d.higher, d.lower, d.difference, d.ci_low, d.ci_high, d.excludes_zero])
    return Table(
        headers=headers,
        display=display,
        data=data,
        footnotes=["Paired bootstrap: both agents use the same scenario draws."],
        data_headers=columns,
    )


@report_table("rescore", title="Rescore — pass rate before and after the new pass rule", order=0)
def rescore_table(ctx: ReportContext) -> Table | None:
    """Before/after of `skillbench rescore`, per job."""
    if not ctx.rescore:
        return None
    headers = [
        "Agent",
        "Judge",
        "Rule before",
        "Rule after",
        "Scored",
        "Before %",
        "After %",
        "Pass→fail",
        "Fail→pass",
    ]
    columns = [
        "agent",
        "judge",
        "pass_rule_before",
        "pass_rule_after",
        "scored",
        "pass_rate_before",
        "pass_rate_after",
        "pass_to_fail",
        "fail_to_pass",
    ]
    changes = ctx.rescore.get("changes", [])
    display = [
        [c["agent"], c["judge"], str(c["pass_rule_before"]), str(c["pass_rule_after"]), str(c["scored"]),
         pct(c["pass_rate_before"]), pct(c["pass_rate_after"]), str(c["pass_to_fail"]), str(c["fail_to_pass"])]
        for c in changes
    ]  # fmt: skip
    data: list[list[object]] = [[c[k] for k in columns] for c in changes]
    return Table(
        headers=headers,
        display=display,
        data=data,
        footnotes=["No model calls: the stored rule checks and judge scores were re-evaluated."],
        data_headers=columns,
    )


@report_table("cost", title="Cost, tokens and time per agent × judge", order=110)
def cost_table(ctx: ReportContext) -> Table | None:
    """What each cell cost to run, from its jobs' summary.json (calls per role, tokens, dollars, wall time).

    Reused conversations and verdicts cost nothing and are counted as cache hits: in a sweep the
    agent's conversations are paid by the first judge's job only.
    """
    summaries = _job_summaries(ctx)
    if summaries is None:
        return None
    roles = ("agent", "user", "judge", "mock")
    cells: dict[tuple[str, str], dict[str, float]] = {}
    unfinished: dict[tuple[str, str], int] = {}
    for label, summary in summaries:
        if summary is None:
            unfinished[label] = unfinished.get(label, 0) + 1
            continue
        totals = cells.setdefault(label, {})
        for role in roles:
            usage = summary.usage.get(role)
            totals[role] = totals.get(role, 0) + (usage.calls if usage else 0)
        for name, value in (
            ("cache_hits", summary.cache_hits), ("failed_attempts", summary.failed_attempts),
            ("prompt_tokens", summary.prompt_tokens), ("cached_prompt_tokens", summary.cached_prompt_tokens),
            ("completion_tokens", summary.completion_tokens),
            ("cost_usd", summary.cost_usd), ("wall_time_s", summary.wall_time_s), ("jobs", 1),
        ):
            totals[name] = totals.get(name, 0) + value
    shown_roles = [r for r in roles if r != "mock" or any(t.get("mock") for t in cells.values())]
    headers = ["Agent", "Judge", *[f"Calls {r}" for r in shown_roles], "Cache hits", "Failed requests",
               "Prompt tokens", "Cached prompt tokens", "Completion tokens", "Cost $", "Wall time s"]
    columns = ["agent", "judge", *[f"calls_{r}" for r in shown_roles], "cache_hits", "failed_requests",
               "prompt_tokens", "cached_prompt_tokens", "completion_tokens", "cost_usd", "wall_time_s"]
    keys = [*shown_roles, "cache_hits", "failed_attempts", "prompt_tokens", "cached_prompt_tokens", "completion_tokens",
            "cost_usd", "wall_time_s"]
    display: list[list[str]] = []
    data: list[list[object]] = []
    grand: dict[str, float] = {}

    def shown(values: dict[str, float]) -> list[str]:
        ints = [f"{int(values.get(k, 0)):,}" for k in keys[:-2]]
        return [*ints, f"{values.get('cost_usd', 0):.4f}", f"{values.get('wall_time_s', 0):.1f}"]

    agents = sorted({agent for (agent, _), _ in summaries})
    judges = sorted({judge for (_, judge), _ in summaries})
    for agent in agents:
        for judge in judges:
            totals = cells.get((agent, judge))
            if totals is None:
                if (agent, judge) in unfinished:
                    display.append([agent, judge, *["unfinished"] * len(keys)])
                    data.append([agent, judge, *[None] * len(keys)])
                continue
            for key in keys:
                grand[key] = grand.get(key, 0) + totals.get(key, 0)
            display.append([agent, judge, *shown(totals)])
            data.append([agent, judge, *[totals.get(k, 0) for k in keys]])
    if len(cells) > 1:
        display.append(["total", "", *shown(grand)])
        data.append(["total", "", *[grand.get(k, 0) for k in keys]])
    notes = [
        "From each job's summary.json: calls answered per role, tokens and dollars as litellm reported them "
        "(self-hosted models at $0; cached prompt tokens at the provider's cached rate), wall time of the job.",
        "Reused conversations and verdicts are cache hits and cost nothing: the agent's conversations are paid by "
        "the first job that needed them.",
    ]
    if unfinished:
        notes.append("unfinished: the job has no summary.json (stopped, interrupted or crashed); what it spent is "
                     "not counted here.")
    models = _role_models([summary for _, summary in summaries if summary is not None])
    if models:
        notes.append("Models per role (config: model string; what the servers reported answering): " + models + ".")
    return Table(headers=headers, display=display, data=data, footnotes=notes, data_headers=columns)


def _role_models(summaries: list[JobSummary]) -> str:
    """'user cpu_user: hosted_vllm/smollm2-135m (answered: smollm2-135m (b0-unknown)); ...' for every role."""
    seen: dict[str, dict[str, set[str]]] = {}
    for summary in summaries:
        for role, name, model in (("agent", summary.agent, summary.agent_model), ("user", summary.user_sim,
                                  summary.user_sim_model), ("judge", summary.judge, summary.judge_model),
                                  ("mock", summary.mock, summary.mock_model)):
            if model:
                cap = summary.max_tokens.get(role)
                label = f"{name}: {model}" + (f", max_tokens {cap}" if cap is not None else "")
                answered = seen.setdefault(role, {}).setdefault(label, set())
                answered.update(summary.served_by.get(role, []))
    return "; ".join(
        f"{role} {label}" + (f" (answered: {', '.join(sorted(answered))})" if answered else "")
        for role, labels in seen.items() for label, answered in sorted(labels.items())
    )


@report_table("prompt_cache", title="Prompt caching — share of prompt tokens read from the provider's cache, per model",
              order=115)
def prompt_cache_table(ctx: ReportContext) -> Table | None:
    """Per role and model: prompt tokens billed, those served from the provider's prompt cache, and their share.

    Agent requests keep a byte-identical prefix (tool list, then the skill's system prompt) across the turns
    and scenarios of a skill, so providers with prompt caching bill most of it at their cached rate.
    """
    summaries = _job_summaries(ctx)
    if summaries is None:
        return None
    totals: dict[tuple[str, str, str], list[int]] = {}
    for _label, summary in summaries:
        if summary is None:
            continue
        models = {"agent": (summary.agent, summary.agent_model), "judge": (summary.judge, summary.judge_model),
                  "user": (summary.user_sim, summary.user_sim_model or ""), "mock": (summary.mock, summary.mock_model or "")}
        for role, usage in summary.usage.items():
            if not usage.prompt_tokens or role not in models:
                continue
            name, model = models[role]
            line = totals.setdefault((role, name, model), [0, 0, 0])
            line[0] += usage.calls
            line[1] += usage.prompt_tokens
            line[2] += usage.cached_prompt_tokens
    if not totals:
        return None
    display: list[list[str]] = []
    data: list[list[object]] = []
    for (role, name, model), (calls, prompt, cached) in sorted(totals.items()):
        share = cached / prompt if prompt else None
        display.append([role, name, model, f"{calls:,}", f"{prompt:,}", f"{cached:,}",
                        "—" if share is None else f"{100 * share:.1f}"])
        data.append([role, name, model, calls, prompt, cached, share])
    return Table(
        headers=["Role", "Config", "Model", "Calls", "Prompt tokens", "Cached prompt tokens", "Cached %"],
        data_headers=["role", "config", "model", "calls", "prompt_tokens", "cached_prompt_tokens", "cached_share"],
        display=display, data=data,
        footnotes=["Cached prompt tokens as the provider reported them (prompt_tokens_details.cached_tokens, through "
                   "litellm); 0 where the provider or server has no prompt cache. Reused conversations and verdicts "
                   "are not counted: they made no request."],
    )


def _job_summaries(ctx: ReportContext) -> list[tuple[tuple[str, str], JobSummary | None]] | None:
    """(agent, judge) label and summary of each job (a report read back from report.json re-reads its jobs)."""
    return [(ctx.labels[job.path], job.summary) for job in ctx.jobs]
