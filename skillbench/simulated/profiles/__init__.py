"""Built-in simulated models; importing this package registers them in ``SIM_MODELS``."""

from skillbench.simulated.profiles import (
    agent,  # noqa: F401  (agent-careful, agent-sloppy, agent-reckless)
    echo,  # noqa: F401
    judge,  # noqa: F401  (judge-balanced, -strict, -lenient, -unreliable)
    program_helpers,  # noqa: F401  (planner, checker: the example agent programs' other models)
    tool_responder,  # noqa: F401  (tool-responder)
    user,  # noqa: F401  (user)
)
