"""Records of evaluation: verdicts and the pass decision (rule checks and scores live in ``skillbench.core``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from skillbench.core.records import ErrorKind, ServedBy, Usage
from skillbench.core.rubric import JudgeScores
from skillbench.prompts.verdict import JudgeErrorReason

# judge_transient: written by versions before judge errors healed (a blank last reply); read, no longer made.
VerdictErrorKind = Literal[ErrorKind, "judge_transient"]
# Never stored: a rerun asks again (judge errors are stored as evidence, and asked again all the same).
TRANSIENT_VERDICT_ERRORS: frozenset[str] = frozenset({"infra", "judge_transient"})
MAX_REPLY_CHARS = 2000  # each failed attempt keeps this much of the judge's raw reply (head and tail)
MAX_KEPT_ATTEMPTS = 6  # failed attempts kept as evidence, the latest ones (across reruns)


def bounded_reply(text: str | None) -> str:
    """The judge's raw reply, at most :data:`MAX_REPLY_CHARS` characters (its head and its tail)."""
    text = text or ""
    if len(text) <= MAX_REPLY_CHARS:
        return text
    half = MAX_REPLY_CHARS // 2
    return f"{text[:half]}\n… [{len(text) - MAX_REPLY_CHARS} characters left out] …\n{text[-half:]}"


class JudgeAttempt(BaseModel):
    """One judge reply that gave no verdict: the evidence of a judge error."""

    model_config = ConfigDict(extra="forbid")

    reply: str = Field(description=f"The raw reply text (at most {MAX_REPLY_CHARS} characters: head and tail).")
    reason: JudgeErrorReason = Field(description="Why it gave no verdict (skillbench.prompts.verdict).")
    detail: str = Field("", description="What exactly was wrong, or the server's message when it refused.")
    finish_reason: str | None = Field(None, description="The server's finish_reason ('length': cut at max_tokens).")


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
        description="judge: no usable reply (stored as evidence, asked again on rerun); infra: the endpoint failed "
        "(timeouts included; never stored).",
    )
    error_reason: JudgeErrorReason | None = Field(
        None, description="Why the last attempt gave no verdict (cut_at_max_tokens, not_json, wrong_keys, ...)."
    )
    attempts: list[JudgeAttempt] = Field(
        default_factory=list, description="The failed attempts' raw replies and reasons (latest kept), this run and earlier."
    )
    failed_requests: int = Field(
        0, description="Judge requests that gave no verdict for this transcript, over every run so far."
    )
    ignored_keys: list[str] = Field(
        default_factory=list, description="Keys beside the rubric's in the reply that gave the verdict: ignored, noted."
    )
    usage: Usage = Field(default_factory=Usage)
    served_by: list[ServedBy] = Field(default_factory=list, description="What the judge's server reported answering.")
    cut_replies: dict[str, int] = Field(
        default_factory=dict, description="{'judge': n}: replies cut at max_tokens (finish_reason 'length')."
    )

    @property
    def storable(self) -> bool:
        """False for endpoint failures (nothing to keep); a judge error is stored as evidence."""
        return self.error_kind not in TRANSIENT_VERDICT_ERRORS

    @property
    def final(self) -> bool:
        """Only a verdict is final: a stored judge error is asked again on rerun (judge errors heal)."""
        return self.scores is not None


class PassDecision(BaseModel):
    """Result of the pass rule on one scenario."""

    model_config = ConfigDict(extra="forbid")

    passed: bool | None = Field(description="None when no verdict exists (judge or infrastructure error).")
    reasons: list[str] = Field(default_factory=list, description="Why it failed (empty when passed).")
