"""Reading a judge's reply: explicit rules, lenient about where the verdict sits, strict about what it means.

Rules (docs/judges.md "How a judge reply is read"; tests/evaluation/test_verdict_parser.py):

1. **Where**: the verdict is the first complete JSON object in the reply that holds every rubric key
   (:data:`REQUIRED_KEYS`). Objects are found by decoding at each ``{`` in order (``json.JSONDecoder.raw_decode``),
   so code fences, prose before or after, and trailing text with braces are all fine; an object nested in
   another (``{"verdict": {...}}``) is found too.
2. **Extra keys** beside the rubric's are ignored and noted (``ignored_keys``), never fatal.
3. **Types** are strict where a coercion would change the meaning:
   - ``task_completion``: one of the rubric's outcomes; case and surrounding spaces ignored (``" Success"``).
   - the 1-5 scores: JSON integers in range; an integral number (``4.0``) is that integer. A **string is
     refused** (``"4"``, ``"1"``): a judge quoting numbers is pattern-filling (SmolLM2 returned ``"1"`` for every
     key), and reading it as a score would hide that.
   - ``hallucinated_action``: JSON ``true``/``false``, or one of the spellings in :data:`FLAG_SPELLINGS`
     (``"true"``, ``"false"``, ``"yes"``, ``"no"``, any case). Never a number and never any other string:
     ``"1"`` is refused (lax parsing made it ``True``).
   - ``explanation``: a string; absent or ``null`` reads as ``""``.
4. **Why not**: a reply with no verdict fails with one reason of :data:`PARSE_REASONS`: ``empty``;
   ``not_json`` (no complete JSON object at all); ``transcript_echoed`` (the objects found are the
   transcript's own JSON lines); ``wrong_keys`` (objects, but none with every rubric key); ``wrong_types``
   (the verdict object breaks rule 3). The judge runner adds ``cut_at_max_tokens`` (the reply was cut by the
   token cap and held no verdict) and ``refused`` (the server rejected the judge's output).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from skillbench.core.records import OUTCOMES
from skillbench.core.rubric import DIMENSIONS, OUTPUT_KEYS, JudgeScores

JudgeErrorReason = Literal[
    "empty", "not_json", "transcript_echoed", "wrong_keys", "wrong_types", "cut_at_max_tokens", "refused"
]
PARSE_REASONS: tuple[str, ...] = ("empty", "not_json", "transcript_echoed", "wrong_keys", "wrong_types")
REASON_WORDS: dict[str, str] = {
    "empty": "empty reply",
    "not_json": "no complete JSON object",
    "transcript_echoed": "continued the transcript's JSON lines instead of grading",
    "wrong_keys": "JSON without the rubric's keys",
    "wrong_types": "rubric keys with values of the wrong type",
    "cut_at_max_tokens": "cut at max_tokens before a complete verdict",
    "refused": "the server rejected the judge's output",
}

OPTIONAL_KEYS = frozenset({"explanation"})
REQUIRED_KEYS: tuple[str, ...] = tuple(key for key in OUTPUT_KEYS if key not in OPTIONAL_KEYS)
FLAG_SPELLINGS: dict[str, bool] = {"true": True, "yes": True, "false": False, "no": False}
# Keys of the judge prompt's transcript lines ({"turn", "speaker", "text"}, {"call"}, {"result_of"}, {"end"}).
TRANSCRIPT_LINE_KEYS = frozenset({"turn", "speaker", "call", "result_of", "end"})
MAX_SCAN_CHARS = 200_000  # a reply longer than this is read up to here (judge replies are a few KB)


class VerdictParseError(ValueError):
    """No verdict in a reply: ``reason`` (one of :data:`PARSE_REASONS`) and what exactly was wrong."""

    def __init__(self, reason: JudgeErrorReason, detail: str) -> None:
        super().__init__(detail)
        self.reason: JudgeErrorReason = reason
        self.detail = detail


@dataclass
class ParsedVerdict:
    scores: JudgeScores
    ignored_keys: list[str] = field(default_factory=list)  # extra keys beside the rubric's, in reply order


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every complete JSON object in ``text``, in the order its ``{`` appears (nested ones after their parent)."""
    decoder = json.JSONDecoder()
    text = text[:MAX_SCAN_CHARS]
    at = text.find("{")
    while at >= 0:
        try:
            value, _end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            yield value
        at = text.find("{", at + 1)


