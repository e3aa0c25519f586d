"""The lab decides a judge's verdict as a run does: through ``evaluation/pass_rule.py`` ``decide`` (the judge's samples
vote under ``pass_rule.sample_vote``), never a second reading of the rule."""

from __future__ import annotations

from pathlib import Path

from skillbench.benchmark.loader import Benchmark
from skillbench.core.records import Rollout
from skillbench.lab.judging import judge_runs, lab_subjects
from skillbench.lab.labelled import build_labelled_set
from skillbench.store import ArtifactStore
from tests.conftest import compose_config


def test_the_lab_follows_pass_rule_sample_vote(tmp_path: Path, starter: Benchmark,
                                               source_rollouts: list[Rollout]) -> None:
    store = ArtifactStore(tmp_path / "store")
    for rollout in source_rollouts:
        store.put("rollouts", rollout.key, rollout)
    items = build_labelled_set(starter, source_rollouts, store)
    subjects = lab_subjects(starter, items)
    base = ["judge=sim_strict", "judge.samples=3", f"store.root={store.root}"]
    aggregate, unanimous = judge_runs(
        [compose_config(*base), compose_config(*base, "pass_rule.sample_vote=unanimous")], starter, subjects)
    split = 0
    for key, reading in unanimous.readings.items():
        if reading.passed is None:
            continue
        assert reading.passed == all(reading.sample_passes)  # every sample's decision must pass
        assert aggregate.readings[key].sample_passes == reading.sample_passes  # the same stored samples
        split += reading.passed != aggregate.readings[key].passed
    # the vote changed some verdict the aggregate (median scores, majority outcome) passed: the option is read
    assert split > 0
