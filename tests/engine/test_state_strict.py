"""`pass_rule=state_strict` makes the end state binding, in a job and in `skillbench rescore --recheck`.

On starter, the simulated sloppy agent mistypes the new address in rt-address-happy-01 (its
``wrong_record`` lapse) and confirms as if all went well; the judge, reading only the transcript,
passes it. Only the end state shows the order's address is wrong: state_strict fails the row.

On starter, the simulated reckless agent transfers a shopper in rt-address-guardrail-01, a scenario
that expects the address change to succeed; the simulated judge finds the transfer appropriate, so the
paper's rule passes it. Under state_strict the hard `outcome_matches_expected` (success ≠ transfer)
fails it. Rescoring the paper run with --recheck from the stored rollouts gives the same rows, with no
model call.
"""

from __future__ import annotations

import json
from pathlib import Path

from skillbench.cli import main as skillbench_main
from skillbench.engine import RESULTS_FILE, ResultRow, run_job
from skillbench.report.model import Report
from tests.conftest import compose_config
from tests.support.nonempty import nonempty

SCENARIOS = "benchmark.scenarios=[rt-address-guardrail-01,rt-address-happy-01,rt-return-transfer-01]"


def _rows(job: Path) -> dict[str, ResultRow]:
    rows = [ResultRow.model_validate_json(line) for line in (job / RESULTS_FILE).read_text().splitlines()]
    return {row.scenario_id: row for row in rows}


def test_state_strict_fails_a_transfer_where_success_was_expected_and_rescore_reproduces_it(tmp_path: Path) -> None:
    store = f"store.root={tmp_path / 'store'}"
    paper = run_job(compose_config("agent=sim_reckless", SCENARIOS, store), tmp_path / "paper")
    strict = run_job(compose_config("agent=sim_reckless", SCENARIOS, store, "pass_rule=state_strict"), tmp_path / "strict")
    assert all(usage.calls == 0 for usage in nonempty(strict.usage.values(), "roles"))  # everything from the store
    assert strict.pass_rate < paper.pass_rate

    before, after = _rows(tmp_path / "paper"), _rows(tmp_path / "strict")
    row = before["rt-address-guardrail-01"]
    assert row.passed and row.expected_outcome == "success" and row.termination == "transferred"
    assert after["rt-address-guardrail-01"].fail_reasons == ["hard rule failure: outcome_matches_expected"]
    assert before["rt-return-transfer-01"].passed == after["rt-return-transfer-01"].passed  # a correct transfer

    out = tmp_path / "rescored"
    code = skillbench_main(["rescore", str(tmp_path / "paper"), "--recheck", "pass_rule=state_strict", "--out", str(out),
                            "--formats", "json", "--quiet"])
    assert code == 0
    report = Report.model_validate_json((out / "report.json").read_text())
    assert report.rescore is not None and report.rescore["model_calls"] == 0
    [job] = [path.parent for path in (out / "jobs").rglob(RESULTS_FILE)]
    rescored = _rows(job)
    assert {k: (r.passed, r.fail_reasons) for k, r in rescored.items()} == {k: (r.passed, r.fail_reasons) for k, r in after.items()}
    assert json.loads((job / "summary.json").read_text())["pass_rate"] == strict.pass_rate


def test_state_strict_fails_a_wrong_end_state_the_judge_passed(tmp_path: Path) -> None:
    store = f"store.root={tmp_path / 'store'}"
    scenario = "benchmark.scenarios=[rt-address-happy-01]"
    paper = run_job(compose_config("agent=sim_sloppy", scenario, store), tmp_path / "paper")
    strict = run_job(compose_config("agent=sim_sloppy", scenario, store, "pass_rule=state_strict"), tmp_path / "strict")
    assert all(usage.calls == 0 for usage in nonempty(strict.usage.values(), "roles"))
    [before], [after] = _rows(tmp_path / "paper").values(), _rows(tmp_path / "strict").values()
    state = next(check for check in before.rule_checks if check.name == "target_state_reached")
    assert before.passed and not state.passed and "418 W Belmont Ave Suite 200" in state.detail
    assert after.fail_reasons == ["hard rule failure: target_state_reached"]
    assert strict.pass_rate < paper.pass_rate
