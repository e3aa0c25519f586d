"""``skillbench judges validate`` end to end on three stored sources: tables, the simulated-judge warning,
and a rerun that makes no model calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.core.records import Rollout
from skillbench.store import ArtifactStore
from tests.lab.conftest import SOURCES


def test_validate_sweeps_judges_and_reruns_from_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = ArtifactStore(tmp_path / "store")
    rollouts = [Rollout.model_validate_json(line) for line in SOURCES.read_text().splitlines()]
    for rollout in rollouts:  # the sources as a finished job left them (regenerated if the rollout key changed)
        store.put("rollouts", rollout.key, rollout)
    args = ["judges", "validate", "judge=sim_strict,sim_lenient", f"store.root={store.root}",
            f"benchmark.scenarios=[{','.join(r.scenario_id for r in rollouts)}]", "--out", str(tmp_path / "lab"), "--boot", "50"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert "not real judges" in first and "Judge validity — detection rate" in first
    data = json.loads((tmp_path / "lab" / "lab.json").read_text())
    assert data["model_calls"] > 0 and data["labelled_transcripts"] == 36 and len(data["perturbations"]) == 9
    judges = {row[0] for row in data["tables"][0]["rows"]}
    assert judges == {"sim_strict", "sim_lenient", "panel (majority)", "rule checks"}
    page = (tmp_path / "lab" / "lab.html").read_text()
    assert 'href="#p-wrong_argument"' in page and "id='p-wrong_argument'" in page
    for name in ("lab.md", "lab.tex", "lab.png", "lab_summary.csv", "lab_sensitivity.csv", "lab_detail.csv"):
        assert (tmp_path / "lab" / name).stat().st_size > 0
    assert main(args) == 0
    assert "model calls this run: 0." in capsys.readouterr().out


def test_a_glob_matching_no_judge_is_one_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judges", "validate", "judge=glob(nothing_*)"]) == 2
    assert "matches no option of judge" in capsys.readouterr().err


def test_a_real_judge_config_through_litellm_to_a_local_stub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from tests.support.openai_stub import conversation_script, stub_server

    store = ArtifactStore(tmp_path / "store")
    rollouts = [Rollout.model_validate_json(line) for line in SOURCES.read_text().splitlines()][:1]
    store.put("rollouts", rollouts[0].key, rollouts[0])
    secret = "sk-lab-secret-never-written"
    with stub_server(conversation_script) as server:
        monkeypatch.setenv("SKILLBENCH_GEMMA4_API_BASE", server.base_url)
        monkeypatch.setenv("SKILLBENCH_GEMMA4_API_KEY", secret)
        args = ["judges", "validate", "judge=gemma4", f"store.root={store.root}", f"benchmark.scenarios=[{rollouts[0].scenario_id}]",
                "--out", str(tmp_path / "lab"), "--boot", "20"]
        assert main(args) == 0
        asked = len(server.requests)
    out = capsys.readouterr().out
    assert asked == 12 and "model calls this run: 12." in out and "SIMULATED" not in out
    written = [p.read_text() for p in tmp_path.rglob("*") if p.is_file() and p.suffix in {".json", ".md", ".csv"}]
    assert written and not any(secret in text for text in written)
