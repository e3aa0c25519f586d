"""The built-in LLM agent behind the agent protocol has the rollouts it had before: the same rollout keys and
byte-identical transcripts as the fixture recorded with the code before the turn loop was refactored."""

from __future__ import annotations

import json

from tests.rollout.default_agent_snapshot import FIXTURE, snapshot_lines


def test_existing_configs_give_the_stored_rollout_keys_and_transcripts_byte_for_byte() -> None:
    stored = FIXTURE.read_text(encoding="utf-8").splitlines()
    now = snapshot_lines()
    assert len(stored) == len(now) == 21
    for before, after in zip(stored, now, strict=True):
        if before != after:
            old, new = json.loads(before), json.loads(after)
            where = f"{old['job']} {old['scenario']}"
            assert old["key"] == new["key"], f"rollout key changed for {where}"
            assert old["transcript"] == new["transcript"], f"transcript changed for {where}"
            raise AssertionError(f"serialisation changed for {where}")
