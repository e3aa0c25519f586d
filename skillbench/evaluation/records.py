"""Records of evaluation: verdicts and the pass decision (rule checks and scores live in ``skillbench.core``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from skillbench.core.records import ErrorKind, Usage
from skillbench.core.rubric import JudgeScores


class Verdict(BaseModel):
    """A judge's reading of one transcript (stored by verdict key), or the judge error that prevented it."""

    model_config = ConfigDict(extra="forbid")

    key: str
    judge: str
    rollout_key: str
    scores: JudgeScores | None = None
    samples: list[JudgeScores] = Field(default_factory=list, description="Every parsed sample before aggregation.")
    judge_error: str | None = Field(None, description="Why no valid scores came back (never a pass or a fail).")
    error_kind: ErrorKind | None = Field(
        None, description="judge: no usable reply (stored); infra: the endpoint failed (never stored, re-asked on rerun)."
    )
    usage: Usage = Field(default_factory=Usage)


class PassDecision(BaseModel):
    """Result of the pass rule on one scenario."""

    model_config = ConfigDict(extra="forbid")

    passed: bool | None = Field(description="None when no verdict exists (judge or infrastructure error).")
    reasons: list[str] = Field(default_factory=list, description="Why it failed (empty when passed).")
