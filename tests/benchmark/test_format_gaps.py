"""What the domain format can say (issue 43 item 2): each gap a ported domain hit, closed and shown here.

Cases edit a copy of a packaged example domain and load it (one line, exit-2 error at load) or lint it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from skillbench.benchmark import PACKAGED_DIR, load_benchmark
from skillbench.benchmark.integrity import FieldPath, dangling_references
from skillbench.benchmark.lint import LintReport, _check_state, format_report, lint_benchmark
from skillbench.core.errors import BenchmarkDataError
from skillbench.core.records import Rollout, ToolCallRecord
from skillbench.evaluation.checks import run_rule_checks
from skillbench.prompts import render_agent_prompt
from skillbench.prompts.agent import parse_agent_prompt


def _copy(tmp_path: Path, name: str = "toolshed") -> Path:
    root = tmp_path / name
    shutil.copytree(PACKAGED_DIR / name, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _edit_yaml(path: Path, change: Callable[[Any], None]) -> None:
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def _load_error(root: Path) -> str:
    with pytest.raises(BenchmarkDataError) as raised:
        load_benchmark(root)
    message = str(raised.value)
    assert "\n" not in message and "Fix:" in message, message
    return message


def _lint_lines(root: Path) -> list[str]:
    return [str(problem) for problem in lint_benchmark(root).problems]


# -- 5. references: nested paths, checked at load; a misspelt entry is refused with a did-you-mean ------------


def _with_parts(root: Path, part: str = "T-104") -> None:
    """Give a loan a nested list of records (parts: [{item_id}]) pointing at items."""
    def change(data: Any) -> None:
        loan = data["scenarios"][0]["initial_state"]["loans"][0]
        loan["parts"] = [{"part_id": "T-233", "note": "charger"}, {"part_id": part, "note": "battery"}]
    _edit_yaml(root / "scenarios" / "toolshed_return_tools.yaml", change)


def _references(root: Path, references: dict[str, str]) -> None:
    _edit_yaml(root / "benchmark.yaml", lambda data: data.__setitem__("references", references))


def test_a_nested_reference_is_checked_at_load_and_its_message_names_the_target_field(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _with_parts(root, part="T-999")
    _references(root, {"loans.parts[].part_id": "items.item_id"})
    message = _load_error(root)
    assert ("scenario ts-return-happy-01: field 'scenarios.0.initial_state.loans.0.parts.1.part_id' is 'T-999', "
            "but no items record has item_id 'T-999'. Fix: add that record to initial_state.items or correct the id.") in message
    assert any("loans.0.parts.1.part_id' is 'T-999', but no items record has item_id" in line for line in _lint_lines(root))


def test_a_valid_nested_reference_loads(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _with_parts(root)
    _references(root, {"loans.parts[].part_id": "items.item_id"})
    assert load_benchmark(root).manifest.references == {"loans.parts[].part_id": "items.item_id"}


def test_a_declared_reference_names_the_target_key_not_the_source_field() -> None:
    state = {"users": [{"user_id": "u1"}], "orders": [{"order_id": "o1", "buyer": "ghost"}]}
    [dangling] = dangling_references(state, {"orders.buyer": "users.user_id"})
    assert str(dangling) == "initial_state.orders.0.buyer' is 'ghost', but no users record has user_id 'ghost'"


@pytest.mark.parametrize(("references", "expected"), [
    ({"loanz.member_id": "members.member_id"},
     "field 'references.loanz.member_id': 'loanz' in 'loanz.member_id' is no collection of any scenario's initial_state "
     "or tool. Fix: did you mean 'loans'?"),
    ({"loans.membr": "members.member_id"},
     "field 'references.loans.membr': no loans record has a field 'membr' (in 'loans.membr'). Fix: did you mean 'member_id'?"),
    ({"loans.member_id": "members.member_idd"},
     "field 'references.loans.member_id': no members record has a field 'member_idd' (in 'members.member_idd'). "
     "Fix: did you mean 'member_id'?"),
    ({"loans.parts.part_id": "items.item_id"},
     "'parts' holds a list of records, so 'loans.parts.part_id' reaches no field. Fix: write 'loans.parts[].part_id'"),
    ({"loans.parts[].partid": "items.item_id"},
     "no loans record's parts[] has a field 'partid' (in 'loans.parts[].partid'). Fix: did you mean 'part_id'?"),
    ({"loans.due_date[].day": "items.item_id"},
     "'due_date' is not a list, so '[]' in 'loans.due_date[].day' walks nothing. Fix: write 'loans.due_date.day'"),
    ({"loans": "members.member_id"}, "'loans' is not '<collection>.<field>'"),
])
def test_a_reference_that_names_nothing_is_refused_at_load_with_the_nearest_name(
        tmp_path: Path, references: dict[str, str], expected: str) -> None:
    root = _copy(tmp_path)
    _with_parts(root)
    _references(root, references)
    message = _load_error(root)
    assert message.startswith(f"{root / 'benchmark.yaml'}: "), message
    assert expected in message, message
    lines = _lint_lines(root)
    assert lines and lines[0].startswith("benchmark.yaml: references.") and expected.split(": ", 1)[-1] in lines[0], lines
    assert not any("dangling" in line or "but no" in line for line in lines), lines  # not flooded by what it switched off


def test_field_paths_walk_mappings_and_lists_of_records() -> None:
    record = {"order_id": "o1", "items": [{"product_id": "p1"}, {"product_id": "p2", "extra": {"code": "x"}}],
              "shipping": {"country_id": "c1"}, "tags": ["a", "b"]}
    assert list(FieldPath.parse("orders.items[].product_id").values(record)) == [("items.0.product_id", "p1"),
                                                                                  ("items.1.product_id", "p2")]
    assert list(FieldPath.parse("orders.shipping.country_id").values(record)) == [("shipping.country_id", "c1")]
    assert list(FieldPath.parse("orders.items[].extra.code").values(record)) == [("items.1.extra.code", "x")]
    assert list(FieldPath.parse("orders.tags").values(record)) == [("tags.0", "a"), ("tags.1", "b")]
    assert list(FieldPath.parse("orders.missing[].x").values(record)) == []
    for bad in ("orders", "orders..x", "orders.items[]", "orders.it-ems"):
        with pytest.raises(ValueError):
            FieldPath.parse(bad)


# -- 1. a collect step offering either-or fact sets; 2. a way chosen by the request or by a record's state -----


def _reference_calls(benchmark_name: str | Path, scenario_id: str) -> list[str]:
    benchmark = load_benchmark(benchmark_name)
    scenario = next(s for s in benchmark.scenarios if s.id == scenario_id)
    report = LintReport(root=benchmark.root)
    trace = _check_state(scenario, benchmark.skill_of(scenario), benchmark.tools, scenario.id, report)
    assert trace is not None and report.problems == [], report.problems
    return [name for name, _ in trace.calls]


def test_the_example_domain_with_every_new_feature_loads_and_lints_clean() -> None:
    report = lint_benchmark("photolab")
    assert report.problems == [], report.problems
    assert report.waived == {"every_path_per_industry": 1}
    benchmark = load_benchmark("photolab")
    assert len(benchmark.scenarios) == 10 and benchmark.manifest.references["orders.prints[].photo_id"] == "photos.photo_id"


def test_a_collect_step_offers_either_or_fact_sets_and_the_request_chooses() -> None:
    benchmark = load_benchmark("photolab")
    skill = benchmark.skills["photolab_order_help"]
    step = next(s for s in skill.steps if s.id == "what_is_needed")
    assert [way.collects for way in step.ways()] == [["reason"], ["damaged_prints"]] and step.tools == []
    assert _reference_calls("photolab", "pl-cancel-queued-01")[-1] == "lab.cancel_order"
    assert _reference_calls("photolab", "pl-damage-shipped-01")[-1] == "lab.report_damage"
    # Two requests in one call, each with its own facts: each takes its own way (two different tools).
    assert _reference_calls("photolab", "pl-help-two-01") == [
        "customers.verify_customer", "lab.find_order", "lab.cancel_order", "lab.find_order", "lab.report_damage"]
    prompt = render_agent_prompt(skill)
    assert "3. [collect] Ask why the customer wants to cancel, or which prints arrived damaged. (ask for: reason) (or ask for: damaged_prints)" in prompt
    assert ("4. [act] Cancel the order for that reason, or open a damage claim for those prints. (either tools: lab.cancel_order; "
            "ask for: reason) (or tools: lab.report_damage; ask for: damaged_prints)") in prompt
    read = parse_agent_prompt(prompt).steps
    assert read[2].ways() == [([], ["reason"]), ([], ["damaged_prints"])]
    assert read[3].ways() == [(["lab.cancel_order"], ["reason"]), (["lab.report_damage"], ["damaged_prints"])]


def test_a_way_is_chosen_by_the_records_state() -> None:
    # The same arguments (customer, order, prints): the order's status alone tells the two tools apart.
    assert _reference_calls("photolab", "pl-edit-queued-01")[-1] == "lab.edit_queued_order"
    assert _reference_calls("photolab", "pl-reprint-printed-01")[-1] == "lab.reprint_order"
    # A cancelled order: no way applies, nothing is called after the lookup.
    assert _reference_calls("photolab", "pl-change-cancelled-01") == ["customers.verify_customer", "lab.find_order"]
    prompt = render_agent_prompt(load_benchmark("photolab").skills["photolab_change_prints"])
    assert ("(either tools: lab.edit_queued_order; when status is queued) "
            "(or tools: lab.reprint_order; when status is printed or shipped)") in prompt
    change = parse_agent_prompt(prompt).steps[3]
    assert change.conditioned_ways() == [(["lab.edit_queued_order"], [], {"status": ["queued"]}),
                                         (["lab.reprint_order"], [], {"status": ["printed", "shipped"]})]


def test_a_changed_status_changes_the_way_and_lint_says_the_scenario_no_longer_fits(tmp_path: Path) -> None:
    root = _copy(tmp_path, "photolab")
    def printed(data: Any) -> None:
        order = data["scenarios"][0]["initial_state"]["orders"][0]
        order.update(status="printed", printed_on="2026-12-01")
    _edit_yaml(root / "scenarios" / "photolab_change_prints.yaml", printed)
    assert _lint_lines(root) == [
        "scenarios/photolab_change_prints.yaml: scenario pl-edit-queued-01: required tool lab.edit_queued_order is never "
        "reached by the workflow with this scenario's facts",
        "scenarios/photolab_change_prints.yaml: scenario pl-edit-queued-01: action 1 (lab.edit_queued_order): Order "
        "PO-5001 is printed; only a queued order can be edited. on initial_state. Fix: correct the gold action or the state.",
    ]


def test_a_condition_on_a_field_no_tool_returns_is_named_by_lint(tmp_path: Path) -> None:
    root = _copy(tmp_path, "photolab")
    _edit_yaml(root / "skills" / "photolab_change_prints.yaml",
               lambda data: data["steps"][3]["alternatives"][0].__setitem__("when", {"stauts": "queued"}))
    lines = _lint_lines(root)
    assert any("step 'change': the way with tools ['lab.edit_queued_order'] applies when 'stauts' is 'queued', but no "
               "earlier tool returns a field 'stauts'" in line for line in lines), lines


@pytest.mark.parametrize(("way", "expected"), [
    ({"collects": []}, "an alternative needs tools or facts to collect"),
    ({"tools": ["lab.reprint_order"], "when": {"status": "printed, shipped"}}, "cannot be empty or hold ','"),
    ({"tools": ["lab.reprint_order"], "when": {"Status": "printed"}}, "is not a record field name"),
])
def test_a_way_that_cannot_be_followed_or_shown_is_refused_at_load(tmp_path: Path, way: dict, expected: str) -> None:
    root = _copy(tmp_path, "photolab")
    _edit_yaml(root / "skills" / "photolab_change_prints.yaml", lambda data: data["steps"][3]["alternatives"].append(way))
    message = _load_error(root)
    assert "photolab_change_prints.yaml: field 'steps.3.alternatives.2" in message and expected in message, message


# -- 3. a field updated under its own name: the naming convention is waivable, for one argument or one tool's --


def _desk(tmp_path: Path, waivers: dict[str, str] | None = None) -> Path:
    """A minimal desk whose API updates a booking's cabin under its own name (as a ported airline API does)."""
    root = tmp_path / "desk"
    for folder in ("tools", "skills", "scenarios"):
        (root / folder).mkdir(parents=True)
    manifest: dict[str, Any] = {"name": "desk", "industries": [{"id": "travel", "name": "Travel"}],
                                "lint_waivers": {"every_path_per_industry": "A two-scenario probe.", **(waivers or {})}}
    string = {"type": "string"}
    tools = {"server": "desk", "tools": [
        {"name": "desk.verify", "description": "Verify by e-mail.", "reads": ["passengers"],
         "input_schema": {"type": "object", "properties": {"email": string}, "required": ["email"]},
         "effect": {"operation": "verify", "collection": "passengers", "match": {"email": "email"}, "returns": ["passenger_id"]}},
        {"name": "desk.get_booking", "description": "A booking.", "reads": ["bookings"],
         "input_schema": {"type": "object", "properties": {"booking_id": string}, "required": ["booking_id"]},
         "effect": {"operation": "get", "collection": "bookings", "match": {"booking_id": "booking_id"}}},
        {"name": "desk.change_cabin", "description": "Change the cabin.", "reads": ["bookings"], "writes": ["bookings"],
         "input_schema": {"type": "object", "properties": {"booking_id": string, "cabin": {"type": "string", "enum": ["economy", "business"]}},
                          "required": ["booking_id", "cabin"]},
         "effect": {"operation": "update", "collection": "bookings", "match": {"booking_id": "booking_id"}, "set": {"cabin": "cabin"}}},
    ]}
    skill = {"id": "desk_cabin", "name": "Change cabin", "industry": "travel", "category": "bookings", "company": "Desk Air",
             "capability": "Changes a booking's cabin.", "workflow": "Verify, find the booking, change its cabin.",
             "steps": [{"id": "verify", "kind": "verify", "instruction": "Verify.", "tools": ["desk.verify"], "collects": ["email"]},
                       {"id": "find", "kind": "lookup", "instruction": "Find it.", "tools": ["desk.get_booking"], "collects": ["booking_id"]},
                       {"id": "which", "kind": "collect", "instruction": "Ask for the cabin.", "collects": ["cabin"]},
                       {"id": "change", "kind": "act", "instruction": "Change it.", "tools": ["desk.change_cabin"]}],
             "success_criteria": ["Changed."], "guardrails": ["Verify first."],
             "tools": ["desk.verify", "desk.get_booking", "desk.change_cabin"], "in_scope": ["change cabin"]}
    scenario = {"id": "dk-cabin-01", "skill_id": "desk_cabin", "path": "happy_path", "title": "Upgrade",
                "objective": "I want to fly business.", "persona": {"id": "p", "label": "neutral"},
                "user_facts": {"email": "a@example.org", "booking_id": "B-1", "cabin": "business"},
                "initial_state": {"passengers": [{"passenger_id": "P-1", "email": "a@example.org"}],
                                  "bookings": [{"booking_id": "B-1", "passenger_id": "P-1", "cabin": "economy"}]},
                "gold_actions": [{"tool": "desk.change_cabin", "arguments": {"booking_id": "B-1", "cabin": "business"}}],
                "required_tools": ["desk.verify", "desk.get_booking", "desk.change_cabin"],
                "success_criteria": ["The cabin is business."]}
    for relative, data in {"benchmark.yaml": manifest, "tools/desk.yaml": tools, "skills/desk_cabin.yaml": skill,
                           "scenarios/desk_cabin.yaml": {"skill_id": "desk_cabin", "scenarios": [scenario]}}.items():
        (root / relative).write_text(yaml.safe_dump(data, sort_keys=False))
    return root


