"""The estimate of a known small run against the calls and dollars the run then makes (local stub, litellm prices)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_module

from skillbench.engine import run_job
from skillbench.plan.estimate import estimate_run
from skillbench.plan.sweep import ComposedJob, PlannedJob, plan_jobs
from tests.conftest import compose_config
from tests.support.openai_stub import conversation_script, stub_server

# Calls and dollars of the run may differ from the estimate by at most this share. The estimate is calibrated
# from one stored run of the same benchmark (calls per conversation, tokens per call) and priced per token from
# litellm's map; the run is billed per call by litellm. They differ when conversations differ in length.
TOLERANCE = 0.25


def _plan(*overrides: str) -> list[PlannedJob]:
    """The run's jobs as the dry run plans them (composed by Hydra, validated, scenarios counted)."""
    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        cfg = compose("config", overrides=list(overrides), return_hydra_config=False)
    return plan_jobs([ComposedJob(list(overrides), cfg)])


def test_calibrated_estimate_matches_the_calls_and_cost_of_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-local")
    outputs = tmp_path / "outputs"
    with stub_server(conversation_script, models=("gpt-5",)) as live:
        # gpt-5 as agent and judge through the stub: litellm bills every call at gpt-5's listed price.
        common = ["agent=gpt5", f"agent.api_base={live.base_url}", "judge=gpt5", f"judge.api_base={live.base_url}"]
        first = run_job(compose_config(*common, "benchmark.limit=2", f"store.root={outputs / 'store'}"),
                        outputs / "runs" / "first")
        assert first.cost_usd > 0 and first.infra_errors == 0

        # The known small run: three scenarios (one new), another seed, an empty store (nothing to reuse).
        run = [*common, "benchmark.limit=3", "run.seed=1", f"store.root={tmp_path / 'fresh'}"]
        estimate = estimate_run(_plan(*run), outputs)  # calibrated from the first run
        assert all("measured from 1 stored job" in estimate.profiles[r].source for r in ("agent", "judge"))
        [line] = [m for m in estimate.models if m.model == "gpt-5"]
        requests_before = len(live.requests)
        second = run_job(compose_config(*run), outputs / "runs" / "second")

    made = second.usage["agent"].calls + second.usage["judge"].calls
    assert made == len(live.requests) - requests_before  # nothing reused: the second run paid for every call
    assert line.calls == pytest.approx(made, rel=TOLERANCE)
    assert line.cost_usd == pytest.approx(second.cost_usd, rel=TOLERANCE)
    assert estimate.jobs[0].calls["judge"] == second.usage["judge"].calls == 3
