"""Imports carry task and trial: several trials of one task become one scenario with trials 0..k−1, so an imported run
gets pass^k like a run with ``run.trials``, and every interval over it (the report's, the lab's) resamples tasks."""

from __future__ import annotations

import csv
import json
from math import comb
from pathlib import Path

import numpy as np
import pytest

from skillbench.cli import main
from skillbench.report import load_results
from skillbench.report.resampling import share_interval
from tests.support.trial_import import trial_records

PATTERN = "(?P<task>task[0-9]+)-trial(?P<trial>[0-9]+)"
TASKS, TRIALS = 12, 4


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _import(tmp_path: Path, *extra: str, records: list[dict] | None = None) -> tuple[int, Path]:
    source = _write(tmp_path / "trials.jsonl", records if records is not None else trial_records(TASKS, TRIALS))
    run = tmp_path / "run"
    return main(["import", str(source), "--out", str(run), "--store", str(tmp_path / "store"), *extra]), run


def _pass_hat(labels: dict[str, list[bool]], k: int) -> float:
    """τ²-bench's estimator, written out: the mean over tasks of C(c, k) / C(n, k)."""
    return float(np.mean([comb(sum(v), k) / comb(len(v), k) for v in labels.values()]))


def test_a_task_pattern_groups_trials_and_the_report_gives_pass_k(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run = _import(tmp_path, "--task-pattern", PATTERN)
    assert code == 0
    assert f"imported 48 conversation(s) of {TASKS} task(s), up to {TRIALS} trial(s) each" in capsys.readouterr().out
    frame = load_results(run)
    assert frame["scenario_id"].nunique() == TASKS and sorted(frame["trial"].unique()) == list(range(TRIALS))
    summary = json.loads((run / "summary.json").read_text())
    assert summary["trials"] == TRIALS and list(summary["pass_hat_k"]) == ["1", "2", "3", "4"]
    labels: dict[str, list[bool]] = {}
    for task, passed in zip(frame["scenario_id"], frame["passed"], strict=True):
        labels.setdefault(task, []).append(bool(passed))
    for k in range(1, TRIALS + 1):
        assert summary["pass_hat_k"][str(k)] == pytest.approx(_pass_hat(labels, k))
    recorded = json.loads((run / "import.json").read_text())
    assert recorded["tasks"]["task003"] == {"0": "task003-trial0", "1": "task003-trial1", "2": "task003-trial2",
                                            "3": "task003-trial3"}
    assert main(["report", str(run), "--formats", "csv,md", "--draws", "200", "--quiet"]) == 0
    with (run / "report" / "pass_k.csv").open() as handle:
        rows = {int(r["k"]): r for r in csv.DictReader(handle)}
    assert sorted(rows) == [1, 2, 3, 4] and {r["scenarios"] for r in rows.values()} == {str(TASKS)}
    for k, row in rows.items():
        assert float(row["pass_hat_k"]) == pytest.approx(_pass_hat(labels, k))
        assert float(row["pass_hat_k_ci_low"]) < float(row["pass_hat_k"]) < float(row["pass_hat_k_ci_high"])
    assert "pass^4" in (run / "report" / "report.md").read_text()


def test_agreement_intervals_resample_tasks_not_conversations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run = _import(tmp_path, "--task-pattern", PATTERN)
    assert code == 0
    lab = tmp_path / "lab"
    assert main(["judges", "validate", "judge=sim_strict", f"store.root={tmp_path / 'store'}", "--run", str(run),
                 "--out", str(lab)]) == 0
    report = lab / "report"
    assert main(["report", str(run), str(lab / "runs"), "--out", str(report), "--formats", "csv", "--quiet"]) == 0
    with (report / "human_agreement.csv").open() as handle:
        strict = next(r for r in csv.DictReader(handle) if r["judge"] == "sim_strict")
    frame = load_results([run, lab / "runs"])
    human = frame[frame["judge"] == "human"].set_index(["scenario_id", "trial"])["passed"]
    judged = frame[frame["judge"] == "sim_strict"].set_index(["scenario_id", "trial"])["passed"]
    both = human.index.intersection(judged[judged.notna()].index)
    agree = (human.loc[both].astype(bool) == judged.loc[both].astype(bool)).groupby(level=0)
    by_task = share_interval(agree.sum().to_numpy(dtype=float), agree.size().to_numpy(dtype=float))
    assert (float(strict["accuracy_ci_low"]), float(strict["accuracy_ci_high"])) == pytest.approx(by_task)
    flat = agree.sum().sum()
    by_conversation = share_interval(np.r_[np.ones(int(flat)), np.zeros(len(both) - int(flat))], np.ones(len(both)))
    assert by_task[1] - by_task[0] >= by_conversation[1] - by_conversation[0] - 1e-9
    lab_table = json.loads((lab / "lab.json").read_text())["tables"][0]
    in_lab = next(dict(zip(lab_table["columns"], r, strict=True)) for r in lab_table["rows"] if r[0] == "sim_strict")
    assert (in_lab["accuracy_ci_low"], in_lab["accuracy_ci_high"]) == pytest.approx(by_task)  # the lab: the same


def test_tasks_from_metadata_are_numbered_in_order_and_a_repeat_is_refused(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    records = trial_records(3, 2)
    for record in records:
        meta = record["metadata"]
        meta["task"] = meta["id"].split("-")[0]
    records[2]["metadata"]["trial"] = 1  # task002's first conversation says it is trial 1 ...
    records[-1]["metadata"]["trial"] = 1  # ... and so does its second: refused, rather than one replacing the other
    code, run = _import(tmp_path, records=records)
    assert code == 1
    err = capsys.readouterr().err
    assert ":6: metadata.trial: task 'task002' trial 1 already imported from" in err
    frame = load_results(run)
    assert sorted(zip(frame["scenario_id"], frame["trial"], strict=True)) == [
        ("task000", 0), ("task000", 1), ("task001", 0), ("task001", 1), ("task002", 1)]


def test_a_bad_pattern_or_an_id_it_does_not_match_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run = _import(tmp_path, "--task-pattern", "(?P<task>task[0-9+")
    assert code == 2 and not run.exists()
    assert "--task-pattern '(?P<task>task[0-9+': not a regular expression" in capsys.readouterr().err
    code, _ = _import(tmp_path, "--task-pattern", "task[0-9]+")
    assert code == 2 and "has no group to take the task from" in capsys.readouterr().err
    records = trial_records(2, 2)
    records[1]["metadata"]["id"] = "stray"
    code, run = _import(tmp_path, "--task-pattern", PATTERN, records=records)
    assert code == 1
    assert ":2: metadata.id: 'stray' does not match --task-pattern" in capsys.readouterr().err
    assert len(load_results(run)) == 3
