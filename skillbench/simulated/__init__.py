"""Offline simulated models (agents, user, judges, tool responder) served through litellm.

Their outputs are simulations for testing the pipeline, never results of real models.
"""

from skillbench.simulated.base import PROVIDER, SIM_MODELS, SimReply, SimRequest, SimToolCall

__all__ = ["PROVIDER", "SIM_MODELS", "SimReply", "SimRequest", "SimToolCall"]
