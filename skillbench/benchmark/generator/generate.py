"""Build the full benchmark from the templates and a seed, and write it as stable YAML files."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from skillbench.benchmark.generator.balance import select_balanced
from skillbench.benchmark.generator.catalogue import tool_spec
from skillbench.benchmark.generator.domains import Sources, load_sources
from skillbench.benchmark.generator.identities import seed_for
from skillbench.benchmark.generator.model import ServerDef
from skillbench.benchmark.generator.scenarios import Candidate, build_candidates
from skillbench.benchmark.generator.skills import build_skill
from skillbench.benchmark.generator.writer import HEADER, dump, to_data, write_text
from skillbench.benchmark.loader import PACKAGED_DIR
from skillbench.benchmark.schema import (
    BenchmarkManifest,
    Industry,
    Scenario,
    Skill,
    ToolServer,
    ToolSpec,
)
from skillbench.benchmark.version import MANIFEST, content_version
from skillbench.core.records import SCENARIO_PATHS

DEFAULT_SEED = 0
# Faker's name and address lists can change between releases; the shipped files were built with this one.
BUILT_WITH_FAKER = "40.63.0"
PER_INDUSTRY = 50  # a fixed quota, so an industry's selection never depends on the others
NAME = "full"
DEFAULT_OUT = PACKAGED_DIR / NAME
MANAGED = ("tools", "skills", "scenarios")


@dataclass
class BuiltBenchmark:
    manifest: BenchmarkManifest
    servers: list[ToolServer]
    skills: list[Skill]
    scenarios: list[Scenario]
    candidates: list[Candidate]
    header: str = HEADER  # the comment on top of every file: what wrote it and how to rewrite it

    def files(self) -> dict[str, str]:
        """Relative path → file text, in a fixed order."""
        return {MANIFEST: dump(to_data(self.manifest, keep=("version",)), self.header), **self.data_files()}

    def data_files(self) -> dict[str, str]:
        """The files but the manifest: what the content version hashes."""
        out: dict[str, str] = {}
        for srv in self.servers:
            out[f"tools/{srv.server}.yaml"] = dump(to_data(srv), self.header)
        order = {path: index for index, path in enumerate(SCENARIO_PATHS)}
        for skill in self.skills:
            out[f"skills/{skill.id}.yaml"] = dump(to_data(skill), self.header)
            mine = sorted((s for s in self.scenarios if s.skill_id == skill.id), key=lambda s: (order[s.path], s.id))
            body = {"skill_id": skill.id, "scenarios": [to_data(s, keep=("expected_outcome",)) for s in mine]}
            out[f"scenarios/{skill.id}.yaml"] = dump(body, self.header)
        return out


def _catalogue(sources: Sources) -> tuple[list[ToolServer], dict[str, ToolSpec]]:
    merged: dict[str, list[ToolSpec]] = {}
    descriptions: dict[str, str] = {}
    defs: list[ServerDef] = [*sources.shared_servers, *(s for industry in sources.industries for s in industry.servers)]
    for definition in defs:
        if definition.name in merged:
            raise ValueError(f"server {definition.name!r} is defined twice")
        merged[definition.name] = [tool_spec(tool, sources.arguments) for tool in definition.tools]
        descriptions[definition.name] = definition.description
    tools: dict[str, ToolSpec] = {}
    for name, specs in merged.items():
        for spec in specs:
            if spec.server != name or spec.name in tools:
                raise ValueError(f"tool {spec.name!r} is misplaced or defined twice")
            tools[spec.name] = spec
    servers = [ToolServer(server=name, description=descriptions[name], tools=merged[name]) for name in sorted(merged)]
    return servers, tools


def build_benchmark(
    seed: int = DEFAULT_SEED, per_industry: int = PER_INDUSTRY, industries: Collection[str] | None = None
) -> BuiltBenchmark:
    """Build from the industry folders (``industries``: only these ids; default all).

    Each industry is generated and selected on its own, seeded by ``(seed, industry id)`` with a fixed
    quota, so adding, editing or removing one industry leaves the others' files byte-identical.
    """
    sources = load_sources(industries)
    servers, tools = _catalogue(sources)
    skills: list[Skill] = []
    candidates: list[Candidate] = []
    chosen: list[Scenario] = []
    for industry in sources.industries:
        mine: list[Candidate] = []
        for index, spec in enumerate(industry.skills):
            skill = build_skill(industry, spec, tools)
            skills.append(skill)
            mine += build_candidates(industry, spec, skill, tools, index, seed)
        candidates += mine
        chosen += [c.scenario for c in select_balanced(mine, per_industry, seed_for(seed, industry.id))]
    manifest = BenchmarkManifest(
        name=NAME,
        version="",  # set below, from the other files
        description=(
            f"The paper-scale benchmark: {len(sources.industries)} industries, {len(skills)} skills, {len(tools)} tools on "
            f"{len(servers)} servers, {len(chosen)} scenarios selected ({per_industry} per industry, balanced by skill, "
            f"path and persona) from {len(candidates)} generated candidates with seed {seed}. Generated by "
            f"`skillbench benchmark build`; see docs/benchmark-generation.md."
        ),
        industries=[Industry(id=i.id, name=i.name, description=i.description) for i in sources.industries],
    )
    built = BuiltBenchmark(manifest=manifest, servers=servers, skills=skills, scenarios=chosen, candidates=candidates)
    built.manifest = manifest.model_copy(update={"version": content_version(built.data_files())})
    return built


def write_benchmark(built: BuiltBenchmark, out: Path) -> dict[str, str]:
    """Write the files under ``out``; YAML files of tools/, skills/, scenarios/ not in the build are removed."""
    files = built.files()
    for folder in MANAGED:
        for stale in sorted((out / folder).glob("*.yaml")) if (out / folder).is_dir() else []:
            if f"{folder}/{stale.name}" not in files:
                stale.unlink()
    for relative, text in files.items():
        write_text(out / relative, text)
    return files


def differences(built: BuiltBenchmark, folder: Path) -> list[str]:
    """Relative paths whose bytes in ``folder`` differ from the build (missing, changed or extra)."""
    files = built.files()
    out = [rel for rel, text in files.items() if not (folder / rel).is_file() or (folder / rel).read_bytes() != text.encode()]
    for name in MANAGED:
        for path in sorted((folder / name).glob("*.yaml")) if (folder / name).is_dir() else []:
            if f"{name}/{path.name}" not in files:
                out.append(f"{name}/{path.name}")
    return out


__all__ = ["BUILT_WITH_FAKER", "DEFAULT_OUT", "DEFAULT_SEED", "PER_INDUSTRY", "BuiltBenchmark", "build_benchmark",
           "differences", "write_benchmark"]
