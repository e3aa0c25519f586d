"""Integrity and guards (issue 30 item 7): stored artifacts carry a checksum checked on read."""

from __future__ import annotations

import json
from pathlib import Path

from skillbench.core.records import Rollout
from skillbench.store.artifacts import ArtifactCorrupt, ArtifactStore, unseal
from tests.reliability.harness import SMALL, skillbench


def test_a_tampered_verdict_is_detected_kept_aside_and_redone(tmp_path: Path) -> None:
    """The review's case 12: a hand-edited verdict once moved the pass rate unnoticed. Now the rerun names the file,
    keeps the edited copy as *.corrupt, judges again and gets the true result back."""
    store = tmp_path / "store"
    first = skillbench(tmp_path, *SMALL, f"store.root={store}", f"hydra.run.dir={tmp_path / 'a'}")
    assert first.returncode == 0, first.stderr[-2000:]
    before = [json.loads(line) for line in (tmp_path / "a" / "results.jsonl").read_text().splitlines()]
    verdict = next((store / "verdicts").rglob("*.json"))
    data = verdict.read_bytes()
    assert unseal(data)[1] is True  # written with its checksum
    # A hand edit that still parses and validates: the verdict's first field set to "success", the checksum kept.
    body = json.loads(unseal(data)[0])
    field = next(k for k, v in body.items() if isinstance(v, dict))
    body[field] = {k: (5 if isinstance(v, int) and not isinstance(v, bool) else v) for k, v in body[field].items()}
    tampered = json.dumps(body, separators=(",", ":")).encode()[:-1] + data[-77:]
    assert tampered != data and json.loads(tampered)
    verdict.write_bytes(tampered)

    again = skillbench(tmp_path, *SMALL, f"store.root={store}", f"hydra.run.dir={tmp_path / 'b'}")
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"{verdict}: content does not match its checksum" in again.stdout + again.stderr
    assert verdict.with_name(verdict.name + ".corrupt").read_bytes() == tampered  # kept, never deleted
    after = [json.loads(line) for line in (tmp_path / "b" / "results.jsonl").read_text().splitlines()]
    assert [(r["scenario_id"], r["passed"], r["scores"]) for r in after] == [
        (r["scenario_id"], r["passed"], r["scores"]) for r in before]
    assert unseal(verdict.read_bytes())[1] is True  # produced again, sealed


def test_reading_a_tampered_artifact_raises_and_an_old_unsealed_one_is_read(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    rollout = Rollout(key="k" * 64, scenario_id="s", skill_id="x", agent="a", messages=[], termination="resolved")
    path = store.put("rollouts", rollout.key, rollout)
    assert store.get("rollouts", rollout.key, Rollout) == rollout
    path.write_bytes(path.read_bytes().replace(b'"agent":"a"', b'"agent":"b"'))
    try:
        store.read("rollouts", rollout.key)
    except ArtifactCorrupt as exc:  # report readers (transcripts) show it as unreadable: flagged
        assert "does not match its checksum" in str(exc)
    else:
        raise AssertionError("a tampered artifact was read")
    assert store.get("rollouts", rollout.key, Rollout) is None and store.corrupt  # the engine produces it again
    path.write_bytes(rollout.model_dump_json().encode())  # written before checksums existed
    assert store.get("rollouts", rollout.key, Rollout) == rollout
