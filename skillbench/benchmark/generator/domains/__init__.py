"""The industries of the full benchmark: one folder each, found on disk, no list to edit.

``<industry>/`` holds ``industry.yaml``, ``servers.yaml``, ``skills.yaml`` and ``factories.py`` (the
entity makers and fact functions its templates name); ``_shared/`` holds the argument schemas, the
shared servers and shared factories. Industries are read in sorted folder order. Every problem is a
:class:`~skillbench.core.errors.BenchmarkDataError` naming the file, the field and the fix, as for
benchmark data.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillbench.benchmark.generator.catalogue import argument_schemas
from skillbench.benchmark.generator.model import (
    ArgumentsFile,
    IndustryDef,
    IndustryInfo,
    ServerDef,
    ServersFile,
    SkillsFile,
)
from skillbench.benchmark.loader import parse_file, read_yaml
from skillbench.core.errors import BenchmarkDataError

DOMAINS_DIR = Path(__file__).parent
SHARED = "_shared"


@dataclass(frozen=True)
class Sources:
    """Everything a build reads: argument schemas, shared servers, and the industries."""

    arguments: dict[str, dict[str, Any]]
    shared_servers: tuple[ServerDef, ...]
    industries: tuple[IndustryDef, ...]


def industry_ids() -> list[str]:
    """The industry folders (those with an ``industry.yaml``), sorted."""
    return sorted(p.name for p in DOMAINS_DIR.iterdir() if not p.name.startswith("_") and (p / "industry.yaml").is_file())


def _import_factories(folder: str) -> None:
    # Importing registers the folder's factories; a folder without code needs no factories.py.
    if (DOMAINS_DIR / folder / "factories.py").is_file():
        importlib.import_module(f"{__name__}.{folder}.factories")


def read_servers(path: Path, arguments: Collection[str]) -> tuple[ServerDef, ...]:
    servers = parse_file(ServersFile, read_yaml(path), path).servers
    for s_index, server in enumerate(servers):
        for t_index, tool in enumerate(server.tools):
            where = f"{path}: field 'servers.{s_index}.tools.{t_index}"
            if not tool.name.startswith(f"{server.name}."):
                raise BenchmarkDataError(f"{where}.name': {tool.name!r} does not start with '{server.name}.'. "
                                         f"Fix: rename it or move it to its server.")
            for token in tool.params.split():
                if token.lstrip("?") not in arguments:
                    raise BenchmarkDataError(
                        f"{where}.params': argument {token.lstrip('?')!r} has no schema. Fix: add it to "
                        f"{DOMAINS_DIR / SHARED / 'arguments.yaml'} or correct its name."
                    )
    return tuple(servers)


def read_skills(path: Path, tools: Collection[str]) -> SkillsFile:
    """``skills.yaml``, checked against the tool names the industry can use and its own entity names."""
    skills = parse_file(SkillsFile, read_yaml(path), path)
    for index, spec in enumerate(skills.skills):
        named = [(f"steps.{i}.tool", step.tool) for i, step in enumerate(spec.steps) if step.tool]
        for field, name in [*named, ("restricted.tool", spec.restricted.tool)]:
            if name not in tools:
                raise BenchmarkDataError(f"{path}: field 'skills.{index}.{field}': no tool {name!r} in the shared or "
                                         f"this industry's servers.yaml. Fix: correct the name or add the tool.")
        for e_index, name in enumerate(spec.entities):
            if name not in skills.entities:
                raise BenchmarkDataError(f"{path}: field 'skills.{index}.entities.{e_index}': no entity {name!r} in "
                                         f"this file's 'entities'. Fix: use one of {sorted(skills.entities)}.")
    return skills


def load_industry(folder: str, arguments: Collection[str], shared_tools: Collection[str]) -> IndustryDef:
    root = DOMAINS_DIR / folder
    _import_factories(folder)
    info_path = root / "industry.yaml"
    info = parse_file(IndustryInfo, read_yaml(info_path), info_path)
    if info.id != folder:
        raise BenchmarkDataError(f"{info_path}: field 'id': {info.id!r} differs from the folder name. "
                                 f"Fix: set id to {folder!r} or rename the folder.")
    servers = read_servers(root / "servers.yaml", arguments)
    tools = {*shared_tools, *(tool.name for server in servers for tool in server.tools)}
    for field in ("verify_tool", "notify_tool"):
        if getattr(info, field) not in tools:
            raise BenchmarkDataError(f"{info_path}: field '{field}': no tool {getattr(info, field)!r} in the servers. "
                                     f"Fix: correct the name.")
    skills = read_skills(root / "skills.yaml", tools)
    return IndustryDef(**info.model_dump(), servers=servers, entities=skills.entities, skills=tuple(skills.skills))


def load_sources(industries: Collection[str] | None = None) -> Sources:
    """Read ``_shared/`` and the industry folders (``industries``: only these ids, in sorted order)."""
    known = industry_ids()
    unknown = sorted(set(industries or ()) - set(known))
    if unknown:
        raise BenchmarkDataError(f"no industry folder {unknown} in {DOMAINS_DIR}. Fix: use some of {known}.")
    shared = DOMAINS_DIR / SHARED
    _import_factories(SHARED)
    args_path = shared / "arguments.yaml"
    arguments = argument_schemas(parse_file(ArgumentsFile, read_yaml(args_path), args_path))
    shared_servers = read_servers(shared / "servers.yaml", arguments)
    shared_tools = {tool.name for server in shared_servers for tool in server.tools}
    chosen = [name for name in known if industries is None or name in industries]
    return Sources(arguments=arguments, shared_servers=shared_servers,
                   industries=tuple(load_industry(name, arguments, shared_tools) for name in chosen))
