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


def _big_benchmark(tmp_path: Path, objective_chars: int) -> Path:
    """The starter benchmark with one scenario's objective blown up (the review's 10 MB objective, smaller)."""
    import shutil

    from skillbench.benchmark import load_benchmark

    source = tmp_path / "big"
    shutil.copytree(Path(load_benchmark("starter").root), source)
    scenarios = source / "scenarios" / "healthcare_reschedule_appointment.yaml"
    text = scenarios.read_text()
    old = "objective: I need to move my check-up next week to a different time."
    assert old in text
    scenarios.write_text(text.replace(old, "objective: I need to move my check-up. " + "Please. " * (objective_chars // 8), 1))
    return source


def test_an_oversized_scenario_is_refused_before_anything_is_sent(tmp_path: Path) -> None:
    source = _big_benchmark(tmp_path, 1_000_000)  # about 250,000 tokens, over the 200,000 default cap
    args = [f"benchmark.source={source}", "benchmark.scenarios=[hc-resched-happy-01]", f"store.root={tmp_path / 's'}",
            f"hydra.run.dir={tmp_path / 'run'}"]
    for extra in ([], ["run.preflight=false"], ["run.dry_run=true"]):
        refused = skillbench(tmp_path, *args, *extra)
        assert refused.returncode == 2, (extra, refused.stderr[-2000:])
        assert "scenario 'hc-resched-happy-01' is about" in refused.stderr and "max_prompt_tokens=200,000" in refused.stderr
        assert not (tmp_path / "run").exists() and not (tmp_path / "s").exists()


def test_the_dry_run_estimate_uses_actual_scenario_sizes(tmp_path: Path) -> None:
    def agent_prompt_tokens(source: str) -> int:
        out = skillbench(tmp_path, f"benchmark.source={source}", "benchmark.scenarios=[hc-resched-happy-01]",
                         "agent=gpt5", "agent.max_prompt_tokens=null", "user_sim.max_prompt_tokens=null",
                         "judge.max_prompt_tokens=null", "run.dry_run=true", env={"OPENAI_API_KEY": "x"})
        assert out.returncode == 0, out.stderr[-2000:]
        line = next(line for line in out.stdout.splitlines() if line.startswith("gpt-5 "))
        return int(line.split()[3].replace(",", ""))

    small = agent_prompt_tokens("starter")
    big = agent_prompt_tokens(str(_big_benchmark(tmp_path, 400_000)))  # about 100,000 tokens more per call
    assert big > small + 12 * 90_000, (small, big)  # 12 assumed agent calls, each carrying the scenario


def test_a_rule_that_can_never_pass_is_refused_and_a_changed_rule_is_labelled(tmp_path: Path) -> None:
    never = skillbench(tmp_path, *SMALL, "pass_rule.allowed_outcomes=[]", f"hydra.run.dir={tmp_path / 'n'}")
    assert never.returncode == 2 and "can never pass" in never.stderr and not (tmp_path / "n").exists()
    changed = skillbench(tmp_path, *SMALL, "pass_rule.min_guardrail_compliance=5", f"store.root={tmp_path / 's'}",
                         f"hydra.run.dir={tmp_path / 'c'}")
    assert changed.returncode == 0, changed.stderr[-2000:]
    summary = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert summary["pass_rule"] == "paper(min_guardrail_compliance=5)"
    rows = [json.loads(line) for line in (tmp_path / "c" / "results.jsonl").read_text().splitlines()]
    assert {row["pass_rule"] for row in rows} == {"paper(min_guardrail_compliance=5)"}


def test_markdown_outputs_escape_markup() -> None:
    from skillbench.report.tables import markdown_table, md_escape

    payload = '<script>alert(1)</script><img src=x onerror="x()"> | [x](javascript:1) `c`'
    escaped = md_escape(payload)
    assert "<" not in escaped and ">" not in escaped and "](" not in escaped and " | " not in escaped
    table = markdown_table([[payload, "1.0"]], ["Agent", "Rate"])
    assert "<script>" not in table and "&lt;script&gt;" in table and table.count("\n") == 2


def test_a_prompt_over_the_cap_is_refused_before_it_is_sent() -> None:
    import asyncio

    import pytest

    from skillbench.core.errors import InfrastructureError
    from skillbench.models.client import ModelClient
    from tests.conftest import compose_config

    judge = compose_config("judge.max_prompt_tokens=100").judge
    client = ModelClient(judge, role="judge")
    with pytest.raises(InfrastructureError, match=r"about 1,0\d\d tokens, over judge.max_prompt_tokens=100; nothing"):
        asyncio.run(client.complete([{"role": "user", "content": "x" * 4000}]))
