"""Own-domain features on the packaged example domain (`toolshed`, the Elmbrook Tool Library).

Code tools (precondition, computed effect, schema from the signature, served over MCP, hashed into the
version), structured facts, alternatives, multi-request scenarios, gold actions and the whole-state
verdict, and the lint that fits the domain.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from skillbench.benchmark import PACKAGED_DIR, load_benchmark
from skillbench.benchmark.gold import state_differences
from skillbench.benchmark.lint import format_report, lint_benchmark
from skillbench.benchmark.loader import _load_cached
from skillbench.benchmark.schema import StateExpectation
from skillbench.benchmark.state import replay_actions
from skillbench.config.schema import StatefulMock
from skillbench.core.errors import BenchmarkDataError
from skillbench.core.records import Rollout, ToolCallRecord
from skillbench.evaluation.checks import run_rule_checks
from skillbench.prompts import render_agent_prompt, render_user_prompt
from skillbench.prompts.agent import parse_agent_prompt
from skillbench.prompts.user import parse_user_prompt
from skillbench.tools import open_tool_session

BENCH = "toolshed"


def _scenario(scenario_id: str):
    benchmark = load_benchmark(BENCH)
    return benchmark, next(s for s in benchmark.scenarios if s.id == scenario_id)


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / BENCH
    shutil.copytree(PACKAGED_DIR / BENCH, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_the_example_domain_loads_and_lints_clean_with_its_waiver_declared() -> None:
    benchmark = load_benchmark(BENCH)
    assert {t.name for t in benchmark.tools.values() if t.effect.operation == "code"} == {"loans.return_items", "loans.extend_loan"}
    report = lint_benchmark(BENCH)
    assert report.problems == []
    assert report.waived == {"every_path_per_industry": 1}
    assert "no problems; waived by benchmark.yaml: every_path_per_industry ×1" in list(format_report(report))[-1]


def test_a_code_tool_schema_comes_from_its_signature() -> None:
    schema = load_benchmark(BENCH).tools["loans.extend_loan"].input_schema
    assert schema["required"] == ["member_id", "loan_id", "extra_days"]
    assert schema["properties"]["extra_days"] == {
        "type": "integer", "minimum": 1, "maximum": 14, "description": "Days to add to the due date (1-14).",
    }
    items = load_benchmark(BENCH).tools["loans.return_items"].input_schema["properties"]["item_ids"]
    assert items["type"] == "array" and items["items"] == {"type": "string"} and items["minItems"] == 1
    assert schema["additionalProperties"] is False


async def test_code_tools_over_mcp_refuse_by_rule_and_compute_effects() -> None:
    benchmark, scenario = _scenario("ts-return-either-01")
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t"), seed=0) as tools:
        before = tools.state
        wrong = await tools.call("loans.return_items", {"member_id": "M-2042", "loan_id": "L-410", "item_ids": ["T-999"]},
                                 call_id="c1", turn=1)
        assert wrong.is_error and wrong.error_kind == "precondition"
        assert json.loads(wrong.result) == {"error": "Item T-999 is not out on loan L-410; items out: T-310, T-311.",
                                            "kind": "precondition"}
        assert tools.state == before  # a refused call changes nothing
        typed = await tools.call("loans.return_items", {"member_id": "M-2042", "loan_id": "L-410", "item_ids": "T-310"},
                                 call_id="c2", turn=2)
        assert typed.is_error and typed.error_kind == "validation"  # a string where the schema wants a list
        done = await tools.call("loans__return_items", {"member_id": "M-2042", "loan_id": "L-410", "item_ids": ["T-310"]},
                                call_id="c3", turn=3)
        assert not done.is_error
        assert json.loads(done.result) == {"loan_id": "L-410", "returned": ["T-310"], "still_out": ["T-311"],
                                           "days_late": 3, "late_fee": 7.5, "loan_status": "open"}
        state = tools.state
    assert state["charges"] == [{"charge_id": "CH-1", "member_id": "M-2042", "loan_id": "L-410", "item_ids": ["T-310"],
                                 "days_late": 3, "amount": 7.5}]
    assert state["members"][1]["balance_due"] == 7.5
    assert [c.name for c in tools.calls] == ["loans.return_items"] * 3  # logged in the same history


def test_changing_a_tool_function_changes_the_benchmark_version_and_rollout_keys(tmp_path: Path) -> None:
    from skillbench.engine.job import rollout_key
    from tests.conftest import compose_config

    root = _copy(tmp_path)
    first = load_benchmark(root)
    module = root / "tools" / "loans.py"
    module.write_text(module.read_text().replace("MAX_EXTENSION_DAYS = 14", "MAX_EXTENSION_DAYS = 21"))
    _load_cached.cache_clear()  # a process loads a folder once; a new process sees the edit
    second = load_benchmark(root)
    assert second.tools["loans.extend_loan"].input_schema["properties"]["extra_days"]["maximum"] == 21
    assert first.version != second.version
    cfg = compose_config()
    for a, b in zip(first.scenarios, second.scenarios, strict=True):
        assert rollout_key(cfg, first, a) != rollout_key(cfg, second, b)


def test_a_wrong_record_write_fails_the_whole_state_check_where_a_listed_target_state_passes() -> None:
    benchmark, scenario = _scenario("ts-return-happy-01")
    right = ("loans.return_items", {"member_id": "M-2041", "loan_id": "L-301", "item_ids": ["T-104", "T-233"]})
    # The drill and sander are checked in, and, by mistake, the tile cutter on the member's other loan.
    wrong = ("loans.return_items", {"member_id": "M-2041", "loan_id": "L-302", "item_ids": ["T-310"]})
    final = replay_actions(scenario.initial_state, benchmark.tools, [right, wrong])
    listed = [  # what a hand-written target_state would list: the records the request is about
        StateExpectation(collection="loans", match={"loan_id": "L-301"}, expect={"returned_item_ids": ["T-104", "T-233"]}),
        StateExpectation(collection="items", match={"item_id": "T-104"}, expect={"status": "available"}),
        StateExpectation(collection="items", match={"item_id": "T-233"}, expect={"status": "available"}),
    ]
    assert all(target.is_met(final) for target in listed)

    calls = [ToolCallRecord(turn=i, call_id=f"c{i}", name=name, arguments=args, offered=True, is_error=False, result="{}") for i, (name, args) in enumerate([right, wrong])]
    rollout = Rollout.model_construct(key="k", scenario_id=scenario.id, skill_id=scenario.skill_id, messages=[], tool_calls=calls,
                                      final_state=final, termination="resolved", termination_detail="", turns=3)
    checks = {c.name: c for c in run_rule_checks(rollout, scenario, benchmark.skill_of(scenario))}
    whole = checks["end_state_matches_gold"]
    assert not whole.passed
    assert "items item_id=T-310: status is 'available', expected 'on_loan'" in whole.detail
    assert "loans loan_id=L-302" in whole.detail
    assert checks["gold_actions_performed"].passed  # the right action was performed too


def test_gold_actions_report_which_were_performed() -> None:
    benchmark, scenario = _scenario("ts-return-two-01")
    first = scenario.gold_actions[0]
    calls = [ToolCallRecord(turn=1, call_id="c1", name=first.tool, arguments=dict(first.arguments), offered=True,
                            is_error=False, result="{}")]
    final = replay_actions(scenario.initial_state, benchmark.tools, [(first.tool, first.arguments)])
    rollout = Rollout.model_construct(key="k", scenario_id=scenario.id, skill_id=scenario.skill_id, messages=[], tool_calls=calls,
                                      final_state=final, termination="resolved", termination_detail="", turns=3)
    checks = {c.name: c for c in run_rule_checks(rollout, scenario, benchmark.skill_of(scenario))}
    assert checks["gold_actions_performed"].detail == (
        '1/2 performed; missing: loans.return_items(member_id="M-2041", loan_id="L-511", item_ids=["T-502", "T-503"])'
    )
    assert not checks["end_state_matches_gold"].passed
    # Volatile fields (the generated charge id) are ignored; every other field counts.
    expected = scenario.gold.expected_state
    renamed = json.loads(json.dumps(expected).replace('"CH-1"', '"CH-77"'))
    assert state_differences(renamed, expected, scenario.gold.volatile) == []
    assert state_differences(renamed, expected, {}) != []


def _edit_scenario(root: Path, file: str, scenario_id: str, change) -> None:
    path = root / "scenarios" / file
    data = yaml.safe_load(path.read_text())
    change(next(s for s in data["scenarios"] if s["id"] == scenario_id))
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _assert_lint_reports(root: Path, expected: str) -> None:
    problems = [str(p) for p in lint_benchmark(root).problems]
    assert any(expected in p for p in problems), problems


def test_a_gold_action_that_cannot_happen_stops_at_load(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit_scenario(root, "toolshed_return_tools.yaml", "ts-return-happy-01",
                   lambda s: s["gold_actions"][0]["arguments"].__setitem__("item_ids", ["T-310"]))
    with pytest.raises(BenchmarkDataError) as raised:
        load_benchmark(root)
    message = str(raised.value)
    assert "scenario ts-return-happy-01" in message and "gold_actions" in message
    assert "action 1 (loans.return_items): Item T-310 is not out on loan L-301" in message and "\n" not in message


def test_a_record_that_breaks_the_typed_environment_stops_at_load(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit_scenario(root, "toolshed_extend_loan.yaml", "ts-extend-happy-01",
                   lambda s: s["initial_state"]["items"][0].__setitem__("daily_late_fee", "a lot"))
    with pytest.raises(BenchmarkDataError) as raised:
        load_benchmark(root)
    message = str(raised.value)
    assert "scenarios.0.initial_state.items.0.daily_late_fee'" in message and "Item in loans.py" in message


def test_lint_names_the_call_where_gold_actions_and_the_reference_conversation_diverge(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    # The caller asks to return only the drill; the gold action still returns the drill and the sander.
    _edit_scenario(root, "toolshed_return_tools.yaml", "ts-return-happy-01",
                   lambda s: s["user_facts"].__setitem__("item_ids", ["T-104"]))
    _assert_lint_reports(root, "ts-return-happy-01: gold actions and the reference conversation diverge: the reference "
                         "conversation calls loans.return_items(member_id='M-2041', loan_id='L-301', item_ids=['T-104']), "
                         "which no gold action matches")


def test_alternatives_and_requests_reach_the_prompts_and_read_back() -> None:
    benchmark, scenario = _scenario("ts-return-two-01")
    skill = benchmark.skill_of(scenario)
    policy = parse_agent_prompt(render_agent_prompt(skill))
    assert policy.steps[0].alternatives == [(["members.verify_by_name"], ["full_name", "postcode"])]
    view = parse_user_prompt(render_user_prompt(scenario, skill, "###STOP###"))
    assert view.requests[1] == (scenario.requests[1].goal, {"loan_id": "L-511", "item_ids": ["T-502", "T-503"]})
    _, either = _scenario("ts-return-either-01")
    assert parse_user_prompt(render_user_prompt(either, skill, "###STOP###")).facts["item_ids"] == ["T-310"]


def test_a_gold_action_argument_of_the_wrong_type_stops_at_load(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit_scenario(root, "toolshed_extend_loan.yaml", "ts-extend-happy-01",
                   lambda s: s["gold_actions"][0]["arguments"].__setitem__("extra_days", "a week"))
    with pytest.raises(BenchmarkDataError, match=r"gold_actions.0.arguments': 'a week' is not of type 'integer'"):
        load_benchmark(root)


def test_list_fields_match_a_member_or_the_same_items_in_any_order() -> None:
    from skillbench.benchmark.schema import ToolEffect
    from skillbench.benchmark.state import EnvironmentState

    env = EnvironmentState({"loans": [{"loan_id": "L-1", "item_ids": ["T-1", "T-2"]}, {"loan_id": "L-2", "item_ids": ["T-3"]}]})
    lookup = ToolEffect(operation="lookup", collection="loans", match={"item_ids": "item"})
    assert [r["loan_id"] for r in env.apply(lookup, {"item": "T-2"})["records"]] == ["L-1"]
    assert [r["loan_id"] for r in env.apply(lookup, {"item": ["T-2", "T-1"]})["records"]] == ["L-1"]
    assert env.find("loans", item_ids="T-3")[0]["loan_id"] == "L-2"
    target = StateExpectation(collection="loans", match={"loan_id": "L-1"}, expect={"item_ids": ["T-2", "T-1"]})
    assert target.is_met(env.snapshot())


def test_a_target_state_the_reference_conversation_misses_is_reported_with_what_it_wrote(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit_scenario(root, "toolshed_return_tools.yaml", "ts-return-happy-01", lambda s: s.__setitem__(
        "target_state", [{"collection": "items", "match": {"item_id": "T-311"}, "expect": {"status": "available"}}]))
    _assert_lint_reports(root, "target_state[0] (items {'item_id': 'T-311'}) does not hold after the reference conversation; "
                         "the reference conversation wrote: loans.return_items(member_id='M-2041', loan_id='L-301', "
                         "item_ids=['T-104', 'T-233'])")


async def test_a_code_tool_answers_in_llm_mode_without_asking_the_model() -> None:
    from skillbench.config.schema import LlmMock, ModelConfig

    benchmark, scenario = _scenario("ts-extend-happy-01")
    mock = LlmMock(name="llm", llm=ModelConfig(name="never", model="openai/never-called", api_base="http://127.0.0.1:9"))
    async with open_tool_session(benchmark, scenario, mock, seed=0) as tools:
        record = await tools.call("loans.extend_loan", {"member_id": "M-2041", "loan_id": "L-620", "extra_days": 7},
                                  call_id="c1", turn=1)
        assert json.loads(record.result) == {"loan_id": "L-620", "new_due_date": "2026-12-15", "extensions": 1}
        assert tools.usage.calls == 0


def test_stats_count_code_tools() -> None:
    from skillbench.benchmark.stats import read_contents

    contents = read_contents(BENCH)
    assert sorted(contents.tools) == ["loans.extend_loan", "loans.return_items", "members.verify_by_email", "members.verify_by_name"]
