"""Rated selection: a model writes one example conversation per candidate scenario, another rates it on a
rubric, and each skill keeps its ``per_skill`` best-rated scenarios (the reference study's last step).

The candidates are the generator's (synthetic identities and personas), so no transcript text and no
personal data reach these prompts. A conversation the writer cannot produce, or the rater cannot
score, after ``attempts`` replies drops that candidate with the reason recorded.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, Field

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.mining.llm import ask, load_json
from skillbench.mining.prompts import prompt

RUBRIC = ("realism", "workflow_adherence", "persona_fidelity", "scenario_fit")


class ConversationTurn(BaseModel):
    speaker: Literal["customer", "agent"] = Field(description="Who speaks.")
    text: str = Field(min_length=1, description="What is said (tool use described in words).")


class WrittenConversation(BaseModel):
    turns: list[ConversationTurn] = Field(min_length=4, description="The conversation, at least two exchanges.")


class Rating(BaseModel):
    scores: dict[str, int] = Field(description="Rubric dimension → 1..5.")
    reason: str = Field(min_length=1, description="One sentence.")


class RatedCandidate(BaseModel):
    """One candidate scenario's example conversation and rating (a stored item of the scenarios stage)."""

    scenario_id: str = Field(description="The candidate scenario.")
    skill_id: str = Field(description="Its skill.")
    turns: list[ConversationTurn] = Field(default_factory=list, description="The written conversation.")
    scores: dict[str, int] = Field(default_factory=dict, description="The rater's scores per rubric dimension.")
    score: float = Field(0.0, description="Mean of the scores (the ranking key).")
    reason: str = Field("", description="The rater's reason.")
    dropped: str | None = Field(None, description="Why the candidate has no rating.")
    kept: bool = Field(False, description="Whether it is among its skill's best rated (set when the file is written).")
    usage: dict[str, float] = Field(default_factory=dict, description="Model calls, tokens, cost and seconds spent.")


def _rating(text: str | None) -> Rating:
    rating = load_json(text, Rating)
    missing = [d for d in RUBRIC if d not in rating.scores]
    if missing:
        raise ValueError(f"scores missing for {missing}")
    bad = {d: v for d, v in rating.scores.items() if d in RUBRIC and not 1 <= v <= 5}
    if bad:
        raise ValueError(f"scores outside 1..5: {bad}")
    return rating


def _scenario_text(skill: Skill, scenario: Scenario) -> str:
    steps = "\n".join(f"- {s.instruction}" for s in skill.steps)
    return (f"Skill: {skill.name}\nWorkflow:\n{steps}\nGuardrails:\n" + "\n".join(f"- {g}" for g in skill.guardrails)
            + f"\n\nScenario ({scenario.path}): {scenario.title}\nCaller's opening: {scenario.objective}\n"
            f"Persona: {scenario.persona.label}: {scenario.persona.style}\n"
            f"Caller knows: {json.dumps(scenario.user_facts, ensure_ascii=False)}\n"
            f"Expected: {'; '.join(scenario.success_criteria)}")


async def rate(writer: object, rater: object, skill: Skill, scenario: Scenario, *, writer_version: str, rater_version: str,
               attempts: int) -> RatedCandidate:
    """Write the example conversation, then rate it; either failing drops the candidate with the reason."""
    base = {"scenario_id": scenario.id, "skill_id": skill.id}
    text = _scenario_text(skill, scenario)
    written, usage, problem = await ask(writer, prompt("conversation", writer_version), text,  # type: ignore[arg-type]
                                        lambda r: load_json(r, WrittenConversation), attempts)
    if written is None:
        return RatedCandidate(**base, dropped=problem, usage=usage)
    shown = "\n".join(f"{t.speaker.upper()}: {t.text}" for t in written.turns)
    rating, spent, problem = await ask(rater, prompt("rate", rater_version), f"{text}\n\nConversation:\n{shown}",  # type: ignore[arg-type]
                                       _rating, attempts)
    for key, value in spent.items():
        usage[key] = usage.get(key, 0.0) + value
    if rating is None:
        return RatedCandidate(**base, turns=written.turns, dropped=problem, usage=usage)
    scores = {d: rating.scores[d] for d in RUBRIC}
    return RatedCandidate(**base, turns=written.turns, scores=scores, score=round(sum(scores.values()) / len(RUBRIC), 4),
                          reason=rating.reason, usage=usage)
