"""The offline build end to end on small transcripts: stages, files, caching, lint, loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.benchmark.lint import lint_benchmark
from skillbench.benchmark.loader import load_benchmark
from skillbench.cli import main as cli_main
from skillbench.core.errors import ConfigError
from skillbench.mining.cli import mine_main
from skillbench.mining.config import load_config
from skillbench.mining.pipeline import MiningError, MiningRun, read_summary
from tests.mining.conftest import assert_no_planted, lint_and_run, overrides
from tests.support.nonempty import nonempty


def test_offline_build_writes_a_lint_clean_benchmark_and_a_rerun_reuses_everything(
        transcripts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench"
    assert mine_main(overrides(transcripts, out)) == 0
    report = lint_benchmark(out)
    assert report.problems == []
    bench = load_benchmark(out)
    assert len(bench.skills) == 3
    assert {s.category for s in bench.skills.values()} == {"block_card", "check_balance", "move_house"}
    assert all(s.steps[0].kind == "verify" for s in bench.skills.values())
    for stage_file in nonempty((out / "_mining").glob("*.jsonl"), "stage files"):
        assert_no_planted(stage_file.read_text())
    first = {s["stage"]: s for s in json.loads((out / "_mining" / "summary.json").read_text())["stages"]}
    assert first["extract"]["items_in"] == 12 and first["extract"]["reused"] == 0

    assert mine_main(overrides(transcripts, out)) == 0
    again = {s["stage"]: s for s in json.loads((out / "_mining" / "summary.json").read_text())["stages"]}
    assert again["ingest"]["reused"] == 12 and again["extract"]["reused"] == 12 and again["skills"]["reused"] == 3
    assert cli_main(["mine", "report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "extract" in printed and "scenarios" in printed


def test_one_stage_runs_alone_from_the_previous_file(transcripts: Path, tmp_path: Path) -> None:
    out = tmp_path / "b"
    MiningRun(load_config(overrides(transcripts, out, "stage=ingest"))).run()
    MiningRun(load_config(overrides(transcripts, out, "stage=extract", "extractor=text", "extractor.n_types=4"))).run()
    lines = (out / "_mining" / "02_actions.jsonl").read_text().splitlines()
    assert len(lines) == 12 and all(json.loads(line)["actions"] for line in lines)
    with pytest.raises(MiningError, match=r"03_clusters\.jsonl: missing.*stage=cluster"):
        MiningRun(load_config(overrides(transcripts, out, "stage=represent"))).run()


def test_global_clustering_separates_the_purposes(transcripts: Path, tmp_path: Path) -> None:
    out = tmp_path / "g"
    MiningRun(load_config(overrides(transcripts, out, "clusterer=global", "clusterer.k_max=5", "stage=ingest"))).run()
    build = MiningRun(load_config(overrides(transcripts, out, "clusterer=global", "clusterer.k_max=5")))
    build.extract()
    clusters = build.cluster()
    groups = sorted(sorted({m.rsplit("-", 1)[0] for m in c.members}) for c in clusters)
    assert groups == [["block_card"], ["check_balance"], ["move_house"]]


def test_bad_override_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Fix"):
        load_config(["ingest=nosuch", f"out={tmp_path}"])
    with pytest.raises(ConfigError, match=r"selection\.per_skill"):
        load_config([f"out={tmp_path}", "selection.per_skill=0"])
    assert cli_main(["mine", "ingest=jsonl", f"out={tmp_path / 'x'}"]) == 2  # jsonl needs a path
    assert not (tmp_path / "x" / "benchmark.yaml").exists()


def test_a_stored_skill_reads_back_in_a_process_that_never_wrote_it() -> None:
    """stage=scenarios alone runs in a new process: the spec's fact function is registered from its steps on read."""
    from skillbench.mining.pipeline import WrittenSkill
    from skillbench.mining.records import Workflow
    from skillbench.mining.skillwriter import skill_spec
    from skillbench.store import content_hash

    spec = skill_spec(Workflow(cluster_id="x", group="x", actions=["ask_colour", "query:paint_order"], support=3), "x")
    assert not isinstance(spec, str)
    data = json.loads(WrittenSkill(cluster_id="x", spec=spec).model_dump_json())
    fresh = ["never_registered_fact_q7"]  # a fact list no code in this process has seen
    data["spec"]["steps"][0]["facts"] = fresh
    data["spec"]["facts"] = f"build.facts_{content_hash(fresh)[:12]}"
    assert WrittenSkill.model_validate_json(json.dumps(data)).spec.facts == data["spec"]["facts"]


