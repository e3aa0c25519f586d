"""What a budget-stopped run cost at the provider (the local stub's view), against what it recorded.

Read from the stub's answered requests (``StubServer.answered``: every reply it sent, read by the client or not — a
provider bills both) and the run's folder: each job's ``stopped.json`` or ``summary.json`` (what it recorded), when it
found the budget reached (``reached_at``) and how many requests it sent after another job of its sweep had found it
(``sent_after_cap``, counted by the job at its send gate: the stub's clock sees a request only after the client's
pipeline and its own thread wake-up, tens of ms on a loaded machine). Used by tests/engine/test_budget_cap.py and
benchmarks/budget_cap.py.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.support.openai_stub import Answered

REPO = Path(__file__).resolve().parents[2]


def gpt5_price(call: Answered) -> float:
    """What a provider bills for one answered request at gpt-5's listed price (litellm's price map)."""
    import litellm

    return sum(litellm.cost_per_token(model="gpt-5", prompt_tokens=call.prompt_tokens,
                                      completion_tokens=call.completion_tokens))


def paid_env() -> dict[str, str]:
    """The environment of a paid run against the local stub: a fake OpenAI key only, litellm's bundled prices, this
    checkout first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"OPENAI_API_KEY": "sk-local-stub", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "PYTHONPATH": os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])})
    return env


@dataclass(frozen=True)
class Bill:
    budget_usd: float
    recorded_usd: float  # what the run says it spent (stopped.json / summary.json of every job)
    answered_usd: float  # what the stub answered, priced: the provider's bill
    answered_calls: int
    in_flight_calls: int  # answered at or after the reply with which the answered spend reached the budget
    in_flight_usd: float  # their price: the overshoot (answered - budget) is at most this
    sent_after_cap: int  # requests sent after a job of the run had found the cap (the promise: none)
    abandoned_calls: int  # requests the run cancelled in flight and counted at their estimated price
    detect_s: float | None  # from the reply that crossed the budget leaving the stub to the run finding the cap

    @property
    def overshoot_usd(self) -> float:
        """What the provider billed beyond the budget."""
        return max(0.0, self.answered_usd - self.budget_usd)


@dataclass(frozen=True)
class Recorded:
    """What a run or sweep folder says: its spend, when it first found the budget reached, requests sent after."""

    spent_usd: float
    reached_at: float | None
    sent_after_cap: int
    abandoned_calls: int


def recorded(folder: Path) -> Recorded:
    """Every job's summary.json or stopped.json of a run or sweep folder, added up."""
    jobs = [folder] if (folder / ".hydra").exists() else [p for p in folder.iterdir() if (p / ".hydra").exists()]
    spent, reached, after, abandoned = 0.0, [], 0, 0
    for job in jobs:
        stopped = job / "stopped.json"
        if stopped.exists():
            record = json.loads(stopped.read_text())
            spent += record["spent_usd"]
            after += record.get("sent_after_cap", 0)
            abandoned += record.get("abandoned_calls", 0)
            if record.get("reached_at") is not None:
                reached.append(record["reached_at"])
        elif (job / "summary.json").exists():
            spent += json.loads((job / "summary.json").read_text())["cost_usd"]
    return Recorded(spent, min(reached) if reached else None, after, abandoned)


def bill(answered: Iterable[Answered], price: Callable[[Answered], float], budget_usd: float, run: Recorded) -> Bill:
    calls = sorted(answered, key=lambda call: call.replied)
    total, crossing = 0.0, None
    for call in calls:
        total += price(call)
        if crossing is None and total >= budget_usd:
            crossing = call.replied
    in_flight = [c for c in calls if crossing is not None and c.replied >= crossing]
    return Bill(
        budget_usd=budget_usd, recorded_usd=run.spent_usd, answered_usd=total, answered_calls=len(calls),
        in_flight_calls=len(in_flight), in_flight_usd=sum(price(c) for c in in_flight),
        sent_after_cap=run.sent_after_cap, abandoned_calls=run.abandoned_calls,
        detect_s=None if crossing is None or run.reached_at is None else run.reached_at - crossing,
    )