def test_updating_a_field_under_its_own_name_is_a_waivable_convention(tmp_path: Path) -> None:
    [line] = _lint_lines(_desk(tmp_path / "plain"))
    assert line.startswith("scenarios/desk_cabin.yaml: scenario dk-cabin-01: state reference: desk.change_cabin (step "
                           "'change'): argument 'cabin' is both the caller's fact and a field of earlier results with other "
                           "values ['economy']; give the new value its own name (e.g. 'new_cabin'), or, where the API updates "
                           "the field under its own name, waive it in benchmark.yaml: lint_waivers: "
                           "{'new_value_own_name:desk.change_cabin.cabin': <why>}"), line
    assert line.endswith("[rule new_value_own_name]")
    why = "The ported API updates the cabin under its own name."
    for waiver in ("new_value_own_name:desk.change_cabin.cabin", "new_value_own_name:cabin", "new_value_own_name"):
        report = lint_benchmark(_desk(tmp_path / waiver.replace(":", "-"), {waiver: why}))
        assert report.problems == [] and report.waived[waiver] == 1, (waiver, report.problems)
        assert f"no problems; waived by benchmark.yaml: every_path_per_industry ×1, {waiver} ×1" in list(format_report(report))[-1]
    assert load_benchmark(_desk(tmp_path / "loads")).scenarios[0].gold is not None  # the domain itself is sound


