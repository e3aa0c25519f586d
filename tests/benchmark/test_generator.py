"""The generated full benchmark: reproducible bytes, paper-scale counts, balance, solvability."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

import faker
import pytest
import yaml

from skillbench.benchmark import SCENARIO_PATHS, load_benchmark, select_scenarios
from skillbench.benchmark.cli import benchmark_main
from skillbench.benchmark.generator.domains import DOMAINS_DIR, industry_ids, read_servers, read_skills
from skillbench.benchmark.generator.generate import (
    BUILT_WITH_FAKER,
    DEFAULT_OUT,
    BuiltBenchmark,
    build_benchmark,
    differences,
    write_benchmark,
)
from skillbench.benchmark.generator.writer import dump
from skillbench.benchmark.reference import holds, run_reference
from skillbench.benchmark.state import EnvironmentState
from skillbench.benchmark.version import content_version
from skillbench.core import paths
from skillbench.core.errors import BenchmarkDataError
from tests.conftest import compose_config

INDUSTRIES = {"telecommunications", "banking", "insurance", "healthcare", "retail", "travel", "utilities", "saas",
              "home_services", "automotive"}
SAY = re.compile(r'^Say: "(.+)"$')


@pytest.fixture(scope="module")
def built() -> BuiltBenchmark:
    return build_benchmark()


def _tools(built: BuiltBenchmark) -> dict:
    return {tool.name: tool for server in built.servers for tool in server.tools}


def test_two_builds_write_identical_bytes(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    write_benchmark(build_benchmark(), first)
    write_benchmark(build_benchmark(), second)
    files = sorted(p.relative_to(first) for p in first.rglob("*.yaml"))
    assert files == sorted(p.relative_to(second) for p in second.rglob("*.yaml"))
    assert len(files) == 1 + 34 + 80 + 80
    for relative in files:
        assert (first / relative).read_bytes() == (second / relative).read_bytes(), relative


def test_shipped_data_equals_a_fresh_build(built: BuiltBenchmark) -> None:
    changed = differences(built, DEFAULT_OUT)
    if changed and faker.VERSION != BUILT_WITH_FAKER:
        pytest.skip(f"Faker {faker.VERSION} draws other names than {BUILT_WITH_FAKER}, which built the shipped files")
    assert changed == [], "run `skillbench benchmark build` and commit the result"


def test_paper_scale(built: BuiltBenchmark) -> None:
    assert {i.id for i in built.manifest.industries} == INDUSTRIES
    assert len(built.skills) == 80
    assert Counter(skill.industry for skill in built.skills) == dict.fromkeys(INDUSTRIES, 8)
    assert sum(len(server.tools) for server in built.servers) >= 281
    assert {"crm", "helpdesk", "billing", "payments", "orders", "scheduling", "identity", "messaging",
            "knowledge_base"} <= {server.server for server in built.servers}
    assert len(built.candidates) >= 1800
    assert len(built.scenarios) == 500
    assert len({s.id for s in built.scenarios}) == 500
    categories = {skill.category for skill in built.skills}
    assert {"account_management", "billing", "compliance", "refunds", "technical_support", "marketing_inquiries",
            "appointment_scheduling", "order_processing"} <= categories
    industry_of = {skill.id: skill.industry for skill in built.skills}
    covered = defaultdict(set)
    for scenario in built.scenarios:
        covered[industry_of[scenario.skill_id]].add(scenario.path)
    assert all(covered[industry] == set(SCENARIO_PATHS) for industry in INDUSTRIES)


def test_selection_is_balanced(built: BuiltBenchmark) -> None:
    industry_of = {skill.id: skill.industry for skill in built.skills}
    by_industry = Counter(industry_of[s.skill_id] for s in built.scenarios)
    assert set(by_industry.values()) == {50}
    for industry in INDUSTRIES:  # each industry is selected on its own, so balance holds within each
        mine = [s for s in built.scenarios if industry_of[s.skill_id] == industry]
        by_path = Counter(s.path for s in mine)
        assert max(by_path.values()) - min(by_path.values()) <= 1, industry
        by_persona = Counter(s.persona.label for s in mine)
        assert len(by_persona) == 10 and max(by_persona.values()) - min(by_persona.values()) <= 2, industry
    per_skill = defaultdict(list)
    for scenario in built.scenarios:
        per_skill[scenario.skill_id].append(scenario.path)
    for skill_paths in per_skill.values():
        assert 6 <= len(skill_paths) <= 7 and len(set(skill_paths)) == len(skill_paths)  # distinct paths within a skill
    escalations = [s for s in built.scenarios if s.path == "tool_failure" and paths.unrecoverable_tools(s.tool_failures)]
    assert 0 < len(escalations) < sum(s.path == "tool_failure" for s in built.scenarios)


def test_scenarios_follow_the_path_table(built: BuiltBenchmark) -> None:
    for s in built.scenarios:
        says = [m.group(1) for line in s.user_instructions if (m := SAY.match(line))]
        rule = paths.PATH_RULES[s.path]
        assert s.expected_outcome == paths.expected_outcome(s.path, s.tool_failures), s.id
        assert bool(s.tool_failures) == rule.outcome_follows_failures, s.id
        if rule.requires_no_tools:
            assert not s.required_tools, s.id
        if rule.needs_say_line or s.path == "transfer":  # the generator's callers always ask for the human
            assert says, s.id
        if s.path == "prompt_injection":
            assert says and s.forbidden_tools, s.id
        if s.path == "guardrail_refusal":
            assert s.forbidden_tools and all(t.absent or t.expect for t in s.target_state), s.id
        if s.path == "missing_information":
            assert s.withheld_facts or any("only when the agent asks" in line for line in s.user_instructions), s.id


def test_shipped_files_load_and_match_the_build(built: BuiltBenchmark) -> None:
    loaded = load_benchmark(DEFAULT_OUT)
    assert loaded.manifest == built.manifest
    assert loaded.skills == {skill.id: skill for skill in built.skills}
    assert sorted(loaded.scenarios, key=lambda s: s.id) == sorted(built.scenarios, key=lambda s: s.id)
    assert loaded.tools == _tools(built)


def test_removing_an_industry_leaves_the_others_byte_identical(built: BuiltBenchmark) -> None:
    dropped = industry_ids()[0]
    rest = build_benchmark(industries=[name for name in industry_ids() if name != dropped])
    files, full = rest.files(), built.files()
    assert not any(dropped in path for path in files)
    assert [path for path, text in files.items() if path != "benchmark.yaml" and full[path] != text] == []
    assert rest.manifest.version != built.manifest.version


def test_version_is_a_hash_of_the_other_files(built: BuiltBenchmark) -> None:
    files = built.files()
    assert built.manifest.version == content_version(files) and len(built.manifest.version) == 16
    files["skills/banking_refund_fee.yaml"] += "# edited\n"
    files["benchmark.yaml"] += "# the manifest does not count\n"
    assert content_version(files) != built.manifest.version
    assert content_version({**built.files(), "benchmark.yaml": ""}) == built.manifest.version


def test_unknown_factory_in_skills_yaml_names_file_field_and_choices(tmp_path: Path) -> None:
    text = (DOMAINS_DIR / "banking" / "skills.yaml").read_text().replace("make: banking.account}", "make: banking.acount}")
    path = tmp_path / "skills.yaml"
    path.write_text(text)
    with pytest.raises(BenchmarkDataError) as caught:
        read_skills(path, set())  # the factory name is checked while parsing, before any tool
    message = str(caught.value)
    assert str(path) in message and "field 'entities.accounts.make'" in message
    assert "did you mean 'banking.account'" in message and "banking.card, banking.fee" in message


def test_misspelt_key_in_servers_yaml_names_file_field_and_fix(tmp_path: Path) -> None:
    text = (DOMAINS_DIR / "banking" / "servers.yaml").read_text().replace("        description: Get one account.",
                                                                         "        descripton: Get one account.")
    path = tmp_path / "servers.yaml"
    path.write_text(text)
    with pytest.raises(BenchmarkDataError) as caught:
        read_servers(path, set())  # keys are checked while parsing, before any argument
    message = str(caught.value)
    assert str(path) in message and "field 'servers.0.tools.1.descripton'" in message
    assert "rename 'descripton' to 'description'" in message


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("result: {status: sent, channel: sms}", "const: {status: sent, channel: sms}",
         "'const' is now spelled as in the benchmark format: set_const (create/update: fields written) or result"),
        ("result: {status: sent, channel: sms}", "set_const: {status: sent, channel: sms}",
         "set_const (fields written) belongs to create and update effects, not to action"),
    ],
    ids=["the old spelling", "fields written by an action"],
)
def test_effect_constants_have_one_spelling_that_of_the_benchmark_format(tmp_path: Path, old: str, new: str,
                                                                         says: str) -> None:
    """servers.yaml writes the effects' constants as the benchmark's tool files do (set_const, result): the notation's
    former ``const``, read as one or the other by the effect's kind, is refused with the fix."""
    text = (DOMAINS_DIR / "_shared" / "servers.yaml").read_text()
    assert old in text
    path = tmp_path / "servers.yaml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(BenchmarkDataError) as caught:
        read_servers(path, set())
    assert str(path) in str(caught.value) and says in str(caught.value)


