"""Every registry namespaces what a plug-in registers while it loads (``<namespace>/<name>``) and refuses a
name registered twice in one line naming both packages; the name a component records is the namespaced one."""

from __future__ import annotations

import pytest

from skillbench.agents import AGENTS, register_agent
from skillbench.core.plugins import PluginOwner, loading
from skillbench.evaluation.checks import RULE_CHECKS, CheckResult, rule_check
from skillbench.mining.ingest import READERS, ingest_format
from skillbench.report.tables import TABLES, report_table
from skillbench.tools import RESPONSE_MODES
from skillbench.tools.stages import MOCK_STAGES, mock_stage

ACME = PluginOwner("acme", "acme-skillbench")
RIVAL = PluginOwner("acme", "acme-rival")


def test_each_kind_of_extension_is_registered_under_the_plugins_namespace() -> None:
    with loading(ACME):
        register_agent("echo")(object)
        rule_check("short", hard=False)(lambda ctx, *, limit=3: CheckResult(passed=True))
        report_table("short", title="t", order=99)(lambda ctx: None)
        RESPONSE_MODES.register("echo")(lambda *args: {})
        mock_stage("noop", order=99)(lambda host: None)
        ingest_format("csv", files="a csv file")(lambda options: [])
    try:
        assert "acme/echo" in AGENTS and AGENTS.owner("acme/echo") == "acme-skillbench"
        check = RULE_CHECKS.get("acme/short")
        assert check.name == "acme/short" and check.params == {"limit": 3}
        assert check.effective_version() != check.effective_version({"limit": 4})
        assert TABLES.get("acme/short").key == "acme.short"  # a file name and an HTML anchor
        assert "acme/echo" in RESPONSE_MODES and "acme/csv" in READERS
        assert MOCK_STAGES.get("acme/noop").name == "acme/noop"
        assert "echo" not in AGENTS and "short" not in RULE_CHECKS  # nothing leaks into the built-in names
    finally:
        for registry, name in ((AGENTS, "acme/echo"), (RULE_CHECKS, "acme/short"), (TABLES, "acme/short"),
                               (RESPONSE_MODES, "acme/echo"), (MOCK_STAGES, "acme/noop"), (READERS, "acme/csv")):
            registry.unregister(name)


def test_a_name_registered_by_two_packages_is_refused_naming_both() -> None:
    with loading(ACME):
        register_agent("twice")(object)
    try:
        with loading(RIVAL), pytest.raises(ValueError, match="'acme/twice' is registered by both acme-skillbench and acme-rival"):
            register_agent("twice")(object)
    finally:
        AGENTS.unregister("acme/twice")