@pytest.mark.parametrize(("waiver", "expected"), [
    ("new_value_own_name:desk.change_cabn.cabin", "no tool 'desk.change_cabn' in the catalogue; did you mean 'desk.change_cabin'?"),
    ("new_value_own_name:desk.change_cabin.cabn", "desk.change_cabin takes no argument 'cabn'; did you mean 'cabin'?"),
    ("new_value_own_name:cabn", "any tool takes no argument 'cabn'; did you mean 'cabin'?"),
    ("verify_step:desk.verify", "verify_step applies to the whole benchmark; waive it as 'verify_step'"),
])
def test_a_scoped_waiver_that_names_nothing_is_reported(tmp_path: Path, waiver: str, expected: str) -> None:
    lines = _lint_lines(_desk(tmp_path, {waiver: "why"}))
    assert any(line.startswith(f"benchmark.yaml: lint_waivers: {waiver!r}: {expected}") for line in lines), lines


# -- 4. a gold action expected to be refused ------------------------------------------------------------------


def test_a_gold_action_expected_to_be_refused_is_replayed_as_refused_and_changes_nothing() -> None:
    benchmark = load_benchmark("photolab")
    scenario = next(s for s in benchmark.scenarios if s.id == "pl-reprint-late-01")
    assert scenario.gold_actions is not None and scenario.gold_actions[0].refused == "precondition"
    assert scenario.gold is not None and scenario.gold.expected_state == scenario.initial_state
    assert _reference_calls("photolab", "pl-reprint-late-01")[-1] == "lab.reprint_order"  # asked; refused as expected


