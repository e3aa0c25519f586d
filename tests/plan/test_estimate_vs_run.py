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

# Calls and dollars of the run may differ from the estimate by at most this share (docs/paid-runs.md states it and
# the error measured here). The estimate is calibrated from a stored run of *other* scenarios of the same benchmark
# (calls per conversation, tokens per call) and priced per token from litellm's map; the run is billed per call by
# litellm. They differ as far as the checked scenarios' conversations differ in length from the calibrating ones.
TOLERANCE = 0.25
# One scenario per industry for each side, with different paths, disjoint: the check is not the calibration again.
CALIBRATE_ON = ["bk-fee-happy-01", "hc-refill-missing-01", "rt-address-guardrail-01", "tc-plan-oos-01"]
CHECK_ON = ["bk-card-transfer-01", "hc-resched-injection-01", "rt-return-toolfail-01", "tc-dispute-happy-01"]
assert not set(CALIBRATE_ON) & set(CHECK_ON), "the two sides must stay disjoint"  # a guard on the constants


def _plan(*overrides: str) -> list[PlannedJob]:
    """The run's jobs as the dry run plans them (composed by Hydra, validated, scenarios counted)."""
    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        cfg = compose("config", overrides=list(overrides), return_hydra_config=False)
    return plan_jobs([ComposedJob(list(overrides), cfg)])


def _scenarios(ids: list[str]) -> str:
    return f"benchmark.scenarios=[{','.join(ids)}]"


def test_calibrated_estimate_matches_the_calls_and_cost_of_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-local")
    outputs = tmp_path / "outputs"
    with stub_server(conversation_script, models=("gpt-5",)) as live:
        # gpt-5 as agent and judge through the stub: litellm bills every call at gpt-5's listed price.
        common = ["agent=gpt5", f"agent.api_base={live.base_url}", "judge=gpt5", f"judge.api_base={live.base_url}"]
        first = run_job(compose_config(*common, _scenarios(CALIBRATE_ON), f"store.root={outputs / 'store'}"),
                        outputs / "runs" / "first")
        assert first.cost_usd > 0 and first.infra_errors == 0 and first.scenarios == len(CALIBRATE_ON)

        # The known small run: other scenarios, an empty store (nothing to reuse).
        run = [*common, _scenarios(CHECK_ON), f"store.root={tmp_path / 'fresh'}"]
        estimate = estimate_run(_plan(*run), outputs)  # calibrated from the first run only
        assert all("measured from 1 stored job" in estimate.profiles[r].source for r in ("agent", "judge"))
        assert estimate.profiles["user"].source == "assumed"  # the user simulator was simulated: it measures nothing
        [line] = [m for m in estimate.models if m.model == "gpt-5"]
        requests_before = len(live.requests)
        second = run_job(compose_config(*run), outputs / "runs" / "second")

    made = second.usage["agent"].calls + second.usage["judge"].calls
    assert made == len(live.requests) - requests_before  # nothing reused: the second run paid for every call
    print(f"estimate {line.calls} calls ${line.cost_usd:.6f}; run {made} calls ${second.cost_usd:.6f}; "
          f"errors {line.calls / made - 1:+.1%} calls, {line.cost_usd / second.cost_usd - 1:+.1%} dollars")
    assert line.calls == pytest.approx(made, rel=TOLERANCE)
    assert line.cost_usd == pytest.approx(second.cost_usd, rel=TOLERANCE)
    assert estimate.jobs[0].calls["judge"] == second.usage["judge"].calls == len(CHECK_ON)
