"""The build stages in order; each reads the previous stage's file under ``<out>/_build/`` and writes its own.

Per-item results go to the content-addressed :class:`~skillbench.store.ArtifactStore`, keyed by the
item and the stage's settings, as soon as each item is done: a killed or repeated build recomputes
only the items it has not stored yet.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, model_validator

from skillbench.benchmark.generator.model import SkillSpec
from skillbench.build import benchmark as bench
from skillbench.build.cluster import cluster_sequences
from skillbench.build.config import BuildConfig, stage_settings
from skillbench.build.extract import TurnTypes, annotated, text_only, with_llm
from skillbench.build.ingest import read_source
from skillbench.build.pii import scrub
from skillbench.build.records import (
    ActionSequence,
    Cluster,
    Conversation,
    ScrubbedConversation,
    StageReport,
    Workflow,
)
from skillbench.build.represent import representative
from skillbench.build.skillwriter import catalogue_for, fact_function, skill_spec, snake
from skillbench.core.errors import SkillbenchError
from skillbench.store import ArtifactStore, content_hash
from skillbench.store.artifacts import write_json_atomic

log = logging.getLogger("skillbench.build")
M = TypeVar("M", bound=BaseModel)
VERSION = "1"  # bump when a stage's output for the same input changes (invalidates the store)
FILES = {"ingest": "01_conversations.jsonl", "extract": "02_actions.jsonl", "cluster": "03_clusters.jsonl",
         "represent": "04_workflows.jsonl", "skills": "05_skills.jsonl"}


class BuildError(SkillbenchError):
    """A stage cannot run (missing input, nothing left): one line naming the file and the fix."""


class WrittenSkill(BaseModel):
    """The skill stage's item: a skill template for a workflow, or why it was dropped."""

    cluster_id: str = Field(description="The workflow's cluster.")
    support: int = Field(0, description="Transcripts in the cluster.")
    spec: SkillSpec | None = Field(None, description="The generator skill template.")
    fixes: list[str] = Field(default_factory=list, description="What the filter added (e.g. the verify step).")
    dropped: str | None = Field(None, description="Why no skill was kept.")

    @model_validator(mode="before")
    @classmethod
    def _register_facts(cls, data: Any) -> Any:
        """A stored spec names its fact function; register it (from the spec's collect steps) before validating,
        so a stage run in a new process (``stage=scenarios``) can read the skills file."""
        spec = data.get("spec") if isinstance(data, dict) else None
        if isinstance(spec, dict) and str(spec.get("facts") or "").startswith("build.facts_"):
            fact_function([f for step in spec.get("steps", []) if step.get("kind") == "collect" for f in step.get("facts", [])])
        return data


class Summary(BaseModel):
    stages: list[StageReport] = Field(default_factory=list, description="One report per stage run, in order.")

    def upsert(self, report: StageReport) -> None:
        self.stages = [s for s in self.stages if s.stage != report.stage] + [report]


def read_summary(out: Path) -> Summary:
    """The stage reports of the build in ``out`` (empty before its first stage)."""
    path = out / "_build" / "summary.json"
    return Summary.model_validate_json(path.read_text()) if path.is_file() else Summary()


