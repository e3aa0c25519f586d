"""Keys assembled from parts encoded once are the keys of the whole (issue 40 item 3): rollout and verdict keys are
computed from a loaded benchmark's records encoded once, and stay byte-identical to hashing the whole content, so
every stored rollout and verdict is still found."""

from __future__ import annotations

import pytest

from skillbench.benchmark import load_benchmark
from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.config import RunConfig
from skillbench.core.canonical import canonical_array, canonical_json
from skillbench.engine.job import RolloutKeys, rollout_key
from skillbench.evaluation import VerdictKeys, verdict_key
from skillbench.prompts import AGENT_PROMPT_VERSION, USER_PROMPT_VERSION
from skillbench.prompts.judge import JUDGE_PROMPT_VERSION
from skillbench.prompts.tool_result import TOOL_RESULT_PROMPT_VERSION
from skillbench.store import content_hash, model_identity, result_settings
from skillbench.store.keys import encoded_hash, judge_settings
from tests.conftest import compose_config

AWKWARD = [
    {"b": 1, "a": [1, 2.5, None, True], "é": "naïve ☃ \"quoted\" \n\t", "nested": {"z": {}, "y": []}},
    [],
    "",
    0.1 + 0.2,
    10**30,
    {"10": 1, "9": 2, "a": {"B": 1, "b": 2}},
    {"set": {3, 1}, "object": object.__name__},  # default=str covers what JSON cannot hold
]


@pytest.mark.parametrize("value", AWKWARD)
def test_an_object_assembled_from_encoded_members_hashes_as_the_whole(value: object) -> None:
    whole = {"first": value, "second": [value, {"inner": value}], "a": 1}
    assert encoded_hash({name: canonical_json(member) for name, member in whole.items()}) == content_hash(whole)
    items = [value, value, {"k": value}]
    assert canonical_array(canonical_json(item) for item in items) == canonical_json(items)


def _whole_rollout_key(cfg: RunConfig, benchmark: Benchmark, scenario: Scenario, trial: int = 0) -> str:
    """The rollout key's definition: the hash of the whole content, encoded in one go."""
    skill = benchmark.skill_of(scenario)
    settings = result_settings(cfg)
    return content_hash({
        **({"trial": trial} if trial else {}),
        "agent": settings["agent"], "user_sim": settings["user_sim"], "mock": settings["mock"],
        "scenario": scenario.model_dump(mode="json"), "skill": skill.model_dump(mode="json"),
        "tools": [tool.model_dump(mode="json") for tool in benchmark.toolkit(skill)],
        **settings["run"], "prompts": [AGENT_PROMPT_VERSION, USER_PROMPT_VERSION, TOOL_RESULT_PROMPT_VERSION],
    })


@pytest.mark.parametrize("name", ["starter", "toolshed"])
def test_rollout_keys_are_the_hash_of_the_whole_content_for_every_scenario_and_trial(name: str) -> None:
    cfg = compose_config("agent=sim_sloppy", "run.seed=3")
    benchmark = load_benchmark(name)
    keys = RolloutKeys(cfg, benchmark)
    for scenario in benchmark.scenarios:
        for trial in (0, 2):
            assert keys.key(scenario, trial) == _whole_rollout_key(cfg, benchmark, scenario, trial), scenario.id
    assert rollout_key(cfg, benchmark, benchmark.scenarios[0]) == keys.key(benchmark.scenarios[0])


def test_a_changed_copy_of_a_scenario_gets_its_own_key_not_the_cached_one() -> None:
    cfg = compose_config()
    benchmark = load_benchmark("starter")
    keys = RolloutKeys(cfg, benchmark)
    scenario = benchmark.scenarios[0]
    before = keys.key(scenario)
    for _ in range(50):  # copies come and go: a freed copy's id reused by the next must not find its text
        changed = scenario.model_copy(update={"objective": f"{scenario.objective} (changed)"})
        assert keys.key(changed) == _whole_rollout_key(cfg, benchmark, changed) != before
        del changed
    assert keys.key(scenario) == before


def test_verdict_keys_are_the_hash_of_the_whole_content() -> None:
    judge = compose_config("judge=sim_strict", "judge.samples=3").judge
    prompt = 'A transcript with "quotes", naïve ☃ text\nand lines.'
    whole = content_hash({"judge": model_identity(judge), **judge_settings(judge),
                          "prompt_version": JUDGE_PROMPT_VERSION, "prompt": prompt})
    assert VerdictKeys(judge).key(prompt) == verdict_key(judge, prompt) == whole


def test_fields_added_after_publication_are_left_out_of_every_dump_while_at_their_default() -> None:
    import json

    from skillbench.benchmark.schema import Scenario, ToolSpec, WorkflowStep

    benchmark = load_benchmark("starter")
    scenario, tool = benchmark.scenarios[0].model_dump(), next(iter(benchmark.tools.values())).model_dump()
    step = {"id": "s", "kind": "verify", "instruction": "Verify the caller.", "tools": ["crm.find"]}
    cases = [
        (Scenario, scenario, {"requests": [{"goal": "also this"}], "gold_actions": []}),
        (ToolSpec, tool, {"code_version": "abc123"}),
        (WorkflowStep, step, {"alternatives": [{"tools": ["crm.other"]}]}),
    ]
    for model, data, added in cases:
        plain = model.model_validate({key: value for key, value in data.items() if key not in added})
        given = model.model_validate({**data, **added})
        for dump in (plain.model_dump(), plain.model_dump(mode="json"), json.loads(plain.model_dump_json())):
            assert not set(added) & set(dump), model.__name__
        for dump in (given.model_dump(mode="json"), json.loads(given.model_dump_json())):
            assert set(added) <= set(dump), model.__name__  # gold_actions=[] ("nothing may change") is kept