def test_completed_scenarios_reach_their_target_on_the_stateful_mock(built: BuiltBenchmark) -> None:
    tools, skills = _tools(built), {skill.id: skill for skill in built.skills}
    checked = 0
    for scenario in built.scenarios:
        if scenario.expected_outcome != "success" or scenario.path == "guardrail_refusal":
            continue
        trace = run_reference(
            skills[scenario.skill_id], tools, user_facts=scenario.user_facts, withheld=scenario.withheld_facts,
            initial_state=scenario.initial_state, include=set(scenario.required_tools), skip=set(scenario.forbidden_tools),
        )
        assert not trace.problems, (scenario.id, trace.problems)
        env = EnvironmentState.from_scenario(scenario)
        for name, arguments in trace.calls:  # replayed on a fresh mock built from the scenario itself
            env.apply(tools[name].effect, arguments)
        final = env.snapshot()
        assert all(holds(final, target) for target in scenario.target_state), scenario.id
        assert set(scenario.required_tools) <= {name for name, _ in trace.calls}, scenario.id
        checked += 1
    assert checked >= 240  # happy, missing, injection and recovered failures: about half of the 500


# Lead-ins and endings the simulated caller adds to an opening in some personas: an opening must be
# read the same way (in or out of scope) with any of them.
def test_writer_round_trips_awkward_values() -> None:
    data = {
        "plain": "Verified caller, systems working",
        "reserved": ["yes", "No", "on", "null", "true"],
        "numbers": ["05168", "25.00", "1e3", "+1-555-014-2231", "2026-11-06", "2026-11-06T13:00"],
        "punctuation": ["a: b", "ends with colon:", "# not a comment", "Which one? This one", "it's", 'say "hi"', "- dash"],
        "flow": {"k": "a, b", "q": "why?", "brackets": "[x] {y}"},
        "unicode": "Nguyễn Thị Ánh — café",
        "multiline": "line one\nline two",
        "empty": [], "nothing": {}, "blank": "", "number": 7, "flag": False, "none": None,
        "nested": [{"id": "x", "items": [{"a": "1"}, {"b": ["c", "d"]}]}],
    }
    assert yaml.safe_load(dump(data)) == data


