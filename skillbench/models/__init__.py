"""Model access: every call goes through litellm behind :class:`ModelClient`."""

from skillbench.models.client import ClientPool, Completion, ModelClient
from skillbench.models.litellm_setup import get_litellm

__all__ = ["ClientPool", "Completion", "ModelClient", "get_litellm"]