@pytest.mark.parametrize(("change", "expected"), [
    (lambda s: s["initial_state"]["orders"][0].__setitem__("printed_on", "2026-11-30"),
     "action 1 (lab.reprint_order) is expected to be refused (precondition) but succeeds on initial_state"),
    (lambda s: s["gold_actions"][0].__setitem__("refused", "not_found"),
     "action 1 (lab.reprint_order): Order PO-6001 was printed 46 days ago; free reprints are only made within 30 days. "
     "(expected to be refused as not_found, not precondition) on initial_state"),
    (lambda s: s["gold_actions"][0].__setitem__("refused", "rejected"), "gold_actions.0.refused': Input should be 'precondition' or 'not_found'"),
])
def test_a_gold_action_not_refused_as_declared_stops_the_load(tmp_path: Path, change: Callable[[Any], None], expected: str) -> None:
    root = _copy(tmp_path, "photolab")
    _edit_yaml(root / "scenarios" / "photolab_change_prints.yaml", lambda data: change(data["scenarios"][2]))
    message = _load_error(root)
    assert expected in message, message


def test_gold_actions_performed_reads_an_expected_refusal() -> None:
    benchmark = load_benchmark("photolab")
    scenario = next(s for s in benchmark.scenarios if s.id == "pl-reprint-late-01")
    action = scenario.gold_actions[0]

    def checks(calls: list[ToolCallRecord]) -> dict[str, Any]:
        rollout = Rollout.model_construct(key="k", scenario_id=scenario.id, skill_id=scenario.skill_id, messages=[], tool_calls=calls,
                                          final_state=scenario.initial_state, termination="resolved", termination_detail="", turns=3)
        return {c.name: c for c in run_rule_checks(rollout, scenario, benchmark.skill_of(scenario))}

    refused = ToolCallRecord(turn=1, call_id="c1", name=action.tool, arguments=dict(action.arguments), offered=True,
                             is_error=True, error_kind="precondition", result="Order PO-6001 was printed 46 days ago; ...")
    asked = checks([refused])
    assert asked["gold_actions_performed"].passed and asked["end_state_matches_gold"].passed
    assert asked["gold_actions_performed"].detail == "0/0 performed; expected refusals: 1/1 asked and refused"
    foreseen = checks([])  # a careful agent may foresee the refusal and not ask: the state is what the gold says
    assert foreseen["gold_actions_performed"].passed
    assert foreseen["gold_actions_performed"].detail == "0/0 performed; expected refusals: 0/1 asked and refused"
    done = refused.model_copy(update={"is_error": False, "error_kind": None, "result": "{}"})
    wrong = checks([done])["gold_actions_performed"]  # succeeded (on a state where it could): a wrong action
    assert not wrong.passed and "succeeded though expected to be refused: lab.reprint_order(" in wrong.detail
    assert wrong.detail.endswith("[refused: precondition]")


