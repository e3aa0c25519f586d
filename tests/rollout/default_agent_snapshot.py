"""Small jobs of existing agent configs, reduced to what must never change when the turn loop changes:
each rollout's key and its transcript (messages, tool calls, ending, final state, calls and tokens).

``python -m tests.rollout.default_agent_snapshot`` rewrites the stored fixture; only do that when a change
*means* to alter rollouts (then every stored rollout of users' stores is stale too, and the change says so).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).with_name("fixtures") / "default_agent_rollouts.jsonl"

# Existing configs covering every agent behaviour the simulated models have (careful, sloppy, reckless),
# tool failures (mock=flaky) and every scenario path (limit 7 is balanced over the paths).
JOBS: list[list[str]] = [
    ["agent=sim_careful", "benchmark.limit=7"],
    ["agent=sim_sloppy", "benchmark.limit=7"],
    ["agent=sim_reckless", "benchmark.limit=7", "mock=flaky"],
]


# How a rollout was obtained (which server answered, tries abandoned), recorded beside the transcript, not in it.
_PROVENANCE = ("duration_s", "usage", "served_by", "abandoned_attempts", "cut_replies")


def transcript_of(rollout: dict[str, Any]) -> dict[str, Any]:
    """The rollout without wall-clock fields (duration, latencies), which differ between any two runs, and
    without its provenance; a message's ``cut`` mark only when set (no simulated reply is ever cut)."""
    usage = {role: {k: v for k, v in value.items() if k != "latency_s"} for role, value in rollout["usage"].items()}
    messages = [{k: v for k, v in m.items() if not (k == "cut" and v is None)} for m in rollout["messages"]]
    kept = {k: v for k, v in rollout.items() if k not in _PROVENANCE}
    return {**kept, "messages": messages, "usage": usage}


def snapshot_lines() -> list[str]:
    """One JSON line per rollout of every job in :data:`JOBS`, run now with the code as it stands."""
    from skillbench.engine.job import run_job
    from skillbench.store import ArtifactStore
    from tests.conftest import compose_config

    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for overrides in JOBS:
            cfg = compose_config(*overrides, f"store.root={tmp}/store", "run.progress_interval_s=3600")
            run_job(cfg, Path(tmp) / "job" / "_".join(overrides))
            rows = (Path(tmp) / "job" / "_".join(overrides) / "results.jsonl").read_text(encoding="utf-8").splitlines()
            store = ArtifactStore(f"{tmp}/store")
            for row in map(json.loads, rows):
                rollout = json.loads(store.read("rollouts", row["rollout_key"]))
                record = {"job": overrides, "scenario": row["scenario_id"], "key": row["rollout_key"],
                          "transcript": transcript_of(rollout)}
                lines.append(json.dumps(record, sort_keys=True, ensure_ascii=False))
    return lines


if __name__ == "__main__":
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text("".join(line + "\n" for line in snapshot_lines()), encoding="utf-8")
    print(f"wrote {FIXTURE} ({len(FIXTURE.read_text().splitlines())} rollouts)", file=sys.stderr)
