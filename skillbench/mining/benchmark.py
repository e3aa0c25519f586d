"""Scenario writing and selection: skill templates → a benchmark folder the engine runs and lint accepts.

The mined skill templates form one in-memory industry of the generator, so scenarios are built by the
generator's own path builders (synthetic identities, personas, reference conversation for the target
state) and picked by its balanced selection.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillbench.benchmark.generator.balance import select_balanced
from skillbench.benchmark.generator.catalogue import tool_spec
from skillbench.benchmark.generator.domains import load_sources
from skillbench.benchmark.generator.generate import BuiltBenchmark, write_benchmark
from skillbench.benchmark.generator.identities import seed_for
from skillbench.benchmark.generator.model import EntitySpec, IndustryDef, ServerDef, SkillSpec
from skillbench.benchmark.generator.scenarios import Candidate, TemplateError, build_candidates
from skillbench.benchmark.generator.skills import build_skill
from skillbench.benchmark.schema import BenchmarkManifest, Industry, Skill, ToolServer, ToolSpec
from skillbench.benchmark.version import content_version

# On top of every written file (the generator's own header names `skillbench benchmark build` and its templates).
# No path in it: the text is part of the content version, which must not depend on where the mining run was written.
HEADER = (
    "# Written by `skillbench mine` from workflows mined from transcripts (docs/pipeline.md).\n"
    "# Do not edit by hand: rerun the mining (`skillbench mine out=<this folder> <the same options>`; its stages reuse\n"
    "# what they stored, `stage=scenarios` rewrites only these files), or edit the options and mine again.\n"
)

OUT_OF_SCOPE = (
    "Can you recommend a good book for my holiday?",
    "What do you think about the football results this weekend?",
    "Could you help me write a cover letter for a job application?",
    "Which smartphone should I buy this year?",
)


def industry(name: str, servers: Sequence[ServerDef], entities: dict[str, EntitySpec], specs: Sequence[SkillSpec]) -> IndustryDef:
    return IndustryDef(
        id=name, name=name.replace("_", " ").title(), short=name, description=f"Skills mined from {name} transcripts.",
        company="Northwind Support", verify_tool="identity.verify_customer", notify_tool="messaging.send_email",
        notify_phrase="by email", out_of_scope=OUT_OF_SCOPE, servers=tuple(servers), entities=entities, skills=tuple(specs),
    )


def catalogue(mined: Sequence[ServerDef]) -> tuple[list[ToolServer], dict[str, ToolSpec]]:
    sources = load_sources(industries=[])
    servers: list[ToolServer] = []
    tools: dict[str, ToolSpec] = {}
    shared = {s.name for s in sources.shared_servers}
    for definition in [*sources.shared_servers, *(s for s in mined if s.name not in shared)]:
        specs = [tool_spec(t, sources.arguments) for t in definition.tools]
        servers.append(ToolServer(server=definition.name, description=definition.description, tools=specs))
        tools.update({t.name: t for t in specs})
    return sorted(servers, key=lambda s: s.server), tools


def skill_and_candidates(ind: IndustryDef, spec: SkillSpec, index: int, tools: dict[str, ToolSpec],
                         seed: int) -> tuple[Skill, list[Candidate]] | str:
    """The skill and its candidate scenarios, or why the template cannot be solved."""
    try:
        skill = build_skill(ind, spec, tools)
        return skill, build_candidates(ind, spec, skill, tools, index, seed)
    except (TemplateError, KeyError, ValueError) as exc:
        return f"unsolvable template: {str(exc)[:160]}"


def write(out: Path, name: str, servers: list[ToolServer], skills: list[Skill], candidates: list[Candidate],
          per_skill: int, seed: int, description: str, *, per_skill_seed: bool = False,
          chosen_ids: set[str] | None = None) -> BuiltBenchmark:
    """Select ``per_skill`` scenarios per skill (or take ``chosen_ids``) and write the benchmark folder.

    ``per_skill_seed``: choose each skill's scenarios on their own, seeded by the skill id, so one skill's
    choice never depends on which other skills exist (the mined-vs-gold comparison needs this).
    """
    if chosen_ids is not None:  # picked already (rated selection)
        chosen = [c.scenario for c in candidates if c.scenario.id in chosen_ids]
    elif per_skill_seed:
        chosen = [c.scenario for skill in skills for c in select_balanced(
            [c for c in candidates if c.scenario.skill_id == skill.id], per_skill, seed_for(seed, name, skill.id))]
    else:
        chosen = [c.scenario for c in select_balanced(candidates, per_skill * len(skills), seed_for(seed, name))]
    used = {t for s in skills for t in s.tools} | {t for sc in chosen for t in sc.forbidden_tools}
    kept = [s for s in servers if any(t.name in used for t in s.tools)]
    manifest = BenchmarkManifest(name=name, version="", description=description,
                                 industries=[Industry(id=name, name=name.replace("_", " ").title(), description=description)])
    built = BuiltBenchmark(manifest=manifest, servers=kept, skills=skills, scenarios=chosen, candidates=candidates,
                           header=HEADER)
    built.manifest = manifest.model_copy(update={"version": content_version(built.data_files())})
    write_benchmark(built, out)
    return built
