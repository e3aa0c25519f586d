"""The built-in LLM agent behind the agent protocol has the rollouts it had before: the same rollout keys and
byte-identical transcripts as the fixture recorded with the code before the turn loop was refactored.

The fixture predates tool-call identities (``ToolCall.seq``, ``Message.call_seq``, ``ToolCallRecord.call_seq``):
it is compared as the current records read it back (identities assigned at load), which must be exactly what the
turn loop writes now. So the test also proves that a rollout stored by the old code reads back as the engine
would write it today."""

from __future__ import annotations

import json
from typing import Any

from skillbench.core.records import Rollout
from tests.rollout.default_agent_snapshot import FIXTURE, snapshot_lines, transcript_of


def _as_read_now(stored: dict[str, Any]) -> dict[str, Any]:
    """A transcript written by older code, read back through today's records and reduced the same way."""
    return transcript_of(json.loads(Rollout.model_validate(stored).model_dump_json()))


def test_existing_configs_give_the_stored_rollout_keys_and_transcripts_byte_for_byte() -> None:
    stored = FIXTURE.read_text(encoding="utf-8").splitlines()
    now = snapshot_lines()
    assert len(stored) == len(now) == 21
    for before, after in zip(stored, now, strict=True):
        old, new = json.loads(before), json.loads(after)
        where = f"{old['job']} {old['scenario']}"
        assert old["key"] == new["key"], f"rollout key changed for {where}"
        assert "call_seq" not in before and "call_seq" in after  # the fixture is the old format, read by the new code
        assert _as_read_now(old["transcript"]) == new["transcript"], f"transcript changed for {where}"
        read = {**old, "transcript": _as_read_now(old["transcript"])}
        if json.dumps(read, sort_keys=True, ensure_ascii=False) != after:
            raise AssertionError(f"serialisation changed for {where}")
