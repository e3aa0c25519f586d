"""The report holds its rows once: the row frame's text columns are the loaded rows' own Python strings, and no step
of a report (figures, tables, every output) copies a column of text into Arrow arrays (pandas 3 does so by default
when pyarrow is installed: a copy of every string and, at paper scale, ~70 MB more at the peak, docs/performance.md)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from skillbench.engine.results import ResultRow
from skillbench.report import load_jobs
from skillbench.report.frame import COLUMNS, TEXT_COLUMNS, jobs_frame
from skillbench.report.rows import unit_ids
from skillbench.report.write import make_report

from .conftest import make_row, preset, run_config, synthetic_scores, write_job, write_rollouts


def test_the_frame_holds_the_rows_own_strings(grid: Path) -> None:
    jobs = load_jobs([grid])
    frame = jobs_frame(jobs)
    assert {column for column in COLUMNS if frame[column].dtype == object} >= TEXT_COLUMNS
    by_key = {(str(job.path), row.scenario_id, row.trial): row for job in jobs for row in job.rows}
    for record in frame[["job", "scenario_id", "trial", "explanation", "rollout_key"]].itertuples(index=False):
        row = by_key[(record.job, record.scenario_id, record.trial)]
        assert record.scenario_id is row.scenario_id and record.rollout_key is row.rollout_key  # shared, not copied
        assert record.explanation is (row.scores.explanation if row.scores is not None else None)
    assert unit_ids(frame).dtype == object


def test_the_columns_are_the_rows_fields_row_by_row(tmp_path: Path) -> None:
    """Built column by column: each row's values still line up (a judge error, an infra error, usage, an older
    job's duplicate dropped, an unfinished job's rows only on request)."""
    store = tmp_path / "store"
    config = run_config("sim_careful", "sim_balanced", store, preset("paper"))
    scenarios = [f"happy_path_{i:03d}" for i in range(3)]
    write_rollouts(store, "sim_careful", scenarios)
    def row(name: str, **error: str) -> ResultRow:
        scores, checks = synthetic_scores("sim_careful", "sim_balanced", name)
        return make_row("sim_careful", "sim_balanced", name, rule=preset("paper"), scores=scores, checks=checks, **error)

    made = [row(scenarios[0]), row(scenarios[1]), row(scenarios[2], infra_error="timeout")]
    made[1] = made[1].model_copy(update={"passed": None, "scores": None, "judge_error": "not json"})
    newer = write_job(tmp_path / "newer", config, made, finished_at="2026-01-02T00:00:00+00:00")
    older = write_job(tmp_path / "older", config, made[:1], finished_at="2026-01-01T00:00:00+00:00")
    frame = jobs_frame(load_jobs([older, newer]))
    assert frame["job"].tolist() == [str(newer)] * 3
    assert frame["status"].tolist() == ["passed" if made[0].passed else "failed", "judge_error", "infra_error"]
    assert frame["judge_error"].tolist() == [None, "not json", None]
    assert frame["explanation"].tolist() == [made[0].scores.explanation, None, None]
    assert frame["rollout_key"].tolist() == [made[0].rollout_key, made[1].rollout_key, None]
    assert frame["prompt_tokens"].tolist() == [sum(u.prompt_tokens for u in row.usage.values()) for row in made]
    assert frame["passed"].dtype == "boolean" and frame["workflow_adherence"].dtype == "Int64"
    assert len(jobs_frame(load_jobs([older, newer]), dedupe=False)) == 4


@pytest.fixture
def arrow_strings(monkeypatch: pytest.MonkeyPatch) -> Counter[int]:
    """The length of every Arrow string array pandas builds while the test runs."""
    string_arrow = pytest.importorskip("pandas.core.arrays.string_arrow")
    pytest.importorskip("pyarrow")
    built: Counter[int] = Counter()
    original = string_arrow.ArrowStringArray.__init__

    def counting(self: object, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)
        built[len(self)] += 1  # type: ignore[arg-type]

    monkeypatch.setattr(string_arrow.ArrowStringArray, "__init__", counting)
    return built


def test_no_step_of_a_report_copies_its_rows_text_into_arrow(grid: Path, tmp_path: Path,
                                                             arrow_strings: Counter[int]) -> None:
    assert pd.Series(["a", "b"]).dtype == "str"  # this pandas would infer Arrow strings: the check means something
    arrow_strings.clear()
    make_report([grid], tmp_path / "report", draws=50)
    rows = len(jobs_frame(load_jobs([grid])))
    # Short ones (the column names, a list of scenarios or judges) are not copies of the rows.
    assert not [length for length in arrow_strings if length >= rows // 3], arrow_strings


def test_rows_of_a_file_share_equal_checks_and_usage_and_still_write_back_as_read(tmp_path: Path) -> None:
    store = tmp_path / "store"
    config = run_config("sim_careful", "sim_balanced", store, preset("paper"))
    names = [f"happy_path_{i:03d}" for i in range(4)]
    write_rollouts(store, "sim_careful", names)
    made = []
    for i, name in enumerate(names):
        scores, checks = synthetic_scores("sim_careful", "sim_balanced", name)
        row = make_row("sim_careful", "sim_balanced", name, rule=preset("paper"), scores=scores, checks=checks)
        usage = row.usage["agent"].model_copy(update={"cost_usd": -0.0 if i == 3 else 0.0})  # equal, written apart
        made.append(row.model_copy(update={"usage": {"agent": usage}}))
    job_path = write_job(tmp_path / "job", config, made, finished_at="2026-01-02T00:00:00+00:00")
    (job,) = load_jobs([job_path])
    lines = (job_path / "results.jsonl").read_text().splitlines()
    assert [row.model_dump_json() for row in job.rows] == lines  # rescore and diff write rows back byte for byte
    termination = [row.rule_checks[1] for row in job.rows]  # the same passed soft check in every row
    assert all(check is termination[0] for check in termination)
    usage = [row.usage["agent"] for row in job.rows]
    assert usage[0] is usage[1] is usage[2] and usage[3] is not usage[0]