def test_cli_build_check_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "full"
    assert benchmark_main(["build", "--out", str(out)]) == 0
    assert benchmark_main(["build", "--check", "--out", str(out)]) == 0
    target = out / "skills" / "banking_refund_fee.yaml"
    target.write_text(target.read_text() + "# edited\n")
    (out / "scenarios" / "stale.yaml").write_text("skill_id: x\nscenarios: []\n")
    assert benchmark_main(["build", "--check", "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "banking_refund_fee.yaml: differs" in printed and "stale.yaml: differs" in printed
    assert benchmark_main(["stats", str(out)]) == 0
    printed = capsys.readouterr().out
    for word in ("telecommunications", "account_management", "prompt_injection", "adversarial", "scheduling"):
        assert word in printed
    from skillbench.cli import main

    assert main(["benchmark", "stats", "starter"]) == 0
    assert "benchmark starter" in capsys.readouterr().out


def test_full_smoke_is_one_scenario_per_industry_and_path() -> None:
    cfg = compose_config("benchmark=full_smoke")
    bench = load_benchmark(cfg.benchmark.source)
    chosen = select_scenarios(bench, cfg.benchmark)
    pairs = Counter((bench.skill_of(s).industry, s.path) for s in chosen)
    assert len(chosen) == 70 and set(pairs.values()) == {1} and len(pairs) == 70


def test_command_line_selection_by_industry_and_path() -> None:
    cfg = compose_config("benchmark=full", "benchmark.industries=[banking]", "benchmark.paths=[transfer]")
    bench = load_benchmark(cfg.benchmark.source)
    chosen = select_scenarios(bench, cfg.benchmark)
    assert chosen and all(bench.skill_of(s).industry == "banking" and s.path == "transfer" for s in chosen)
    skill_cfg = compose_config("benchmark=full", "benchmark.skills=[travel_change_flight]")
    assert {s.skill_id for s in select_scenarios(bench, skill_cfg.benchmark)} == {"travel_change_flight"}