# -- smaller: a volatile field not declared, a Unicode normalisation difference, the comparison's equality ------


def test_a_tool_that_is_not_deterministic_gets_the_volatile_fields_fix(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    module = root / "tools" / "loans.py"
    text = module.read_text().replace("from datetime import date, timedelta", "from datetime import date, datetime, timedelta")
    module.write_text(text.replace('    loan["extensions"] += 1\n',
                                   '    loan["extensions"] += 1\n    loan["extended_at"] = datetime.now().isoformat()\n'))
    [line] = _lint_lines(root)
    assert line.startswith("scenarios/toolshed_extend_loan.yaml: scenario ts-extend-happy-01: loans.extend_loan is not "
                           "deterministic: the same calls leave different loans.extended_at (loans loan_id=L-620: "
                           "extended_at is '2026-"), line
    assert line.endswith("Fix: declare 'volatile_fields: {loans: [extended_at]}' in benchmark.yaml (the whole-state "
                         "verdict then ignores it), or make the tool deterministic (a fixed clock, like toolshed's TODAY)")
    _edit_yaml(root / "benchmark.yaml", lambda data: data["volatile_fields"].__setitem__("loans", ["extended_at"]))
    assert _lint_lines(root) == []


NFC, NFD = "Tom\u00e1s Novak", "Toma\u0301s Novak"


def test_a_unicode_normalisation_difference_is_named_as_such(tmp_path: Path) -> None:
    from skillbench.benchmark.gold import state_differences

    expected = {"members": [{"member_id": "M-1", "full_name": NFC}]}
    actual = {"members": [{"member_id": "M-1", "full_name": NFD}]}
    assert state_differences(actual, expected) == [
        "members member_id=M-1: full_name differs only in Unicode normalisation: 'Toma\\u0301s Novak' (NFD), expected "
        "'Tom\\xe1s Novak' (NFC); normalise the data or set comparison: {unicode: NFC} in benchmark.yaml"]
    root = _copy(tmp_path)  # the caller says the name composed; the membership stores it decomposed
    def decomposed(data: Any) -> None:
        scenario = data["scenarios"][1]
        scenario["user_facts"]["full_name"] = NFC
        scenario["initial_state"]["members"][1]["full_name"] = NFD
    _edit_yaml(root / "scenarios" / "toolshed_return_tools.yaml", decomposed)
    assert ("scenarios/toolshed_return_tools.yaml: scenario ts-return-either-01: the caller's facts fail verification, so "
            "the request cannot be completed (the caller's full_name 'Tom\\xe1s Novak' and the state's 'Toma\\u0301s Novak' "
            "differ only in Unicode normalisation: write both the same way)") in _lint_lines(root)


@pytest.mark.parametrize(("comparison", "actual", "expected", "equal"), [
    # the default rule: scalars as strings, lists of scalars in any order, lists of records in order, code points
    ({}, {"n": 100, "s": "1"}, {"n": "100", "s": 1}, True),
    ({}, {"n": 100}, {"n": 100.0}, False),
    ({}, {"b": True}, {"b": "true"}, False),
    ({}, {"ids": [2, 1]}, {"ids": ["1", "2"]}, True),
    ({}, {"rows": [{"a": 1}, {"a": 2}]}, {"rows": [{"a": 2}, {"a": 1}]}, False),
    ({}, {"name": NFD}, {"name": NFC}, False),
    # JSON types: numbers as numbers, apart from strings and booleans
    ({"scalars": "json"}, {"n": 100}, {"n": 100.0}, True),
    ({"scalars": "json"}, {"n": 100}, {"n": "100"}, False),
    ({"scalars": "json"}, {"b": True}, {"b": "True"}, False),
    ({"scalars": "json", "decimals": 2}, {"n": 0.1 + 0.2}, {"n": 0.3}, True),
    ({"scalars": "json"}, {"n": 0.1 + 0.2}, {"n": 0.3}, False),
    ({"lists": "ordered"}, {"ids": [2, 1]}, {"ids": [1, 2]}, False),
    ({"unicode": "NFC"}, {"name": NFD}, {"name": NFC}, True),
])
def test_the_comparison_rule_is_the_documented_one_and_configurable(
        comparison: dict, actual: dict, expected: dict, equal: bool) -> None:
    from skillbench.benchmark.gold import state_differences
    from skillbench.benchmark.schema import StateComparison

    rule = StateComparison(**comparison)
    differences = state_differences({"t": [{"t_id": "x", **actual}]}, {"t": [{"t_id": "x", **expected}]}, comparison=rule)
    assert (differences == []) is equal, differences


def test_a_benchmarks_comparison_reaches_the_verdict_and_a_wrong_one_stops_the_load(tmp_path: Path) -> None:
    def with_comparison(name: str, comparison: dict) -> Path:
        root = _copy(tmp_path / name)  # a folder loads once per process: one copy per case
        _edit_yaml(root / "benchmark.yaml", lambda data: data.__setitem__("comparison", comparison))
        return root

    scenario = next(s for s in load_benchmark(with_comparison("json", {"scalars": "json", "decimals": 2})).scenarios
                    if s.id == "ts-return-either-01")
    assert scenario.gold is not None and scenario.gold.comparison.scalars == "json"
    assert "decimals applies to numbers compared as numbers: set scalars: json too" in _load_error(
        with_comparison("decimals", {"decimals": 2}))
    assert "field 'comparison.lists': Input should be 'unordered' or 'ordered'" in _load_error(
        with_comparison("lists", {"lists": "sorted"}))
