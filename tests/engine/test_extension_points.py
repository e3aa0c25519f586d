"""Extension points end to end: a toy rule check is one decorated function and shows up in a real job's
rows, and ``rescore --recheck`` adds it to an old job from the stored rollouts without a model call."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillbench.cli import main as skillbench_main
from skillbench.engine import RESULTS_FILE, SUMMARY_FILE, ResultRow, run_job
from skillbench.evaluation import RULE_CHECKS, CheckContext, CheckResult, rule_check, rule_checks_version
from skillbench.models.client import ModelClient
from tests.conftest import compose_config

TOY = "toy_at_most_ten_tool_calls"


@contextlib.contextmanager
def toy_registered() -> Iterator[str]:
    """The whole of a new rule check: one decorated function (unregistered afterwards, for other tests)."""

    @rule_check(TOY, hard=False)
    def at_most_ten(ctx: CheckContext) -> CheckResult:
        calls = sum(1 for record in ctx.rollout.tool_calls if not record.control)
        return CheckResult(passed=calls <= 10, detail=f"{calls} calls")

    try:
        yield TOY
    finally:
        RULE_CHECKS.unregister(TOY)


@pytest.fixture
def toy_check() -> Iterator[str]:
    with toy_registered() as name:
        yield name


def _rows(job_dir: Path) -> list[ResultRow]:
    return [ResultRow.model_validate_json(line) for line in (job_dir / RESULTS_FILE).read_text().splitlines()]


def _small_job(tmp_path: Path, name: str) -> Path:
    cfg = compose_config(f"store.root={tmp_path / 'store'}", "benchmark=smoke", "benchmark.limit=4")
    run_job(cfg, tmp_path / name)
    return tmp_path / name


def test_a_toy_check_appears_in_a_real_jobs_results(tmp_path: Path, toy_check: str) -> None:
    job = _small_job(tmp_path, "job")
    rows = _rows(job)
    assert rows and all(row.rule_checks[-1].name == toy_check for row in rows)
    assert all(row.rule_checks_version == rule_checks_version() for row in rows)
    assert json.loads((job / SUMMARY_FILE).read_text())["rule_checks_version"] == rule_checks_version()


def test_recheck_adds_a_new_check_to_an_old_job_without_model_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = _small_job(tmp_path, "old")
    old_version = _rows(job)[0].rule_checks_version

    async def no_calls(*args: object, **kwargs: object) -> None:
        raise AssertionError("rescore --recheck called a model")

    monkeypatch.setattr(ModelClient, "complete", no_calls)
    with toy_registered():
        out = tmp_path / "rechecked"
        code = skillbench_main(["rescore", str(job), "--recheck", "--out", str(out), "--formats", "json", "--quiet"])
        assert code == 0
        new_version = rule_checks_version()
    rows = _rows(out / "jobs" / job.name)
    old = _rows(job)
    assert [row.rule_checks[-1].name for row in rows] == [TOY] * len(old)
    assert [row.rule_checks[:-1] for row in rows] == [row.rule_checks for row in old]  # the others are unchanged
    assert [row.passed for row in rows] == [row.passed for row in old]  # a soft check; same rule
    assert {row.rule_checks_version for row in rows} == {new_version} != {old_version}
    report = json.loads((out / "report.json").read_text())
    assert report["rescore"]["recheck"] is True and report["rescore"]["model_calls"] == 0
