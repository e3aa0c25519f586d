"""The SIMULATED caller, called through litellm with the real user prompt."""

from __future__ import annotations

from typing import Any

import pytest

from skillbench.benchmark import Scenario, Skill, load_benchmark
from skillbench.config.schema import ModelConfig
from skillbench.models import ModelClient
from skillbench.prompts import render_opening_instruction, render_user_prompt
from skillbench.simulated.profiles.user import MAX_MESSAGES

STOP = "###STOP###"


@pytest.fixture(scope="module")
def setup() -> tuple[Skill, Scenario]:
    benchmark = load_benchmark("starter")
    scenario = next(s for s in benchmark.scenarios if s.id == "hc-resched-happy-01")
    return benchmark.skill_of(scenario), scenario


class Caller:
    """The simulator's view: its prompt, the opening instruction, its own lines and the agent's texts."""

    def __init__(self, skill: Skill, scenario: Scenario, seed: int = 0) -> None:
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": render_user_prompt(scenario, skill, STOP)},
            {"role": "user", "content": render_opening_instruction()},
        ]
        self.client = ModelClient(ModelConfig(name="user", model="skillbench_sim/user", simulated=True), seed=seed)

    async def says(self) -> str:
        reply = await self.client.complete(self.messages)
        text = reply.content or ""
        self.messages.append({"role": "assistant", "content": text})
        return text

    async def hears(self, agent_text: str) -> str:
        self.messages.append({"role": "user", "content": agent_text})
        return await self.says()


async def test_opening_is_the_goal_in_the_persona_voice(setup: tuple[Skill, Scenario]) -> None:
    skill, scenario = setup
    assert scenario.objective in await Caller(skill, scenario).says()


@pytest.mark.parametrize(
    ("question", "given", "not_given"),
    [
        ("Could you give me your date of birth?", "1984-03-17", "C-10482"),
        ("And what's your birthday?", "1984-03-17", "C-10482"),
        ("Can you confirm your DOB for me?", "1984-03-17", "C-10482"),
        ("May I have your customer number?", "C-10482", "1984-03-17"),
        ("Please give me your customer id and date of birth.", "C-10482", None),
    ],
)
async def test_gives_the_fact_that_was_asked_for(setup: tuple[Skill, Scenario], question: str, given: str, not_given: str | None) -> None:
    skill, scenario = setup
    caller = Caller(skill, scenario)
    await caller.says()
    answer = await caller.hears(question)
    assert given in answer
    if not_given:
        assert not_given not in answer


async def test_withheld_fact_gets_i_dont_know(setup: tuple[Skill, Scenario]) -> None:
    skill, scenario = setup
    facts = {k: v for k, v in scenario.user_facts.items() if k != "customer_id"}
    variant = scenario.model_copy(update={"user_facts": facts, "withheld_facts": ["customer_id"]})
    caller = Caller(skill, variant)
    await caller.says()
    answer = (await caller.hears("Could you please give me your customer id?")).lower()
    assert "don't know" in answer or "do not know" in answer


async def test_scripted_lines_are_said_in_order_from_the_second_message(setup: tuple[Skill, Scenario]) -> None:
    skill, scenario = setup
    lines = ["I want to speak to a manager.", "Right now, please."]
    variant = scenario.model_copy(update={"user_instructions": [f'Say: "{line}"' for line in lines]})
    caller = Caller(skill, variant)
    assert await caller.says() != lines[0]
    assert await caller.hears("Could you give me your customer id?") == lines[0]
    assert await caller.hears("I can help you with that myself.") == lines[1]


async def test_picks_the_offered_option_matching_its_fact(setup: tuple[Skill, Scenario]) -> None:
    skill, scenario = setup
    caller = Caller(skill, scenario)
    await caller.says()
    answer = await caller.hears(
        "Here are the available open slots: 2026-12-04T16:00; 2026-12-03T09:30. Which new start time would you like?"
    )
    assert "2026-12-03T09:30" in answer and "2026-12-04T16:00" not in answer


async def test_says_goodbye_after_confirmation_then_stops(setup: tuple[Skill, Scenario]) -> None:
    skill, scenario = setup
    caller = Caller(skill, scenario)
    await caller.says()
    goodbye = await caller.hears("All set: your appointment has been moved to 2026-12-03T09:30. Is there anything else I can help you with?")
    assert goodbye != STOP and "bye" in goodbye.lower()
    assert await caller.hears("Thank you for calling. Goodbye!") == STOP


async def test_stops_after_a_bounded_number_of_messages(setup: tuple[Skill, Scenario]) -> None:
    skill, scenario = setup
    caller = Caller(skill, scenario)
    await caller.says()
    replies = [await caller.hears(f"Let me look into something else ({index}).") for index in range(MAX_MESSAGES + 1)]
    assert STOP in replies
    assert replies.index(STOP) < MAX_MESSAGES


async def test_same_request_same_reply(setup: tuple[Skill, Scenario]) -> None:
    skill, scenario = setup
    one, two = Caller(skill, scenario, seed=7), Caller(skill, scenario, seed=7)
    assert await one.says() == await two.says()
    assert await one.hears("What is your date of birth?") == await two.hears("What is your date of birth?")
