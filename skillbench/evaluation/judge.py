"""Run one judge on one transcript: structured output validated by pydantic, retries, then a judge error."""

from __future__ import annotations

import json
import re
from collections import Counter
from statistics import median
from typing import Any

from pydantic import ValidationError

from skillbench.config.schema import JudgeConfig
from skillbench.core.errors import InfrastructureError, ModelOutputError
from skillbench.core.records import Usage
from skillbench.core.rubric import DIMENSION_NAMES, JudgeScores
from skillbench.evaluation.records import Verdict
from skillbench.models.client import ModelClient
from skillbench.prompts.judge import JUDGE_PROMPT_VERSION, OUTPUT_KEYS
from skillbench.store.keys import content_hash, judge_settings, model_identity

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def verdict_key(judge: JudgeConfig, prompt: str) -> str:
    """Judge config + rubric version + the rendered prompt (which holds the transcript and its context)."""
    return content_hash(
        {
            "judge": model_identity(judge),
            **judge_settings(judge),
            "prompt_version": JUDGE_PROMPT_VERSION,
            "prompt": prompt,
        }
    )


def parse_scores(text: str | None) -> JudgeScores:
    """The JSON object in a judge reply (code fences and surrounding prose tolerated), validated."""
    if not text:
        raise ValueError("empty reply")
    body = _FENCE.sub("", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in the reply")
    try:
        data = json.loads(body[start : end + 1])
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg}") from None
    try:
        return JudgeScores.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{'.'.join(map(str, first['loc'])) or 'object'}: {first['msg']}") from None


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


async def judge_transcript(client: ModelClient, judge: JudgeConfig, prompt: str, *, key: str, rollout_key: str) -> Verdict:
    """Ask for ``judge.samples`` valid replies; an unparseable one is re-asked up to ``max_parse_retries`` times.

    Infrastructure failures propagate (InfrastructureError) so they are never stored as a verdict. When the
    replies stay unusable, the verdict is a judge error: ``judge_transient`` when the last reply was blank
    (never stored), else ``judge`` (stored: the judge answered, just not usably).
    """
    usage = Usage()
    samples: list[JudgeScores] = []
    for sample_index in range(judge.samples):
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        if sample_index:
            messages[0]["content"] = f"{prompt}\n\n(Independent grading #{sample_index + 1}.)"
        error = ""
        blank = False
        for _attempt in range(judge.max_parse_retries + 1):
            try:
                completion = await client.complete(messages, response_format={"type": "json_object"})
            except (InfrastructureError, ModelOutputError) as exc:
                # The earlier samples and re-asks were paid for too: the error carries their usage.
                exc.usage = usage.add(exc.usage or Usage())
                raise
            usage = usage.add(completion.usage)
            blank = not (completion.content or "").strip()
            try:
                samples.append(parse_scores(completion.content))
                break
            except ValueError as exc:
                error = str(exc)
                messages = [
                    *messages,
                    {"role": "assistant", "content": completion.content or ""},
                    {
                        "role": "user",
                        "content": f"That reply could not be used ({error}). Reply with only one JSON object "
                        f"with exactly the keys: {', '.join(OUTPUT_KEYS)}.",
                    },
                ]
        else:
            return Verdict(
                key=key,
                judge=judge.name,
                rollout_key=rollout_key,
                samples=samples,
                judge_error=f"unparseable reply after {judge.max_parse_retries + 1} attempts: {error}",
                # A blank last reply says nothing about the judge: not stored, asked again on rerun.
                error_kind="judge_transient" if blank else "judge",
                usage=usage,
            )
    return Verdict(key=key, judge=judge.name, rollout_key=rollout_key, scores=aggregate(samples), samples=samples, usage=usage)
