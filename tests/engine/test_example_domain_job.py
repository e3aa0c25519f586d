"""The example domain runs with the simulated agents, and under state_strict its whole-state check has no false
pass: every passed row left exactly the state its gold actions produce, and the agents are ordered
careful > sloppy > reckless (docs/adding-a-domain.md quotes these numbers)."""

from __future__ import annotations

import json
from pathlib import Path

from skillbench.engine import RESULTS_FILE, run_job
from tests.conftest import compose_config


def _rows(job: Path) -> list[dict]:
    return [json.loads(line) for line in (job / RESULTS_FILE).read_text().splitlines()]


def test_state_strict_on_the_example_domain_orders_the_agents_with_no_false_pass(tmp_path: Path) -> None:
    passes: dict[str, int] = {}
    for agent in ("sim_careful", "sim_sloppy", "sim_reckless"):
        job = tmp_path / agent
        run_job(compose_config("benchmark=toolshed", f"agent={agent}", "pass_rule=state_strict", f"store.root={tmp_path / 's'}"), job)
        rows = _rows(job)
        assert len(rows) == 8
        for row in rows:
            checks = {check["name"]: check for check in row["rule_checks"]}
            whole = checks["end_state_matches_gold"]  # every scenario of the domain lists gold actions
            if row["passed"]:
                assert whole["passed"], (agent, row["scenario_id"], whole["detail"])  # no false pass
            if not whole["passed"]:
                assert "hard rule failure: end_state_matches_gold" in row["fail_reasons"]
        passes[agent] = sum(1 for row in rows if row["passed"])
    assert passes["sim_careful"] > passes["sim_sloppy"] > passes["sim_reckless"], passes
