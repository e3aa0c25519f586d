"""Load a benchmark folder into validated records; every problem names its file and field."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from jsonschema.validators import validator_for
from pydantic import BaseModel, ValidationError

from skillbench.benchmark.integrity import dangling_references, reference_problems, schema_problem
from skillbench.benchmark.schema import (
    BenchmarkManifest,
    GoldBasis,
    Scenario,
    ScenarioFile,
    Skill,
    ToolServer,
    ToolSpec,
)
from skillbench.benchmark.state import replay_actions
from skillbench.benchmark.tool_code import code_tool_specs, load_tool_module
from skillbench.benchmark.version import content_version
from skillbench.core.canonical import canonical_json
from skillbench.core.errors import (
    BenchmarkCodeError,
    BenchmarkDataError,
    ToolError,
    first_cause_first,
    first_error,
    spelling_hint,
)
from skillbench.core.yamlfile import describe_yaml_error, load_yaml

PACKAGED_DIR = Path(__file__).parent / "data"
M = TypeVar("M", bound=BaseModel)

# What each field holds, for a value of the wrong shape: the fix names what *is* supported.
SUPPORTED_SHAPES: dict[str, str] = {
    "initial_state": "a mapping of collection name → list of records, each record a mapping of field → value",
    "user_facts": "a mapping of fact name → value (a string, number, boolean, list or mapping)",
    "target_state": "a list of {collection, match: {field: value}, expect: {field: value}, absent: bool}",
    "gold_actions": "a list of {tool: '<server>.<operation>', arguments: {name: value}}",
    "actions": "a list of {goal, facts: {name: value}}",
    "tool_failures": "a mapping of tool name → number of failing first calls",
    "input_schema": "a JSON Schema object with type: object",
    "effect": "{operation: lookup|get|verify|create|update|delete|action, collection, match, set, ...}",
    "steps": "a list of {id, kind, instruction, tools, collects, required, alternatives}",
    "alternatives": "a list of {tools: [...], collects: [...]}, any one of which completes the step",
    "volatile_fields": "a mapping of collection name → list of field names the whole-state check ignores",
    "references": "a mapping '<collection>.<field>' → '<collection>.<field>' of the id it points at",
    "lint_waivers": "a mapping of lint rule name → the reason it does not apply to this benchmark",
    "comparison": "{scalars: strings|json, decimals: <int>, lists: unordered|ordered, unicode: exact|NFC|NFKC}",
}
_SHAPE_ERRORS = ("_type", "dict_", "list_", "string_", "int_", "float_", "bool_", "model_")


@dataclass
class Benchmark:
    """A loaded benchmark: manifest, tool catalogue, skills and scenarios (in file order)."""

    root: Path
    manifest: BenchmarkManifest
    tools: dict[str, ToolSpec]
    skills: dict[str, Skill]
    scenarios: list[Scenario]
    files: dict[str, Path] = field(default_factory=dict)  # record id → the file it came from
    version: str = ""  # content hash of tools/, skills/ and scenarios/ (skillbench.benchmark.version)
    # id(record) -> (the record, its canonical JSON); the record is held so that its id is never another's
    _canonical: dict[int, tuple[BaseModel, str]] = field(default_factory=dict, repr=False, compare=False)

    def skill_of(self, scenario: Scenario) -> Skill:
        return self.skills[scenario.skill_id]

    def canonical(self, record: BaseModel) -> str:
        """The record's JSON dump as canonical JSON (skillbench.core.canonical), encoded once per record object: every
        rollout key of every job using this loaded benchmark takes its scenario, skill and tools from here."""
        cached = self._canonical.get(id(record))
        if cached is None or cached[0] is not record:
            cached = self._canonical[id(record)] = (record, canonical_json(record.model_dump(mode="json")))
        return cached[1]

    def toolkit(self, skill: Skill) -> list[ToolSpec]:
        return [self.tools[name] for name in skill.tools]


def resolve_source(source: str) -> Path:
    """A packaged benchmark name ('starter') or a folder path."""
    packaged = PACKAGED_DIR / source
    if "/" not in source and packaged.is_dir():
        return packaged
    path = Path(source).expanduser()
    if path.is_dir():
        return path.resolve()
    names = ", ".join(sorted(p.name for p in PACKAGED_DIR.iterdir() if p.is_dir())) if PACKAGED_DIR.is_dir() else "none"
    raise BenchmarkDataError(
        f"benchmark source {source!r} is neither a packaged benchmark ({names}) nor a folder. "
        f"Fix: set benchmark.source to one of those names or to an existing folder."
    )


def read_yaml(path: Path, texts: dict[str, str] | None = None) -> Any:
    """The parsed file; with ``texts``, its text is kept there under ``<folder>/<name>`` (read once, hashed later)."""
    text = path.read_text(encoding="utf-8")
    if texts is not None:
        texts[f"{path.parent.name}/{path.name}"] = text
    try:
        return load_yaml(text)
    except yaml.YAMLError as exc:
        fix = "keep one of them" if "duplicate key" in str(exc) else "fix the syntax"
        raise BenchmarkDataError(f"{path}:{describe_yaml_error(exc)}. Fix: {fix}.") from None


def parse_file(model: type[M], data: Any, path: Path) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = first_cause_first(exc)
        err = errors[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        more = f" [and {len(errors) - 1} more problem(s)]" if len(errors) > 1 else ""
        shape = next((SUPPORTED_SHAPES[str(p)] for p in reversed(err["loc"]) if str(p) in SUPPORTED_SHAPES), None)
        if err["type"] == "extra_forbidden":
            hint = spelling_hint(err, errors) or "remove it or fix its spelling"
        elif err["type"] != "missing" and shape and err["type"].startswith(_SHAPE_ERRORS):
            hint = f"give it a supported shape ({shape})"
        else:
            hint = "add or correct it"
        raise BenchmarkDataError(f"{path}: field '{loc}': {err['msg']}. Fix: {hint} in that file.{more}") from None


def yaml_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.y*ml") if p.suffix in {".yaml", ".yml"}) if folder.is_dir() else []


def python_files(folder: Path) -> list[Path]:
    """The code-tool modules of a ``tools/`` folder (``tools/<server>.py``)."""
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_")) if folder.is_dir() else []


def check_typed_state(scenario: Scenario, typed: dict[str, tuple[type[BaseModel], Path]], where: str) -> None:
    """Validate ``initial_state`` records of the collections a tools module types (``COLLECTIONS``)."""
    for collection, records in scenario.initial_state.items():
        if collection not in typed:
            continue
        model, module = typed[collection]
        for index, record in enumerate(records):
            try:
                model.model_validate(record)
            except ValidationError as exc:
                loc, message = first_error(exc)
                raise BenchmarkDataError(
                    f"{where}.initial_state.{collection}.{index}.{loc}': {message} (records of {collection!r} are "
                    f"{model.__name__} in {module.name}). Fix: correct the record."
                ) from None


def gold_basis(scenario: Scenario, tools: dict[str, ToolSpec], manifest: BenchmarkManifest, where: str) -> GoldBasis:
    """The expected end state: the scenario's gold actions replayed on its initial state by the same tools."""
    actions = scenario.gold_actions or []
    for index, action in enumerate(actions):
        if action.tool not in tools:
            raise BenchmarkDataError(f"{where}.gold_actions.{index}.tool': {action.tool!r} is not in the catalogue (tools/).")
        schema = tools[action.tool].input_schema
        # Required free text the agent composes may be left out of a gold action; anything given must fit.
        wrong = next((e for e in validator_for(schema)(schema).iter_errors(dict(action.arguments)) if e.validator != "required"), None)
        if wrong is not None:
            raise BenchmarkDataError(
                f"{where}.gold_actions.{index}.arguments': {wrong.message} (the schema of {action.tool}). "
                f"Fix: correct the argument."
            )
    try:
        expected = replay_actions(scenario.initial_state, tools, [(a.tool, a.arguments) for a in actions],
                                  refused=[a.refused for a in actions])
    except ToolError as exc:
        raise BenchmarkDataError(
            f"{where}.gold_actions': {exc.message} on initial_state. Fix: correct the gold action or the state."
        ) from None
    except BenchmarkCodeError as exc:  # the domain's code tool itself failed (a bug, or past its time limit)
        raise BenchmarkDataError(
            f"{where}.gold_actions': {exc} while replaying the gold actions. Fix: correct the code tool (it must "
            "return a result, or raise ToolRefused for a business rule)."
        ) from None
    return GoldBasis(expected_state=expected, volatile=manifest.volatile_fields, comparison=manifest.comparison)


