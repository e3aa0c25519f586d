"""The simulated models read every generated opening and scripted line as the scenario means it.

This checks the SIMULATOR against the benchmark, never the other way round: a failure here is a gap in
the simulator's reading (skillbench/simulated), not a fault of the benchmark.
"""

from __future__ import annotations

import re

import pytest

from skillbench.benchmark import load_benchmark
from skillbench.benchmark.generator.generate import BuiltBenchmark, build_benchmark
from skillbench.prompts.user import fact_text, fact_value
from skillbench.simulated import reading, scope
from skillbench.simulated.speech import say_fact

SAY = re.compile(r'^Say: "(.+)"$')


@pytest.fixture(scope="module")
def built() -> BuiltBenchmark:
    return build_benchmark()


_LEADS = ("", "Look, ", "Honestly, this has been a hassle. ", "Hi, um... ", "Hello? Sorry, I'm not sure I'm doing this right. ",
          "Hi, I hope this is the right number. ", "Hello. ")
_TAILS = ("", " And I want it done now.", " Let's not make this complicated.")


def test_openings_and_scripted_lines_read_as_intended(built: BuiltBenchmark) -> None:
    skills = {skill.id: skill for skill in built.skills}
    seen: set[tuple[str, str]] = set()
    for candidate in built.candidates:
        s = candidate.scenario
        skill = skills[s.skill_id]
        if (s.skill_id, s.objective) not in seen:
            seen.add((s.skill_id, s.objective))
            wanted = s.path != "out_of_scope"
            for lead in _LEADS:
                for tail in _TAILS:
                    opening = lead + s.objective + tail
                    assert scope.in_scope(opening, skill.in_scope, skill.capability, skill.name) == wanted, (s.id, opening)
        assert not reading.asks_for_human(s.objective), s.id
        for line in s.user_instructions:
            said = SAY.match(line)
            if said and s.path == "transfer":
                assert reading.asks_for_human(said.group(1)), s.id
            if said and s.path == "prompt_injection":
                assert reading.is_injection(said.group(1)) and not reading.asks_for_human(said.group(1)), s.id
                assert not re.search(r"\d", said.group(1)), s.id  # a number could be taken for a requested fact
    for persona in {c.scenario.persona.id: c.scenario.persona for c in built.candidates}.values():
        assert not any(reading.asks_for_human(u) for u in persona.example_utterances), persona.id


@pytest.mark.parametrize("source", ["starter", "full", "toolshed"])
def test_every_shipped_fact_is_said_and_read_back_exactly(source: str) -> None:
    """Every fact of a shipped scenario, said by the caller's convention in each persona's voice, reads back as
    the value the caller's prompt holds (tests/simulated/test_generated_domains.py does the same for any shape)."""
    for scenario in load_benchmark(source).scenarios:
        facts = {key: fact_value(fact_text(value)) for key, value in scenario.user_facts.items()}
        keys = list(facts)
        for key, value in facts.items():
            for frame in ("Sure, {}.", "{}, I think.", "Fine. {}. Can we speed this up?", "{} and my x is 1."):
                said = frame.format(say_fact(reading.plain(key), value))
                assert reading.extract_facts(said, keys, asked=[key]).get(key) == value, (scenario.id, key, said)
