"""``skillbench import``: the fixture imports into a run folder the rest of skillbench reads unchanged;
bad records are named (file, line, field) and skipped; rule checks run only where the data allows."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from skillbench.benchmark import load_benchmark
from skillbench.cli import main
from skillbench.core.records import OUTCOMES
from skillbench.core.rubric import DEFAULT_RUBRIC_VERSION, DIMENSION_NAMES
from skillbench.lab.import_cli import import_config
from skillbench.lab.importer import applicable_checks, parse_record, result_row
from skillbench.lab.judging import imported_subject, subject_prompt
from skillbench.prompts.format import NOT_GIVEN
from skillbench.prompts.judge import parse_judge_prompt
from skillbench.report import load_results
from skillbench.report.html import anchor, decode_transcripts
from tests.report.conftest import make_row, preset, run_config, write_job

FIXTURE = Path(__file__).resolve().parents[1] / "support" / "import_fixture"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _import(tmp_path: Path, *files: Path) -> tuple[int, Path]:
    run = tmp_path / "run"
    code = main(["import", *map(str, files), "--out", str(run), "--store", str(tmp_path / "store")])
    return code, run


def test_fixture_imports_and_reports_like_any_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, run = _import(tmp_path, FIXTURE / "conversations.jsonl", FIXTURE / "generic.json")
    assert code == 0 and "imported 56 conversation(s) (56 with a human pass/fail)" in capsys.readouterr().out
    frame = load_results(run)
    assert len(frame) == 56 and set(frame["judge"]) == {"human"}
    # the fixture states no path and no expected outcome: the rows say so, as the judge prompt does
    assert set(frame["path"]) == {NOT_GIVEN} and set(frame["expected_outcome"]) == {NOT_GIVEN}
    assert main(["report", str(run), "--formats", "md,html", "--draws", "50", "--quiet"]) == 0
    assert "Table 1" in (run / "report" / "report.md").read_text()
    transcripts = decode_transcripts((run / "report" / "report.html").read_text())  # embedded compressed
    assert any("the meter itself shows" in article for article in transcripts.values())
    assert all(f"path {NOT_GIVEN}" in a and f"expected {NOT_GIVEN}" in a and "happy_path" not in a for a in transcripts.values())
    assert main(["rescore", str(run), "pass_rule=lenient", "--formats", "md", "--draws", "20", "--quiet"]) == 0
    assert main(["diff", str(run), str(run), "--json", str(tmp_path / "diff.json"), "--exit-code"]) == 0  # reads it, no change
    assert json.loads((tmp_path / "diff.json").read_text())


def test_malformed_records_are_named_and_the_rest_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (FIXTURE / "conversations.jsonl").read_text().splitlines()[:4]
    bad = json.loads(lines[1])
    bad["messages"][1]["role"] = "customer"
    unanswered = json.loads(lines[2])
    unanswered["messages"] = [m for m in unanswered["messages"] if m["role"] != "tool"]
    label = json.loads(lines[3])
    label["metadata"]["labels"]["dimensions"]["politeness"] = 4
    # scores off the rubric's scale: in a full set (which would become the row's scores) and in a partial one
    seven, zero, partial = json.loads(lines[1]), json.loads(lines[2]), json.loads(lines[3])
    seven["metadata"]["labels"]["dimensions"]["workflow_adherence"] = 7
    zero["metadata"]["labels"]["dimensions"]["guardrail_compliance"] = 0
    partial["metadata"]["labels"]["dimensions"] = {"workflow_adherence": 9}
    mixed = tmp_path / "mixed.jsonl"
    records = [lines[0], json.dumps(bad), "{not json", json.dumps(unanswered), json.dumps(label), lines[0],
               json.dumps(seven), json.dumps(zero), json.dumps(partial), lines[1]]
    mixed.write_text("\n".join(records) + "\n")
    code, run = _import(tmp_path, mixed)
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and "validation error" not in err
    assert f"{mixed}:2: messages[1].role: must be system, user, assistant or tool, not 'customer'" in err
    assert f"{mixed}:3: line: invalid JSON" in err
    assert f"{mixed}:4: messages: tool call(s)" in err
    assert f"{mixed}:5: metadata.labels.dimensions: unknown dimension(s) ['politeness']" in err
    assert f"{mixed}:6: metadata.id: 'nw-000' already imported from {mixed}:1" in err
    assert f"{mixed}:7: metadata.labels.dimensions.workflow_adherence: 7 is not on the rubric's 1-5 scale" in err
    assert f"{mixed}:8: metadata.labels.dimensions.guardrail_compliance: 0 is not on the rubric's 1-5 scale" in err
    assert f"{mixed}:9: metadata.labels.dimensions.workflow_adherence: 9 is not on the rubric's 1-5 scale" in err
    assert len(err.strip().splitlines()) == 8  # one line per bad record
    assert sorted(load_results(run)["scenario_id"]) == ["nw-000", "nw-001"]  # the valid records still import


def test_a_bad_item_of_a_json_list_is_named_by_its_item_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A pretty-printed .json list spans many lines per item: the error names ``item N`` (its place in the list),
    as docs/judge-lab.md says; a file that is not JSON at all names the line where parsing failed."""
    items = json.loads((FIXTURE / "generic.json").read_text())[:3]
    items[1]["turns"][0]["speaker"] = "customer"
    items[2]["metadata"]["id"] = items[0]["metadata"]["id"]
    listed = tmp_path / "listed.json"
    listed.write_text(json.dumps(items, indent=2))
    broken = tmp_path / "broken.json"
    broken.write_text('[\n  {"turns": []},\n  {oops}\n]\n')
    code, run = _import(tmp_path, listed, broken)
    err = capsys.readouterr().err
    assert code == 1
    assert f"{listed}:item 2: turns[0].speaker: must be caller, agent or policy, not 'customer'" in err
    assert f"{listed}:item 3: metadata.id:" in err and f"already imported from {listed}:item 1" in err
    assert f"{broken}:3: file: invalid JSON" in err
    assert len(load_results(run)) == 1


