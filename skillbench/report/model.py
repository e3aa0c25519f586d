"""The machine-readable report (report.json): every table, statistic and caveat of one report."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

CellStatus = Literal["ok", "no_verdicts", "unfinished", "unreadable", "missing"]


class ReportRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")


class JobInfo(ReportRecord):
    path: str
    agent: str = Field(description="Agent label used in the tables.")
    judge: str = Field(description="Judge label used in the tables.")
    status: Literal["finished", "unfinished", "unreadable"]
    rows: int
    problems: list[str] = Field(default_factory=list)
    error_hint: str | None = Field(
        None, description="Last ERROR line of skillbench.log of a job that did not finish."
    )


class Cell(ReportRecord):
    """One agent × judge cell: coverage, pass rate and its bootstrap CI."""

    agent: str
    judge: str
    status: CellStatus
    scenarios: int = 0
    scored: int = Field(0, description="Rows with a verdict; judge and infra errors are not scored.")
    passed: int = 0
    judge_errors: int = 0
    infra_errors: int = 0
    model_errors: int = Field(0, description="Rows ended by the agent's unusable output: scored, as fails.")
    judge_error_reasons: dict[str, int] = Field(
        default_factory=dict, description="Judge errors by reason (cut_at_max_tokens, not_json, wrong_types, ...)."
    )
    redone_conversations: int = Field(
        0, description="Rows whose conversation hit an infrastructure error, was abandoned and redone in its run."
    )
    pass_rate: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    jobs: list[str] = Field(default_factory=list)
    note: str | None = None


class ModelRow(ReportRecord):
    """Table 1: one agent's pass rate under each judge, the rule-based rate and the mean over judges."""

    rank: int
    agent: str
    simulated: bool
    pass_rates: dict[str, float | None] = Field(
        description="Judge → pass rate (None: missing or no verdicts)."
    )
    rule_pass_rate: float | None
    rule_ci_low: float | None = None
    rule_ci_high: float | None = None
    rule_rollouts: int = Field(0, description="Rollouts with a rule verdict (infra errors excluded).")
    mean_pass_rate: float | None
    mean_ci_low: float | None = None
    mean_ci_high: float | None = None
    judges_in_mean: int


class RubricRow(ReportRecord):
    """Table 2: mean 1–5 score per rubric dimension, averaged over judges (and per judge)."""

    agent: str
    means: dict[str, float | None]
    hallucination_rate: float | None
    per_judge: dict[str, dict[str, float | None]] = Field(
        description="Judge → dimension → mean (plus hallucination_rate)."
    )
    scored: dict[str, int] = Field(description="Judge → rows with scores.")


class JudgePair(ReportRecord):
    """Table 3: agreement of two judges on the pass/fail verdict of the transcripts both judged."""

    judge_a: str
    judge_b: str
    n: int = Field(description="Transcripts both judges gave a verdict on.")
    agreement: float | None
    kappa: float | None
    note: str | None = Field(None, description="Why κ is undefined, when it is.")


class PanelAgreement(ReportRecord):
    judges: list[str]
    mean_agreement: float | None
    mean_kappa: float | None = Field(description="Mean of the defined pairwise κ values.")
    pairs_with_kappa: int
    fleiss_kappa: float | None
    fleiss_items: int = Field(
        description="Transcripts with a verdict from every judge (Fleiss needs complete items)."
    )
    krippendorff_alpha: float | None
    alpha_items: int = Field(description="Transcripts with verdicts from at least two judges.")


class ModelStrictness(ReportRecord):
    agent: str
    most_lenient: list[str]
    strictest: list[str]
    spread_points: float | None = Field(
        description="Highest minus lowest judge pass rate, in percentage points."
    )


class JudgeStrictness(ReportRecord):
    judge: str
    models: int = Field(description="Models this judge scored that at least one other judge also scored.")
    strictest_for: int
    most_lenient_for: int
    mean_offset_points: float | None = Field(
        description="Mean of (judge's rate − the model's mean over judges), points."
    )


class RankingPair(ReportRecord):
    judge_a: str
    judge_b: str
    models: int
    tau: float | None


class RankingStability(ReportRecord):
    pairs: list[RankingPair]
    mean_tau: float | None
    top_by_judge: dict[str, list[str]]
    top_by_mean: list[str]
    same_top_under_every_judge: bool | None = Field(
        description="A model is top (ties included) under every judge."
    )


class AdjacentDifference(ReportRecord):
    higher: str
    lower: str
    difference: float = Field(description="Difference of mean pass rates over judges (fraction).")
    ci_low: float | None
    ci_high: float | None
    excludes_zero: bool | None


class BootstrapInfo(ReportRecord):
    draws: int
    seed: int
    level: float
    unit: str = "scenario"
    scenarios: int


