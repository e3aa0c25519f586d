"""``skillbench benchmark lint``: clean on the shipped benchmarks, and each crafted problem is reported."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from skillbench.benchmark.cli import benchmark_main
from skillbench.benchmark.generator.generate import BuiltBenchmark, build_benchmark, write_benchmark
from skillbench.benchmark.lint import CONVENTIONS, format_report, lint_benchmark
from skillbench.benchmark.schema import BenchmarkManifest


@pytest.fixture(scope="module")
def mini_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The full benchmark cut down to its telecommunications industry (fast to lint)."""
    built = build_benchmark()
    skills = [s for s in built.skills if s.industry == "telecommunications"]
    ids = {s.id for s in skills}
    manifest = BenchmarkManifest(
        name="mini", industries=[i for i in built.manifest.industries if i.id == "telecommunications"]
    )
    mini = BuiltBenchmark(manifest=manifest, servers=built.servers, skills=skills,
                          scenarios=[s for s in built.scenarios if s.skill_id in ids], candidates=[])
    root = tmp_path_factory.mktemp("mini")
    write_benchmark(mini, root)
    return root


@pytest.fixture
def mini(mini_files: Path, tmp_path: Path) -> Path:
    import shutil

    copy = tmp_path / "mini"
    shutil.copytree(mini_files, copy)
    return copy


def _edit(path: Path, change: Callable[[Any], None]) -> None:
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _scenario(data: dict[str, Any], path: str) -> dict[str, Any]:
    return next(s for s in data["scenarios"] if s["path"] == path)


def _messages(root: Path) -> list[str]:
    return [str(problem) for problem in lint_benchmark(root).problems]


def test_shipped_benchmarks_are_clean() -> None:
    for source in ("full", "starter"):
        report = lint_benchmark(source)
        assert report.problems == [], [str(p) for p in report.problems[:5]]
    assert lint_benchmark("full").counts == {"tools": 292, "skills": 80, "scenarios": 500, "industries": 10}


