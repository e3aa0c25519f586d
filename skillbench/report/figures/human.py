"""Agreement with people's labels: when rows carry a person's pass/fail (the judge ``human`` of an import), each other
judge's verdict on the same conversation, the rule-based verdict and each rule check measured against it with the
planted-defect lab's figures (:func:`skillbench.report.stats.label_agreement`). Shown by
``skillbench/report/human.py``."""

from __future__ import annotations

from collections import defaultdict

from skillbench.core.records import RuleCheck
from skillbench.engine.results import HUMAN_JUDGE
from skillbench.report.model import HumanAgreement
from skillbench.report.rows import ReportRows
from skillbench.report.stats import LabelAgreement, label_agreement

RULE_VERDICT = "rule-based verdict"


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

    def agreement(self, rows: ReportRows) -> LabelAgreement:
        return label_agreement(self.human, self.verdict, self.units, rows.weights, rows.level)


Labelled = tuple[str, bool, list[RuleCheck], bool | None, str]


def _labelled(rows: ReportRows) -> dict[str, Labelled]:
    """rollout key → (agent label, the person's pass/fail, the row's rule checks, its rule-based verdict, its
    scenario id) of every human-labelled row."""
    out: dict[str, Labelled] = {}
    if not rows.jobs:
        return out
    for job in rows.jobs:
        if not job.finished:
            continue
        agent, _judge = rows.labels[job.path]
        for row in job.rows:
            if row.judge == HUMAN_JUDGE and row.passed is not None and row.rollout_key:
                out[row.rollout_key] = (agent, bool(row.passed), row.rule_checks, row.rule_passed, row.scenario_id)
    return out


def _record(agent: str, verdict: str, kind: str, found: LabelAgreement) -> HumanAgreement:
    return HumanAgreement(agent=agent, verdict=verdict, kind=kind, n=found.n, both_pass=found.both_pass,  # type: ignore[arg-type]
                          human_pass_verdict_fail=found.reference_pass_verdict_fail,
                          human_fail_verdict_pass=found.reference_fail_verdict_pass, both_fail=found.both_fail,
                          figures=dict(found.figures), cis=dict(found.cis))


def agreement_with_people(rows: ReportRows) -> list[HumanAgreement]:
    """Each judge (the panel too, when rows carry one), the rule-based verdict and each rule check against the human
    labels of the same conversations (paired by rollout key); empty when no row carries a human label."""
    labelled = _labelled(rows)
    if not labelled:
        return []
    position = rows.scenario_position
    judges: dict[tuple[str, str], _Pairs] = defaultdict(_Pairs)
    checks: dict[tuple[str, str], _Pairs] = defaultdict(_Pairs)
    for agent, human, rule_checks, rule_passed, scenario in labelled.values():
        if rule_passed is not None:
            judges[(agent, RULE_VERDICT)].add(human, bool(rule_passed), position[scenario])
        for check in rule_checks:
            checks[(agent, check.name)].add(human, bool(check.passed), position[scenario])
    others = rows.frame[(rows.frame["judge"] != HUMAN_JUDGE) & rows.frame["passed"].notna()]
    for key, judge, passed, scenario in zip(others["rollout_key"], others["judge_label"], others["passed"],
                                           others["scenario_id"], strict=True):
        if key in labelled:
            judges[(labelled[key][0], judge)].add(labelled[key][1], bool(passed), position[scenario])
    out = [_record(agent, judge, "rule_verdict" if judge == RULE_VERDICT else "judge", judges[(agent, judge)].agreement(rows))
           for agent, judge in sorted(judges, key=lambda k: (k[0], k[1] == RULE_VERDICT, k[1]))]
    out += [_record(agent, name, "rule_check", checks[(agent, name)].agreement(rows)) for agent, name in sorted(checks)]
    return out
