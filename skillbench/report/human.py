"""Report tables of agreement with human labels: when rows carry a person's pass/fail (the judge ``human`` of an
import), each other judge's verdict on the same conversation, the rule-based verdict and each rule check are
measured against it with the planted-defect lab's figures (accuracy, Cohen's κ, sensitivity, specificity,
balanced accuracy, bootstrap CIs). ``skillbench judges validate --run`` shows the same figures, from the same
function (:func:`skillbench.report.stats.label_agreement`) and the same cells (:func:`agreement_cells`)."""

from __future__ import annotations

from collections import defaultdict

from skillbench.core.records import RuleCheck
from skillbench.engine.results import HUMAN_JUDGE
from skillbench.report.build import ReportContext
from skillbench.report.stats import AGREEMENT_FIGURES, LabelAgreement, label_agreement
from skillbench.report.tables import Table, ci, num, pct, report_table

AGREEMENT_HEADERS = ["Accuracy %", "Accuracy 95% CI", "κ", "κ 95% CI", "Sensitivity %", "Sensitivity 95% CI",
                     "Specificity %", "Specificity 95% CI", "Balanced acc. %", "BA 95% CI"]
AGREEMENT_DATA_HEADERS = [column for name in AGREEMENT_FIGURES for column in (name, f"{name}_ci_low", f"{name}_ci_high")]
COUNT_HEADERS = ["Both pass", "Human pass, judge fail", "Human fail, judge pass", "Both fail"]
COUNT_DATA_HEADERS = ["both_pass", "human_pass_judge_fail", "human_fail_judge_pass", "both_fail"]
AGREEMENT_FOOTNOTE = (
    "Agreement with the human pass/fail labels, with the planted-defect lab's figures: a failure is the positive class, "
    "so sensitivity is the share of the conversations people failed that the verdict fails too, specificity the share "
    "they passed that it passes, balanced accuracy their mean; κ is Cohen's (— when undefined: one verdict for all). "
    "CIs: percentile bootstrap over {unit}; a figure with no conversation of its class is —.")
RULE_VERDICT = "rule-based verdict"


def agreement_cells(found: LabelAgreement) -> tuple[list[str], list[object]]:
    """The five figures of ``found`` with their CIs: display cells (AGREEMENT_HEADERS) and raw values
    (AGREEMENT_DATA_HEADERS), shown alike by the report and by ``judges validate --run``."""
    display: list[str] = []
    data: list[object] = []
    for name in AGREEMENT_FIGURES:
        value, (low, high) = found.figures[name], found.cis[name]
        if name == "kappa":
            display += [num(value), "—" if low is None or high is None else f"[{low:.2f}, {high:.2f}]"]
        else:
            display += [pct(value), ci(low, high)]
        data += [value, low, high]
    return display, data


def counts(found: LabelAgreement) -> list[int]:
    return [found.both_pass, found.reference_pass_verdict_fail, found.reference_fail_verdict_pass, found.both_fail]


class _Pairs:
    """(human label, verdict, bootstrap unit) triples of one compared verdict."""

    def __init__(self) -> None:
        self.human: list[bool] = []
        self.verdict: list[bool] = []
        self.units: list[int] = []

    def add(self, human: bool, verdict: bool, unit: int) -> None:
        self.human.append(human)
        self.verdict.append(verdict)
        self.units.append(unit)

    def agreement(self, ctx: ReportContext) -> LabelAgreement:
        return label_agreement(self.human, self.verdict, self.units, ctx.weights, ctx.level)


Labelled = tuple[str, bool, list[RuleCheck], bool | None, str]


def _labelled(ctx: ReportContext) -> dict[str, Labelled]:
    """rollout key → (agent label, the person's pass/fail, the row's rule checks, its rule-based verdict, its
    scenario id) of every human-labelled row; empty for a report read back from report.json (no rows)."""
    out: dict[str, Labelled] = {}
    for job in ctx.jobs:
        if not job.finished:
            continue
        agent, _judge = ctx.labels[job.path]
        for row in job.rows:
            if row.judge == HUMAN_JUDGE and row.passed is not None and row.rollout_key:
                out[row.rollout_key] = (agent, bool(row.passed), row.rule_checks, row.rule_passed, row.scenario_id)
    return out