class TrialRate(ReportRecord):
    """Repeated trials: one agent × judge at one k (docs/reports.md "Repeated trials")."""

    agent: str
    judge: str
    k: int
    trials: int = Field(description="Trials per scenario the cell's runs asked for (run.trials).")
    max_k: int | None = Field(None, description="The largest k estimated: the fewest scored trials of any scenario of "
                              "the cell (τ²-bench's cap); the estimates of a larger k are null.")
    scenarios: int = Field(description="Scenarios every k of the cell averages over: those with a scored trial (the "
                                       "scenarios of its Table 1 rate).")
    short: dict[str, int] = Field(default_factory=dict, description="Scenarios with fewer scored trials than `trials` → "
                                  "their scored trials: what set max_k.")
    pass_hat_k: float | None = Field(description="Mean over scenarios of C(c,k)/C(n,k): all of k trials pass.")
    pass_hat_k_ci_low: float | None = None
    pass_hat_k_ci_high: float | None = None
    pass_at_k: float | None = Field(description="Mean over scenarios of 1 − C(n−c,k)/C(n,k): one of k trials passes.")
    pass_at_k_ci_low: float | None = None
    pass_at_k_ci_high: float | None = None
    consistency: float | None = Field(description="Share of the scenarios whose scored trials all agree (null when "
                                                  "some scenario has fewer than 2 scored trials).")
    consistency_ci_low: float | None = None
    consistency_ci_high: float | None = None


class GroupRate(ReportRecord):
    """One agent × judge on one group of scenarios (a path, an industry, a skill): its pass rate with CI, the rate on
    the agent's other scenarios under that judge, and whether the group is significantly worse (docs/reports.md)."""

    breakdown: Literal["path", "industry", "skill"]
    agent: str
    judge: str
    group: str
    n: int = Field(description="Scored rows of the group (judge and infrastructure errors left out; with trials, every "
                               "scored trial).")
    pass_rate: float | None = Field(description="Passes over the group's scored rows.")
    ci_low: float | None
    ci_high: float | None
    rest_pass_rate: float | None = Field(description="Pass rate over the scored rows of the agent's other scenarios under "
                                                     "this judge (the same unit as pass_rate).")
    rest_n: int | None = Field(None, description="Scored rows of the agent's other scenarios under this judge.")
    scenarios: int | None = Field(None, description="Scenarios of the group with a scored row: the test's units (with "
                                                    "trials, each by the majority of its trials).")
    rest_scenarios: int | None = Field(None, description="Scenarios of the rest with a scored row: the test's other units.")
    p_holm: float | None = Field(description="One-sided Fisher exact p (group below the rest), Holm-adjusted over the "
                                             "groups of this agent × judge and breakdown.")
    significantly_worse: bool


class HumanAgreement(ReportRecord):
    """A verdict (a judge, the panel, the rule-based verdict or one rule check) against people's pass/fail labels of
    the same conversations. A failure is the positive class (sensitivity: people's fails the verdict fails too)."""

    agent: str
    verdict: str = Field(description="The judge label, 'rule-based verdict', or a rule check's name.")
    kind: Literal["judge", "rule_verdict", "rule_check"]
    n: int
    both_pass: int
    human_pass_verdict_fail: int
    human_fail_verdict_pass: int
    both_fail: int
    figures: dict[str, float | None] = Field(description="accuracy, kappa, sensitivity, specificity, balanced_accuracy.")
    cis: dict[str, tuple[float | None, float | None]] = Field(description="The same figures' bootstrap CIs.")


class Report(ReportRecord):
    title: str
    generated_at: str
    sources: list[str]
    simulated: bool = Field(
        description="Some agent is an offline simulated model (not a real model's result)."
    )
    pass_rules: list[str]
    agents: list[str] = Field(description="Agent labels in Table 1 order (mean over judges, best first).")
    judges: list[str]
    jobs: list[JobInfo]
    cells: list[Cell]
    table1: list[ModelRow]
    table2: list[RubricRow]
    table3: list[JudgePair]
    panel: PanelAgreement
    strictness_models: list[ModelStrictness]
    strictness_judges: list[JudgeStrictness]
    ranking: RankingStability
    adjacent: list[AdjacentDifference]
    bootstrap: BootstrapInfo
    counts: dict[str, int] = Field(
        description="rows, scored, judge_errors, infra_errors, duplicates_dropped, jobs..."
    )
    notes: list[str]
    rescore: dict | None = Field(
        None, description="Set by `skillbench rescore`: the rule applied and before/after."
    )
    breakdowns: list[GroupRate] = Field(
        default_factory=list, description="Pass rates by scenario path, industry and skill per agent × judge."
    )
    trials: list[TrialRate] = Field(
        default_factory=list, description="pass^k and pass@k per agent × judge × k (empty without repeated trials)."
    )
    human_agreement: list[HumanAgreement] = Field(
        default_factory=list, description="Each verdict against people's labels, when rows carry them (imports)."
    )
    # The ReportContext that built it, so tables can reach the rows and cached parts (never serialised).
    _context: Any = PrivateAttr(default=None)

    def cell(self, agent: str, judge: str) -> Cell:
        return next(c for c in self.cells if c.agent == agent and c.judge == judge)
