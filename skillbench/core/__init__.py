"""The bottom layer: records and vocabularies shared by every other layer, the rubric, errors and the registry.

Nothing here imports another skillbench package (enforced by the import contract in pyproject.toml).
"""

from skillbench.core.errors import (
    BenchmarkDataError,
    ConfigError,
    InfrastructureError,
    SkillbenchError,
    ToolError,
)
from skillbench.core.records import (
    OUTCOMES,
    PROPER_ENDINGS,
    ROLES,
    SCENARIO_PATHS,
    ErrorKind,
    ExpectedOutcome,
    Message,
    Outcome,
    Role,
    Rollout,
    RuleCheck,
    ScenarioPath,
    Termination,
    ToolCall,
    ToolCallRecord,
    ToolErrorKind,
    Usage,
)
from skillbench.core.registry import Registry, UnknownComponentError
from skillbench.core.rubric import DIMENSION_NAMES, DIMENSIONS, Dimension, JudgeScores

__all__ = [
    "DIMENSIONS",
    "DIMENSION_NAMES",
    "OUTCOMES",
    "PROPER_ENDINGS",
    "ROLES",
    "SCENARIO_PATHS",
    "BenchmarkDataError",
    "ConfigError",
    "Dimension",
    "ErrorKind",
    "ExpectedOutcome",
    "InfrastructureError",
    "JudgeScores",
    "Message",
    "Outcome",
    "Registry",
    "Role",
    "Rollout",
    "RuleCheck",
    "ScenarioPath",
    "SkillbenchError",
    "Termination",
    "ToolCall",
    "ToolCallRecord",
    "ToolError",
    "ToolErrorKind",
    "UnknownComponentError",
    "Usage",
]