def test_mini_is_clean_and_cli_exits_zero(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _messages(mini) == []
    assert benchmark_main(["lint", str(mini)]) == 0
    assert "no problems" in capsys.readouterr().out


def test_unknown_tool(mini: Path) -> None:
    _edit(mini / "scenarios/telecom_change_plan.yaml",
          lambda d: _scenario(d, "happy_path")["required_tools"].append("crm.no_such_tool"))
    problems = _messages(mini)
    assert any("scenarios/telecom_change_plan.yaml" in p and "'crm.no_such_tool' is not in the catalogue" in p
               for p in problems), problems


def test_unresolvable_argument(mini: Path) -> None:
    def require_contract_code(data: dict[str, Any]) -> None:
        tool = next(t for t in data["tools"] if t["name"] == "provisioning.change_plan")
        tool["input_schema"]["properties"]["contract_code"] = {"type": "string"}
        tool["input_schema"]["required"].append("contract_code")

    _edit(mini / "tools/provisioning.yaml", require_contract_code)
    problems = _messages(mini)
    assert any("required argument 'contract_code' is neither a caller fact nor a field" in p for p in problems), problems


def test_fact_never_asked_for(mini: Path) -> None:
    def drop_fact(data: dict[str, Any]) -> None:
        del _scenario(data, "happy_path")["user_facts"]["new_plan_id"]

    _edit(mini / "scenarios/telecom_change_plan.yaml", drop_fact)
    problems = _messages(mini)
    assert any("asks for 'new_plan_id', which the caller does not have" in p for p in problems), problems


def test_duplicate_scenario(mini: Path) -> None:
    def duplicate(data: dict[str, Any]) -> None:
        copy = dict(_scenario(data, "happy_path"), id="telecom_change_plan-copy", title="Another title")
        data["scenarios"].append(copy)

    _edit(mini / "scenarios/telecom_change_plan.yaml", duplicate)
    problems = _messages(mini)
    assert any("telecom_change_plan-copy: duplicate of scenario telecom_change_plan-" in p for p in problems), problems


def test_invalid_json_schema(mini: Path) -> None:
    def break_schema(data: dict[str, Any]) -> None:
        properties = data["tools"][0]["input_schema"]["properties"]
        properties[next(iter(properties))]["type"] = "strnig"

    _edit(mini / "tools/crm.yaml", break_schema)
    problems = _messages(mini)
    assert any("tools/crm.yaml: tool crm." in p and "not a valid JSON Schema" in p for p in problems), problems


def test_target_state_without_a_record(mini: Path) -> None:
    def retarget(data: dict[str, Any]) -> None:
        _scenario(data, "happy_path")["target_state"][0]["match"] = {"line_id": "L-00000"}

    _edit(mini / "scenarios/telecom_change_plan.yaml", retarget)
    problems = _messages(mini)
    assert any("no 'lines' record in initial_state matches {'line_id': 'L-00000'}" in p for p in problems), problems


def test_path_missing_in_an_industry(mini: Path) -> None:
    for path in (mini / "scenarios").glob("*.yaml"):
        _edit(path, lambda d: d.__setitem__("scenarios", [s for s in d["scenarios"] if s["path"] != "transfer"]))
    problems = _messages(mini)
    assert ("benchmark.yaml: industry 'telecommunications' has no scenario for path(s) transfer "
            "[rule every_path_per_industry]") in problems


def test_a_convention_waived_by_name_in_the_manifest_is_not_a_problem(mini: Path) -> None:
    for path in (mini / "scenarios").glob("*.yaml"):
        _edit(path, lambda d: d.__setitem__("scenarios", [s for s in d["scenarios"] if s["path"] != "transfer"]))
    _edit(mini / "benchmark.yaml", lambda d: d.__setitem__(
        "lint_waivers", {"every_path_per_industry": "this domain has no transfer path", "no_such_rule": "x"}))
    report = lint_benchmark(mini)
    assert report.waived == {"every_path_per_industry": 1}
    assert [str(p) for p in report.problems] == [
        "benchmark.yaml: lint_waivers: 'no_such_rule' is not a convention rule; waivable: " + ", ".join(CONVENTIONS)
    ]
    assert "waived by benchmark.yaml: every_path_per_industry ×1" in list(format_report(report))[-1]


def test_outcome_that_contradicts_the_path(mini: Path) -> None:
    files = sorted((mini / "scenarios").glob("*.yaml"))
    target = next(p for p in files if any(s["path"] == "tool_failure" for s in yaml.safe_load(p.read_text())["scenarios"]))

    def lie(data: dict[str, Any]) -> None:
        scenario = _scenario(data, "tool_failure")
        scenario["tool_failures"] = dict.fromkeys(scenario["tool_failures"], 3)
        scenario["expected_outcome"] = "success"

    _edit(target, lie)
    problems = _messages(mini)
    assert any("with tool_failures" in p and "should be 'appropriately_transferred'" in p for p in problems), problems


def test_guardrail_facts_that_pass_verification(mini: Path) -> None:
    files = sorted((mini / "scenarios").glob("*.yaml"))
    target = next(p for p in files if any(s["path"] == "guardrail_refusal" for s in yaml.safe_load(p.read_text())["scenarios"]))

    def use_true_postcode(data: dict[str, Any]) -> None:
        scenario = _scenario(data, "guardrail_refusal")
        holder = next(c for c in scenario["initial_state"]["customers"]
                      if c["customer_id"] == scenario["user_facts"]["customer_id"])
        scenario["user_facts"]["postal_code"] = holder["postal_code"]

    _edit(target, use_true_postcode)
    problems = _messages(mini)
    assert any("guardrail_refusal: the caller's facts pass verification" in p for p in problems), problems


def test_every_problem_is_one_line_and_the_cli_exits_one(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (mini / "skills/telecom_change_plan.yaml").write_text("id: [unclosed\n")
    _edit(mini / "tools/crm.yaml", lambda d: d["tools"][0]["input_schema"].__setitem__("type", "objekt"))
    assert benchmark_main(["lint", str(mini)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("lint mini (") and "problem(s)" in lines[-1]
    problems = lines[:-1]
    assert any(line.startswith("skills/telecom_change_plan.yaml: line ") and "is not valid YAML" in line for line in problems), problems
    assert any(line.startswith("tools/crm.yaml: ") for line in problems), problems
    # The unreadable skill leaves its scenarios without a skill, reported once for the file.
    assert any(line.startswith("scenarios/telecom_change_plan.yaml: skill_id") for line in problems), problems