@report_table("human_agreement", title="Agreement with human labels — each judge's pass/fail against the people's",
              order=55, latex=True)
def human_agreement(ctx: ReportContext) -> Table | None:
    """Each judge (and the panel, when rows carry one) and the rule-based verdict against the human labels of the
    same conversations (paired by rollout key)."""
    labelled = _labelled(ctx)
    if not labelled:
        return None
    position = ctx._position
    pairs: dict[tuple[str, str], _Pairs] = defaultdict(_Pairs)
    for agent, human, _checks, rule_passed, scenario in labelled.values():
        if rule_passed is not None:
            pairs[(agent, RULE_VERDICT)].add(human, bool(rule_passed), position[scenario])
    others = ctx.frame[(ctx.frame["judge"] != HUMAN_JUDGE) & ctx.frame["passed"].notna()]
    for key, judge, passed, scenario in zip(others["rollout_key"], others["judge_label"], others["passed"],
                                           others["scenario_id"], strict=True):
        if key in labelled:
            pairs[(labelled[key][0], judge)].add(labelled[key][1], bool(passed), position[scenario])
    table = Table(headers=["Agent", "Judge", "n", *COUNT_HEADERS, *AGREEMENT_HEADERS],
                  data_headers=["agent", "judge", "n", *COUNT_DATA_HEADERS, *AGREEMENT_DATA_HEADERS])
    order = sorted(pairs, key=lambda k: (k[0], k[1] == RULE_VERDICT, k[1]))
    for agent, judge in order:
        found = pairs[(agent, judge)].agreement(ctx)
        shown, raw = agreement_cells(found)
        table.display.append([agent, judge, str(found.n), *map(str, counts(found)), *shown])
        table.data.append([agent, judge, found.n, *counts(found), *raw])
    judged = len({j for _, j in pairs} - {RULE_VERDICT})
    table.footnotes.append(
        AGREEMENT_FOOTNOTE.format(unit="scenarios (each imported conversation is its own)")
        + f" {len(labelled)} conversations carry a human label; {judged} judge(s) gave verdicts on them"
        + ("" if judged else " (judge them with: skillbench judges validate judge=... --run <import folder>, then report "
           "both folders)") + ". The rule-based verdict fails a conversation on any hard rule-check failure.")
    return table


@report_table("human_rule_checks", title="Agreement with human labels — each rule check's pass/fail against the people's",
              order=56)
def human_rule_checks(ctx: ReportContext) -> Table | None:
    """Which rule check predicts the human label: each check that ran on a labelled conversation, as a verdict of its
    own (the check failed → the conversation fails)."""
    labelled = _labelled(ctx)
    if not labelled:
        return None
    position = ctx._position
    pairs: dict[tuple[str, str], _Pairs] = defaultdict(_Pairs)
    for agent, human, checks, _rule, scenario in labelled.values():
        for check in checks:
            pairs[(agent, check.name)].add(human, bool(check.passed), position[scenario])
    table = Table(headers=["Agent", "Rule check", "n", *COUNT_HEADERS, *AGREEMENT_HEADERS],
                  data_headers=["agent", "rule_check", "n", *COUNT_DATA_HEADERS, *AGREEMENT_DATA_HEADERS])
    for agent, name in sorted(pairs):
        found = pairs[(agent, name)].agreement(ctx)
        shown, raw = agreement_cells(found)
        table.display.append([agent, name, str(found.n), *map(str, counts(found)), *shown])
        table.data.append([agent, name, found.n, *counts(found), *raw])
    table.footnotes.append(AGREEMENT_FOOTNOTE.format(unit="scenarios") + " n: the labelled conversations the check ran "
                           "on (an import runs only the checks its data allows). 'Judge' in the counts is the check.")
    return table
