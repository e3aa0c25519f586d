"""`python -m skillbench.tools.serve`: the same mock tools over stdio, for outside agents."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters

from skillbench.tools import ERROR_KIND_META

REPO = Path(__file__).resolve().parents[2]


def serve_params(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "skillbench.tools.serve", *args], cwd=str(REPO))


async def test_stdio_server_lists_and_calls_tools() -> None:
    params = serve_params("--benchmark", "starter", "--scenario", "hc-resched-happy-01", "--mock", "stateful")
    async with Client(params, read_timeout_seconds=30) as client:
        listed = await client.list_tools()
        names = [tool.name for tool in listed.tools]
        assert "scheduling.search_appointments" in names
        result = await client.call_tool("scheduling.search_appointments", {"customer_id": "C-10482"})
        assert not result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert [r["appointment_id"] for r in json.loads(text)["records"]] == ["APT-7731"]
        assert result.structured_content == json.loads(text)
        invalid = await client.call_tool("scheduling.update_appointment", {"appointment_id": "APT-7731"})
        assert invalid.is_error and (invalid.meta or {}).get(ERROR_KIND_META) == "validation"


def test_serve_rejects_an_unknown_scenario_with_a_clear_message() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skillbench.tools.serve", "--scenario", "no-such-scenario"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "'no-such-scenario' is not in benchmark 'starter'" in done.stderr
