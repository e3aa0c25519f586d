"""``skillbench judges validate`` end to end on three stored sources: every table (bias and multi-sample
included), the simulated-judge warning, the HTML whose cells open their transcripts, and a rerun that makes
no model calls."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.core.records import Rollout
from skillbench.report.html import decode_transcripts
from skillbench.store import ArtifactStore
from tests.lab.conftest import SOURCES


def test_validate_sweeps_judges_and_reruns_from_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = ArtifactStore(tmp_path / "store")
    rollouts = [Rollout.model_validate_json(line) for line in SOURCES.read_text().splitlines()]
    for rollout in rollouts:  # the sources as a finished job left them (regenerated if the rollout key changed)
        store.put("rollouts", rollout.key, rollout)
    # judge.samples=2: the multi-sample table is measured in the same run
    args = ["judges", "validate", "judge=sim_strict,sim_lenient", "judge.samples=2", f"store.root={store.root}",
            f"benchmark.scenarios=[{','.join(r.scenario_id for r in rollouts)}]", "--out", str(tmp_path / "lab"), "--boot", "50"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert "not real judges" in first and "Judge validity — detection rate" in first
    data = json.loads((tmp_path / "lab" / "lab.json").read_text())
    assert data["model_calls"] > 0 and data["labelled_transcripts"] == 36 and len(data["perturbations"]) == 9
    tables = {t["key"]: t for t in data["tables"]}
    assert list(tables) == ["lab_summary", "lab_sensitivity", "lab_detail", "lab_paraphrase", "lab_samples"]
    judges = {row[0] for row in tables["lab_summary"]["rows"]}
    assert judges == {"sim_strict", "sim_lenient", "panel (majority)", "rule checks"}
    # bias: each judge on each paraphrase, with its flip rate and score shift
    assert {(r[0], r[1]) for r in tables["lab_paraphrase"]["rows"]} == {
        (j, p) for j in judges for p in ("paraphrase_reworded", "paraphrase_lengthened")}
    assert all(r[2] == 3 for r in tables["lab_paraphrase"]["rows"])
    # multi-sample: every item judged twice by both judges; the κ before and after the vote is stated
    assert {r[0]: r[1:3] for r in tables["lab_samples"]["rows"]} == {"sim_strict": [2, 36], "sim_lenient": [2, 36]}
    assert "majority of samples" in tables["lab_samples"]["footnotes"][0]
    page = (tmp_path / "lab" / "lab.html").read_text()
    assert "not real judges" in page
    ids = set(re.findall(r'id="([^"]+)"', page))
    articles = decode_transcripts(page)
    sensitivity = page[page.index('<section id="lab_sensitivity"'):].split("</section>")[0]
    cells = re.findall(r'href="#([^"]+)"', sensitivity)
    assert len(cells) == 10 * 4 and set(cells) <= ids  # 9 perturbations + controls, × 4 judges: every cell opens its list
    links = re.findall(r'href="#(tr-[^"]+)"', page)
    assert len(links) == 36 * 4 and set(links) == set(articles)  # every transcript behind every cell, embedded
    assert any("I have completed the" in a and "hallucinated_action" in a for a in articles.values())
    for name in ("lab.md", "lab.tex", "lab.png", "lab_summary.csv", "lab_sensitivity.csv", "lab_detail.csv",
                 "lab_paraphrase.csv", "lab_samples.csv"):
        assert (tmp_path / "lab" / name).stat().st_size > 0
    assert main(args) == 0
    assert "model calls this run: 0." in capsys.readouterr().out


def test_a_bad_judge_name_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judges", "validate", "judge=glob(nothing_*)"]) == 2
    assert "matches no option of judge" in capsys.readouterr().err
    # options may sit between overrides; an unknown option name is one line that lists the options
    assert main(["judges", "validate", "--boot", "10", "judge=nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown judge 'nope'. Fix: one of" in err[0] and "sim_strict" in err[0]
    assert main(["judges", "validate", "judge=sim_strict", "--agents", "nobody", "benchmark=starter"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


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
