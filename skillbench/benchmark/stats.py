"""``skillbench benchmark stats``: what a benchmark folder contains, counted several ways."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillbench.benchmark.loader import parse_file, python_files, read_yaml, resolve_source, yaml_files
from skillbench.benchmark.schema import (
    BenchmarkManifest,
    Scenario,
    ScenarioFile,
    Skill,
    ToolServer,
    ToolSpec,
)
from skillbench.benchmark.tool_code import code_tool_specs, load_tool_module
from skillbench.core.errors import BenchmarkDataError
from skillbench.core.records import SCENARIO_PATHS


@dataclass
class Contents:
    manifest: BenchmarkManifest
    tools: dict[str, ToolSpec] = field(default_factory=dict)
    skills: dict[str, Skill] = field(default_factory=dict)
    scenarios: list[Scenario] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # files that failed validation (see lint)


def read_contents(source: str | Path) -> Contents:
    """Every file that validates; the others are listed in ``unreadable`` (lint explains why)."""
    root = resolve_source(str(source))
    manifest = parse_file(BenchmarkManifest, read_yaml(root / "benchmark.yaml"), root / "benchmark.yaml")
    out = Contents(manifest=manifest)
    for path in yaml_files(root / "tools"):
        try:
            server = parse_file(ToolServer, read_yaml(path), path)
        except BenchmarkDataError:
            out.unreadable.append(str(path.relative_to(root)))
            continue
        out.tools.update({tool.name: tool for tool in server.tools})
    for path in python_files(root / "tools"):  # tools as code
        try:
            out.tools.update({tool.name: tool for tool in code_tool_specs(load_tool_module(path, path.read_text(encoding="utf-8")))})
        except BenchmarkDataError:
            out.unreadable.append(str(path.relative_to(root)))
    for path in yaml_files(root / "skills"):
        try:
            skill = parse_file(Skill, read_yaml(path), path)
        except BenchmarkDataError:
            out.unreadable.append(str(path.relative_to(root)))
            continue
        out.skills[skill.id] = skill
    for path in yaml_files(root / "scenarios"):
        try:
            out.scenarios += parse_file(ScenarioFile, read_yaml(path), path).scenarios
        except BenchmarkDataError:
            out.unreadable.append(str(path.relative_to(root)))
    return out


def _table(title: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    rows = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h)) for i, h in enumerate(title)]
    line = "  ".join(f"{h:<{widths[0]}}" if i == 0 else f"{h:>{widths[i]}}" for i, h in enumerate(title))
    out = [line, "  ".join("-" * w for w in widths)]
    for row in rows:
        out.append("  ".join(f"{c:<{widths[0]}}" if i == 0 else f"{c:>{widths[i]}}" for i, c in enumerate(row)))
    return out


def format_stats(contents: Contents) -> list[str]:
    m, skills, scenarios, tools = contents.manifest, contents.skills, contents.scenarios, contents.tools
    industry_of = {s.id: s.industry for s in skills.values()}
    category_of = {s.id: s.category for s in skills.values()}
    servers = sorted({t.server for t in tools.values()})
    lines = [
        f"benchmark {m.name} v{m.version}: {len(m.industries)} industries, {len(skills)} skills, {len(tools)} tools on "
        f"{len(servers)} servers, {len(scenarios)} scenarios",
        "",
    ]
    by_industry = Counter(industry_of.get(s.skill_id, "?") for s in scenarios)
    skills_per_industry = Counter(s.industry for s in skills.values())
    paths_per_industry = {i.id: Counter(s.path for s in scenarios if industry_of.get(s.skill_id) == i.id) for i in m.industries}
    lines += _table(
        ["industry", "scenarios", "skills", "paths covered"],
        [[i.id, by_industry[i.id], skills_per_industry[i.id], f"{len(paths_per_industry[i.id])}/{len(SCENARIO_PATHS)}"]
         for i in m.industries],
    )
    lines.append("")
    by_category = Counter(category_of.get(s.skill_id, "?") for s in scenarios)
    skills_per_category = Counter(s.category for s in skills.values())
    lines += _table(["skill category", "scenarios", "skills"],
                    [[c, by_category[c], skills_per_category[c]] for c in sorted(skills_per_category)])
    lines.append("")
    by_path = Counter(s.path for s in scenarios)
    lines += _table(
        ["path", "scenarios", "per industry (min-max)"],
        [[p, by_path[p], f"{min(c[p] for c in paths_per_industry.values())}-{max(c[p] for c in paths_per_industry.values())}"
          if paths_per_industry else "-"] for p in SCENARIO_PATHS],
    )
    lines.append("")
    by_persona = Counter(s.persona.label for s in scenarios)
    lines += _table(["persona", "scenarios"], sorted(by_persona.items(), key=lambda kv: (-kv[1], kv[0])))
    lines.append("")
    by_outcome = Counter(s.expected_outcome for s in scenarios)
    lines += _table(["expected outcome", "scenarios"], sorted(by_outcome.items()))
    lines.append("")
    in_toolkit = {name for s in skills.values() for name in s.tools}
    required = Counter(name for s in scenarios for name in s.required_tools)
    lines += _table(
        ["tool server", "tools", "in a toolkit", "required calls"],
        [[srv, sum(1 for t in tools.values() if t.server == srv),
          sum(1 for t in tools.values() if t.server == srv and t.name in in_toolkit),
          sum(n for name, n in required.items() if name.split(".", 1)[0] == srv)] for srv in servers],
    )
    if contents.unreadable:
        lines += ["", f"{len(contents.unreadable)} file(s) failed validation and are not counted (run "
                      f"`skillbench benchmark lint`): {', '.join(contents.unreadable)}"]
    return lines