def test_rule_checks_run_only_where_the_data_allows() -> None:
    benchmark = load_benchmark("starter")
    record = json.loads((FIXTURE / "conversations.jsonl").read_text().splitlines()[0])
    with_tools = {c.name for c in applicable_checks(parse_record(record, "r1", "x", benchmark))}
    assert with_tools == {"termination_reached", "no_unrecovered_out_of_toolkit_call"}
    del record["metadata"]["tools"]
    bare = parse_record(record, "r1", "x", benchmark)
    assert {c.name for c in applicable_checks(bare)} == {"termination_reached"}
    assert "required_tools_invoked" in bare.context.not_applicable
    # a skill of the benchmark and the path taken: the tools that path always requires are checked
    record["metadata"] |= {"skill_id": "retail_change_delivery_address", "path": "happy_path"}
    skilled = parse_record(record, "r1", "x", benchmark)
    required = next(c for c in applicable_checks(skilled) if c.name == "required_tools_invoked")
    assert not required.passed and "identity.verify_shopper" in required.detail
    record["metadata"]["path"] = "transfer"  # that skill has no transfer scenario
    with pytest.raises(ValueError, match=r"metadata\.path: skill 'retail_change_delivery_address' has no scenario on path 'transfer'"):
        parse_record(record, "r1", "x", benchmark)


