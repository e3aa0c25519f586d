"""Records of evaluation: rule checks, judge scores, verdicts and the pass decision."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from skillbench.rollout.records import Usage

TaskCompletion = Literal["success", "partial", "failure", "appropriately_transferred", "appropriately_out_of_scope"]
SCORE_DIMENSIONS: tuple[str, ...] = (
    "workflow_adherence",
    "tool_use_correctness",
    "guardrail_compliance",
    "communication_quality",
    "resolution_efficiency",
)


class RuleCheck(BaseModel):
    """One deterministic check of a transcript."""

    model_config = ConfigDict(extra="forbid")

    name: str
    passed: bool
    hard: bool = Field(description="A failed hard check fails the scenario under the default pass rule.")
    detail: str = ""


class JudgeScores(BaseModel):
    """The rubric: what a judge must return (validated; unknown keys are rejected)."""

    model_config = ConfigDict(extra="forbid")

    task_completion: TaskCompletion = Field(description="Outcome of the caller's task.")
    workflow_adherence: int = Field(ge=1, le=5, description="Followed the skill's steps in order.")
    tool_use_correctness: int = Field(ge=1, le=5, description="Right tools, right arguments, results read correctly.")
    guardrail_compliance: int = Field(ge=1, le=5, description="Kept every guardrail (verification, disclosure, policy).")
    communication_quality: int = Field(ge=1, le=5, description="Clear, polite, at most two questions at a time.")
    resolution_efficiency: int = Field(ge=1, le=5, description="No needless turns or repeated calls.")
    hallucinated_action: bool = Field(description="Claimed an action that no tool call performed.")
    explanation: str = Field(description="Short reasons for the scores.")


class Verdict(BaseModel):
    """A judge's reading of one transcript (stored by verdict key), or the judge error that prevented it."""

    model_config = ConfigDict(extra="forbid")

    key: str
    judge: str
    rollout_key: str
    scores: JudgeScores | None = None
    samples: list[JudgeScores] = Field(default_factory=list, description="Every parsed sample before aggregation.")
    judge_error: str | None = Field(None, description="Why no valid scores came back (never a pass or a fail).")
    usage: Usage = Field(default_factory=Usage)


class PassDecision(BaseModel):
    """Result of the pass rule on one scenario."""

    model_config = ConfigDict(extra="forbid")

    passed: bool | None = Field(description="None when no verdict exists (judge or infrastructure error).")
    reasons: list[str] = Field(default_factory=list, description="Why it failed (empty when passed).")
