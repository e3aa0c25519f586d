"""The HTML transcript shows the agent's reasoning (marked as not judged) and why a model error ended it."""

from __future__ import annotations

from skillbench.core.records import Message, Rollout
from skillbench.report.html import messages_html


def test_transcript_shows_reasoning_and_the_model_error_reason() -> None:
    rollout = Rollout(
        key="k", scenario_id="s", skill_id="sk", agent="a", termination="model_error",
        termination_detail="agent: the reply had no choices",
        messages=[
            Message(role="system", content="policy"),
            Message(role="user", content="Hi", turn=0),
            Message(role="assistant", content="Hello <b>", reasoning="check <policy>", turn=1),
        ],
    )
    html = messages_html(rollout)
    assert "agent reasoning (not shown to the judge)" in html and "check &lt;policy&gt;" in html
    assert "conversation ended: model_error — agent: the reply had no choices" in html
