"""The example domains run with the simulated agents, and under state_strict their whole-state check has no false
pass: every passed row left exactly the state its gold actions produce, and the agents are ordered
careful > sloppy > reckless (docs/adding-a-domain.md quotes these numbers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.engine import RESULTS_FILE, run_job
from tests.conftest import compose_config


def _rows(job: Path) -> list[dict]:
    return [json.loads(line) for line in (job / RESULTS_FILE).read_text().splitlines()]


@pytest.mark.parametrize(("benchmark", "scenarios"), [("toolshed", 8), ("photolab", 10)])
def test_state_strict_on_the_example_domain_orders_the_agents_with_no_false_pass(tmp_path: Path, benchmark: str,
                                                                                 scenarios: int) -> None:
    passes: dict[str, int] = {}
    for agent in ("sim_careful", "sim_sloppy", "sim_reckless"):
        job = tmp_path / agent
        run_job(compose_config(f"benchmark={benchmark}", f"agent={agent}", "pass_rule=state_strict",
                               f"store.root={tmp_path / 's'}"), job)
        rows = _rows(job)
        assert len(rows) == scenarios
        for row in rows:
            checks = {check["name"]: check for check in row["rule_checks"]}
            whole = checks["end_state_matches_gold"]  # every scenario of the domain lists gold actions
            if row["passed"]:
                assert whole["passed"], (agent, row["scenario_id"], whole["detail"])  # no false pass
            if not whole["passed"]:
                assert "hard rule failure: end_state_matches_gold" in row["fail_reasons"]
        passes[agent] = sum(1 for row in rows if row["passed"])
    assert passes["sim_careful"] > passes["sim_sloppy"] > passes["sim_reckless"], passes


def test_the_careful_agent_takes_the_way_the_record_or_the_request_chooses(tmp_path: Path) -> None:
    # Every photolab scenario: lists of records said and read back, the way chosen by the order's status (edit a
    # queued order, reprint a shipped one, neither for a cancelled one), by the request's facts (cancel with a
    # reason, claim damaged prints; both in one call), and a refused reprint explained, not retried.
    job = tmp_path / "job"
    run_job(compose_config("benchmark=photolab", "agent=sim_careful", "pass_rule=state_strict",
                           f"store.root={tmp_path / 's'}"), job)
    rows = {row["scenario_id"]: row for row in _rows(job)}
    assert len(rows) == 10 and all(row["passed"] for row in rows.values()), {k: r["fail_reasons"] for k, r in rows.items()}
    # No call refused but the expected one: once a way is taken it is kept, though its own result changes the
    # field its condition read (the reprint job's status is 'queued', which is the edit way's condition).
    assert {name: row["tool_errors"] for name, row in rows.items() if row["tool_errors"]} == {"pl-reprint-late-01": 1}
    checks = {name: {c["name"]: c for c in row["rule_checks"]} for name, row in rows.items()}
    assert checks["pl-reprint-late-01"]["gold_actions_performed"]["detail"] == (
        "0/0 performed; expected refusals: 1/1 asked and refused")
    assert checks["pl-help-two-01"]["gold_actions_performed"]["detail"] == "2/2 performed"