def test_the_text_path_builds_a_benchmark_that_lints_and_runs(transcripts: Path, tmp_path: Path) -> None:
    """No labels, no model: turn types from the agent's words, the catalogue tools predicted from them."""
    out = tmp_path / "text"
    assert mine_main(overrides(transcripts, out, "extractor=text", "extractor.n_types=6")) == 0
    sequences = [json.loads(line) for line in (out / "_mining" / "02_actions.jsonl").read_text().splitlines()]
    predicted = {s["purpose"]: s["tools"] for s in sequences}
    assert predicted == {"block_card": ["card_block"], "check_balance": ["balance_check"], "move_house": ["address_update"]}
    assert all(not a.startswith("query:") or a[6:] in s["tools"] for s in sequences for a in s["actions"])
    bench = load_benchmark(out)
    assert {s.category for s in bench.skills.values()} == {"block_card", "check_balance", "move_house"}
    assert {"card.block", "balance.check", "address.update"} <= {t for s in bench.skills.values() for t in s.tools}
    lint_and_run(out, tmp_path / "run")


def test_unusable_paths_are_one_line_naming_the_path_and_the_fix(transcripts: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def fails(*args: str) -> str:
        assert cli_main(["mine", *args]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Fix:" in err and "Traceback" not in err
        return err

    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder")
    assert "out=" in fails(*overrides(transcripts, a_file)) and "is a file, not a folder" in fails(*overrides(transcripts, a_file / "x"))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert f"{empty} holds no *.jsonl file" in fails("ingest=jsonl", f"ingest.path={empty}", f"out={tmp_path / 'o1'}")
    (tmp_path / "blank.jsonl").write_text("\n")
    assert "no conversation read as ingest=jsonl" in fails("ingest=jsonl", f"ingest.path={tmp_path / 'blank.jsonl'}",
                                                           f"out={tmp_path / 'o2'}")
    star_like = tmp_path / "star"
    (star_like / "dialogues").mkdir(parents=True)
    (star_like / "dialogues" / "1.json").write_text("{}")
    assert f"{star_like} holds no ABCD file" in fails("ingest=abcd", f"ingest.path={star_like}", f"out={tmp_path / 'o3'}")
    assert "no conversation read as ingest=star" in fails("ingest=star", f"ingest.path={star_like}", f"out={tmp_path / 'o4'}")
    abcd_like = tmp_path / "abcd"
    abcd_like.mkdir()
    (abcd_like / "abcd_sample.json").write_text('[{"convo_id": 1, "scenario": {}}]')
    assert "no conversation read as ingest=star" in fails("ingest=star", f"ingest.path={abcd_like}", f"out={tmp_path / 'o5'}")
    assert not any((tmp_path / f"o{i}" / "_mining" / "03_clusters.jsonl").exists() for i in range(1, 6))


def test_fixes_are_recorded_only_where_the_workflow_needed_them() -> None:
    from skillbench.mining.records import Workflow
    from skillbench.mining.skillwriter import DELETE_FIX, VERIFY_FIX, needed_fixes

    def flow(actions: list[str], personal: float) -> Workflow:
        return Workflow(cluster_id="x", group="x", actions=actions, support=3, personal=personal)

    assert needed_fixes(flow(["query:weather", "weather_inform_forecast"], personal=0.0)) == []  # no personal data
    assert needed_fixes(flow(["ask_name", "bank_ask_pin", "query:bank_balance", "bank_inform_balance"], 1.0)) == []  # verified
    assert needed_fixes(flow(["ask_name", "query:bank_balance", "bank_inform_balance"], 1.0)) == [VERIFY_FIX]
    assert needed_fixes(flow(["bank_inform_balance", "bank_ask_pin", "query:bank_balance"], 1.0)) == [VERIFY_FIX]  # too late
    assert needed_fixes(flow(["ask_dob", "query:crm_delete_record"], 0.9)) == [DELETE_FIX]


def test_the_built_skills_record_their_own_fixes(transcripts: Path, tmp_path: Path) -> None:
    """The fixture's calls carry a card number and no workflow checks a secret first: each needed verification."""
    out = tmp_path / "fixes"
    MiningRun(load_config(overrides(transcripts, out))).run()
    written = [json.loads(line) for line in (out / "_mining" / "05_skills.jsonl").read_text().splitlines()]
    assert [w["fixes"] for w in written] == [["added identity verification before any disclosure"]] * 3
    workflows = [json.loads(line) for line in (out / "_mining" / "04_workflows.jsonl").read_text().splitlines()]
    assert all(w["personal"] == 1.0 for w in nonempty(workflows, "workflows"))


def test_the_scenarios_note_counts_tools_as_lint_does(transcripts: Path, tmp_path: Path) -> None:
    out = tmp_path / "tools"
    MiningRun(load_config(overrides(transcripts, out))).run()
    notes = {s.stage: s for s in read_summary(out).stages}["scenarios"].notes
    assert notes["tools"] == len(load_benchmark(out).tools) < notes["catalogue_tools"]
    header = (out / "skills" / f"{next(iter(load_benchmark(out).skills))}.yaml").read_text().splitlines()[0]
    assert header.startswith("# Written by `skillbench mine`")  # not the generator's "skillbench benchmark build"


def test_a_catalogue_file_gives_the_text_path_tools_when_transcripts_record_none(tmp_path: Path) -> None:
    from tests.mining.conftest import FLOWS, conversation

    lines = []
    for purpose in FLOWS:
        for i in range(4):
            convo = conversation(purpose, i)
            convo.turns = [t for t in convo.turns if not t.tool_calls]  # no tool call recorded anywhere
            lines.append(convo.model_dump_json())
    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join(lines) + "\n")
    catalogue = tmp_path / "tools.yaml"
    catalogue.write_text("- {name: card_block, description: block a lost or stolen card}\n"
                         "- {name: balance_check, description: read the account balance}\n"
                         "- {name: address_update, description: change the postal address on file}\n")
    out = tmp_path / "bench"
    MiningRun(load_config(overrides(calls, out, "extractor=text", "extractor.n_types=6", f"extractor.catalogue={catalogue}"))).run()
    sequences = [json.loads(line) for line in (out / "_mining" / "02_actions.jsonl").read_text().splitlines()]
    assert {s["purpose"]: s["tools"][0] for s in sequences} == {"block_card": "card_block", "check_balance": "balance_check",
                                                               "move_house": "address_update"}
    assert {s.category for s in load_benchmark(out).skills.values()} == set(FLOWS)
    with pytest.raises(ConfigError, match=r"extractor\.catalogue: .*does not exist"):
        MiningRun(load_config(overrides(calls, tmp_path / "b2", "extractor=text", f"extractor.catalogue={tmp_path / 'none.yaml'}"))).run()


def test_the_old_command_name_still_works_and_says_the_new_one(capsys) -> None:
    assert cli_main(["build", "report", "/nonexistent-folder"]) == 2
    err = capsys.readouterr().err
    assert "`skillbench build` is deprecated" in err and "skillbench mine" in err
