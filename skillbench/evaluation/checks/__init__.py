"""Rule checks: deterministic findings on a transcript, one registered function each (see docs/extending.md)."""

from skillbench.evaluation.checks import builtin as _builtin  # noqa: F401  (registers the built-in checks)
from skillbench.evaluation.checks.registry import (
    RULE_CHECKS,
    CheckContext,
    CheckFn,
    CheckResult,
    RegisteredCheck,
    rule_check,
    rule_checks_version,
    run_rule_checks,
)

__all__ = [
    "RULE_CHECKS",
    "CheckContext",
    "CheckFn",
    "CheckResult",
    "RegisteredCheck",
    "rule_check",
    "rule_checks_version",
    "run_rule_checks",
]