def load_benchmark(source: str | Path) -> Benchmark:
    """Load and cross-check a benchmark folder (manifest, ``tools/``, ``skills/``, ``scenarios/``)."""
    return _load_cached(str(resolve_source(str(source))))


@dataclass
class _Reading:
    """What a load has read so far: the files' texts (hashed into the content version), which file each
    record came from, and the collections a ``tools/*.py`` types."""

    root: Path
    manifest_path: Path
    texts: dict[str, str] = field(default_factory=dict)  # tools/, skills/, scenarios/ as read
    files: dict[str, Path] = field(default_factory=dict)  # record id → the file it came from
    typed: dict[str, tuple[type[BaseModel], Path]] = field(default_factory=dict)  # collection → its record model


@cache
def _load_cached(root_str: str) -> Benchmark:
    root = Path(root_str)
    reading = _Reading(root=root, manifest_path=root / "benchmark.yaml")
    manifest = _read_manifest(reading)
    tools = _read_declared_tools(reading)
    _read_code_tools(reading, tools)
    skills = _read_skills(reading, manifest, tools)
    scenarios = _read_scenarios(reading, manifest, tools, skills)
    return Benchmark(
        root=root, manifest=manifest, tools=tools, skills=skills, scenarios=scenarios, files=reading.files,
        version=content_version(reading.texts),
    )


