"""Calibration reads stored summaries: only a role whose model was real measures that role."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillbench.engine import run_job
from skillbench.engine.results import role_simulated
from skillbench.plan.estimate import DEFAULT_PROFILES, calibrate
from tests.conftest import compose_config
from tests.support.nonempty import nonempty


def _usage(calls: int, prompt: int) -> dict[str, Any]:
    return {"calls": calls, "cache_hits": 0, "prompt_tokens": prompt, "completion_tokens": 10, "latency_s": 1.0}


def _write(outputs: Path, name: str, **fields: Any) -> None:
    summary = {"benchmark": "starter", "scenarios": 2, "agent_model": "gpt-5", "judge_model": "gpt-5",
               "simulated_agent": False, "simulated_judge": False,
               "usage": {"agent": _usage(20, 40_000), "user": _usage(2, 524), "judge": _usage(2, 12_000)}, **fields}
    folder = outputs / "runs" / name
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps(summary))


def test_a_simulated_user_simulator_does_not_calibrate_the_user_role(tmp_path: Path) -> None:
    _write(tmp_path, "new", user_sim_model="skillbench_sim/user", simulated_user_sim=True)
    profiles = calibrate(tmp_path, "starter")
    assert profiles["agent"].source == "measured from 1 stored job(s)" and profiles["agent"].calls == 10
    assert profiles["user"] == DEFAULT_PROFILES["user"]


def test_older_summaries_decide_from_the_model_name_or_are_skipped(tmp_path: Path) -> None:
    _write(tmp_path, "old_unknown")  # written before user_sim_model existed: says nothing about the user simulator
    _write(tmp_path, "old_sim", user_sim_model="skillbench_sim/user")
    assert calibrate(tmp_path, "starter")["user"] == DEFAULT_PROFILES["user"]
    _write(tmp_path, "old_real", user_sim_model="hosted_vllm/google/gemma-4-31B-it")
    user = calibrate(tmp_path, "starter")["user"]
    assert user.source == "measured from 1 stored job(s)" and user.calls == 1 and user.prompt_tokens == 262
    assert calibrate(tmp_path, "starter")["agent"].source == "measured from 3 stored job(s)"


def test_role_simulated_reads_the_flag_then_the_model_name() -> None:
    assert role_simulated({"simulated_user_sim": True, "user_sim_model": "gpt-5"}, "user") is True
    assert role_simulated({"simulated_mock": False}, "mock") is False
    assert role_simulated({"mock_model": "skillbench_sim/tool-responder"}, "mock") is True
    assert role_simulated({}, "user") is None and role_simulated({"simulated_agent": False}, "agent") is False


def test_after_the_default_offline_run_every_role_is_still_assumed(tmp_path: Path) -> None:
    outputs = tmp_path / "outputs"
    summary = run_job(compose_config("benchmark.limit=1", "mock=llm", f"store.root={outputs / 'store'}"),
                      outputs / "runs" / "offline")
    assert summary.simulated_user_sim is True and summary.user_sim_model == "skillbench_sim/user"
    assert summary.simulated_mock is True and summary.usage["user"].calls > 0
    profiles = calibrate(outputs, summary.benchmark)
    assert all(profile.source == "assumed" for profile in nonempty(profiles.values(), "profiles")), profiles
