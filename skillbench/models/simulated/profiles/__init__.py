"""Built-in simulated models; importing this package registers them in ``SIM_MODELS``."""

from skillbench.models.simulated.profiles import echo  # noqa: F401
