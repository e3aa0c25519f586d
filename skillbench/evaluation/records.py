"""Records of evaluation: verdicts and the pass decision (rule checks and scores live in ``skillbench.core``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from skillbench.core.records import ErrorKind, ServedBy, Usage
from skillbench.core.rubric import JudgeScores

# judge_transient: the judge's last reply was blank (an endpoint hiccup as often as a judge failure).
VerdictErrorKind = Literal[ErrorKind, "judge_transient"]
# Never stored, so a rerun asks the judge again: the endpoint may have recovered.
TRANSIENT_VERDICT_ERRORS: frozenset[str] = frozenset({"infra", "judge_transient"})


class Verdict(BaseModel):
    """A judge's reading of one transcript (stored by verdict key), or the judge error that prevented it."""

    model_config = ConfigDict(extra="forbid")

    key: str
    judge: str
    rollout_key: str
    scores: JudgeScores | None = None
    samples: list[JudgeScores] = Field(default_factory=list, description="Every parsed sample before aggregation.")
    judge_error: str | None = Field(None, description="Why no valid scores came back (never a pass or a fail).")
    error_kind: VerdictErrorKind | None = Field(
        None,
        description="judge: unparseable non-blank reply (stored); judge_transient: the last reply was blank; infra: "
        "the endpoint failed (timeouts included). The last two are never stored and are re-asked on rerun.",
    )
    usage: Usage = Field(default_factory=Usage)
    served_by: list[ServedBy] = Field(default_factory=list, description="What the judge's server reported answering.")
    cut_replies: dict[str, int] = Field(
        default_factory=dict, description="{'judge': n}: replies cut at max_tokens (finish_reason 'length')."
    )

    @property
    def storable(self) -> bool:
        """False for transient failures, which a rerun must ask again."""
        return self.error_kind not in TRANSIENT_VERDICT_ERRORS


class PassDecision(BaseModel):
    """Result of the pass rule on one scenario."""

    model_config = ConfigDict(extra="forbid")

    passed: bool | None = Field(description="None when no verdict exists (judge or infrastructure error).")
    reasons: list[str] = Field(default_factory=list, description="Why it failed (empty when passed).")
