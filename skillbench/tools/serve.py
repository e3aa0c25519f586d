"""Serve one scenario's mock tools over stdio, so an outside agent is evaluated against the same mocks.

    python -m skillbench.tools.serve --benchmark starter --scenario hc-resched-happy-01 [--mock stateful]

``--mock`` is a packaged mock config (``skillbench/conf/mock/<name>.yaml``) or a path to one. The
environment state lives as long as the process: one process per conversation. Logs go to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import anyio
import yaml
from mcp.server.stdio import stdio_server
from pydantic import ValidationError

from skillbench.benchmark import load_benchmark
from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.config.schema import MOCK_ADAPTER, MockConfig
from skillbench.core.errors import ConfigError, SkillbenchError
from skillbench.core.registry import UnknownComponentError
from skillbench.core.yamlfile import load_yaml
from skillbench.tools.server import MockToolServer

MOCK_CONF_DIR = Path(__file__).resolve().parent.parent / "conf" / "mock"


def load_mock_config(name_or_path: str) -> MockConfig:
    """A packaged mock config by name (``stateful``, ``llm`` ...) or a YAML file path."""
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        path = MOCK_CONF_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        names = ", ".join(sorted(p.stem for p in MOCK_CONF_DIR.glob("*.yaml")))
        raise ConfigError(f"--mock {name_or_path!r} is neither a packaged mock config ({names}) nor a YAML file.")
    try:
        return MOCK_ADAPTER.validate_python(load_yaml(path.read_text(encoding="utf-8")))
    except (ValidationError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not a valid mock config: {exc}") from None


def find_scenario(benchmark: Benchmark, scenario_id: str) -> Scenario:
    for scenario in benchmark.scenarios:
        if scenario.id == scenario_id:
            return scenario
    raise ConfigError(
        f"--scenario {scenario_id!r} is not in benchmark {benchmark.manifest.name!r}. "
        f"Fix: use one of its scenario ids, e.g. {benchmark.scenarios[0].id if benchmark.scenarios else '(none)'}."
    )


async def serve_stdio(mock_server: MockToolServer) -> None:
    """Answer MCP requests on stdin/stdout until the client closes the connection."""
    server = mock_server.mcp_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m skillbench.tools.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmark", default="starter", help="packaged benchmark name or folder (default: starter)")
    parser.add_argument("--scenario", required=True, help="scenario id whose skill's tools and state are served")
    parser.add_argument("--mock", default="stateful", help="mock config name or YAML path (default: stateful)")
    parser.add_argument("--seed", type=int, default=0, help="seed of random failures and of the llm responder")
    args = parser.parse_args(argv)
    try:
        benchmark = load_benchmark(args.benchmark)
        scenario = find_scenario(benchmark, args.scenario)
        mock_server = MockToolServer(benchmark, scenario, load_mock_config(args.mock), seed=args.seed)
    except (SkillbenchError, UnknownComponentError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    anyio.run(serve_stdio, mock_server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