def _outcome(value: Any) -> str:
    if isinstance(value, str) and value.strip().lower() in OUTCOMES:
        return value.strip().lower()
    raise VerdictParseError("wrong_types", f"task_completion must be one of {', '.join(OUTCOMES)}; got {value!r}")


def _score(name: str, value: Any, low: int, high: int) -> int:
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    if number is None:
        kind = "a string" if isinstance(value, str) else type(value).__name__
        raise VerdictParseError("wrong_types", f"{name} must be a JSON integer {low}-{high}, not {kind} ({value!r})")
    if not low <= number <= high:
        raise VerdictParseError("wrong_types", f"{name} must be {low}-{high}; got {number}")
    return number


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in FLAG_SPELLINGS:
        return FLAG_SPELLINGS[value.strip().lower()]
    spellings = ", ".join(f'"{s}"' for s in FLAG_SPELLINGS)
    raise VerdictParseError(
        "wrong_types", f"hallucinated_action must be true or false (or {spellings}); got {value!r}"
    )


def _explanation(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise VerdictParseError("wrong_types", f"explanation must be a string; got {type(value).__name__}")


def read_verdict(data: dict[str, Any]) -> ParsedVerdict:
    """The rubric's values of one object holding every rubric key, by the rules above."""
    values: dict[str, Any] = {
        "task_completion": _outcome(data["task_completion"]),
        **{d.name: _score(d.name, data[d.name], d.low, d.high) for d in DIMENSIONS},
        "hallucinated_action": _flag(data["hallucinated_action"]),
        "explanation": _explanation(data.get("explanation")),
    }
    return ParsedVerdict(JudgeScores.model_validate(values), [key for key in data if key not in OUTPUT_KEYS])


def parse_verdict(text: str | None) -> ParsedVerdict:
    """The verdict in a judge reply, or :class:`VerdictParseError` with the reason there is none."""
    if not text or not text.strip():
        raise VerdictParseError("empty", "empty reply")
    found: list[dict[str, Any]] = []
    for obj in json_objects(text):
        if all(key in obj for key in REQUIRED_KEYS):
            return read_verdict(obj)
        found.append(obj)
    if not found:
        raise VerdictParseError("not_json", "no complete JSON object in the reply")
    if all(TRANSCRIPT_LINE_KEYS & obj.keys() and not set(REQUIRED_KEYS) & obj.keys() for obj in found):
        raise VerdictParseError("transcript_echoed", f"the reply continues the transcript ({json.dumps(found[0])[:120]})")
    closest = max(found, key=lambda obj: len(set(REQUIRED_KEYS) & obj.keys()))
    missing = [key for key in REQUIRED_KEYS if key not in closest]
    raise VerdictParseError("wrong_keys", f"missing {', '.join(missing)} (got keys: {', '.join(map(str, closest)) or 'none'})")


def parse_scores(text: str | None) -> JudgeScores:
    """The scores of :func:`parse_verdict` (extra keys ignored)."""
    return parse_verdict(text).scores


def reask_instruction(reason: str, detail: str) -> str:
    """What the judge is told after a reply that could not be used, by reason."""
    keys = ", ".join(OUTPUT_KEYS)
    hint = {
        "transcript_echoed": "Do not continue the transcript: grade it. ",
        "wrong_types": "Scores are JSON integers 1-5 (not strings); hallucinated_action is true or false. ",
        "cut_at_max_tokens": "Keep the explanation short. ",
    }.get(reason, "")
    return f"That reply could not be used ({detail}). {hint}Reply with only one JSON object with exactly the keys: {keys}."
