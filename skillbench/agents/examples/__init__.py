"""Two example agent programs (docs/agents.md): plan-then-act and self-check."""

from skillbench.agents.examples.plan_then_act import PlanThenActAgent
from skillbench.agents.examples.self_check import SelfCheckAgent

__all__ = ["PlanThenActAgent", "SelfCheckAgent"]
