"""The lab's figures on hand-made readings: detection, specificity, panel and multi-sample agreement."""

from __future__ import annotations

from skillbench.lab.judging import JudgeRun, Reading, panel_run
from skillbench.lab.labelled import variants
from skillbench.lab.metrics import LabSet, detected, sampling_table, validity_tables
from skillbench.lab.perturb import Case


def test_detection_counts_a_fail_or_a_drop_in_the_labelled_dimension(cases: list[Case]) -> None:
    items = {i.perturbation: i for i in variants(cases[0])}
    control = Reading(passed=True, scores={"communication_quality": 5})
    stacked = items["stacked_questions"]
    assert detected(stacked, Reading(passed=True, scores={"communication_quality": 3}), control) is True
    assert detected(stacked, Reading(passed=True, scores={"communication_quality": 5}), control) is False
    assert detected(stacked, Reading(passed=False), control) is True
    assert detected(stacked, Reading(passed=None), control) is None


def test_a_judge_that_fails_every_defect_and_passes_every_control_scores_100(cases: list[Case]) -> None:
    items = [i for case in cases for i in variants(case)]
    perfect = JudgeRun("perfect", False, {i.key: Reading(passed=i.label.kind != "defect", judge_passed=i.label.kind != "defect")
                                          for i in items})
    # fails only what a hard rule check already fails: its verdicts look sensitive, its own reading is not
    riding = JudgeRun("riding", False, {i.key: Reading(passed=not i.label.rule_visible, judge_passed=True) for i in items})
    lax = JudgeRun("lax", False, {i.key: Reading(passed=True, judge_passed=True) for i in items})
    summary = validity_tables(LabSet(items), [perfect, riding, lax, panel_run([perfect, lax])], n_boot=20)[0]
    col = {name: n for n, name in enumerate(summary.columns)}
    row = {r[0]: {name: r[n] for name, n in col.items()} for r in summary.data}
    assert row["perfect"]["specificity"] == row["perfect"]["sensitivity"] == row["perfect"]["balanced_accuracy"] == 1.0
    assert row["perfect"]["sensitivity_judge_alone"] == 1.0
    assert row["lax"]["sensitivity"] == 0.0 and row["lax"]["balanced_accuracy"] == 0.5
    assert 0 < row["riding"]["sensitivity"] < 1 and row["riding"]["sensitivity_judge_alone"] == 0.0
    assert row["panel (majority)"]["sensitivity"] == 1.0  # a 1-1 tie between the two counts as a fail
    assert sampling_table([perfect, lax]) is None


def test_sampling_table_measures_sample_agreement_and_the_vote(cases: list[Case]) -> None:
    items = variants(cases[0])
    flip = {i.key: Reading(passed=True, sample_passes=[False, True, True], first_sample_passed=False) for i in items}
    steady = {i.key: Reading(passed=True, sample_passes=[True, True, True], first_sample_passed=True) for i in items}
    table = sampling_table([JudgeRun("a", False, flip, samples=3), JudgeRun("b", False, steady, samples=3)])
    assert table is not None
    rows = {row[0]: row for row in table.data}
    assert rows["b"][3] == 1.0 and rows["a"][3] == 1 / 3 and rows["a"][5] == 1.0