class Build:
    def __init__(self, cfg: BuildConfig) -> None:
        self.cfg = cfg
        self.out = Path(cfg.out)
        self.work = self.out / "_build"
        self.store = ArtifactStore(cfg.store_root())

    # -- files -------------------------------------------------------------------------------------
    def _path(self, stage: str) -> Path:
        return self.work / FILES[stage]

    def _write(self, stage: str, items: list[BaseModel]) -> None:
        lines = "".join(item.model_dump_json() + "\n" for item in items)
        path = self._path(stage)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(lines, encoding="utf-8")
        tmp.replace(path)  # whole or absent: a killed stage leaves the previous file, never half of one

    def _read(self, stage: str, model: type[M]) -> list[M]:
        path = self._path(stage)
        if not path.is_file():
            raise BuildError(f"{path}: missing; the {stage} stage has not run. Fix: run `skillbench build "
                             f"stage={stage} out={self.out}` (or stage=all) first.")
        return [model.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line]

    def summary(self) -> Summary:
        return read_summary(self.out)

    @contextmanager
    def _stage(self, name: str) -> Iterator[StageReport]:
        report = StageReport(stage=name)
        started = time.perf_counter()
        yield report
        report.seconds = round(time.perf_counter() - started, 3)
        summary = self.summary()
        summary.upsert(report)
        write_json_atomic(self.work / "summary.json", summary.model_dump(mode="json"))
        drops = ", ".join(f"{k}: {v}" for k, v in report.dropped.items()) or "none"
        log.info("%s: %d in, %d out (%d reused), dropped %s, %.1fs, %d model calls, $%.4f", name, report.items_in,
                 report.items_out, report.reused, drops, report.seconds, report.model_calls, report.cost_usd)

    def _cached(self, kind: str, settings: Any, item: Any, model: type[M], produce: Callable[[], M],
                report: StageReport) -> M:
        key = content_hash({"v": VERSION, "settings": settings, "item": item})
        found = self.store.get(kind, key, model)
        if found is not None:
            report.reused += 1
            return found
        made = produce()
        self.store.put(kind, key, made)
        return made

    # -- stages ------------------------------------------------------------------------------------
    def ingest(self) -> list[ScrubbedConversation]:
        with self._stage("ingest") as report:
            options = self.cfg.ingest.model_dump()
            try:
                path = self.cfg.ingest.resolved_path()
            except ValueError as exc:
                raise BuildError(f"{exc}. Fix: add ingest.path=<file.jsonl>.") from None
            raw = read_source(self.cfg.ingest.format, path, options)
            report.items_in = len(raw)
            items = [self._cached("build_ingest", "pii-v1", c.model_dump(mode="json"), ScrubbedConversation,
                                  lambda c=c: scrub(c), report) for c in raw]
            replaced: Counter[str] = Counter()
            for item in items:
                replaced.update({r.kind: r.count for r in item.replaced})
            report.items_out = len(items)
            report.notes = {"pii_replaced": dict(sorted(replaced.items()))}
            self._write("ingest", items)
            write_json_atomic(self.work / "pii_report.json", {
                "replaced": dict(sorted(replaced.items())),
                "by_conversation": {i.conversation.id: {r.kind: r.count for r in i.replaced} for i in items if i.replaced}})
            return items

    def extract(self) -> list[ActionSequence]:
        conversations = [s.conversation for s in self._read("ingest", ScrubbedConversation)]
        cfg = self.cfg.extractor
        settings = stage_settings(self.cfg, "extractor")
        with self._stage("extract") as report:
            report.items_in = len(conversations)
            if cfg.kind == "llm":
                items = asyncio.run(self._extract_llm(conversations, settings, report))
            else:
                types: list[TurnTypes] = []
                if cfg.kind == "text":
                    settings = {**settings, "corpus": content_hash([c.id for c in conversations])}

                def make(c: Conversation) -> ActionSequence:
                    if cfg.kind == "annotated":
                        return annotated(c)
                    if not types:  # learnt once, and only when some item is not in the store
                        types.append(TurnTypes(conversations, n_types=cfg.n_types))
                    return text_only(c, types[0])

                items = [self._cached("build_extract", settings, c.model_dump(mode="json"), ActionSequence,
                                      lambda c=c: make(c), report) for c in conversations]
            kept = [i for i in items if not i.dropped]
            report.dropped = dict(Counter(i.dropped.split(":")[0] for i in items if i.dropped))
            report.items_out = len(kept)
            report.model_calls = int(sum(i.usage.get("calls", 0) for i in items))
            report.cost_usd = round(sum(i.usage.get("cost_usd", 0.0) for i in items), 6)
            self._write("extract", items)
            return kept

    async def _extract_llm(self, conversations: list[Conversation], settings: Any, report: StageReport) -> list[ActionSequence]:
        cfg = self.cfg.extractor
        assert cfg.model is not None

        async def one(c: Conversation) -> ActionSequence:
            key = content_hash({"v": VERSION, "settings": settings, "item": c.model_dump(mode="json")})
            item, reused = await self.store.get_or_create(
                "build_extract", key, ActionSequence, lambda: with_llm(c, cfg.model, attempts=cfg.attempts),  # type: ignore[arg-type]
                keep=lambda a: not (a.dropped or "").startswith("model error"))  # endpoint failures are retried next run
            if reused:
                report.reused += 1
                return item.model_copy(update={"usage": {}})  # spent on an earlier run
            return item

        return list(await asyncio.gather(*(one(c) for c in conversations)))

    def cluster(self) -> list[Cluster]:
        sequences = [s for s in self._read("extract", ActionSequence) if not s.dropped]
        cfg = self.cfg.clusterer
        with self._stage("cluster") as report:
            report.items_in = len(sequences)
            if not sequences:
                raise BuildError(f"{self._path('extract')}: no action sequences to cluster. Fix: check the extractor's drops "
                                 f"in {self.work / 'summary.json'}.")
            clusters, notes = cluster_sequences(sequences, group_by_purpose=cfg.group_by_purpose, k=cfg.k,
                                                k_min=cfg.k_min, k_max=cfg.k_max, n_max=cfg.n_max, seed=cfg.seed)
            if cfg.k is None:  # a group whose best split is weak stays whole
                clusters = self._merge_weak(sequences, clusters, notes)
            report.items_out = len(clusters)
            report.notes = {"groups": len(notes), "k_by_group": {g: n["k"] for g, n in notes.items()}}
            self._write("cluster", clusters)
            return clusters

    def _merge_weak(self, sequences: list[ActionSequence], clusters: list[Cluster], notes: dict[str, dict[str, float]]) -> list[Cluster]:
        out: list[Cluster] = []
        for group in sorted({c.group for c in clusters}):
            mine = [c for c in clusters if c.group == group]
            if notes[group]["silhouette"] < self.cfg.clusterer.min_silhouette and len(mine) > 1:
                notes[group] = {"k": 1, "silhouette": notes[group]["silhouette"]}
                mine = [Cluster(id=f"{group}-00", group=group, members=[m for c in mine for m in c.members])]
            out += mine
        return out

    def represent(self) -> list[Workflow]:
        by_id = {s.conversation_id: s for s in self._read("extract", ActionSequence) if not s.dropped}
        clusters = self._read("cluster", Cluster)
        settings = stage_settings(self.cfg, "representative")
        with self._stage("represent") as report:
            report.items_in = len(clusters)
            items = [self._cached("build_represent", settings, {"cluster": c.model_dump(), "members": [by_id[m].actions for m in c.members]},
                                  Workflow, lambda c=c: representative(c, by_id, self.cfg.representative.samples), report)
                     for c in clusters]
            report.items_out = len(items)
            self._write("represent", items)
            return items

    def skills(self) -> list[WrittenSkill]:
        workflows = sorted(self._read("represent", Workflow), key=lambda w: (-w.support, w.cluster_id))
        settings = {"writer": stage_settings(self.cfg, "skill_writer"), "filter": stage_settings(self.cfg, "filter")}
        with self._stage("skills") as report:
            report.items_in = len(workflows)
            items = [self._cached("build_skills", settings, w.model_dump(), WrittenSkill, lambda w=w: self._write_skill(w), report)
                     for w in workflows]
            kept = [i for i in items if i.spec]
            if self.cfg.selection.max_skills:
                for extra in kept[self.cfg.selection.max_skills:]:
                    items[items.index(extra)] = extra.model_copy(update={"spec": None, "dropped": "beyond selection.max_skills"})
            report.dropped = dict(Counter((i.dropped or "").split(":")[0] for i in items if i.dropped))
            report.items_out = sum(1 for i in items if i.spec)
            report.notes = {"fixes": dict(Counter(f for i in items for f in i.fixes))}
            self._write("skills", items)
            return items

    def _write_skill(self, workflow: Workflow) -> WrittenSkill:
        base = {"cluster_id": workflow.cluster_id, "support": workflow.support}
        if workflow.support < self.cfg.filter.min_support:
            return WrittenSkill(**base, dropped=f"low support: {workflow.support} < filter.min_support")
        key = snake(workflow.cluster_id)
        spec = skill_spec(workflow, key, self.cfg.skill_writer.max_facts)
        if isinstance(spec, str):
            return WrittenSkill(**base, dropped=spec)
        tool_steps = sum(1 for s in spec.steps if s.kind in {"lookup", "act"})
        if tool_steps < self.cfg.filter.min_tool_steps:
            return WrittenSkill(**base, dropped=f"too few tool steps: {tool_steps} < filter.min_tool_steps")
        # The generator always puts identity verification first and the restricted tool behind a
        # guardrail, so mined workflows that skipped them (most do) are fixed, and say so.
        fixes = ["added identity verification before any disclosure", "added a guardrail on record deletion"]
        return WrittenSkill(**base, spec=spec, fixes=fixes)

    def scenarios(self) -> dict[str, Any]:
        everything = self._read("skills", WrittenSkill)
        written = [w for w in everything if w.spec]
        # A skill's place among all written ones (dropped included) seeds its personas, so whether another
        # skill was dropped never changes this one's scenarios.
        place = {w.cluster_id: i for i, w in enumerate(everything)}
        workflows = {w.cluster_id: w for w in self._read("represent", Workflow)}
        cfg = self.cfg
        with self._stage("scenarios") as report:
            report.items_in = len(written)
            if not written:
                raise BuildError(f"{self._path('skills')}: no skill survived the filter. Fix: lower filter.min_support or "
                                 f"check the drops in {self.work / 'summary.json'}.")
            apis = [a.split(":", 1)[1] for w in written for a in workflows[w.cluster_id].actions if a.startswith("query:")]
            servers, entities = catalogue_for(apis)
            specs = [w.spec for w in written if w.spec]
            industry = bench.industry(cfg.benchmark_name, servers, entities, specs)
            catalogue, tools = bench.catalogue(servers)
            skills, candidates, drops = [], [], Counter()
            for item in written:
                assert item.spec is not None
                result = bench.skill_and_candidates(industry, item.spec, place[item.cluster_id], tools, cfg.scenario_writer.seed)
                if isinstance(result, str):
                    drops[result.split(":")[0]] += 1
                    continue
                skills.append(result[0])
                candidates += result[1]
            description = (f"Mined by `skillbench build` from {cfg.ingest.format} transcripts: {len(skills)} skills, "
                           f"{cfg.selection.per_skill} scenarios per skill; see docs/pipeline.md.")
            built = bench.write(self.out, cfg.benchmark_name, catalogue, skills, candidates, cfg.selection.per_skill,
                                cfg.scenario_writer.seed, description, per_skill_seed=cfg.selection.independent)
            report.dropped = dict(drops)
            report.items_out = len(built.scenarios)
            report.notes = {"skills": len(skills), "candidates": len(candidates), "tools": len(tools)}
            return {"skills": len(skills), "scenarios": len(built.scenarios)}

    def run(self) -> None:
        stages = ("ingest", "extract", "cluster", "represent", "skills", "scenarios")
        for stage in stages if self.cfg.stage == "all" else (self.cfg.stage,):
            getattr(self, stage)()

