"""Readers never drop good rows (issue 30 item 2): report, rescore, diff and load_results skip a damaged line,
count it, name it (file:line, what) on stderr and in the report, and exit 4; unfinished jobs and runs still being
written are labelled so."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from skillbench.store.ownership import claim
from tests.reliability.harness import SMALL, skillbench

DAMAGED = 4  # skillbench.report.cli.EXIT_DAMAGED_INPUT


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("readers")
    result = skillbench(root, *SMALL, f"store.root={root / 'store'}", f"hydra.run.dir={root / 'run'}")
    assert result.returncode == 0, result.stderr[-2000:]
    return root / "run"


def _copy(run: Path, tmp_path: Path, name: str) -> Path:
    copy = tmp_path / name
    shutil.copytree(run, copy, ignore=shutil.ignore_patterns("report"))
    return copy


def test_a_damaged_line_is_skipped_named_and_exits_4_in_every_reader(finished_run: Path, tmp_path: Path) -> None:
    run = _copy(finished_run, tmp_path, "run")
    good = (run / "results.jsonl").read_text().splitlines()
    with (run / "results.jsonl").open("a") as sink:
        sink.write('{"hello": 1}\n')
    where = f"{run / 'results.jsonl'}:{len(good) + 1}"

    report = skillbench(tmp_path, "report", str(run), "--quiet", "--formats", "json,md", module="skillbench.cli")
    assert report.returncode == DAMAGED, report.stderr
    assert f"damaged input: {where}: not a result row, skipped (field 'scenario_id'" in report.stderr
    data = json.loads((run / "report" / "report.json").read_text())
    assert data["counts"]["rows"] == len(good) and data["counts"]["lines_damaged"] == 1  # every good row kept
    assert data["cells"][0]["status"] == "ok"
    assert any(where in note for note in data["notes"])
    assert "1 damaged line(s) skipped" in (run / "report" / "report.md").read_text()

    rescore = skillbench(tmp_path, "rescore", str(run), "pass_rule=strict", "--quiet", "--formats", "json",
                         module="skillbench.cli")
    assert rescore.returncode == DAMAGED and where in rescore.stderr
    rescored = json.loads((run / "rescore_strict" / "report.json").read_text())
    assert rescored["counts"]["rows"] == len(good)

    diff = skillbench(tmp_path, "diff", str(finished_run), str(run), module="skillbench.cli")
    assert diff.returncode == DAMAGED and where in diff.stderr and f"B: damaged input: {where}" in diff.stdout
    assert not list(tmp_path.glob("diff_*.json"))  # diff writes nothing unasked

    from skillbench.report import load_results

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = load_results(run)
    assert len(frame) == len(good) and frame.attrs["damaged"] and any(where in str(w.message) for w in caught)


def test_unfinished_and_still_running_jobs_are_labelled(finished_run: Path, tmp_path: Path) -> None:
    run = _copy(finished_run, tmp_path, "cut")
    (run / "summary.json").unlink()  # killed before its summary: one whole row and a cut one
    lines = (run / "results.jsonl").read_text().splitlines(keepends=True)
    (run / "results.jsonl").write_text(lines[0] + lines[1][:40])
    report = skillbench(tmp_path, "report", str(run), "--quiet", "--formats", "json", module="skillbench.cli")
    assert report.returncode == 0, report.stderr  # a cut last line of an unfinished job is not damage
    cell = json.loads((run / "report" / "report.json").read_text())["cells"][0]
    assert cell["status"] == "unfinished" and "1 whole row(s) kept" in cell["note"]

    diff = skillbench(tmp_path, "diff", str(finished_run), str(run), "--out", str(tmp_path / "d"),
                      module="skillbench.cli")
    assert f"B: {run} did not finish (1 whole row(s) kept)" in diff.stdout
    assert (tmp_path / "d").is_dir() and len(list((tmp_path / "d").glob("diff_*.json"))) == 1  # where told

    owner = claim(run, "sweep")  # a live writer (this test process, seen from the report's process)
    try:
        live = skillbench(tmp_path, "report", str(run), "--quiet", "--formats", "json,md",
                          module="skillbench.cli")
    finally:
        owner.release()
    assert live.returncode == 0 and "is still being written by sweep pid" in live.stderr
    data = json.loads((run / "report" / "report.json").read_text())
    assert data["counts"]["jobs_running"] == 1 and data["notes"][0].startswith("STILL RUNNING:")
    assert "still running" in data["cells"][0]["note"]
    assert "STILL RUNNING" in (run / "report" / "report.md").read_text()
