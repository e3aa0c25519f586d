"""Scenario-path rules have one owner (skillbench/core/paths.py): the lint, the rule checks, the generator
and the pass rule follow an edit of that module alone, and none of them writes a path rule of its own."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
from hydra import compose, initialize_config_module

import skillbench
from skillbench.benchmark.generator.generate import build_benchmark
from skillbench.benchmark.lint import LintReport, _check_paths
from skillbench.config import validate_config
from skillbench.config.schema import PassRuleConfig
from skillbench.core import paths
from skillbench.core.records import OUTCOMES, SCENARIO_PATHS, ExpectedOutcome
from tests.evaluation.test_rules import UPDATE, VERIFY, call, checks, rollout
from tests.support.toy_domain import make_scenario

PACKAGE = Path(skillbench.__file__).parent


def test_every_path_has_one_rule_and_every_expected_outcome_one_termination() -> None:
    assert tuple(paths.PATH_RULES) == SCENARIO_PATHS
    assert set(paths.TERMINATION_OF) == set(paths.EXPECTED_OUTCOMES)
    assert len(set(paths.TERMINATION_OF.values())) == len(paths.TERMINATION_OF)  # each outcome shows differently
    assert PassRuleConfig(name="x").allowed_outcomes == list(paths.EXPECTED_OUTCOMES)


def _presets() -> dict[str, PassRuleConfig]:
    """Every shipped pass-rule preset as a run composes and validates it (Hydra, then the config schema)."""
    names = sorted(path.stem for path in (PACKAGE / "conf" / "pass_rule").glob("*.yaml"))
    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        return {name: validate_config(compose("config", overrides=[f"pass_rule={name}"])).pass_rule for name in names}


def test_the_shipped_presets_take_their_outcomes_from_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """``allowed_outcomes: [expected]`` in the presets is core/paths.py's list, read when a config is validated: an
    outcome added there (or dropped) reaches every preset with no edit of theirs; lenient states only its addition."""
    extra = {"lenient": ["partial"]}
    shipped = _presets()
    assert {"paper", "strict", "state_strict", "lenient"} <= set(shipped)
    for name, rule in shipped.items():
        assert set(rule.allowed_outcomes) == {*paths.EXPECTED_OUTCOMES, *extra.get(name, [])}, name
        assert rule.name == name  # not labelled as changed from its own preset
    monkeypatch.setattr(paths, "EXPECTED_OUTCOMES", ("success", "appropriately_transferred"))
    for name, rule in _presets().items():
        assert rule.allowed_outcomes == [o for o in OUTCOMES if o in {"success", "appropriately_transferred",
                                                                       *extra.get(name, [])}], name
    assert PassRuleConfig(name="x").allowed_outcomes == ["success", "appropriately_transferred"]
    preset_text = "".join(path.read_text() for path in (PACKAGE / "conf" / "pass_rule").glob("*.yaml"))
    assert "appropriately_out_of_scope" not in preset_text  # no preset copies the owner's list


def _lint_paths(**overrides: object) -> list[str]:
    report = LintReport(root=Path("."))
    _check_paths(make_scenario(**overrides), "s", report)
    return [p.message for p in report.problems]


def test_raising_the_retry_limit_in_paths_alone_moves_lint_checks_and_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    three = {UPDATE: 3}
    tool_failure = {"path": "tool_failure", "required_tools": [VERIFY, UPDATE], "tool_failures": three}
    attempted = rollout(call(VERIFY), *(call(UPDATE, error=True) for _ in range(3)), termination="transferred")
    # Today: three failures are beyond the limit, so the scenario must transfer and attempting counts.
    assert _lint_paths(**tool_failure, expected_outcome="appropriately_transferred") == []
    assert checks(attempted, make_scenario(**tool_failure, expected_outcome="appropriately_transferred"))[
        "required_tools_invoked"].passed

    monkeypatch.setattr(paths, "MAX_RECOVERABLE_FAILURES", 3)
    assert paths.expected_outcome("tool_failure", three) == "success"
    assert any("should be 'success'" in m and "at most 3 retries" in m
               for m in _lint_paths(**tool_failure, expected_outcome="appropriately_transferred"))
    assert _lint_paths(**tool_failure, expected_outcome="success") == []
    assert not checks(attempted, make_scenario(**tool_failure, expected_outcome="success"))[
        "required_tools_invoked"].passed  # three failures are now retryable: only a success counts

    built = build_benchmark(industries=["telecommunications"])
    escalate = [c.scenario for c in built.candidates if c.variant == "failure-escalate"]
    recover = [c.scenario for c in built.candidates if c.variant == "failure-recover"]
    assert escalate and recover
    assert {max(s.tool_failures.values()) for s in escalate} == {4}
    assert {s.expected_outcome for s in escalate} == {"appropriately_transferred"}
    assert {max(s.tool_failures.values()) for s in recover} == {1, 2, 3}
    assert all(any("at most three times" in c for c in s.success_criteria) for s in recover)
    assert all(any("retry it at most three times" in g for g in skill.guardrails) for skill in built.skills)


def test_changing_a_paths_expected_outcome_in_paths_alone_moves_lint_generator_and_checks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    changed = dict(paths.PATH_RULES)
    changed["out_of_scope"] = dataclasses.replace(changed["out_of_scope"], expected_outcome="appropriately_transferred")
    monkeypatch.setattr(paths, "PATH_RULES", changed)
    monkeypatch.setattr(paths, "TERMINATION_OF", {**paths.TERMINATION_OF, "success": "transferred"})

    assert any("expected 'appropriately_transferred'" in m
               for m in _lint_paths(path="out_of_scope", required_tools=[], expected_outcome="appropriately_out_of_scope"))
    built = build_benchmark(industries=["telecommunications"])
    out_of_scope = [c.scenario for c in built.candidates if c.scenario.path == "out_of_scope"]
    assert out_of_scope and {s.expected_outcome for s in out_of_scope} == {"appropriately_transferred"}
    found = checks(rollout(termination="transferred"), make_scenario())["outcome_matches_expected"]
    assert found.passed and found.detail == "expected success (ends transferred); ended transferred"


def _strings_and_path_comparisons(source: str) -> tuple[set[str], list[int]]:
    tree = ast.parse(source)
    strings = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    compared = [
        node.lineno for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any((isinstance(side, ast.Attribute) and side.attr == "path") or (isinstance(side, ast.Name) and side.id == "path")
                for side in (node.left, *node.comparators))
        and any(isinstance(side, ast.Constant) and side.value in SCENARIO_PATHS for side in (node.left, *node.comparators))
    ]
    return strings, compared


# The readers of the path rules: they may use the rules, never state one.
READERS = ["benchmark/lint.py", "evaluation", "config", "engine", "report", "rollout", "benchmark/generator", "agents",
           "tools", "lab", "plan", "mining", "view"]


@pytest.mark.parametrize("reader", READERS)
def test_no_reader_writes_a_path_rule_of_its_own(reader: str) -> None:
    files = [PACKAGE / reader] if reader.endswith(".py") else sorted((PACKAGE / reader).rglob("*.py"))
    assert files, f"{reader} has no Python files: update READERS"
    non_success: set[str] = set(paths.EXPECTED_OUTCOMES) - {paths.PATH_RULES["happy_path"].expected_outcome}
    for file in files:
        strings, compared = _strings_and_path_comparisons(file.read_text())
        outcomes: set[ExpectedOutcome] = non_success & strings  # type: ignore[assignment]
        assert not outcomes, f"{file}: names {sorted(outcomes)}; read it from skillbench.core.paths"
        if not str(file).startswith(str(PACKAGE / "benchmark/generator")):  # the generator's templates pick text by path
            assert not compared, f"{file}:{compared}: branches on a scenario path; give the path's rule a field in core/paths.py"
