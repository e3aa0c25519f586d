"""Report tables of agreement with human labels: when rows carry a person's pass/fail (the judge ``human`` of an
import), each other judge's verdict on the same conversation, the rule-based verdict and each rule check are
measured against it with the planted-defect lab's figures (accuracy, Cohen's κ, sensitivity, specificity,
balanced accuracy, bootstrap CIs). ``skillbench judges validate --run`` shows the same figures, from the same
function (:func:`skillbench.report.stats.label_agreement`) and the same cells (:func:`agreement_cells`). The records
are computed by ``skillbench/report/figures/human.py`` (``ctx.human_agreement``)."""

from __future__ import annotations

from skillbench.report.build import ReportContext
from skillbench.report.model import HumanAgreement
from skillbench.report.stats import AGREEMENT_FIGURES, LabelAgreement
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
    "CIs: accuracy, sensitivity, specificity and balanced accuracy exact (Clopper–Pearson) at the effective sample "
    "size, κ percentile bootstrap, the clusters {unit}; a figure with no conversation of its class is —.")


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


def _as_found(record: HumanAgreement) -> LabelAgreement:
    return LabelAgreement(record.n, record.both_pass, record.human_pass_verdict_fail, record.human_fail_verdict_pass,
                          record.both_fail, record.figures, {k: (v[0], v[1]) for k, v in record.cis.items()})


def _agreement_table(records: list[HumanAgreement], header: str, column: str) -> Table:
    table = Table(headers=["Agent", header, "n", *COUNT_HEADERS, *AGREEMENT_HEADERS],
                  data_headers=["agent", column, "n", *COUNT_DATA_HEADERS, *AGREEMENT_DATA_HEADERS])
    for record in records:
        found = _as_found(record)
        shown, raw = agreement_cells(found)
        table.display.append([record.agent, record.verdict, str(found.n), *map(str, counts(found)), *shown])
        table.data.append([record.agent, record.verdict, found.n, *counts(found), *raw])
    return table


@report_table("human_agreement", title="Agreement with human labels — each judge's pass/fail against the people's",
              order=55, latex=True)
def human_agreement(ctx: ReportContext) -> Table | None:
    """Each judge (and the panel, when rows carry one) and the rule-based verdict against the human labels."""
    records = [r for r in ctx.human_agreement if r.kind != "rule_check"]
    if not records:
        return None
    table = _agreement_table(records, "Judge", "judge")
    judged = len({r.verdict for r in records if r.kind == "judge"})
    labelled = max(r.n for r in records)
    table.footnotes.append(
        AGREEMENT_FOOTNOTE.format(unit="scenarios (an import's tasks: each task's conversations together)")
        + f" Up to {labelled} labelled conversations per verdict; {judged} judge(s) gave verdicts on them"
        + ("" if judged else " (judge them with: skillbench judges validate judge=... --run <import folder>, then report "
           "both folders)") + ". The rule-based verdict fails a conversation on any hard rule-check failure.")
    return table


@report_table("human_rule_checks", title="Agreement with human labels — each rule check's pass/fail against the people's",
              order=56)
def human_rule_checks(ctx: ReportContext) -> Table | None:
    """Which rule check predicts the human label: each check that ran on a labelled conversation, as a verdict of its
    own (the check failed → the conversation fails)."""
    records = [r for r in ctx.human_agreement if r.kind == "rule_check"]
    if not records:
        return None
    table = _agreement_table(records, "Rule check", "rule_check")
    table.footnotes.append(AGREEMENT_FOOTNOTE.format(unit="scenarios") + " n: the labelled conversations the check ran "
                           "on (an import runs only the checks its data allows). 'Judge' in the counts is the check.")
    return table
