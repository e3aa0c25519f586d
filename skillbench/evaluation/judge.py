"""Run one judge on one transcript: the reply read by explicit rules (skillbench.prompts.verdict), re-asks,
then a judge error that keeps each failed attempt's raw reply and reason."""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import Any

from skillbench.config.schema import JudgeConfig
from skillbench.core.canonical import canonical_json
from skillbench.core.errors import InfrastructureError, ModelOutputError
from skillbench.core.records import Usage
from skillbench.core.rubric import DIMENSION_NAMES, JudgeScores
from skillbench.evaluation.records import (
    MAX_KEPT_ATTEMPTS,
    MAX_REPLY_CHARS,
    JudgeAttempt,
    Verdict,
    bounded_reply,
)
from skillbench.models.client import ModelClient
from skillbench.prompts.judge import JUDGE_PROMPT_VERSION, VerdictParseError, parse_scores, parse_verdict
from skillbench.prompts.verdict import REASON_WORDS, reask_instruction
from skillbench.store.keys import encoded_hash, judge_settings, model_identity

__all__ = ["VerdictKeys", "aggregate", "judge_transcript", "parse_scores", "verdict_key"]


class VerdictKeys:
    """The verdict keys of one judge config: judge config + rubric version + the rendered prompt (which holds the
    transcript and its context). The judge's part is encoded once; a key is then the prompt's and a SHA-256."""

    def __init__(self, judge: JudgeConfig) -> None:
        self._judge = {name: canonical_json(value) for name, value in {
            "judge": model_identity(judge), **judge_settings(judge), "prompt_version": JUDGE_PROMPT_VERSION,
        }.items()}

    def key(self, prompt: str) -> str:
        return encoded_hash({**self._judge, "prompt": canonical_json(prompt)})


def verdict_key(judge: JudgeConfig, prompt: str) -> str:
    """One verdict key (:class:`VerdictKeys`; a job keeps one of those for all of its keys)."""
    return VerdictKeys(judge).key(prompt)


def aggregate(samples: list[JudgeScores]) -> JudgeScores:
    """Majority for the outcome and the flag (ties go to the first sample's value), median for 1-5 scores."""
    if len(samples) == 1:
        return samples[0]
    outcome = Counter(s.task_completion for s in samples).most_common(1)[0][0]
    flags = sum(s.hallucinated_action for s in samples)
    values: dict[str, Any] = {dim: int(median(getattr(s, dim) for s in samples) + 0.5) for dim in DIMENSION_NAMES}
    explanation = next(s.explanation for s in samples if s.task_completion == outcome)
    return JudgeScores(
        task_completion=outcome,
        hallucinated_action=flags * 2 > len(samples) or (flags * 2 == len(samples) and samples[0].hallucinated_action),
        explanation=explanation,
        **values,
    )


async def judge_transcript(
    client: ModelClient, judge: JudgeConfig, prompt: str, *, key: str, rollout_key: str, earlier: Verdict | None = None
) -> Verdict:
    """Ask for ``judge.samples`` valid replies; an unusable one is re-asked up to ``max_parse_retries`` times.

    Infrastructure failures propagate (InfrastructureError) so they are never stored as a verdict. When the
    replies stay unusable the verdict is a judge error (``error_kind: judge``) carrying each failed attempt's
    raw reply and reason; it is stored as evidence and asked again on a rerun (``earlier``: that stored
    error, whose attempts are carried on and counted).
    """
    usage = Usage()
    samples: list[JudgeScores] = []
    ignored: list[str] = []
    failed: list[JudgeAttempt] = []
    previous = earlier.attempts if earlier is not None and earlier.scores is None else []
    previous_requests = earlier.failed_requests if earlier is not None and earlier.scores is None else 0

    def judge_error(last: JudgeAttempt) -> Verdict:
        attempts = [*previous, *failed][-MAX_KEPT_ATTEMPTS:]
        total = previous_requests + len(failed)
        earlier_note = f"; {total} in all over reruns" if previous_requests else ""
        return Verdict(
            key=key, judge=judge.name, rollout_key=rollout_key, samples=samples, usage=usage,
            judge_error=f"no usable reply after {len(failed)} attempt(s){earlier_note}: {REASON_WORDS[last.reason]}: "
                        f"{last.detail}"[:600],
            error_kind="judge", error_reason=last.reason, attempts=attempts, failed_requests=total,
        )

    for sample_index in range(judge.samples):
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        if sample_index:
            messages[0]["content"] = f"{prompt}\n\n(Independent grading #{sample_index + 1}.)"
        for _attempt in range(judge.max_parse_retries + 1):
            try:
                completion = await client.complete(messages, response_format={"type": "json_object"})
            except ModelOutputError as exc:  # the server rejected the judge's own output: a judge error, kept
                usage = usage.add(exc.usage or Usage())
                failed.append(JudgeAttempt(reply="", reason="refused", detail=str(exc)[:MAX_REPLY_CHARS]))
                return judge_error(failed[-1])
            except InfrastructureError as exc:
                # The earlier samples and re-asks were paid for too: the error carries their usage.
                exc.usage = usage.add(exc.usage or Usage())
                raise
            usage = usage.add(completion.usage)
            try:
                parsed = parse_verdict(completion.content)
            except VerdictParseError as exc:
                reason, detail = exc.reason, exc.detail
                if completion.cut:  # the cap, not the judge's format, is what to fix first
                    reason, detail = "cut_at_max_tokens", f"{completion.cut_note()}; {exc.detail}"
                failed.append(JudgeAttempt(reply=bounded_reply(completion.content), reason=reason, detail=detail,
                                           finish_reason=completion.finish_reason))
                messages = [
                    *messages,
                    {"role": "assistant", "content": completion.content or ""},
                    {"role": "user", "content": reask_instruction(reason, detail)},
                ]
                continue
            samples.append(parsed.scores)
            ignored.extend(key for key in parsed.ignored_keys if key not in ignored)
            break
        else:
            return judge_error(failed[-1])
    return Verdict(
        key=key, judge=judge.name, rollout_key=rollout_key, scores=aggregate(samples), samples=samples, usage=usage,
        ignored_keys=ignored, attempts=failed, failed_requests=previous_requests + len(failed),
    )
