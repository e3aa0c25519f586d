"""Errors a user can cause. Each carries one message naming the file, the field and the fix."""

from __future__ import annotations


class SkillbenchError(Exception):
    """Base for every error whose message is meant for the user, not a traceback."""


class ConfigError(SkillbenchError):
    """The composed Hydra config is invalid (unknown key, bad value)."""


class BenchmarkDataError(SkillbenchError):
    """A benchmark data file (tool, skill or scenario) is missing, malformed or inconsistent."""


class InfrastructureError(SkillbenchError):
    """A model endpoint or tool server failed for reasons that are not the model's behaviour."""
