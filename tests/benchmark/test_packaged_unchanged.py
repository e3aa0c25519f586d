"""The packaged `starter` and `full` benchmarks load and score exactly as before the domain features.

The pinned values were recorded before tools as code, structured facts, alternatives, multi-action
scenarios, gold actions and lint waivers were added: the benchmark versions, the rollout keys of every
scenario under the default config (so stored rollouts are reused), the rendered agent and user prompts,
the rule-check listing, and the result rows of a small simulated job.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from skillbench.benchmark import load_benchmark
from skillbench.engine import RESULTS_FILE, run_job
from skillbench.engine.job import rollout_key
from skillbench.evaluation.checks import rule_checks_version
from skillbench.prompts import render_agent_prompt, render_user_prompt
from tests.conftest import compose_config

# Rollout keys re-pinned when a refused call's text began to state its kind (tool-result-v2, in every rollout
# key): versions and prompts are those recorded before the domain features.
PINNED = {
    "starter": {"version": "1a7fbc3209c4a3c0", "rollout_keys": "7af8ed588b0b842c", "prompts": "465593707b382347"},
    "full": {"version": "78113c4831cc9cfb", "rollout_keys": "e0fe9e10322a2d0c", "prompts": "66760b3b65da67fd"},
}
RULE_CHECKS_VERSION = "4ce65f60368f"  # as of main cccb045 (outcome_matches_expected v2)
# Scored fields of the rows, re-recorded with tool-result-v2 and the simulated caller's fact convention (new keys,
# transcripts): the same verdicts (2 of 4 pass, the same fail reasons) as recorded on main before this feature set.
ROWS = "dd18e48a2db1c329"


def _digest(parts: list[str]) -> str:
    return hashlib.sha256("".join(parts).encode()).hexdigest()[:16]


def test_packaged_benchmarks_keep_their_versions_keys_and_prompts() -> None:
    cfg = compose_config()
    for name, pinned in PINNED.items():
        benchmark = load_benchmark(name)
        assert benchmark.version == pinned["version"], name
        keys = [rollout_key(cfg, benchmark, scenario) for scenario in benchmark.scenarios]
        assert _digest(keys) == pinned["rollout_keys"], name
        prompts = [
            render_agent_prompt(benchmark.skill_of(s)) + render_user_prompt(s, benchmark.skill_of(s), "###STOP###")
            for s in benchmark.scenarios
        ]
        assert _digest(prompts) == pinned["prompts"], name
    assert rule_checks_version() == RULE_CHECKS_VERSION


# What a row says about the scenario's scoring; fields other features add (trial index, provenance,
# timings) are left out so that their own changes do not read as a change of scoring.
_SCORED = ("scenario_id", "benchmark_version", "rollout_key", "verdict_key", "termination", "termination_detail",
           "turns", "tool_calls", "tool_errors", "rule_checks", "rule_passed", "scores", "passed", "fail_reasons")


def _rows(job: Path) -> str:
    rows = [json.loads(line) for line in (job / RESULTS_FILE).read_text().splitlines()]
    scored = sorted(({name: row.get(name) for name in _SCORED} for row in rows), key=lambda r: r["scenario_id"])
    return _digest([json.dumps(scored, sort_keys=True)])


def test_a_starter_job_scores_byte_identically(tmp_path: Path) -> None:
    scenarios = "benchmark.scenarios=[rt-address-happy-01,rt-address-guardrail-01,bk-fee-happy-01,tc-plan-happy-01]"
    run_job(compose_config("agent=sim_sloppy", "pass_rule=state_strict", scenarios, f"store.root={tmp_path / 's'}"), tmp_path / "job")
    assert _rows(tmp_path / "job") == ROWS