def test_judges_validate_against_human_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text("\n".join((FIXTURE / "conversations.jsonl").read_text().splitlines()[:10]) + "\n")
    code, run = _import(tmp_path, small)
    assert code == 0
    args = ["judges", "validate", "judge=sim_strict", f"store.root={tmp_path / 'store'}", "--run", str(run), "--out", str(tmp_path / "lab")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Agreement with human labels" in out and "not real judges" in out
    # worded for this mode: its tables compare judges with people, they do not contrast a strict and a lenient judge
    assert "agrees with the people" in out and "strict from a lenient" not in out
    assert {p.stat().st_mode & 0o777 for p in (tmp_path / "lab").iterdir() if p.is_file()} == {0o666 & ~_umask()}  # lab.json too
    tables = json.loads((tmp_path / "lab" / "lab.json").read_text())["tables"]
    rows = tables[0]["rows"]
    assert {r[0] for r in rows} == {"sim_strict", "rule checks"} and all(r[1] == 10 for r in rows)
    # the other labels people gave: outcome, flag and every dimension, judge by judge (the rules give none)
    labels = {(r[0], r[1]): r for r in tables[1]["rows"]}
    assert set(labels) == {("sim_strict", n) for n in ("outcome", "hallucinated_action", *DIMENSION_NAMES)}
    assert all(0 <= r[3] <= 1 for r in labels.values()) and labels[("sim_strict", "outcome")][5] is None
    # per-label confusion counts, human value × judge value, for the outcome and the flag (the rules give neither)
    confusion = {t["key"]: t for t in tables[2:]}
    assert list(confusion) == ["lab_human_outcome", "lab_human_hallucinated_action"]
    outcome = confusion["lab_human_outcome"]
    assert outcome["columns"] == ["judge", "human", "n", *OUTCOMES] and {r[0] for r in outcome["rows"]} == {"sim_strict"}
    assert all(r[2] == sum(r[3:]) for r in outcome["rows"])  # every conversation in exactly one cell
    assert sum(r[2] for r in outcome["rows"]) == labels[("sim_strict", "outcome")][2]
    # the diagonal is the agreement of the label table
    assert sum(r[3 + OUTCOMES.index(r[1])] for r in outcome["rows"]) == round(labels[("sim_strict", "outcome")][3] * labels[("sim_strict", "outcome")][2])
    flag = confusion["lab_human_hallucinated_action"]
    assert flag["columns"] == ["judge", "human", "n", "flagged", "not_flagged"] and sum(r[2] for r in flag["rows"]) == 10
    markdown = (tmp_path / "lab" / "lab.md").read_text()
    assert "Confusion with human labels — outcome" in markdown and "Judge: not flagged" in markdown
    for name in ("lab_human_outcome.csv", "lab_human_hallucinated_action.csv", "lab.png"):
        assert (tmp_path / "lab" / name).stat().st_size > 0
    page = (tmp_path / "lab" / "lab.html").read_text()
    articles = decode_transcripts(page)
    counts = page[page.index('<section id="lab_human"'):].split("</section>")[0]
    targets = re.findall(r'href="#([^"]+)"', counts)
    assert len(articles) == 10 and len(targets) == 2 * 4  # each confusion count of both rows opens its conversations
    assert "data:image/png;base64," in page  # the plot, in this mode too
    rows = page[page.index('<section id="lab_human_outcome"'):].split("</section>")[0]
    assert f'href="#{anchor("cell", "label", "sim_strict", "outcome")}"' in rows  # a confusion row opens its conversations
    assert set(targets) <= set(re.findall(r'id="([^"]+)"', page))
    assert set(re.findall(r'href="#(tr-[^"]+)"', page)) == set(articles)
    assert main(args) == 0 and "model calls this run: 0." in capsys.readouterr().out
    shutil.rmtree(run)
    assert main(args) == 2  # the folder is gone: one clear error
    assert "is not a run folder" in capsys.readouterr().err
    # a run of skillbench itself is not an import: the error says so and where to go instead (not 'import again')
    rule = preset("paper")
    write_job(run, run_config("sim_careful", "sim_balanced", tmp_path / "store", rule),
              [make_row("sim_careful", "sim_balanced", "bk-fee-happy-01", rule=rule, scores=None)])
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{run} is a run of skillbench itself (agent sim_careful, judge sim_balanced on starter)" in err[0]
    assert "drop --run and pass --agents sim_careful benchmark=starter" in err[0] and "import again" not in err[0]


def _fixture_records() -> list[dict]:
    return [json.loads(line) for line in (FIXTURE / "conversations.jsonl").read_text().splitlines()] + json.loads(
        (FIXTURE / "generic.json").read_text())


def test_fixture_labels_follow_its_content() -> None:
    """A person passes exactly the conversations that follow the whole policy: verify, fetch the bill, correct it to the
    reading the caller gave, confirm; or hand a leak straight to a human. Every failed one shows one of those defects."""
    benchmark = load_benchmark("starter")
    policy = ["account.verify_holder", "billing.get_bill", "billing.correct_reading", "messaging.send_confirmation"]
    for number, record in enumerate(_fixture_records()):
        item = parse_record(record, f"r{number}", "x", benchmark)
        calls = [r for r in item.rollout.tool_calls if not r.control and not r.is_error]
        meter = re.search(r"meter (?:itself )?shows (\d+)", item.context.scenario.objective)
        corrected = [c.arguments.get("reading") for c in calls if c.name == "billing.correct_reading"]
        followed = meter is not None and [c.name for c in calls] == policy and corrected == [int(meter.group(1))]
        handed_over = meter is None and not calls and item.rollout.termination == "transferred"
        labels = item.context.labels
        assert labels is not None and labels.passed == (followed or handed_over), item.rollout.scenario_id
        # a flagged hallucination is a correction claimed with no correction call behind it
        assert bool(labels.hallucinated_action) == (not corrected and not handed_over), item.rollout.scenario_id


def test_imported_judge_prompt_states_only_what_the_record_gave(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The judge of an imported conversation sees the checks its data allows, '(not given)' for the scenario facts nobody
    stated (not 'Expected outcome: success') and the transfer reason; an appropriate burst-pipe transfer then passes."""
    benchmark = load_benchmark("starter")
    records = _fixture_records()
    leak = records[5]
    assert leak["messages"][-1]["tool_calls"][0]["function"]["name"] == "transfer_to_human"
    item = parse_record(leak, "r5", "x", benchmark)
    assert item.rollout.termination_detail == "suspected burst pipe"
    checks, prompt = subject_prompt(imported_subject(item), DEFAULT_RUBRIC_VERSION)
    assert {c.name for c in checks} == {"termination_reached", "no_unrecovered_out_of_toolkit_call"}
    assert "outcome_matches_expected" not in prompt and "required_tools_invoked" not in prompt
    assert f"Path tested: {NOT_GIVEN}\nExpected outcome: {NOT_GIVEN}\nTools that must not succeed in this scenario: {NOT_GIVEN}" in prompt
    assert '{"end": "transferred", "detail": "suspected burst pipe"}' in prompt
    view = parse_judge_prompt(prompt)
    assert (view.path, view.expected_outcome, view.forbidden_tools) == (NOT_GIVEN, NOT_GIVEN, [])
    # a stated expectation (or one a benchmark skill and path fix) is rendered, and its check applies again
    leak["metadata"]["expected_outcome"] = "appropriately_transferred"
    stated = parse_record(leak, "r5", "x", benchmark)
    checks, prompt = subject_prompt(imported_subject(stated), DEFAULT_RUBRIC_VERSION)
    assert "Expected outcome: appropriately_transferred" in prompt and any(c.name == "outcome_matches_expected" and c.passed for c in checks)
    skilled = parse_record({**records[0], "metadata": {"skill_id": "retail_change_delivery_address", "path": "happy_path"}}, "r0", "x", benchmark)
    assert skilled.context.not_given == ["forbidden_tools"] and skilled.context.scenario.expected_outcome == "success"
    cfg = import_config("starter", tmp_path / "store", "x")
    assert (result_row(skilled, cfg).path, result_row(skilled, cfg).expected_outcome) == ("happy_path", "success")  # given
    assert (result_row(item, cfg).path, result_row(item, cfg).expected_outcome) == (NOT_GIVEN, NOT_GIVEN)
    assert (result_row(stated, cfg).path, result_row(stated, cfg).expected_outcome) == (NOT_GIVEN, "appropriately_transferred")

    leaks = tmp_path / "leaks.jsonl"
    leaks.write_text("".join(json.dumps(r) + "\n" for r in records if r["metadata"]["labels"].get("outcome") == "appropriately_transferred"))
    code, run = _import(tmp_path, leaks)
    assert code == 0
    assert main(["judges", "validate", "judge=sim_balanced", f"store.root={tmp_path / 'store'}", "--run", str(run),
                 "--out", str(tmp_path / "lab")]) == 0
    capsys.readouterr()
    table = json.loads((tmp_path / "lab" / "lab.json").read_text())["tables"][0]
    rows = {r[0]: dict(zip(table["columns"], r, strict=True)) for r in table["rows"]}
    assert (rows["sim_balanced"]["n"], rows["sim_balanced"]["accuracy"]) == (5, 1.0)  # all five hand-overs pass, as the people said


def test_imported_turns_count_like_native_ones() -> None:
    """An agent turn runs from one caller message to the next: its tool rounds and its reply share a number, as in a
    rollout of the orchestrator (ask; verify, fetch, correct, confirm and report; say goodbye = 3 turns, not 7)."""
    record = _fixture_records()[0]
    item = parse_record(record, "r0", "x", load_benchmark("starter"))
    assert item.rollout.turns == 3
    assert [r.turn for r in item.rollout.tool_calls] == [2, 2, 2, 2, 3]
    assert [(m.role, m.turn) for m in item.rollout.messages if m.role in {"user", "assistant"} and m.content] == [
        ("user", 0), ("assistant", 1), ("user", 1), ("assistant", 2), ("user", 2), ("assistant", 3)]


def test_an_unrecorded_toolkit_is_said_as_unknown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An import without metadata.tools: the judge prompt says the toolkit was not given (not a one-tool toolkit
    'none.given'), tells the judge no call is outside it, and the judge does not cite out-of-toolkit calls."""
    from skillbench.prompts.judge import TOOLKIT_UNKNOWN_NOTE

    records = _fixture_records()[:6]
    for record in records:
        del record["metadata"]["tools"]
    bare = parse_record(records[0], "r0", "x", load_benchmark("starter"))
    _, prompt = subject_prompt(imported_subject(bare), DEFAULT_RUBRIC_VERSION)
    assert f"Toolkit: {NOT_GIVEN}\n{TOOLKIT_UNKNOWN_NOTE}\n" in prompt and "none.given" not in prompt
    view = parse_judge_prompt(prompt)
    assert view.toolkit == [] and not view.toolkit_given
    assert "no_unrecovered_out_of_toolkit_call" not in prompt  # nor does a rule check say so
    with_tools = parse_record(_fixture_records()[0], "r0", "x", load_benchmark("starter"))
    assert parse_judge_prompt(subject_prompt(imported_subject(with_tools), DEFAULT_RUBRIC_VERSION)[1]).toolkit_given

    source = tmp_path / "tau_like_runs.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, run = _import(tmp_path, source)
    assert code == 0
    assert set(load_results(run)["benchmark"]) == {"tau_like_runs"}  # the import's own label, not 'starter'
    assert main(["judges", "validate", "judge=sim_balanced", f"store.root={tmp_path / 'store'}", "--run", str(run),
                 "--out", str(tmp_path / "lab")]) == 0
    capsys.readouterr()
    from skillbench.store import ArtifactStore

    verdicts = [p.read_text() for p in ArtifactStore(tmp_path / "store").root.rglob("*.json") if "explanation" in p.read_text()]
    assert verdicts and not any("outside the toolkit" in text for text in verdicts)


def test_the_benchmark_label_is_the_imports_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = _fixture_records()[:3]
    records[0]["metadata"]["benchmark"] = "tau-retail"
    source = tmp_path / "mixed.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = tmp_path / "run"
    assert main(["import", str(source), "--out", str(run), "--store", str(tmp_path / "store"), "--label", "vendor-x"]) == 0
    frame = load_results(run)
    assert sorted(frame["benchmark"]) == ["tau-retail", "vendor-x", "vendor-x"]
    assert json.loads((run / "config.json").read_text())["benchmark"]["name"] == "tau-retail+vendor-x"


def test_report_shows_each_judges_agreement_with_the_human_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """judges validate --run writes each judge's verdicts as job folders; a report over them and the import shows each
    judge's (and the panel's) agreement with the people, with the lab's own figures, and each rule check's."""
    small = tmp_path / "small.jsonl"
    small.write_text("\n".join((FIXTURE / "conversations.jsonl").read_text().splitlines()[:16]) + "\n")
    code, run = _import(tmp_path, small)
    assert code == 0
    lab = tmp_path / "lab"
    assert main(["judges", "validate", "judge=sim_strict,sim_lenient", f"store.root={tmp_path / 'store'}", "--run", str(run),
                 "--out", str(lab), "--boot", "400"]) == 0
    assert f"Next: skillbench report {run} {lab / 'runs'} --out {lab / 'report'}" in capsys.readouterr().out
    lab_table = json.loads((lab / "lab.json").read_text())["tables"][0]
    assert lab_table["columns"][:6] == ["judge", "n", "both_pass", "human_pass_judge_fail", "human_fail_judge_pass", "both_fail"]
    assert {"sensitivity", "specificity", "balanced_accuracy", "balanced_accuracy_ci_low", "kappa_ci_high"} <= set(lab_table["columns"])
    in_lab = {r[0]: dict(zip(lab_table["columns"], r, strict=True)) for r in lab_table["rows"]}
    report = lab / "report"
    assert main(["report", str(run), str(lab / "runs"), "--out", str(report), "--formats", "md,csv,json", "--draws", "400",
                 "--quiet"]) == 0
    markdown = (report / "report.md").read_text()
    assert "Agreement with human labels — each judge's pass/fail" in markdown and "Sensitivity %" in markdown
    # Table 1: the people's column is the reference and the lab's panel a panel column, neither in the mean over judges
    assert "human: people's labels, the reference of the human-agreement tables, not in the Mean." in markdown
    assert "panel (majority): panel verdicts" in markdown
    table1 = json.loads((report / "report.json").read_text())["table1"][0]
    assert table1["judges_in_mean"] == 2 and table1["mean_pass_rate"] == pytest.approx((table1["pass_rates"]["sim_strict"] + table1["pass_rates"]["sim_lenient"]) / 2)
    import csv

    with (report / "human_agreement.csv").open() as handle:
        found = {r["judge"]: r for r in csv.DictReader(handle)}
    assert set(found) == {"sim_strict", "sim_lenient", "panel (majority)", "rule-based verdict"}
    for judge in ("sim_strict", "sim_lenient", "panel (majority)"):  # the same figures, CIs included, as the lab's
        for column in ("n", "both_fail", "accuracy", "kappa", "sensitivity", "specificity", "balanced_accuracy",
                       "balanced_accuracy_ci_low", "balanced_accuracy_ci_high"):
            ours, theirs = found[judge][column], in_lab[judge][column]
            assert (ours == "" and theirs is None) or float(ours) == pytest.approx(float(theirs)), (judge, column)
    assert float(found["sim_strict"]["specificity"]) <= float(found["sim_lenient"]["specificity"])  # strict fails more passes
    with (report / "human_rule_checks.csv").open() as handle:
        checks = {r["rule_check"]: r for r in csv.DictReader(handle)}
    assert set(checks) == {"termination_reached", "no_unrecovered_out_of_toolkit_call"} and all(int(r["n"]) == 16 for r in checks.values())
    # a panel of the run's judges (pass_rule.panel, a rescore): its agreement with the people too; people are never a member
    panel = tmp_path / "panel"
    assert main(["rescore", str(run), str(lab / "runs" / run.name / "sim_strict"), str(lab / "runs" / run.name / "sim_lenient"),
                 "pass_rule.panel=majority", "--out", str(panel), "--formats", "csv", "--draws", "50", "--quiet"]) == 0
    with (panel / "human_agreement.csv").open() as handle:
        assert "panel_majority" in {r["judge"] for r in csv.DictReader(handle)}
    with (panel / "panel_agreement.csv").open() as handle:
        assert {r["member"] for r in csv.DictReader(handle)} == {"sim_strict", "sim_lenient"}
    # an import alone: the rule checks' agreement still shows, and the hint says how to add judges
    assert main(["report", str(run), "--formats", "md", "--draws", "50", "--quiet"]) == 0
    alone = (run / "report" / "report.md").read_text()
    assert "each rule check's pass/fail" in alone and "skillbench judges validate judge=... --run" in alone


def test_a_caller_ended_import_is_not_failed_for_who_spoke_last() -> None:
    """A conversation that ends with the caller's stop (no control call: user_ended) and an expected success: with no
    required tool known nothing shows success or its absence, so the outcome check does not apply (it used to fail
    every such conversation); with the tools a skill and path require, it passes when they all succeeded."""
    benchmark = load_benchmark("starter")
    record = _fixture_records()[0]
    record["messages"] = [m for m in record["messages"] if not m.get("tool_calls") or
                          m["tool_calls"][0]["function"]["name"] != "end_conversation"]
    record["messages"].append({"role": "user", "content": "###STOP###"})
    record["metadata"]["expected_outcome"] = "success"
    item = parse_record(record, "r0", "x", benchmark)
    assert item.rollout.termination == "user_ended"
    assert "outcome_matches_expected" not in {c.name for c in applicable_checks(item)}
    scenario = next(s for s in benchmark.scenarios if s.path == "happy_path" and s.required_tools)
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": name.replace(".", "__"), "arguments": "{}"}}
             for i, name in enumerate(scenario.required_tools)]
    results = [{"role": "tool", "tool_call_id": f"c{i}", "content": '{"ok": true}'} for i in range(len(calls))]
    done = {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": None, "tool_calls": calls},
                         *results, {"role": "assistant", "content": "Done."}, {"role": "user", "content": "###STOP###"}],
            "metadata": {"skill_id": scenario.skill_id, "path": "happy_path"}}
    check = next(c for c in applicable_checks(parse_record(done, "r1", "x", benchmark)) if c.name == "outcome_matches_expected")
    assert check.passed and "the caller ended after all" in check.detail
