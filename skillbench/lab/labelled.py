"""The labelled set: clean source rollouts → controls, paraphrases and one-defect variants, stored by content."""

from __future__ import annotations

from collections.abc import Iterable

from skillbench.benchmark.loader import Benchmark
from skillbench.core.records import PROPER_ENDINGS, Rollout
from skillbench.evaluation import run_rule_checks
from skillbench.lab.consistency import consistency_problems
from skillbench.lab.perturb import PERTURBATIONS, Case, control_label
from skillbench.lab.records import LabelledTranscript
from skillbench.store import ArtifactStore, content_hash

LAB_KIND = "lab_transcripts"
CONTROL = "control"


def make_case(benchmark: Benchmark, rollout: Rollout) -> Case | None:
    """The rollout with its scenario, skill and tools; None when the benchmark does not hold its scenario."""
    scenario = next((s for s in benchmark.scenarios if s.id == rollout.scenario_id), None)
    if scenario is None:
        return None
    skill = benchmark.skill_of(scenario)
    return Case(rollout=rollout, scenario=scenario, skill=skill, tools={t.name: t for t in benchmark.toolkit(skill)})


def is_clean(case: Case) -> bool:
    """A source must pass every rule check (soft ones too) and end properly: its defects are then only ours."""
    if case.rollout.termination not in PROPER_ENDINGS or consistency_problems(case.rollout, case):
        return False
    return all(check.passed for check in run_rule_checks(case.rollout, case.scenario, case.skill))


def _labelled(case: Case, name: str, rollout: Rollout, edit: str) -> LabelledTranscript:
    label = control_label() if name == CONTROL else PERTURBATIONS.get(name).label
    key = content_hash({"source": case.rollout.key, "perturbation": name, "label": label.model_dump(mode="json"),
                        "rollout": rollout.model_dump(mode="json", exclude={"key"})})
    return LabelledTranscript(key=key, source_key=case.rollout.key, perturbation=name, label=label, edit=edit,
                              rollout=rollout.model_copy(update={"key": key}))


def variants(case: Case) -> list[LabelledTranscript]:
    """The control and every perturbation that applies to this source (each kept only if consistent)."""
    out = [_labelled(case, CONTROL, case.rollout, "unchanged")]
    for name in PERTURBATIONS.names():
        perturbed = PERTURBATIONS.get(name).fn(case)
        if perturbed is not None and not consistency_problems(perturbed.rollout, case):
            out.append(_labelled(case, name, perturbed.rollout, perturbed.edit))
    return out


def build_labelled_set(benchmark: Benchmark, rollouts: Iterable[Rollout], store: ArtifactStore) -> list[LabelledTranscript]:
    """Variants of every clean rollout, stored under ``lab_transcripts`` (content-addressed: reruns rewrite nothing new)."""
    out: list[LabelledTranscript] = []
    for rollout in rollouts:
        case = make_case(benchmark, rollout)
        if case is None or not is_clean(case):
            continue
        for item in variants(case):
            if store.get(LAB_KIND, item.key, LabelledTranscript) is None:
                store.put(LAB_KIND, item.key, item)
            out.append(item)
    return out
