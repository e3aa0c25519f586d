"""The mining stages in order; each reads the previous stage's file under ``<out>/_mining/`` and writes its own.

Per-item results go to the content-addressed :class:`~skillbench.store.ArtifactStore`, keyed by the
item and the stage's settings, as soon as each item is done: a killed or repeated mining run recomputes
only the items it has not stored yet.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, model_validator

from skillbench.benchmark.generator.balance import select_balanced
from skillbench.benchmark.generator.identities import seed_for
from skillbench.benchmark.generator.model import SkillSpec
from skillbench.core.errors import SkillbenchError
from skillbench.core.jsonl import json_lines
from skillbench.mining import benchmark as bench
from skillbench.mining import llm
from skillbench.mining.catalogue import ToolPredictor, load_catalogue, source_catalogue
from skillbench.mining.cluster import cluster_sequences
from skillbench.mining.config import STAGES, MiningConfig, model_roles, stage_settings
from skillbench.mining.conversations import RatedCandidate, rate
from skillbench.mining.extract import TurnTypes, annotated, text_only, with_llm
from skillbench.mining.ingest import read_source
from skillbench.mining.pii import scrub
from skillbench.mining.records import (
    ActionSequence,
    Cluster,
    Conversation,
    ScrubbedConversation,
    StageReport,
    Workflow,
)
from skillbench.mining.represent import representative
from skillbench.mining.skillwriter import (
    catalogue_for,
    fact_function,
    needed_fixes,
    skill_spec,
    snake,
    spec_for,
    tool_name,
)
from skillbench.models.client import ClientPool
from skillbench.models.lazy import LazyClient
from skillbench.store import ArtifactStore, content_hash, write_json_atomic

log = logging.getLogger("skillbench.mining")
M = TypeVar("M", bound=BaseModel)
VERSION = "2"  # bump when a stage's output for the same input changes (invalidates the store)
FILES = {"ingest": "01_conversations.jsonl", "extract": "02_actions.jsonl", "cluster": "03_clusters.jsonl",
         "represent": "04_workflows.jsonl", "skills": "05_skills.jsonl", "conversations": "06_conversations.jsonl"}


class MiningError(SkillbenchError):
    """A stage cannot run (missing input, nothing left): one line naming the file and the fix."""


class WrittenSkill(BaseModel):
    """The skill stage's item: a skill template for a workflow, or why it was dropped."""

    cluster_id: str = Field(description="The workflow's cluster.")
    support: int = Field(0, description="Transcripts in the cluster.")
    spec: SkillSpec | None = Field(None, description="The generator skill template.")
    fixes: list[str] = Field(default_factory=list, description="What the filter fixed in the mined workflow (e.g. identity "
                                                               "verification it lacked before handling personal data).")
    dropped: str | None = Field(None, description="Why no skill was kept.")
    usage: dict[str, float] = Field(default_factory=dict, description="Model calls, tokens, cost and seconds spent on it.")

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


def reused_text(report: StageReport) -> str:
    """``3`` or ``3 + 12 instructions``: the stage's items, and other stored parts apart."""
    return " + ".join([str(report.reused), *(f"{n} {kind}" for kind, n in report.reused_parts.items())])


def read_summary(out: Path) -> Summary:
    """The stage reports of the mining run in ``out`` (empty before its first stage)."""
    path = out / "_mining" / "summary.json"
    return Summary.model_validate_json(path.read_text()) if path.is_file() else Summary()


