"""The composed configuration of a job: pydantic schema and validation."""

from skillbench.config.schema import (
    AgentConfig,
    BenchmarkConfig,
    FailureInjectionConfig,
    JudgeConfig,
    MockConfig,
    ModelConfig,
    PassRuleConfig,
    RunConfig,
    RunSettings,
    StoreConfig,
    UserSimConfig,
)
from skillbench.config.validate import validate_config

__all__ = [
    "AgentConfig",
    "BenchmarkConfig",
    "FailureInjectionConfig",
    "JudgeConfig",
    "MockConfig",
    "ModelConfig",
    "PassRuleConfig",
    "RunConfig",
    "RunSettings",
    "StoreConfig",
    "UserSimConfig",
    "validate_config",
]
