"""``skillbench judges validate`` end to end on three stored sources: every table (bias and multi-sample
included), the simulated-judge warning, the HTML whose cells open their transcripts, and a rerun that makes
no model calls."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.core.records import Rollout
from skillbench.report.html import decode_transcripts
from skillbench.store import ArtifactStore
from tests.lab.conftest import SOURCES
from tests.support.openai_stub import conversation_script, stub_server, text_reply

GEMMA4 = "google/gemma-4-31B-it"  # the served name of conf/judge/gemma4.yaml


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
    store = ArtifactStore(tmp_path / "store")
    rollouts = [Rollout.model_validate_json(line) for line in SOURCES.read_text().splitlines()][:1]
    store.put("rollouts", rollouts[0].key, rollouts[0])
    secret = "sk-lab-secret-never-written"
    with stub_server(conversation_script, models=(GEMMA4,)) as server:  # the preflight checks the served name
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


def dead_url() -> str:
    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _one_source(tmp_path: Path) -> tuple[ArtifactStore, Rollout]:
    store = ArtifactStore(tmp_path / "store")
    rollout = Rollout.model_validate_json(SOURCES.read_text().splitlines()[0])
    store.put("rollouts", rollout.key, rollout)
    return store, rollout


def test_preflight_lists_a_missing_key_and_a_dead_endpoint_before_any_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The main command's sweep-wide preflight, reused: every problem of every judge up front, exit 2, nothing written."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    dead = dead_url()
    monkeypatch.setenv("SKILLBENCH_GEMMA4_API_BASE", dead)
    store, rollout = _one_source(tmp_path)
    out = tmp_path / "lab"
    assert main(["judges", "validate", "judge=gpt5,gemma4", f"store.root={store.root}", f"benchmark.scenarios=[{rollout.scenario_id}]",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("skillbench judges: OPENAI_API_KEY is not set; needed by judge gpt5. Fix: export OPENAI_API_KEY")
    assert err[1].startswith(f"skillbench judges: endpoint {dead} does not answer") and "needed by judge gemma4" in err[1]
    assert err[2] == "skillbench judges: 2 problems; nothing was run. (run.preflight=false skips these checks.)"
    assert len(err) == 3 and not out.exists()
    # the same in --run mode (imported conversations)
    fixture = Path(__file__).resolve().parents[1] / "support" / "import_fixture" / "conversations.jsonl"
    few = tmp_path / "few.jsonl"
    few.write_text("\n".join(fixture.read_text().splitlines()[:2]) + "\n")
    assert main(["import", str(few), "--out", str(tmp_path / "run"), "--store", str(store.root)]) == 0
    capsys.readouterr()
    assert main(["judges", "validate", "judge=gpt5", f"store.root={store.root}", "--run", str(tmp_path / "run"), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "OPENAI_API_KEY is not set; needed by judge gpt5" in err[0] and not out.exists()
    # without the preflight the judge runs, fails on both conversations, and says so: counted, exit 1
    assert main(["judges", "validate", "judge=gpt5", "run.preflight=false", f"store.root={store.root}", "--run",
                 str(tmp_path / "run"), "--out", str(out)]) == 1
    assert "judge gpt5 returned no usable verdict (judge errors on all 2 transcripts: infra 2)" in capsys.readouterr().err
    human = json.loads((out / "lab.json").read_text())["tables"][0]
    row = dict(zip(human["columns"], human["rows"][0], strict=True))
    assert (row["judge"], row["n"], row["judge_errors"], row["judge_errors_infra"]) == ("gpt5", 0, 2, 2)


@pytest.mark.parametrize("down", ["key missing", "endpoint down"])
def test_a_judge_with_no_usable_verdict_is_counted_and_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str], down: str) -> None:
    """With run.preflight=false the judge runs and fails on every transcript: its errors are counted (table, lab.json,
    stdout), none is a detection or a false alarm, and one line says what failed and how to fix it."""
    store, rollout = _one_source(tmp_path)
    if down == "key missing":
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        judge, cause = "gpt5", "OPENAI_API_KEY is not set; needed by judge gpt5. Fix: export OPENAI_API_KEY"
    else:
        dead = dead_url()
        monkeypatch.setenv("SKILLBENCH_GEMMA4_API_BASE", dead)
        judge, cause = "gemma4", f"endpoint {dead} does not answer"
    out = tmp_path / "lab"
    args = ["judges", "validate", f"judge={judge}", "judge.max_retries=0", "run.preflight=false", f"store.root={store.root}",
            f"benchmark.scenarios=[{rollout.scenario_id}]", "--out", str(out), "--boot", "20"]
    assert main(args) == 1
    captured = capsys.readouterr()
    data = json.loads((out / "lab.json").read_text())
    n = data["labelled_transcripts"]
    failed = [line for line in captured.err.splitlines() if "returned no usable verdict" in line]
    assert failed == [f"skillbench judges: judge {judge} returned no usable verdict (judge errors on all {n} transcripts: "
                      f"infra {n}): " + failed[0].split("): ", 1)[1]] and cause in failed[0]
    assert f"Judge errors (no verdict: left out of every figure, never a detection or a false alarm): {judge} {n} of {n} (infra {n})." in captured.out
    assert data["judge_errors"][judge]["infra"] == n and data["judge_errors"][judge]["parse"] == 0
    summary = next(t for t in data["tables"] if t["key"] == "lab_summary")
    row = {r[0]: dict(zip(summary["columns"], r, strict=True)) for r in summary["rows"]}[judge]
    assert (row["controls"], row["defects"], row["specificity"], row["false_alarm_rate"], row["sensitivity"]) == (0, 0, None, None, None)
    assert (row["judge_errors"], row["judge_errors_infra"], row["judge_errors_parse"]) == (n, n, 0)


def test_unparseable_replies_are_parse_errors_left_out_of_the_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A judge that answers, but not in the rubric's JSON, on one transcript: a parse error there, a warning, exit 0."""
    store, rollout = _one_source(tmp_path)

    def script(body: dict) -> dict:  # type: ignore[type-arg]
        prompt = json.dumps(body.get("messages"))
        return text_reply("I cannot grade this.") if "I have completed the" in prompt else conversation_script(body)

    with stub_server(script, models=(GEMMA4,)) as server:
        monkeypatch.setenv("SKILLBENCH_GEMMA4_API_BASE", server.base_url)
        monkeypatch.setenv("SKILLBENCH_GEMMA4_API_KEY", "sk-test")
        assert main(["judges", "validate", "judge=gemma4", f"store.root={store.root}", f"benchmark.scenarios=[{rollout.scenario_id}]",
                     "--out", str(tmp_path / "lab"), "--boot", "20"]) == 0
    err = capsys.readouterr().err
    assert "warning: judge gemma4 gave no verdict on 1 of 12 transcripts (parse 1)" in err
    data = json.loads((tmp_path / "lab" / "lab.json").read_text())
    assert {k: data["judge_errors"]["gemma4"][k] for k in ("infra", "parse", "total")} == {"infra": 0, "parse": 1, "total": 1}
    detail = next(t for t in data["tables"] if t["key"] == "lab_detail")
    rows = {(r[0], r[1]): r for r in detail["rows"]}
    assert rows[("gemma4", "hallucinated_action")][2:4] == [0, None]  # n 0: neither detected nor missed
    assert rows[("rule checks", "hallucinated_action")][2] == 1
