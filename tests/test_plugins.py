"""A plug-in package installed for real (pip, into a temporary folder on PYTHONPATH) is found through its entry
point in the ``skillbench.plugins`` group: its agent, parameterised rule check and report table are used from
the command line under its namespace (acme/...), with no launcher script; a second package claiming the same
namespace is refused in one line naming both."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.wheel import build_wheel

PLUGIN = REPO / "tests" / "support" / "acme_plugin"


def _install(source: Path, target: Path) -> None:
    """``pip install --target`` of the project's wheel: pip writes the dist-info and its entry points."""
    wheel = build_wheel(source, target.parent / f"wheels_{source.name}")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
        check=True, capture_output=True, text=True, timeout=300,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("plugin") / "site"
    _install(PLUGIN, target)
    assert list(target.glob("acme_skillbench-*.dist-info/entry_points.txt"))
    return target


SKILLBENCH = Path(sys.executable).with_name("skillbench")  # the installed console script


def _skillbench(cwd: Path, site: Path, *args: str, **env_vars: str) -> subprocess.CompletedProcess[str]:
    """``skillbench <args>`` (``skillbench run`` is ``python -m skillbench``), the plug-in's folder on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)]), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           **env_vars}
    return subprocess.run([str(SKILLBENCH), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_an_installed_plugins_agent_check_and_table_are_used_from_the_command_line(tmp_path: Path, site: Path) -> None:
    jobs = {}
    for limit in (3, 20):
        job = tmp_path / f"limit{limit}"
        done = _skillbench(
            tmp_path, site, "run", "agent.program={_target_:acme/signing_agent,signature:'-- acme support'}",
            f"+checks={{acme/max_tool_calls:{{limit:{limit}}}}}", "benchmark.limit=4",
            f"store.root={tmp_path / 'store'}", f"hydra.run.dir={job}",
        )
        assert done.returncode == 0, done.stderr[-2000:]
        jobs[limit] = [json.loads(line) for line in (job / "results.jsonl").read_text().splitlines()]
    rows = jobs[3]
    # The agent: the plug-in's program, built with its parameter, signed what the caller heard.
    stored = [json.loads(path.read_text()) for path in (tmp_path / "store").rglob("*.json") if "rollouts" in path.parts]
    spoken = [m for rollout in stored for m in rollout["messages"] if m["role"] == "assistant" and not m["tool_calls"]]
    assert spoken and all(m["content"].endswith(" -- acme support") for m in spoken)
    config = json.loads((tmp_path / "limit3" / "config.json").read_text())
    assert config["agent"]["program"]["_target_"] == "acme/signing_agent"
    assert config["agent"]["program_source"].startswith("sha256:")
    # The check: run under its namespaced name with the configured limit; its parameter is in the version.
    details = [next(c for c in row["rule_checks"] if c["name"] == "acme/max_tool_calls")["detail"] for row in rows]
    assert all(detail.endswith("(limit 3)") for detail in details)
    assert {row["rule_checks_version"] for row in jobs[3]} != {row["rule_checks_version"] for row in jobs[20]}
    # Same agent and scenarios: the second job reused the first's rollouts (check parameters change no rollout).
    assert [row["rollout_key"] for row in jobs[3]] == [row["rollout_key"] for row in jobs[20]]
    # The table: in the report of the job, from the command line.
    done = _skillbench(tmp_path, site, "report", str(tmp_path / "limit3"), "--out", str(tmp_path / "report"),
                       "--formats", "md,csv")
    assert done.returncode == 0, done.stderr[-2000:]
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "acme: conversations within the tool-call limit" in markdown and "limit 3" in markdown
    assert (tmp_path / "report" / "acme.tool_call_limit.csv").is_file()


def test_a_namespace_claimed_by_two_packages_is_refused_naming_both(tmp_path: Path, site: Path) -> None:
    rival = tmp_path / "rival"
    shutil.copytree(PLUGIN, rival)
    pyproject = rival / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('name = "acme-skillbench"', 'name = "acme-rival"')
                         .replace('acme = "acme_skillbench"', 'acme = "acme_rival"')
                         .replace('packages = ["acme_skillbench"]', 'packages = ["acme_rival"]'))
    (rival / "acme_skillbench").rename(rival / "acme_rival")
    both = tmp_path / "both"
    shutil.copytree(site, both)
    _install(rival, both)
    done = _skillbench(tmp_path, both, "run", "benchmark.limit=1", f"hydra.run.dir={tmp_path / 'job'}")
    assert done.returncode == 2
    line = done.stderr.strip()
    assert "\n" not in line and "'acme'" in line and "acme-skillbench" in line and "acme-rival" in line


def _rows(job: Path) -> list[dict]:
    return [json.loads(line) for line in (job / "results.jsonl").read_text().splitlines()]


def test_an_installed_check_changes_no_job_that_does_not_name_it(tmp_path: Path, site: Path) -> None:
    """Installing (or removing) a plug-in with a rule check re-judges nothing: a job's rows, rule_checks_version
    and verdict keys depend only on the checks it runs, and a plug-in's check runs only where the config names
    it (issue 38 item 8; before, every job ran it and every verdict key changed)."""
    job = ["run", "benchmark=smoke", "benchmark.limit=2", f"store.root={tmp_path / 'store'}"]
    without = _skillbench(tmp_path, tmp_path / "no-plugins", *job, f"hydra.run.dir={tmp_path / 'without'}")
    installed = _skillbench(tmp_path, site, *job, f"hydra.run.dir={tmp_path / 'installed'}")
    named = _skillbench(tmp_path, site, *job, "+checks={acme/max_tool_calls:{limit:3}}",
                        f"hydra.run.dir={tmp_path / 'named'}")
    for done in (without, installed, named):
        assert done.returncode == 0, done.stderr[-2000:]
    before, after, opted = _rows(tmp_path / "without"), _rows(tmp_path / "installed"), _rows(tmp_path / "named")
    keys = ("rule_checks", "rule_checks_version", "verdict_key", "rollout_key", "passed")
    assert [{k: row[k] for k in keys} for row in after] == [{k: row[k] for k in keys} for row in before]
    summary = json.loads((tmp_path / "installed" / "summary.json").read_text())
    assert summary["usage"]["judge"]["calls"] == 0 < summary["usage"]["judge"]["cache_hits"]  # nothing re-judged
    # Named, it runs: its row in every rule-check list, its version in rule_checks_version, new verdicts.
    assert all(any(check["name"] == "acme/max_tool_calls" for check in row["rule_checks"]) for row in opted)
    assert {row["rule_checks_version"] for row in opted}.isdisjoint({row["rule_checks_version"] for row in before})
    assert {row["verdict_key"] for row in opted}.isdisjoint({row["verdict_key"] for row in before})


def test_a_hard_check_the_job_does_not_run_is_refused(tmp_path: Path, site: Path) -> None:
    done = _skillbench(tmp_path, site, "run", "benchmark.limit=1", "pass_rule.hard_checks=[acme/max_tool_calls]",
                       f"hydra.run.dir={tmp_path / 'job'}")
    assert done.returncode == 2 and not (tmp_path / "job").exists()
    [line] = done.stderr.strip().splitlines()
    assert "'acme/max_tool_calls' runs only in jobs whose config names it" in line
    assert "Fix: add '+checks={acme/max_tool_calls:{}}'" in line


def test_a_plugin_check_that_raises_is_a_benchmark_error_never_the_agents(tmp_path: Path, site: Path) -> None:
    """A plug-in's rule check is guest code: given a parameter of the wrong type it raises, and the rows are
    benchmark errors naming the check (never a failed or passed check of the agent), exit 6."""
    job = tmp_path / "job"
    done = _skillbench(tmp_path, site, "run", "+checks={acme/max_tool_calls:{limit:'eight'}}", "benchmark.limit=2",
                       f"store.root={tmp_path / 'store'}", f"hydra.run.dir={job}")
    assert done.returncode == 6, done.stderr[-2000:]
    rows = [json.loads(line) for line in (job / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(row["termination"] == "benchmark_error" and row["passed"] is None for row in rows)
    assert all(row["benchmark_error"].startswith("rule check acme/max_tool_calls raised TypeError") for row in rows)
    assert "acme_skillbench" in (job / rows[0]["traceback_file"]).read_text()


@pytest.mark.parametrize(("how", "said"), [("raise", "its code raised KeyError: 'agent' (acme_skillbench/__init__.py:"),
                                           ("exit", "its code raised SystemExit: 0 (acme_skillbench/__init__.py:"),
                                           ("wrong_type", "its code returned dict, not a Table or None")])
def test_a_plugin_table_that_fails_is_left_out_named_and_the_report_is_complete(
        tmp_path: Path, site: Path, how: str, said: str) -> None:
    job = tmp_path / "job"
    done = _skillbench(tmp_path, site, "run", "benchmark.limit=2", f"store.root={tmp_path / 'store'}",
                       f"hydra.run.dir={job}")
    assert done.returncode == 0, done.stderr[-2000:]
    report = tmp_path / "report"
    done = _skillbench(tmp_path, site, "report", str(job), "--out", str(report), "--formats", "md,csv,html",
                       ACME_CARELESS_TABLE=how)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    [line] = [line for line in done.stderr.splitlines() if "acme.careless" in line]
    assert line.startswith("skillbench: report table acme.careless left out: ") and said in line
    markdown = (report / "report.md").read_text()
    assert "acme: a table written carelessly" in markdown and said in markdown
    assert "Table 1" in markdown and (report / "report.html").is_file()  # the rest of the report is there
