"""Benchmark data: tool catalogue, skills, scenarios; loading, validation and selection."""

from skillbench.benchmark.loader import PACKAGED_DIR, Benchmark, load_benchmark, resolve_source
from skillbench.benchmark.schema import (
    Persona,
    Scenario,
    Skill,
    StateExpectation,
    ToolEffect,
    ToolSpec,
    WorkflowStep,
)
from skillbench.benchmark.selection import select_scenarios
from skillbench.core.records import SCENARIO_PATHS

__all__ = [
    "PACKAGED_DIR",
    "SCENARIO_PATHS",
    "Benchmark",
    "Persona",
    "Scenario",
    "Skill",
    "StateExpectation",
    "ToolEffect",
    "ToolSpec",
    "WorkflowStep",
    "load_benchmark",
    "resolve_source",
    "select_scenarios",
]
