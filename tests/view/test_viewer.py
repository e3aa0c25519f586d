"""``skillbench view``: the conversations of an import (with human labels) and two judges' verdicts on them, first as
plain data (load_conversations, ViewFilter), then in a real terminal: tmux runs the viewer, keys are sent, the pane
is captured and what it shows is checked."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.view import ViewFilter, load_conversations
from skillbench.view.data import checks_text, judge_text, read_jobs, skipped_note, transcript_text
from tests.report.conftest import write_sweep

FIXTURE = Path(__file__).resolve().parents[1] / "support" / "import_fixture" / "conversations.jsonl"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """12 imported conversations with human labels, and sim_strict's and sim_lenient's verdicts on them."""
    tmp = tmp_path_factory.mktemp("view")
    source = tmp / "vendor.jsonl"
    source.write_text("\n".join(FIXTURE.read_text().splitlines()[:12]) + "\n")
    run = tmp / "import"
    store = tmp / "store"
    assert main(["import", str(source), "--out", str(run), "--store", str(store)]) == 0
    assert main(["judges", "validate", "judge=sim_strict,sim_lenient", f"store.root={store}", "--run", str(run),
                 "--out", str(tmp / "lab")]) == 0
    return run, tmp / "lab" / "runs"


def test_conversations_carry_every_judges_reading(judged: tuple[Path, Path]) -> None:
    conversations, finder = load_conversations(list(judged))
    assert len(conversations) == 12
    assert all(set(c.judges) == {"human", "sim_strict", "sim_lenient", "panel (majority)"} for c in conversations)
    disagreeing = [c for c in conversations if c.disagreement]
    assert disagreeing and all(len({r.verdict for r in c.judges.values()} - {"error"}) == 2 for c in disagreeing)
    first = conversations[0]
    rollout, problem = finder.load(first.job, first.rollout_key)
    text = transcript_text(rollout, problem).plain
    assert problem is None and "caller" in text and "→ call  account.verify_holder" in text and "← result" in text
    assert "account__verify_holder" not in text  # the catalogue name, as the judge prompt has it
    assert "termination_reached" in checks_text(first).plain
    strict = judge_text(first.judges["sim_strict"]).plain
    assert strict.startswith("sim_strict: ") and "explanation:" in strict and "Workflow" in strict


def test_the_filter(judged: tuple[Path, Path]) -> None:
    conversations, _ = load_conversations(list(judged))
    fails = ViewFilter.parse("judge=human verdict=fail")
    assert {c.scenario_id for c in conversations if fails.matches(c)} == {
        c.scenario_id for c in conversations if c.judges["human"].verdict == "fail"}
    assert ViewFilter.parse("disagree").matches(next(c for c in conversations if c.disagreement))
    assert not any(ViewFilter.parse("path=transfer").matches(c) for c in conversations)  # imports: path (not given)
    assert ViewFilter.parse("judge=sim_strict verdict=pass disagree nw").text() == "judge=sim_strict verdict=pass disagree nw"
    with pytest.raises(ValueError, match="unknown filter key 'colour'"):
        ViewFilter.parse("colour=red")
    with pytest.raises(ValueError, match="verdict='maybe'"):
        ViewFilter.parse("verdict=maybe")


def test_a_missing_folder_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["view", str(tmp_path)]) == 2
    assert "no job folders found" in capsys.readouterr().err  # the report's own reader says so, one line


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    """A 3 × 1 synthetic sweep: a damaged line in sim_careful's results, sim_reckless's job unfinished (no summary)."""
    sweep = write_sweep(tmp_path, agents=["sim_careful", "sim_sloppy", "sim_reckless"], judges=["sim_balanced"],
                        scenarios=4)
    results = sweep / "0_sim_careful_sim_balanced" / "results.jsonl"
    lines = results.read_text().splitlines()
    results.write_text("\n".join([lines[0], '{"scenario_id": 7}', *lines[1:]]) + "\n")
    (sweep / "2_sim_reckless_sim_balanced" / "summary.json").unlink()
    return sweep


def test_the_viewer_says_what_it_left_out(damaged: Path) -> None:
    jobs = read_jobs([damaged])
    conversations, _ = load_conversations([damaged])
    assert len(conversations) == 8  # sim_careful's 4 good rows and sim_sloppy's 4; not the unfinished job's
    assert skipped_note(jobs) == "1 damaged line(s) skipped; 1 unfinished job(s) left out (4 row(s))"


class Pane:
    """A tmux session of its own (private server socket) running one command at a fixed size."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.socket, self.name = f"sbview-{uuid.uuid4().hex[:8]}", "view"
        # The terminal's size is tmux's 200 × 50, never a COLUMNS/LINES this process was given (pytest-xdist's
        # workers set 80 × 24, and a terminal app reads those first).
        env = {**{name: value for name, value in os.environ.items() if name not in ("COLUMNS", "LINES")},
               "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "TERM": "xterm-256color"}
        shell = " ".join(subprocess.list2cmdline([part]) for part in command) + "; echo EXIT=$?; sleep 60"
        subprocess.run(["tmux", "-L", self.socket, "new-session", "-d", "-s", self.name, "-x", "200", "-y", "50", "-c",
                        str(cwd), shell], check=True, env=env)

    def text(self) -> str:
        return subprocess.run(["tmux", "-L", self.socket, "capture-pane", "-p", "-t", self.name], capture_output=True,
                              text=True, check=True).stdout

    def keys(self, *keys: str) -> None:
        for key in keys:
            subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", self.name, key], check=True)
            time.sleep(0.2)

    def wait_for(self, wanted: str, timeout: float = 90.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.text()
            if wanted in shown:
                return shown
            time.sleep(0.5)
        raise AssertionError(f"{wanted!r} never appeared; the pane shows:\n{self.text()}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def pane_of(tmp_path: Path) -> Iterator:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (.ci/run installs it with apt-get): the viewer's terminal test needs a real terminal")
    pytest.importorskip("textual", reason="the view extra (textual) is not installed: pip install 'skillbench[view]'")
    panes: list[Pane] = []

    def start(*args: str) -> Pane:
        panes.append(Pane([sys.executable, "-m", "skillbench.cli", "view", *args], tmp_path))
        return panes[-1]

    yield start
    for pane in panes:
        pane.close()


def test_the_viewer_in_a_real_terminal(judged: tuple[Path, Path], pane_of) -> None:  # type: ignore[no-untyped-def]
    conversations, _ = load_conversations(list(judged))
    pane = pane_of(*map(str, judged))
    shown = pane.wait_for("12 of 12 conversations")
    # the rows: agent, one verdict column per judge (the person's label is one), the disagreement mark
    assert all(name in shown for name in ("human", "sim_strict", "sim_lenient")) and "vendor-bot-2" in shown
    assert "✓" in shown and "✗" in shown and "≠" in shown
    # the first conversation: its transcript with tool calls and results, its rule checks, each judge's reading
    first = conversations[0]
    assert f"vendor-bot-2 — {first.scenario_id}" in shown
    assert "→ call  account.verify_holder" in shown and "← result" in shown and "Rule checks" in shown

    # filter by judge and verdict: exactly the conversations the person failed
    failed = [c for c in conversations if c.judges["human"].verdict == "fail"]
    pane.keys("/", "judge=human verdict=fail", "Enter")
    shown = pane.wait_for(f"{len(failed)} of 12 conversations · filter: judge=human verdict=fail")
    rows = [line for line in shown.splitlines() if "vendor-bot-2 " in line and "—" not in line]
    assert len(rows) == len(failed)
    # disagreements only, on top: the key toggles it
    both = [c for c in failed if c.disagreement]
    pane.keys("d")
    pane.wait_for(f"{len(both)} of 12 conversations · filter: judge=human verdict=fail disagree")
    pane.keys("d", "v")  # disagreement off; the verdict filter moves on from fail to error
    pane.wait_for("filter: judge=human verdict=error")
    # the judges side by side below the transcript: one panel each, verdict, outcome, scores and explanation
    pane.keys("c")  # clear the filter
    shown = pane.wait_for("12 of 12 conversations · filter: none")
    shown = pane.wait_for("sim_strict: ")
    panels = [line for line in shown.splitlines() if "explanation:" in line]
    assert panels and any(line.count("explanation:") >= 2 for line in panels), shown  # two judges in one row of panels
    assert any(line.count("PASS") + line.count("FAIL") >= 3 for line in shown.splitlines())
    pane.keys("Escape", "q")
    pane.wait_for("EXIT=0")


def test_the_viewer_names_what_it_skipped_and_exits_4(damaged: Path, pane_of) -> None:  # type: ignore[no-untyped-def]
    pane = pane_of(str(damaged))
    pane.wait_for("8 of 8 conversations · filter: none · not shown: 1 damaged line(s) skipped; 1 unfinished job(s) "
                  "left out (4 row(s)) (listed on stderr)")
    pane.keys("q")
    shown = pane.wait_for("EXIT=4")
    flat = shown.replace("\n", "")  # the pane wraps long lines at 200 columns
    assert f"skillbench view: left out: {damaged / '2_sim_reckless_sim_balanced'} did not finish (4 whole row(s) kept)" in flat
    assert f"skillbench view: damaged input: {damaged / '0_sim_careful_sim_balanced' / 'results.jsonl'}:2: not a result " \
           "row, skipped" in flat
