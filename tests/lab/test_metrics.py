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
    summary = validity_tables(LabSet(items), [perfect, riding, lax, panel_run([perfect, lax])])[0]
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


def test_judge_errors_are_counted_and_never_a_detection_or_a_false_alarm(cases: list[Case]) -> None:
    items = [i for case in cases for i in variants(case)]
    lost = {"control", "hallucinated_action"}  # the endpoint failed on these; a parse error on one of them

    def reading(item) -> Reading:  # type: ignore[no-untyped-def]
        if item.perturbation in lost:
            kind = "parse" if item.perturbation == "control" and item.source_key == items[0].source_key else "infra"
            return Reading(passed=None, judge_error="endpoint down", error_kind=kind)  # type: ignore[arg-type]
        return Reading(passed=item.label.kind != "defect", judge_passed=item.label.kind != "defect")

    erring = JudgeRun("erring", False, {i.key: reading(i) for i in items})
    perfect = JudgeRun("perfect", False, {i.key: Reading(passed=i.label.kind != "defect", judge_passed=i.label.kind != "defect")
                                          for i in items})
    tables = validity_tables(LabSet(items), [erring, perfect, panel_run([erring, perfect])])
    summary, matrix = tables[0], tables[1]
    row = {r[0]: dict(zip(summary.columns, r, strict=True)) for r in summary.data}
    defects = sum(1 for i in items if i.label.kind == "defect")
    halluc = sum(1 for i in items if i.perturbation == "hallucinated_action")
    assert row["erring"]["controls"] == 0 and row["erring"]["specificity"] is None and row["erring"]["false_alarm_rate"] is None
    assert row["erring"]["defects"] == defects - halluc and row["erring"]["sensitivity"] == 1.0
    assert (row["erring"]["judge_errors"], row["erring"]["judge_errors_infra"], row["erring"]["judge_errors_parse"]) == (
        len(cases) + halluc, len(cases) - 1 + halluc, 1)
    assert row["perfect"]["judge_errors"] == 0 and row["perfect"]["controls"] == len(cases)
    # the panel votes with the judges that gave a verdict; it errs only where none did
    assert row["panel (majority)"]["judge_errors"] == 0 and row["panel (majority)"]["specificity"] == 1.0
    by_name = {r[0]: r for r in matrix.data}
    assert by_name["hallucinated_action"][matrix.columns.index("erring")] is None
    assert summary.display[0][-1] == f"{len(cases) + halluc} (infra {len(cases) - 1 + halluc}, parse 1)"
