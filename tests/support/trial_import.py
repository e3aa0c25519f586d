"""Transcripts logged as several trials per task, as τ²-bench and other harnesses write them: task ``t``'s trial ``r``
is the conversation ``task<t>-trial<r>``, each with a person's pass/fail (the water-utility fixture's conversations,
``make_import_fixture.conversation``). Task t passes ``t % (trials + 1)`` of its trials, so tasks differ and trials of
one task are alike: the case where resampling conversations instead of tasks understates the uncertainty.

    python -m tests.support.trial_import OUT.jsonl [--tasks 50] [--trials 4]     # from the repository root
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tests.support.make_import_fixture import conversation

FAILING = ("no_verification", "hallucinated", "wrong_value")


def trial_records(tasks: int = 12, trials: int = 4) -> list[dict[str, Any]]:
    """``tasks`` × ``trials`` OpenAI-format records, ids ``task<t>-trial<r>``, in trial-major order (as logs interleave)."""
    records = []
    for trial in range(trials):
        for task in range(tasks):
            good = task % (trials + 1)
            kind = "good" if trial < good else FAILING[(task + trial) % len(FAILING)]
            record = conversation(task * trials + trial, kind)
            record["metadata"]["id"] = f"task{task:03d}-trial{trial}"
            records.append(record)
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--trials", type=int, default=4)
    args = parser.parse_args()
    records = trial_records(args.tasks, args.trials)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    print(f"wrote {len(records)} conversations ({args.tasks} tasks × {args.trials} trials) to {args.out}")


if __name__ == "__main__":
    main()
