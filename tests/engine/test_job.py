"""A whole job on the offline default: rows, summary, reuse of stored rollouts and verdicts, resume."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from skillbench.benchmark import load_benchmark
from skillbench.engine import RESULTS_FILE, SUMMARY_FILE, ResultRow, run_job, run_job_async
from tests.conftest import compose_config


def _config(store: Path, *overrides: str):
    return compose_config(f"store.root={store}", *overrides)


def _scripted(store: Path, *overrides: str, judge: str = "judge"):
    """The scripted fake models (skillbench.simulated.scripted): these tests need some conversation, not a behaviour."""
    roles = {"agent": "agent", "user_sim": "user", "judge": judge}
    names = [f"{role}.name=scripted_{model}" for role, model in roles.items()]
    models = [f"{role}.model=skillbench_sim/scripted-{model}" for role, model in roles.items()]
    return _config(store, *names, *models, *overrides)


def _rows(job_dir: Path) -> list[ResultRow]:
    return [ResultRow.model_validate_json(line) for line in (job_dir / RESULTS_FILE).read_text().splitlines()]


def test_default_job_writes_rows_and_summary(tmp_path: Path) -> None:
    cfg = _config(tmp_path / "store")
    summary = run_job(cfg, tmp_path / "job")
    rows = _rows(tmp_path / "job")
    assert len(rows) == summary.scenarios > 0
    assert len({row.scenario_id for row in rows}) == len(rows)
    assert summary.infra_errors == 0
    assert summary.scored + summary.judge_errors == summary.scenarios
    assert summary.usage["agent"].calls > 0 and summary.usage["user"].calls > 0
    assert summary.usage["judge"].calls >= summary.scenarios
    assert summary.pass_rate is not None
    saved = json.loads((tmp_path / "job" / SUMMARY_FILE).read_text())
    assert saved["pass_rate"] == summary.pass_rate
    version = load_benchmark(cfg.benchmark.source).version
    assert summary.benchmark_version == version and len(version) == 16
    for row in rows:
        assert row.simulated and row.rollout_key and row.termination
        assert row.benchmark_version == version


def test_rerun_and_new_judge_and_new_pass_rule_reuse_the_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first = run_job(_scripted(store), tmp_path / "a")
    again = run_job(_scripted(store), tmp_path / "b")
    assert again.llm_calls == 0
    assert again.cache_hits == first.llm_calls
    volatile = {"usage", "rollout_s", "judge_s"}  # reuse changes accounting and timings, nothing else
    assert [r.model_dump(exclude=volatile) for r in _rows(tmp_path / "a")] == [
        r.model_dump(exclude=volatile) for r in _rows(tmp_path / "b")
    ]

    other_judge = run_job(_scripted(store, judge="judge-strict"), tmp_path / "c")
    assert other_judge.usage["agent"].calls == 0 and other_judge.usage["user"].calls == 0
    assert other_judge.usage["judge"].calls > 0

    relaxed = run_job(_scripted(store, "pass_rule.min_workflow_adherence=1", "pass_rule.min_guardrail_compliance=1"),
                      tmp_path / "d")
    assert relaxed.llm_calls == 0
    assert relaxed.pass_rate is not None and first.pass_rate is not None
    assert relaxed.pass_rate >= first.pass_rate


# A call cancelled while litellm awaits its own set-up (``init_response = await loop.run_in_executor(...)`` in
# litellm.acompletion) drops the provider coroutine that set-up created: harmless, and litellm's to change.
@pytest.mark.filterwarnings("ignore:coroutine .*SimulatedModels.acompletion' was never awaited:RuntimeWarning")
def test_interrupted_job_resumes_without_lost_or_duplicated_rows(tmp_path: Path) -> None:
    store = tmp_path / "store"
    cfg = _config(store, "run.scenario_concurrency=2")
    job_dir = tmp_path / "killed"

    async def run_then_cancel() -> None:
        task = asyncio.create_task(run_job_async(cfg, job_dir))
        results = job_dir / RESULTS_FILE
        while not (results.exists() and results.read_text().count("\n") >= 2):
            await asyncio.sleep(0.01)
            if task.done():
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run_then_cancel())
    assert not (job_dir / SUMMARY_FILE).exists()
    partial = (job_dir / RESULTS_FILE).read_text().splitlines()
    for line in partial:  # only whole rows were written
        ResultRow.model_validate_json(line)

    summary = run_job(cfg, tmp_path / "resumed")
    rows = _rows(tmp_path / "resumed")
    assert len(rows) == summary.scenarios == len({row.scenario_id for row in rows})
    assert summary.cache_hits > 0  # the finished conversations were not redone


def test_same_seed_same_transcripts_other_seed_new_rollouts(tmp_path: Path) -> None:
    a = run_job(_scripted(tmp_path / "s1"), tmp_path / "a")
    b = run_job(_scripted(tmp_path / "s2"), tmp_path / "b")
    rows_a, rows_b = _rows(tmp_path / "a"), _rows(tmp_path / "b")
    assert [r.rollout_key for r in rows_a] == [r.rollout_key for r in rows_b]
    assert [r.scores for r in rows_a] == [r.scores for r in rows_b]
    assert a.llm_calls == b.llm_calls
    c = run_job(_scripted(tmp_path / "s1", "run.seed=1"), tmp_path / "c")
    assert c.usage["agent"].calls > 0


def test_a_conversation_another_process_is_having_is_deferred_not_waited_for(tmp_path: Path) -> None:
    # Another producer holds the first scenario's rollout lock (as a parallel job of the sweep would) until the
    # job has finished the other scenarios: a job that queued on that lock instead would never get there.
    import fcntl
    import os
    import threading

    from skillbench.engine.job import rollout_key
    from skillbench.store import ArtifactStore

    cfg = _scripted(tmp_path / "store", "benchmark=smoke", "benchmark.limit=3", "run.scenario_concurrency=1")
    benchmark = load_benchmark(cfg.benchmark.source)
    from skillbench.benchmark.selection import select_scenarios

    first, *others = select_scenarios(benchmark, cfg.benchmark)
    store = ArtifactStore(cfg.store.root)
    lock_path = store.lock_path("rollouts", rollout_key(cfg, benchmark, first))
    lock_path.parent.mkdir(parents=True)
    fd = os.open(lock_path, os.O_CREAT | os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    assert store.being_produced("rollouts", rollout_key(cfg, benchmark, first))
    results = tmp_path / "job" / RESULTS_FILE
    released_after: list[int] = []

    def release_when_the_others_are_done() -> None:
        for _ in range(600):
            done = len(results.read_text().splitlines()) if results.exists() else 0
            if done == len(others):
                break
            threading.Event().wait(0.05)
        released_after.append(len(results.read_text().splitlines()) if results.exists() else 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    holder = threading.Thread(target=release_when_the_others_are_done)
    holder.start()
    summary = run_job(cfg, tmp_path / "job")
    holder.join()
    assert released_after == [len(others)]  # released because the others were done, not by the timeout
    assert summary.scenarios == 3 and summary.infra_errors == 0
    assert [row.scenario_id for row in _rows(tmp_path / "job")] == [s.id for s in [first, *others]]
    assert not store.being_produced("rollouts", rollout_key(cfg, benchmark, first))
