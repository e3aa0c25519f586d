"""A budget that holds and matches the bill (issue 30 item 4, issue 41 item 4), in every wave shape and under every
launcher: what the provider answered exceeds ``run.budget_usd`` by at most the price of the requests in flight when
it was reached, no request is sent after, the spend recorded is what was answered (a request cancelled in flight is
counted), every job of a sweep stops, and the rerun with a higher budget finishes in one go.

gpt-5 through a local stub that counts each request's usage from its size, as a provider does (litellm bills it at
gpt-5's listed price); real CLI processes, real launchers (the parallel launcher's forked workers, submitit's
processes, the inflight launcher's one event loop).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.bill import Bill, bill, gpt5_price, paid_env, recorded
from tests.support.openai_stub import StubServer, conversation_script, stub_server


def _run(cwd: Path, stub: StubServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillbench", "agent=gpt5", f"agent.api_base={stub.base_url}",
                           "store.root=store", *args], cwd=cwd, env=paid_env(), capture_output=True, text=True,
                          timeout=900)


def _rows(job: Path) -> list[str]:
    path = job / "results.jsonl"
    return [json.loads(line)["scenario_id"] for line in path.read_text().splitlines()] if path.exists() else []


def _holds(result: Bill, stub: StubServer) -> None:
    """The bill: nothing sent after the cap, the overshoot within the calls in flight, the spend recorded at least the
    spend answered (the cancelled calls' share estimated from their size: a few percent under at most), and over it by
    no more than the calls cancelled in flight (one stopped on its way out cannot be told from one that left)."""
    assert result.sent_after_cap == 0, result
    assert result.answered_usd >= result.budget_usd and result.overshoot_usd <= result.in_flight_usd + 1e-12, result
    most, rounding = max(map(gpt5_price, stub.answered)), 1e-5  # summary.json keeps 6 decimals
    assert result.answered_usd * 0.97 <= result.recorded_usd, result
    assert result.recorded_usd <= result.answered_usd + result.abandoned_calls * most + rounding, result


@pytest.mark.parametrize("concurrency", [16, 2], ids=["one wave", "many waves"])
def test_a_job_stops_at_the_budget_in_flight_and_its_rerun_finishes(tmp_path: Path, concurrency: int) -> None:
    budget = 0.05  # about 20 agent calls of the ~70 that 6 conversations make
    with stub_server(conversation_script, models=("gpt-5",), latency_s=0.02, sized=True) as stub:
        common = ("benchmark.limit=6", f"run.scenario_concurrency={concurrency}", "hydra.run.dir=job")
        first = _run(tmp_path, stub, *common, f"run.budget_usd={budget}")
        assert first.returncode == 3, first.stderr[-3000:]
        job = tmp_path / "job"
        stopped = json.loads((job / "stopped.json").read_text())
        assert len(_rows(job)) < 6 and not (job / "summary.json").exists()
        assert "budget reached" in first.stderr and "Traceback" not in first.stderr
        if stopped["reached_at"] is not None:  # the cap (not only a conversation that no longer fitted)
            _holds(bill(stub.answered, gpt5_price, budget, recorded(job)), stub)
        assert stopped["spent_usd"] <= budget + stopped["stopped_in_flight"] * max(map(gpt5_price, stub.answered))
        second = _run(tmp_path, stub, *common, "run.budget_usd=10")
    assert second.returncode == 0, second.stderr[-3000:]
    summary = json.loads((job / "summary.json").read_text())
    assert summary["scenarios"] == 6 and summary["infra_errors"] == 0 and len(set(_rows(job))) == 6
    # Finished conversations reused, not redone (cache_hits counts their calls).
    assert (summary["usage"]["agent"]["cache_hits"] > 0) == (stopped["rows_kept"] > 0)


LAUNCHERS = {
    "basic": [],
    "parallel": ["hydra/launcher=parallel", "hydra.launcher.n_jobs=2"],
    "inflight": ["hydra/launcher=inflight"],
    "local": ["hydra/launcher=local"],
}


@pytest.mark.parametrize("launcher", list(LAUNCHERS))
def test_a_sweep_stops_every_job_at_its_budget_and_resumes_in_one_rerun(tmp_path: Path, launcher: str) -> None:
    if launcher == "local":
        pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="needs the skillbench[slurm] extra")
    # Three paid jobs (seeds 0-2: different conversations), 3 conversations each, all in flight at once.
    budget = 0.08
    common = ("run.seed=0,1,2", "benchmark.limit=3", "run.scenario_concurrency=16", "hydra.sweep.dir=sweep",
              *LAUNCHERS[launcher], "-m")
    with stub_server(conversation_script, models=("gpt-5",), latency_s=0.02, sized=True) as stub:
        first = _run(tmp_path, stub, f"run.budget_usd={budget}", *common)
        assert first.returncode == 3, first.stderr[-3000:]
        sweep = tmp_path / "sweep"
        _holds(bill(stub.answered, gpt5_price, budget, recorded(sweep)), stub)
        jobs = [job for job in sweep.iterdir() if (job / ".hydra").exists()]
        # Every job that started either finished before the cap or was stopped by it: none ran on.
        for job in jobs:
            assert (job / "summary.json").exists() != (job / "stopped.json").exists(), job.name
        assert "skillbench: sweep: 3 job(s)" in first.stderr and "Traceback" not in first.stderr
        # The rerun: every marker and spending file the first run left is an earlier run's (reliability review N7:
        # the parallel launcher's rerun read one, refused a job and exited 3 again). One left in every folder, too.
        for job in jobs:
            (job / "stopped.json").write_text(json.dumps({"reason": "budget", "spent_usd": 9.0}))
        second = _run(tmp_path, stub, "run.budget_usd=10", *common)
    assert second.returncode == 0, second.stderr[-3000:]
    finished = [job for job in sweep.iterdir() if (job / "summary.json").exists()]
    assert len(finished) == 3 and all(sorted(_rows(job)) == sorted(set(_rows(job))) and len(_rows(job)) == 3
                                      for job in finished)
