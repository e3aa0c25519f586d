"""Agent programs from config: built from ``agent.program._target_`` with their parameters and models; their
identity and source hash enter the rollout key, so changed code never reuses stored rollouts and unchanged code
does; the example programs run offline from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skillbench.engine.job import rollout_key, run_job
from skillbench.store import result_settings
from tests.conftest import REPO, compose_config

PROGRAM = textwrap.dedent('''
    from skillbench.agents import LLMAgent


    class EchoingAgent(LLMAgent):
        """The default agent, under another name: only its source tells the two apart."""
''')


@pytest.fixture
def program_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    package = tmp_path / "src" / "acme_programs"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(PROGRAM, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    return package


def _job(tmp_path: Path, name: str) -> tuple[list[str], dict]:
    cfg = compose_config(
        "agent=sim_careful", "agent.program={_target_:acme_programs.EchoingAgent}", "benchmark.limit=2",
        f"store.root={tmp_path / 'store'}", "run.progress_interval_s=3600",
    )
    summary = run_job(cfg, tmp_path / name)
    rows = [json.loads(line) for line in (tmp_path / name / "results.jsonl").read_text().splitlines()]
    return [row["rollout_key"] for row in rows], summary.model_dump()


def test_unchanged_program_code_reuses_rollouts_and_changed_code_makes_new_ones(tmp_path: Path, program_package: Path) -> None:
    first, _ = _job(tmp_path, "first")
    again, summary = _job(tmp_path, "again")
    assert again == first and summary["usage"]["agent"]["cache_hits"] > 0 and summary["usage"]["agent"]["calls"] == 0
    source = program_package / "__init__.py"
    source.write_text(PROGRAM + "\n# a changed line of the program\n", encoding="utf-8")
    stat = source.stat()
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    changed, summary = _job(tmp_path, "changed")
    assert set(changed).isdisjoint(first) and summary["usage"]["agent"]["calls"] > 0
    recorded = json.loads((tmp_path / "changed" / "config.json").read_text())["agent"]
    assert recorded["program_source"].startswith("sha256:") and recorded["program"] == {"_target_": "acme_programs.EchoingAgent"}


def test_a_plain_model_keeps_its_rollout_key_and_a_program_or_its_parameters_change_it() -> None:
    plain = compose_config("agent=sim_careful")
    assert set(result_settings(plain)["agent"]) == {"model", "params", "prompt_template"}
    bench_scenario = _first_scenario()
    keys = {
        rollout_key(compose_config(*overrides), *bench_scenario)
        for overrides in (
            ["agent=sim_careful"],
            ["agent=plan_then_act", "+agent.program_source=sha256:x"],
            ["agent=plan_then_act", "+agent.program_source=sha256:x", "agent.program.max_items=3"],
            ["agent=plan_then_act", "+agent.program_source=sha256:y"],
            ["agent=plan_then_act", "+agent.program_source=sha256:x", "agent.models.planner.model=skillbench_sim/echo"],
            ["agent=plan_then_act", "+agent.program_source=sha256:x", "agent.program_version=2"],
        )
    }
    assert len(keys) == 6
    from skillbench.agents.program import with_program_identity

    unhashed = compose_config("agent=plan_then_act", "agent.hash_source=false", "agent.program_version=3")
    assert with_program_identity(unhashed).agent.program_source is None  # the version label alone decides
    assert with_program_identity(compose_config("agent=plan_then_act")).agent.program_source.startswith("sha256:")


def _first_scenario():
    from skillbench.benchmark import load_benchmark

    benchmark = load_benchmark("starter")
    return benchmark, benchmark.scenarios[0]


@pytest.mark.parametrize("agent", ["plan_then_act", "self_check"])
def test_the_example_programs_run_offline_from_the_command_line(tmp_path: Path, agent: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-m", "skillbench", f"agent={agent}", "judge=sim_balanced", "benchmark.limit=7",
         f"store.root={tmp_path / 'store'}", f"hydra.run.dir={tmp_path / 'job'}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((tmp_path / "job" / "summary.json").read_text())
    assert summary["scenarios"] == 7 and summary["infra_errors"] == 0
    # The program's own model calls count as the agent's: more calls than agent turns.
    config = json.loads((tmp_path / "job" / "config.json").read_text())
    assert config["agent"]["program_source"].startswith("sha256:")
    # The same command again resumes its own folder: the source hash filled in at job start is compared too.
    again = subprocess.run(done.args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "another configuration" not in again.stderr, again.stderr[-2000:]


def test_a_program_target_that_does_not_import_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-m", "skillbench", "agent.program={_target_:nowhere_pkg.Agent}",
         f"hydra.run.dir={tmp_path / 'job'}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "agent.program._target_" in done.stderr
    assert not (tmp_path / "job").exists()


def test_a_programs_models_are_preflighted_and_priced_like_any_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillbench.plan.preflight import missing_keys, model_roles
    from skillbench.plan.sweep import PlannedJob

    monkeypatch.delenv("SOME_PLANNER_KEY", raising=False)
    cfg = compose_config("agent=plan_then_act", "agent.models.planner.model=gpt-5-mini",
                         "agent.models.planner.simulated=false", "+agent.models.planner.api_key_env=SOME_PLANNER_KEY")
    assert ("agent.models.planner", cfg.agent.models["planner"]) in model_roles(cfg)
    assert [role for role, _ in missing_keys(model_roles(cfg))] == ["agent.models.planner"]
    from skillbench.plan.estimate import estimate_run

    estimate = estimate_run([PlannedJob(overrides=[], cfg=cfg, scenarios=10)], outputs=Path("/nonexistent"))
    planner = next(line for line in estimate.models if line.model == "gpt-5-mini")
    assert planner.roles == ["agent.models.planner"] and planner.calls > 0 and (planner.cost_usd or 0) > 0


def test_a_programs_parameters_may_hold_nested_targets_built_as_hydra_builds_them() -> None:
    from datetime import timedelta

    from skillbench.agents.program import build_program
    from skillbench.core.errors import ConfigError

    cfg = compose_config("agent=sim_careful",
                         "agent.program={_target_:skillbench.agents.examples.PlanThenActAgent,max_items:4}",
                         "+agent.models={planner:{name:planner,model:skillbench_sim/planner,simulated:true}}")
    assert build_program(cfg.agent).max_items == 4
    nested = cfg.agent.model_copy(update={"program": {
        "_target_": "skillbench.agents.examples.PlanThenActAgent",
        "planner": {"_target_": "datetime.timedelta", "seconds": 5},
    }})
    assert build_program(nested).planner == timedelta(seconds=5)
    broken = cfg.agent.model_copy(update={"program": {
        "_target_": "skillbench.agents.examples.PlanThenActAgent", "planner": {"_target_": "nowhere.Thing"},
    }})
    with pytest.raises(ConfigError, match="nested _target_"):
        build_program(broken)
