"""A judge on a local stub server that reads like a simulated judge but gives no usable verdict on about one
transcript in five, as the decision audit's stub did (docs/reports.md "Repeated trials": uneven scored trials).

Which transcripts fail is a hash of the transcript the judge is shown, so its re-asks fail too: the judge error is
final, and trials of one scenario with different transcripts end with different numbers of scored trials.
"""

from __future__ import annotations

import hashlib
from typing import Any

from skillbench.simulated import profiles  # noqa: F401  (registers the simulated judges)
from skillbench.simulated.base import SIM_MODELS, SimRequest
from tests.support.openai_stub import request_role, text_reply

STUB_JUDGE = "stubjudge"
NO_VERDICT = "no idea"


def flaky_judge(judge: str = "judge-balanced", every: int = 5, answer_others: Any = None) -> Any:
    """A stub script: judge requests answered as the simulated ``judge`` would, except a hash-chosen one in ``every``
    (``NO_VERDICT``, never parseable); other requests go to ``answer_others`` (None: a plain text reply)."""

    def script(body: dict[str, Any]) -> Any:
        if request_role(body) != "judge":
            return answer_others(body) if answer_others is not None else text_reply("ok")
        shown = next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user"), "")
        if int(hashlib.sha256(shown.encode()).hexdigest(), 16) % every == 0:
            return text_reply(NO_VERDICT)
        request = SimRequest(model=judge, messages=body.get("messages", []), seed=body.get("seed"),
                             response_format=body.get("response_format"))
        return text_reply(SIM_MODELS.get(judge)(request).content or "")

    return script
