"""A budget that holds (issue 30 item 4), in every wave shape: the spend never exceeds ``run.budget_usd`` by more
than the price of the calls in flight when it was reached; conversations in flight are stopped (unfinished, no
row), ``stopped.json``, exit 3, and the rerun with a higher budget finishes them.

gpt-5 through a local stub (litellm bills it at gpt-5's listed price; every reply's usage is 11 + 7 tokens, so every
call costs the same), real CLI processes (the folder lock and the parallel launcher's workers are real).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.openai_stub import StubServer, conversation_script, stub_server


def _call_cost() -> float:
    import litellm

    prompt, completion = litellm.cost_per_token(model="gpt-5", prompt_tokens=11, completion_tokens=7)
    return prompt + completion


def _run(cwd: Path, stub: StubServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"OPENAI_API_KEY": "sk-fake-local", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "PYTHONPATH": os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])})
    return subprocess.run([sys.executable, "-m", "skillbench", "agent=gpt5", f"agent.api_base={stub.base_url}",
                           "store.root=store", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _rows(job: Path) -> int:
    path = job / "results.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.mark.parametrize("concurrency", [16, 2], ids=["one wave", "many waves"])
def test_a_job_stops_at_the_budget_in_flight_and_its_rerun_finishes(tmp_path: Path, concurrency: int) -> None:
    cost = _call_cost()
    budget = 20 * cost  # 6 conversations of ~12 agent calls each would cost ~72 calls
    with stub_server(conversation_script, models=("gpt-5",), latency_s=0.02) as stub:
        common = ("benchmark.limit=6", f"run.scenario_concurrency={concurrency}", "hydra.run.dir=job")
        first = _run(tmp_path, stub, *common, f"run.budget_usd={budget}")
        assert first.returncode == 3, first.stderr[-3000:]
        job = tmp_path / "job"
        stopped = json.loads((job / "stopped.json").read_text())
        in_flight_cap = min(concurrency, 6)  # conversations in flight, one call each at most
        assert budget <= stopped["spent_usd"] <= budget + in_flight_cap * cost + 1e-12, stopped
        assert _rows(job) < 6 and not (job / "summary.json").exists()
        assert "budget reached" in first.stderr and "Traceback" not in first.stderr
        answered = len(stub.requests)
        assert answered <= 20 + in_flight_cap  # the calls the budget paid for, plus those in flight at the cap
        second = _run(tmp_path, stub, *common, "run.budget_usd=10")
    assert second.returncode == 0, second.stderr[-3000:]
    summary = json.loads((job / "summary.json").read_text())
    assert summary["scenarios"] == 6 and summary["infra_errors"] == 0
    # Finished conversations reused, not redone (cache_hits counts their calls).
    assert (summary["usage"]["agent"]["cache_hits"] > 0) == (stopped["rows_kept"] > 0)


@pytest.mark.parametrize("launcher", ["basic", "parallel", "inflight"])
def test_a_sweep_holds_its_budget_across_jobs_and_parallel_workers(tmp_path: Path, launcher: str) -> None:
    # Two paid jobs (seed 0 and 1: different conversations), 3 conversations each, all in flight at once.
    cost = _call_cost()
    budget = 15 * cost
    with stub_server(conversation_script, models=("gpt-5",), latency_s=0.02) as stub:
        result = _run(tmp_path, stub, "run.seed=0,1", "benchmark.limit=3", "run.scenario_concurrency=16",
                      f"run.budget_usd={budget}", "hydra.sweep.dir=sweep",
                      *(["hydra/launcher=parallel", "hydra.launcher.n_jobs=2"] if launcher == "parallel" else []),
                      *(["hydra/launcher=inflight"] if launcher == "inflight" else []), "-m")
    assert result.returncode == 3, result.stderr[-3000:]
    sweep = tmp_path / "sweep"
    spent = 0.0
    for job in sweep.iterdir():
        if not job.is_dir() or not (job / ".hydra").exists():
            continue
        summary, stopped = job / "summary.json", job / "stopped.json"
        spent += json.loads((summary if summary.exists() else stopped).read_text()).get(
            "cost_usd" if summary.exists() else "spent_usd", 0.0)
        assert not (job / "spending.json").exists()
    assert any((job / "stopped.json").exists() for job in sweep.iterdir())  # the job that reached it says so
    jobs_at_once = 1 if launcher == "basic" else 2
    assert spent <= budget + 3 * jobs_at_once * cost + 1e-12, (spent, budget)
    if launcher == "basic":  # (side by side, requests cancelled at the cap reach the stub too: unbilled)
        assert len(stub.requests) <= 15 + 3 * jobs_at_once
    assert "skillbench: sweep: 2 job(s)" in result.stderr