class MiningRun:
    def __init__(self, cfg: MiningConfig) -> None:
        self.cfg = cfg
        self.out = Path(cfg.out)
        self.work = self.out / "_mining"
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
            raise MiningError(f"{path}: missing; the {stage} stage has not run. Fix: run `skillbench mine "
                             f"stage={stage} out={self.out}` (or stage=all) first.")
        return [model.model_validate_json(line) for line in json_lines(path.read_bytes()) if line.strip()]

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
        log.info("%s: %d in, %d out (%s reused), dropped %s, %.1fs, %d model calls, $%.4f", name, report.items_in,
                 report.items_out, reused_text(report), drops, report.seconds, report.model_calls, report.cost_usd)

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

    async def _cached_async(self, kind: str, settings: Any, item: Any, model: type[M], produce: Callable[[], Awaitable[M]],
                            report: StageReport) -> M:
        """``_cached`` for model calls: an item the endpoint failed on is not stored (the next run asks again)."""
        key = content_hash({"v": VERSION, "settings": settings, "item": item})
        found, reused = await self.store.get_or_create(
            kind, key, model, produce, keep=lambda m: not (getattr(m, "dropped", None) or "").startswith(llm.MODEL_ERROR))
        if reused:
            report.reused += 1
            return found.model_copy(update={"usage": {}}) if "usage" in type(found).model_fields else found  # spent earlier
        return found

    @staticmethod
    def _account(report: StageReport, usages: list[dict[str, float]]) -> None:
        """Model calls, cost, tokens and model seconds of what this run asked (reused items cost nothing now)."""
        total: dict[str, float] = {}
        for usage in usages:
            llm.add_usage(total, usage)
        report.model_calls = int(total.get("calls", 0))
        report.cost_usd = round(total.get("cost_usd", 0.0), 6)
        if report.model_calls:
            report.notes["tokens"] = {"prompt": int(total.get("prompt_tokens", 0)), "completion": int(total.get("completion_tokens", 0))}
            report.notes["model_seconds"] = round(total.get("seconds", 0.0), 3)

    # -- stages ------------------------------------------------------------------------------------
    def ingest(self) -> list[ScrubbedConversation]:
        with self._stage("ingest") as report:
            if not self.cfg.ingest.path:
                raise MiningError(self.cfg.ingest.missing_path())
            raw = read_source(self.cfg.ingest.format, Path(self.cfg.ingest.path).expanduser(), self.cfg.ingest.reader_options())
            report.items_in = len(raw)
            # A name marked in two or more transcripts is scrubbed in all (sources reuse identities, staff names
            # recur); once-marked ones only where marked, so a wizard's typo ("Craig and Center" typed into a name
            # slot) does not blank a street everywhere. Every item's key holds these names: a new one rescrubs
            # every item (cheap, no model).
            marked_in = Counter(n for c in raw for n in set(c.metadata.pii_names))
            names = sorted(n for n, count in marked_in.items() if count >= 2)
            settings = {"rules": "pii-v2", "names": content_hash(names)}
            items = [self._cached("build_ingest", settings, c.model_dump(mode="json"), ScrubbedConversation,
                                  lambda c=c: scrub(c, names), report) for c in raw]
            replaced: Counter[str] = Counter()
            for item in items:
                replaced.update({r.kind: r.count for r in item.replaced})
            # What the source marked as personal (names, account numbers, PINs ... the converter knew), in distinct
            # values per conversation: the scrubber replaces these wherever they occur, besides its patterns.
            marked: Counter[str] = Counter()
            for c in raw:
                marked["name"] += len(set(c.metadata.pii_names))
                marked.update({k: len(set(v)) for k, v in c.metadata.pii_values.items()})
            with_marks = sum(1 for c in raw if c.metadata.pii_names or c.metadata.pii_values)
            report.items_out = len(items)
            report.notes = {"pii_replaced": dict(sorted(replaced.items())), "pii_marked": dict(sorted(marked.items())),
                            "conversations_with_marked_pii": with_marks}
            self._write("ingest", items)
            write_json_atomic(self.work / "pii_report.json", {
                "replaced": dict(sorted(replaced.items())),
                "marked": {"conversations": with_marks, "values": dict(sorted(marked.items()))},
                "by_conversation": {i.conversation.id: {r.kind: r.count for r in i.replaced} for i in items if i.replaced}})
            return items

    def extract(self) -> list[ActionSequence]:
        conversations = [s.conversation for s in self._read("ingest", ScrubbedConversation)]
        cfg = self.cfg.extractor
        settings = stage_settings(self.cfg, "extractor")
        catalogue = source_catalogue(conversations, load_catalogue(cfg.catalogue))
        with self._stage("extract") as report:
            report.items_in = len(conversations)
            report.notes["catalogue_tools"] = len(catalogue)
            if cfg.kind != "annotated":  # both read the catalogue, the text path its whole corpus: part of every key
                settings = {**settings, "catalogue": content_hash([t.model_dump() for t in catalogue])}
            predictor: list[ToolPredictor] = []

            def tools() -> ToolPredictor:  # fitted once, and only when some item is not in the store
                if not predictor:
                    predictor.append(ToolPredictor(conversations, catalogue, cfg.min_tool_similarity))
                return predictor[0]

            if cfg.kind == "llm":
                items = asyncio.run(self._extract_llm(conversations, catalogue, tools, settings, report))
            else:
                types: list[TurnTypes] = []
                if cfg.kind == "text":
                    settings = {**settings, "corpus": content_hash([c.id for c in conversations])}

                def make(c: Conversation) -> ActionSequence:
                    if cfg.kind == "annotated":
                        return annotated(c)
                    if not types:
                        types.append(TurnTypes(conversations, n_types=cfg.n_types))
                    return text_only(c, types[0], tools() if cfg.predict_tools else None)

                items = [self._cached("build_extract", settings, c.model_dump(mode="json"), ActionSequence,
                                      lambda c=c: make(c), report) for c in conversations]
            kept = [i for i in items if not i.dropped]
            report.dropped = dict(Counter(i.dropped.split(":")[0] for i in items if i.dropped))
            report.items_out = len(kept)
            if cfg.kind != "annotated":
                report.notes["with_tool_calls"] = sum(1 for i in kept if any(a.startswith("query:") for a in i.actions))
            self._account(report, [i.usage for i in items])
            self._write("extract", items)
            return kept

    async def _extract_llm(self, conversations: list[Conversation], catalogue: list[Any], tools: Callable[[], ToolPredictor],
                           settings: Any, report: StageReport) -> list[ActionSequence]:
        cfg = self.cfg.extractor
        assert cfg.model is not None
        # One client for every conversation: one concurrency limit (model.concurrency) for the endpoint, and
        # litellm loads only if some item is not stored.
        client: Any = LazyClient(ClientPool(), cfg.model)

        async def one(c: Conversation) -> ActionSequence:
            return await self._cached_async(
                "build_extract", settings, c.model_dump(mode="json"), ActionSequence,
                lambda: with_llm(client, c, catalogue, version=cfg.model.prompt_template, attempts=cfg.attempts,  # type: ignore[union-attr]
                                 tools=tools() if cfg.predict_tools else None), report)

        return list(await asyncio.gather(*(one(c) for c in conversations)))

    def cluster(self) -> list[Cluster]:
        sequences = [s for s in self._read("extract", ActionSequence) if not s.dropped]
        cfg = self.cfg.clusterer
        with self._stage("cluster") as report:
            report.items_in = len(sequences)
            if not sequences:
                raise MiningError(f"{self._path('extract')}: no action sequences to cluster. Fix: check the extractor's drops "
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
        cfg = self.cfg.representative
        settings = stage_settings(self.cfg, "representative")
        with self._stage("represent") as report:
            report.items_in = len(clusters)
            if cfg.kind == "llm":
                items = asyncio.run(self._represent_llm(clusters, by_id, settings, report))
            else:
                items = [self._cached("build_represent", settings, {"cluster": c.model_dump(), "members": [by_id[m].actions for m in c.members]},
                                      Workflow, lambda c=c: representative(c, by_id, cfg.samples, cfg.medoid_pool), report)
                         for c in clusters]
            kept = [w for w in items if not w.dropped]
            report.dropped = dict(Counter((w.dropped or "").split(":")[0] for w in items if w.dropped))
            report.items_out = len(kept)
            self._account(report, [w.usage for w in items])
            self._write("represent", items)
            return kept

    async def _represent_llm(self, clusters: list[Cluster], by_id: dict[str, ActionSequence], settings: Any,
                             report: StageReport) -> list[Workflow]:
        cfg = self.cfg.representative
        assert cfg.model is not None
        client: Any = LazyClient(ClientPool(), cfg.model)  # litellm loads only if some item is not stored

        async def one(c: Cluster) -> Workflow:
            return await self._cached_async(
                "build_represent", settings, {"cluster": c.model_dump(), "members": [by_id[m].actions for m in c.members]},
                Workflow, lambda: llm.represent(client, c, by_id, version=cfg.model.prompt_template, attempts=cfg.attempts,  # type: ignore[union-attr]
                                                samples=cfg.samples, max_sequences=cfg.max_sequences), report)

        return list(await asyncio.gather(*(one(c) for c in clusters)))

    def skills(self) -> list[WrittenSkill]:
        everything = self._read("represent", Workflow)
        workflows = sorted((w for w in everything if not w.dropped), key=lambda w: (-w.support, w.cluster_id))
        settings: dict[str, Any] = {"writer": stage_settings(self.cfg, "skill_writer"), "filter": stage_settings(self.cfg, "filter")}
        offline = self.cfg.skill_writer.kind == "deterministic" and self.cfg.filter.kind == "basic"
        with self._stage("skills") as report:
            report.items_in = len(workflows)
            if offline:
                items = [self._cached("build_skills", settings, w.model_dump(exclude={"usage"}), WrittenSkill,
                                      lambda w=w: self._write_skill(w), report) for w in workflows]
            else:
                items = asyncio.run(self._skills_llm(everything, workflows, settings, report))
            kept = [i for i in items if i.spec]
            if self.cfg.selection.max_skills:
                for extra in kept[self.cfg.selection.max_skills:]:
                    items[items.index(extra)] = extra.model_copy(update={"spec": None, "dropped": "beyond selection.max_skills"})
            report.dropped = dict(Counter((i.dropped or "").split(":")[0] for i in items if i.dropped))
            report.items_out = sum(1 for i in items if i.spec)
            self._account(report, [i.usage for i in items])
            report.notes["fixes"] = dict(Counter(f for i in items for f in i.fixes))
            self._write("skills", items)
            return items

    def _write_skill(self, workflow: Workflow) -> WrittenSkill:
        base = {"cluster_id": workflow.cluster_id, "support": workflow.support}
        if workflow.support < self.cfg.filter.min_support:
            return WrittenSkill(**base, dropped=f"low support: {workflow.support} < filter.min_support")
        spec = skill_spec(workflow, snake(workflow.cluster_id), self.cfg.skill_writer.max_facts)
        if isinstance(spec, str):
            return WrittenSkill(**base, dropped=spec)
        return self._basic_filter(base, spec, workflow)

    def _basic_filter(self, base: dict[str, Any], spec: SkillSpec, workflow: Workflow,
                      usage: dict[str, float] | None = None) -> WrittenSkill:
        usage = usage or {}
        tool_steps = sum(1 for s in spec.steps if s.kind in {"lookup", "act"})
        if tool_steps < self.cfg.filter.min_tool_steps:
            return WrittenSkill(**base, dropped=f"too few tool steps: {tool_steps} < filter.min_tool_steps", usage=usage)
        # The generator puts identity verification first and the restricted tool behind a guardrail in every
        # skill; recorded as fixes only where this workflow lacked them.
        return WrittenSkill(**base, spec=spec, fixes=needed_fixes(workflow), usage=usage)

    async def _skills_llm(self, everything: list[Workflow], workflows: list[Workflow], settings: dict[str, Any],
                          report: StageReport) -> list[WrittenSkill]:
        """The model writer and/or judge: per-transcript instructions stored one by one, the skill per workflow."""
        writer, judge = self.cfg.skill_writer, self.cfg.filter
        apis = sorted({a.split(":", 1)[1] for w in everything for a in w.actions if a.startswith("query:")})
        servers, _ = catalogue_for(apis)
        catalogue = llm.catalogue_text(servers)
        api_of = {tool_name(api): api for api in apis}
        settings = {**settings, "catalogue": content_hash(catalogue)}  # the models see it: it is part of every key
        pool = ClientPool()
        writer_client: Any = LazyClient(pool, writer.model) if writer.kind == "llm" and writer.model else None
        judge_client: Any = LazyClient(pool, judge.model) if judge.kind == "llm_judge" and judge.model else None
        conversations: dict[str, Conversation] = {}
        if writer_client:
            conversations = {s.conversation.id: s.conversation for s in self._read("ingest", ScrubbedConversation)}
        notes_report = StageReport(stage="instructions")  # reuse of per-transcript items counts into the stage's

        async def notes_for(c: Conversation) -> llm.Instructions:
            assert writer_client is not None and writer.model is not None
            return await self._cached_async(
                "build_skill_instructions", {**settings["writer"], "catalogue": settings["catalogue"]}, c.model_dump(mode="json"),
                llm.Instructions, lambda: llm.instructions(writer_client, c, catalogue, set(api_of), version=writer.model.prompt_template,  # type: ignore[union-attr]
                                                           attempts=writer.attempts), notes_report)

        async def write(w: Workflow) -> WrittenSkill:
            base: dict[str, Any] = {"cluster_id": w.cluster_id, "support": w.support}
            usage = llm.new_usage()
            if w.support < judge.min_support:
                return WrittenSkill(**base, dropped=f"low support: {w.support} < filter.min_support")
            key = snake(w.cluster_id)
            if writer_client is None:
                made = skill_spec(w, key, writer.max_facts)
                if isinstance(made, str):
                    return WrittenSkill(**base, dropped=made)
                spec = made
            else:
                assert writer.model is not None
                sampled = [conversations[i] for i in w.samples[:writer.samples] if i in conversations]
                notes = list(await asyncio.gather(*(notes_for(c) for c in sampled)))
                for note in notes:
                    llm.add_usage(usage, note.usage)
                failed = next((n.dropped for n in notes if (n.dropped or "").startswith(llm.MODEL_ERROR)), None)
                if failed:
                    return WrittenSkill(**base, dropped=failed, usage=usage)
                good = [n for n in notes if not n.dropped]
                if not good:
                    first = next((n.dropped for n in notes if n.dropped), "no sampled transcript")
                    return WrittenSkill(**base, dropped=f"no usable per-transcript instructions: {first}", usage=usage)
                merged, spent, problem = await llm.merge(writer_client, w, good, catalogue, api_of, version=writer.model.prompt_template,
                                                         attempts=writer.attempts, max_facts=writer.max_facts)
                llm.add_usage(usage, spent)
                if merged is None:
                    return WrittenSkill(**base, dropped=problem, usage=usage)
                skill, steps = merged
                spec = spec_for(w, key, steps, api_of, name=skill.name, capability=skill.capability,
                                guardrails=skill.guardrails, success=skill.success)
            written = self._basic_filter(base, spec, w, usage)
            if judge_client is None or written.spec is None:
                return written
            return await self._judge(judge_client, w, written, catalogue, api_of, usage)

        async def stored(w: Workflow) -> WrittenSkill:
            return await self._cached_async("build_skills", settings, w.model_dump(exclude={"usage"}), WrittenSkill,
                                            lambda: write(w), report)

        items = list(await asyncio.gather(*(stored(w) for w in workflows)))
        if writer_client:  # stored apart from the skills, so counted apart
            report.reused_parts["instructions"] = notes_report.reused
        return items

    async def _judge(self, client: Any, workflow: Workflow, written: WrittenSkill, catalogue: str, api_of: dict[str, str],
                     usage: dict[str, float]) -> WrittenSkill:
        cfg = self.cfg.filter
        assert cfg.model is not None and written.spec is not None
        spec = written.spec
        shown = {"name": spec.name, "capability": spec.capability,
                 "steps": [{"kind": "verify", "text": "Verify the caller's identity before sharing or changing anything."},
                           *(s.model_dump(exclude_none=True, exclude_defaults=True) | {"kind": s.kind} for s in spec.steps)],
                 "guardrails": list(spec.guardrails), "success": list(spec.success)}
        result, spent, problem = await llm.judge(client, shown, catalogue, api_of, version=cfg.model.prompt_template,
                                                 attempts=cfg.attempts, max_facts=self.cfg.skill_writer.max_facts)
        llm.add_usage(usage, spent)
        base = {"cluster_id": written.cluster_id, "support": written.support, "usage": usage}
        if result is None:
            return WrittenSkill(**base, dropped=problem)
        verdict, steps = result
        if not verdict.keep:
            return WrittenSkill(**base, dropped=f"judge dropped it: {verdict.reason}")
        if verdict.quality < cfg.min_quality:
            return WrittenSkill(**base, dropped=f"low quality: judge rated {verdict.quality} < filter.min_quality: {verdict.reason}")
        if steps or verdict.guardrails:
            spec = spec_for(workflow, spec.key, steps or list(spec.steps), api_of, name=spec.name, capability=spec.capability,
                            guardrails=[*spec.guardrails, *verdict.guardrails], success=spec.success)
        return WrittenSkill(**base, spec=spec, fixes=[*written.fixes, *(f"judge: {f}" for f in verdict.fixes)])

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
                raise MiningError(f"{self._path('skills')}: no skill survived the filter. Fix: lower filter.min_support or "
                                 f"check the drops in {self.work / 'summary.json'}.")
            apis = [a.split(":", 1)[1] for w in written for a in workflows[w.cluster_id].actions if a.startswith("query:")]
            # A model writer may use any catalogue tool (the catalogue is every workflow's APIs): add those it chose.
            every = {tool_name(a.split(":", 1)[1]): a.split(":", 1)[1] for w in workflows.values() for a in w.actions
                     if a.startswith("query:")}
            apis += [every[s.tool] for w in written if w.spec for s in w.spec.steps if s.tool in every]
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
            chosen_ids: set[str] | None = None
            if cfg.selection.kind == "rated":
                chosen_ids = asyncio.run(self._rated(skills, candidates, report, drops))
                skills = [s for s in skills if any(i.startswith(f"{s.id}-") for i in chosen_ids)]
                if not skills:
                    raise MiningError(f"{self.work / FILES['conversations']}: no candidate scenario was rated. Fix: check the "
                                     f"drops in {self.work / 'summary.json'} (or lower selection.min_score).")
            description = (f"Mined by `skillbench mine` from {cfg.ingest.format} transcripts: {len(skills)} skills, "
                           f"{cfg.selection.per_skill} scenarios per skill; see docs/pipeline.md.")
            built = bench.write(self.out, cfg.benchmark_name, catalogue, skills, candidates, cfg.selection.per_skill,
                                cfg.scenario_writer.seed, description, per_skill_seed=cfg.selection.independent,
                                chosen_ids=chosen_ids)
            report.dropped = dict(drops)
            report.items_out = len(built.scenarios)
            # tools: what the benchmark holds (the servers its skills use; lint counts these); catalogue_tools: what
            # the writer could choose from (the generator's shared servers and every mined tool).
            report.notes.update({"skills": len(skills), "candidates": len(candidates),
                                 "tools": sum(len(server.tools) for server in built.servers), "catalogue_tools": len(tools)})
            return {"skills": len(skills), "scenarios": len(built.scenarios)}

    async def _rated(self, skills: list[Any], candidates: list[Any], report: StageReport, drops: Counter[str]) -> set[str]:
        """Per skill: a balanced pool, a written and rated conversation for each, the ``per_skill`` best kept."""
        cfg = self.cfg.selection
        assert cfg.writer is not None and cfg.rater is not None
        pool = ClientPool()
        writer: Any = LazyClient(pool, cfg.writer)
        rater: Any = LazyClient(pool, cfg.rater)
        settings = stage_settings(self.cfg, "selection")
        by_skill = {s.id: s for s in skills}
        picked = [c for s in skills for c in select_balanced(
            [c for c in candidates if c.scenario.skill_id == s.id], cfg.per_skill * cfg.pool,
            seed_for(self.cfg.scenario_writer.seed, self.cfg.benchmark_name, s.id))]

        async def one(c: Any) -> RatedCandidate:
            skill = by_skill[c.scenario.skill_id]
            return await self._cached_async(
                "build_conversations", settings, {"scenario": c.scenario.model_dump(mode="json"), "skill": skill.model_dump(mode="json")},
                RatedCandidate, lambda: rate(writer, rater, skill, c.scenario, writer_version=cfg.writer.prompt_template,  # type: ignore[union-attr]
                                             rater_version=cfg.rater.prompt_template, attempts=cfg.attempts), stored)  # type: ignore[union-attr]

        stored = StageReport(stage="rated")  # the stage's items are skills; rated candidates are counted apart
        rated = list(await asyncio.gather(*(one(c) for c in picked)))
        report.reused_parts["rated candidates"] = stored.reused
        chosen: set[str] = set()
        for skill in skills:
            mine = [r for r in rated if r.skill_id == skill.id and not r.dropped]
            good = [r for r in mine if r.score >= cfg.min_score]
            if len(good) < len(mine):
                drops["below selection.min_score"] += len(mine) - len(good)
            # Best rated first; equal scores keep the balanced pool's order (stable sort).
            chosen |= {r.scenario_id for r in sorted(good, key=lambda r: -r.score)[:cfg.per_skill]}
        drops.update((r.dropped or "").split(":")[0] for r in rated if r.dropped)
        self._account(report, [r.usage for r in rated])
        report.notes["rated"] = {"written": len(rated), "scored": sum(1 for r in rated if not r.dropped), "kept": len(chosen),
                                 "mean_score_kept": round(sum(r.score for r in rated if r.scenario_id in chosen) / max(1, len(chosen)), 3)}
        lines = [r.model_copy(update={"kept": r.scenario_id in chosen}).model_dump_json() + "\n" for r in rated]
        path = self.work / FILES["conversations"]
        path.with_suffix(".tmp").write_text("".join(lines), encoding="utf-8")
        path.with_suffix(".tmp").replace(path)
        return chosen

    def preflight(self, stages: tuple[str, ...]) -> None:
        """MiningError listing every unset key and dead endpoint of the model stages to run, before any runs."""
        roles = model_roles(self.cfg, stages)
        if not roles or not self.cfg.preflight:
            return
        # Imported here: the plan package loads the engine's sweep planning, needed only when a model stage runs.
        from skillbench.plan.preflight import model_problems

        problems = model_problems(roles, api_base_hint="e.g. skill_writer.model.api_base=http://host:port/v1")
        if problems:
            more = f"\n{len(problems)} problems; nothing was built (preflight=false skips these checks)." if len(problems) > 1 else ""
            raise MiningError("\n".join(problems) + more)

    def check_folders(self) -> None:
        """MiningError when ``out`` (or the store) is, or lies under, a file: said before anything is read."""
        for field, folder in (("out", self.out), ("store", self.store.root if self.cfg.store else None)):
            if folder is None:
                continue
            blocking = next((p for p in (folder, *folder.parents) if p.exists()), None)
            if blocking is not None and not blocking.is_dir():
                raise MiningError(f"{field}={folder}: {blocking} is a file, not a folder. Fix: point {field}= at a new "
                                 f"folder or an earlier mining run's.")

    def run(self) -> None:
        stages = STAGES if self.cfg.stage == "all" else (self.cfg.stage,)
        self.check_folders()
        self.preflight(stages)
        for stage in stages:
            getattr(self, stage)()