def _read_manifest(reading: _Reading) -> BenchmarkManifest:
    path = reading.manifest_path
    if not path.is_file():
        raise BenchmarkDataError(f"{path} is missing. Fix: add a manifest with name and industries.")
    return parse_file(BenchmarkManifest, read_yaml(path), path)


def _add_tool(reading: _Reading, tools: dict[str, ToolSpec], tool: ToolSpec, path: Path) -> None:
    tools[tool.name] = tool
    reading.files[tool.name] = path


def _read_declared_tools(reading: _Reading) -> dict[str, ToolSpec]:
    """``tools/<server>.yaml``: each tool named after its server, defined once, with a valid schema."""
    tools: dict[str, ToolSpec] = {}
    for path in yaml_files(reading.root / "tools"):
        server = parse_file(ToolServer, read_yaml(path, reading.texts), path)
        for index, tool in enumerate(server.tools):
            if tool.server != server.server:
                raise BenchmarkDataError(
                    f"{path}: field 'tools.{index}.name': {tool.name!r} does not start with the server name "
                    f"'{server.server}.'. Fix: rename it or move it to tools/{tool.server}.yaml."
                )
            if tool.name in tools:
                raise BenchmarkDataError(f"{path}: field 'tools.{index}.name': {tool.name!r} is defined twice.")
            problem = schema_problem(tool.input_schema)
            if problem:
                raise BenchmarkDataError(
                    f"{path}: tool {tool.name}: field 'tools.{index}.input_schema' {problem}. Fix: correct the schema."
                )
            _add_tool(reading, tools, tool, path)
    return tools


def _read_code_tools(reading: _Reading, tools: dict[str, ToolSpec]) -> None:
    """``tools/<server>.py``: its ``@tool`` functions join the catalogue, its ``COLLECTIONS`` type the state."""
    for path in python_files(reading.root / "tools"):
        text = path.read_text(encoding="utf-8")
        reading.texts[f"tools/{path.name}"] = text
        module = load_tool_module(path, text)
        for tool in code_tool_specs(module):
            if tool.name in tools:
                raise BenchmarkDataError(
                    f"{path}: tool {tool.name!r} is also defined in {reading.files[tool.name]}. Fix: keep one."
                )
            problem = schema_problem(tool.input_schema)
            if problem:
                raise BenchmarkDataError(f"{path}: tool {tool.name}: its input_schema {problem}. Fix: correct the signature.")
            _add_tool(reading, tools, tool, path)
        reading.typed.update({name: (model, path) for name, model in module.collections.items()})


def _read_skills(reading: _Reading, manifest: BenchmarkManifest, tools: dict[str, ToolSpec]) -> dict[str, Skill]:
    """``skills/*.yaml``: each skill defined once, of a declared industry, using catalogue tools only."""
    industries = {industry.id for industry in manifest.industries}
    skills: dict[str, Skill] = {}
    for path in yaml_files(reading.root / "skills"):
        skill = parse_file(Skill, read_yaml(path, reading.texts), path)
        if skill.id in skills:
            raise BenchmarkDataError(f"{path}: field 'id': skill {skill.id!r} is defined twice.")
        if skill.industry not in industries:
            raise BenchmarkDataError(
                f"{path}: field 'industry': {skill.industry!r} is not an industry of {reading.manifest_path.name}. "
                f"Fix: use one of {sorted(industries)}."
            )
        _check_skill_tools(skill, tools, path)
        skills[skill.id] = skill
        reading.files[skill.id] = path
    return skills


def _check_skill_tools(skill: Skill, tools: dict[str, ToolSpec], path: Path) -> None:
    """The toolkit is in the catalogue, and every way of every step uses toolkit tools."""
    for index, name in enumerate(skill.tools):
        if name not in tools:
            raise BenchmarkDataError(f"{path}: field 'tools.{index}': tool {name!r} is not in the catalogue (tools/).")
    for index, step in enumerate(skill.steps):
        ways = [(f"steps.{index}.tools", step.tools)] + [
            (f"steps.{index}.alternatives.{alt}.tools", way.tools) for alt, way in enumerate(step.alternatives)
        ]
        for where, names in ways:
            for tool_index, name in enumerate(names):
                if name not in skill.tools:
                    raise BenchmarkDataError(
                        f"{path}: field '{where}.{tool_index}': {name!r} is not in the skill's toolkit. "
                        f"Fix: add it to 'tools' or remove it from the step."
                    )


def _read_scenarios(reading: _Reading, manifest: BenchmarkManifest, tools: dict[str, ToolSpec],
                    skills: dict[str, Skill]) -> list[Scenario]:
    """``scenarios/*.yaml``: each file of one skill, each scenario checked against it and the catalogue."""
    read: list[tuple[Path, ScenarioFile, Skill]] = []
    for path in yaml_files(reading.root / "scenarios"):
        scenario_file = parse_file(ScenarioFile, read_yaml(path, reading.texts), path)
        skill = skills.get(scenario_file.skill_id)
        if skill is None:
            raise BenchmarkDataError(f"{path}: field 'skill_id': no skill {scenario_file.skill_id!r} in skills/.")
        read.append((path, scenario_file, skill))
    _check_references(reading, manifest, tools, [s for _, file, _ in read for s in file.scenarios])
    scenarios: list[Scenario] = []
    seen: set[str] = set()
    for path, scenario_file, skill in read:
        for index, scenario in enumerate(scenario_file.scenarios):
            _check_scenario(reading, scenario, index, path, skill, seen, manifest, tools)
            seen.add(scenario.id)
            scenarios.append(scenario)
            reading.files[scenario.id] = path
    if not scenarios:
        raise BenchmarkDataError(
            f"{reading.root}: no scenarios found under scenarios/. Fix: add at least one scenario file."
        )
    return scenarios


def known_collections(tools: Iterable[ToolSpec], typed: Iterable[str]) -> set[str]:
    """Collections the catalogue names (what tools read and write) or a ``tools/*.py`` types."""
    named = {name for tool in tools for name in (*tool.reads, *tool.writes, tool.effect.collection) if name}
    return named | set(typed)


def _check_references(reading: _Reading, manifest: BenchmarkManifest, tools: dict[str, ToolSpec],
                      scenarios: list[Scenario]) -> None:
    """The manifest's ``references`` name collections and fields the data has (else the check is silently off)."""
    problems = reference_problems(manifest.references, [s.initial_state for s in scenarios],
                                  known_collections(tools.values(), reading.typed))
    if problems:
        entry, problem = problems[0]
        more = f" [and {len(problems) - 1} more problem(s)]" if len(problems) > 1 else ""
        raise BenchmarkDataError(f"{reading.manifest_path}: field 'references.{entry}': {problem}.{more}")


def _check_scenario(reading: _Reading, scenario: Scenario, index: int, path: Path, skill: Skill, seen: set[str],
                    manifest: BenchmarkManifest, tools: dict[str, ToolSpec]) -> None:
    """One scenario: its skill, a unique id, toolkit tools, typed records, gold actions, references."""
    where = f"{path}: field 'scenarios.{index}"
    if scenario.skill_id != skill.id:
        raise BenchmarkDataError(f"{where}.skill_id': {scenario.skill_id!r} differs from the file's {skill.id!r}.")
    if scenario.id in seen:
        raise BenchmarkDataError(f"{where}.id': scenario {scenario.id!r} is defined twice.")
    for tool_index, name in enumerate(scenario.required_tools):
        if name not in skill.tools:
            raise BenchmarkDataError(f"{where}.required_tools.{tool_index}': {name!r} is not in skill {skill.id!r}'s toolkit.")
    named = f"{path}: scenario {scenario.id}: field 'scenarios.{index}"
    check_typed_state(scenario, reading.typed, named)
    if scenario.gold_actions is not None:
        scenario._gold = gold_basis(scenario, tools, manifest, named)
    dangling = dangling_references(scenario.initial_state, manifest.references)
    if dangling:
        raise BenchmarkDataError(
            f"{path}: scenario {scenario.id}: field 'scenarios.{index}.{dangling[0]}. Fix: add that record "
            f"to initial_state.{dangling[0].target} or correct the id."
            + (f" [and {len(dangling) - 1} more dangling reference(s)]" if len(dangling) > 1 else "")
        )
