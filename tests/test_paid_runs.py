"""Paid runs as a user meets them: preflight over the whole sweep, dry run, budget, honest exits.

Most cases call the Hydra entry point in this process (``skillbench.app.main`` with ``sys.argv`` set: the same
path as ``python -m skillbench``, without a new interpreter); Ctrl-C needs a process to signal.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.support.openai_stub import conversation_script, stub_server
from tests.support.replay import LLAMACPP_PROPS
from tests.support.signals import interruptible

REPO = Path(__file__).resolve().parents[1]
KEYS = ("OPENAI_API_KEY", "GEMINI_API_KEY", "SKILLBENCH_QWEN3_5_9B_API_KEY", "SKILLBENCH_GEMMA4_API_KEY")


class Result(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


Run = Callable[..., Result]


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """``python -m skillbench ARGS`` in ``cwd``, in this process: exit code, stdout, stderr. Keyword arguments
    are environment variables; the provider keys of this machine are removed."""
    from skillbench.app import main
    from skillbench.plan.callback import SWEEP_JOBS_ENV, SWEEP_STARTED_ENV

    def call(cwd: Path, *args: str, **env: str) -> Result:
        with monkeypatch.context() as patch:
            for key in KEYS:
                patch.delenv(key, raising=False)
            for key, value in {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "HYDRA_FULL_ERROR": "0", **env}.items():
                patch.setenv(key, value)
            patch.chdir(cwd)
            patch.setattr(sys, "argv", ["skillbench", *args])
            root = logging.getLogger()
            handlers, level = list(root.handlers), root.level
            capsys.readouterr()
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            finally:  # Hydra configured logging for the job: put this process's back as it was
                for handler in root.handlers:
                    if handler not in handlers:
                        handler.close()
                root.handlers[:] = handlers
                root.setLevel(level)
                for key in (SWEEP_JOBS_ENV, SWEEP_STARTED_ENV):
                    os.environ.pop(key, None)
        out = capsys.readouterr()
        return Result(code, out.out, out.err)

    return call


def dead_url() -> str:
    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def files(tmp_path: Path) -> list[Path]:
    return [p for p in tmp_path.rglob("*") if p.is_file()]


def test_preflight_lists_missing_key_and_dead_endpoint_for_the_whole_sweep(tmp_path: Path, run: Run) -> None:
    # The sweep's second judge is the one with the dead server: it must be found before job 1 runs.
    result = run(tmp_path, "agent=gpt5", "judge=sim_balanced,gemma4", f"judge.api_base={dead_url()}", "-m")
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("skillbench: ")]
    assert any("OPENAI_API_KEY is not set" in line and "agent gpt5" in line for line in lines), result.stderr
    assert any("does not answer" in line and "judge gemma4" in line for line in lines), result.stderr
    assert "Traceback" not in result.stderr
    assert not files(tmp_path)


@pytest.mark.parametrize("agents", ["sim_careful,sim_carefull", "sim_carefull,sim_careful"], ids=["second", "first"])
def test_a_typo_inside_a_sweep_list_is_listed_with_the_other_problems(tmp_path: Path, run: Run, agents: str) -> None:
    # One value of the list names no file: that job is a problem like any other; the rest are still checked.
    result = run(tmp_path, f"agent={agents}", "judge=sim_balanced,gemma4", f"judge.api_base={dead_url()}", "-m")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("skillbench: unknown agent 'sim_carefull': did you mean sim_careful"), result.stderr
    assert sum("unknown agent" in line for line in lines) == 1  # two jobs have it, said once
    assert any("does not answer" in line and "judge gemma4" in line for line in lines), result.stderr
    assert lines[-1] == "skillbench: 2 problems; nothing was run. (run.preflight=false skips these checks.)"
    assert "Traceback" not in result.stderr
    assert not files(tmp_path)


@pytest.mark.parametrize("preflight", ["true", "false"])
@pytest.mark.parametrize(
    ("sweep", "said"),
    [
        ("run.seed=interval(0,1)", ("does not support sweep type", "Fix: sweep a list")),  # Hydra cannot expand it
        ("agent=glob(nomatch*)",  # expands to no job
         ("skillbench: sweep value 'agent=glob(nomatch*)' gives no value, so the sweep has no job.", "sim_careful")),
    ],
)
def test_a_sweep_without_jobs_is_one_line_without_a_folder(
    tmp_path: Path, run: Run, preflight: str, sweep: str, said: tuple[str, ...]
) -> None:
    result = run(tmp_path, sweep, f"run.preflight={preflight}", "-m")
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert all(part in line for part in said), line
    assert not files(tmp_path)


def test_a_model_string_litellm_cannot_route_is_a_preflight_problem(tmp_path: Path, run: Run) -> None:
    custom = ("agent=custom", "agent.model=notaprovider/foo", "agent.api_key_env=SOME_KEY")
    result = run(tmp_path, *custom, "judge=gemma4", f"judge.api_base={dead_url()}", SOME_KEY="sk-fake-local")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert any(line.startswith("skillbench: litellm cannot route model 'notaprovider/foo' (LLM Provider NOT provided); "
                               "needed by agent custom. Fix: ") for line in lines), result.stderr
    assert any("does not answer" in line for line in lines) and lines[-1].startswith("skillbench: 2 problems")
    assert not files(tmp_path)
    dry = run(tmp_path, *custom, "run.dry_run=true")  # no run could call it: the dry run refuses it too
    assert dry.returncode == 2 and "litellm cannot route model 'notaprovider/foo'" in dry.stderr, dry.stderr
    assert not files(tmp_path)


def test_preflight_checks_the_served_model_name_and_passes_a_live_server(tmp_path: Path, run: Run) -> None:
    with stub_server(conversation_script, models=("some/other-model",)) as wrong:
        result = run(tmp_path, "agent=qwen3_5_9b", f"agent.api_base={wrong.base_url}", "benchmark.limit=1")
    assert result.returncode == 2
    assert "serves some/other-model, not 'Qwen/Qwen3.5-9B'" in result.stderr
    assert not files(tmp_path)
    with stub_server(conversation_script, models=("Qwen/Qwen3.5-9B",)) as live:
        result = run(tmp_path, "agent=qwen3_5_9b", f"agent.api_base={live.base_url}", "benchmark.limit=1",
                     "run.max_infra_error_share=1.0")
    assert "preflight passed" in result.stderr, result.stderr[-2000:]
    assert result.returncode == 0, result.stderr[-2000:]
    assert list(tmp_path.glob("outputs/runs/*/summary.json"))


def test_preflight_refuses_an_agent_server_whose_chat_template_drops_the_tools(tmp_path: Path, run: Run) -> None:
    # llama.cpp serving a model whose own template renders no tools (GET /props says so): every conversation
    # would fail as the agent's although the server's setup is at fault. One line, exit 2, nothing written.
    with stub_server(conversation_script, models=("Qwen/Qwen3.5-9B",), props=LLAMACPP_PROPS) as server:
        result = run(tmp_path, "agent=qwen3_5_9b", f"agent.api_base={server.base_url}", "benchmark.limit=1")
    assert result.returncode == 2, result.stderr[-2000:]
    assert (f"endpoint {server.base_url} (model file SmolLM2-135M-Instruct.Q4_1.gguf) renders no tools"
            in result.stderr), result.stderr[-2000:]
    assert not server.requests and not files(tmp_path)


def test_preflight_opt_out_goes_straight_to_the_job(tmp_path: Path, run: Run) -> None:
    result = run(tmp_path, "agent=gpt5", "run.preflight=false", "benchmark.limit=1")
    assert result.returncode == 2
    assert "checking" not in result.stderr
    assert "needs the environment variable OPENAI_API_KEY" in result.stderr  # the job's own check still holds


def test_dry_run_needs_no_keys_or_servers_and_writes_nothing(tmp_path: Path, run: Run) -> None:
    result = run(tmp_path, "agent=gpt5,qwen3_5_9b", "judge=gpt5,gemma4", "run.dry_run=true", "-m")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "job   4 of 4" in out and "total: 4 job(s)" in out
    assert "gpt-5 " in out and "$" in out and "GPU-h" not in out.split("total:")[0].split("gpt-5 ")[0]
    assert "reuses conversations of an earlier job" in out  # the second judge of an agent
    assert "assumptions:" in out
    assert not files(tmp_path)


def _announced(tmp_path: Path, *overrides: str) -> str:
    """What the preflight says before the first call of a run of these overrides (stderr)."""
    import io
    from contextlib import redirect_stderr

    from omegaconf import OmegaConf

    from skillbench.plan.callback import PlanCallback
    from tests.plan.test_estimate_vs_run import _plan

    master = OmegaConf.create({"run": {"budget_usd": None}, "store": {"root": str(tmp_path / "outputs" / "store")}})
    for item in overrides:
        if item.startswith("run.budget_usd="):
            master.run.budget_usd = float(item.split("=", 1)[1])
    err = io.StringIO()
    with redirect_stderr(err):
        PlanCallback()._announce(_plan(*[o for o in overrides if not o.startswith("run.budget_usd=")]), master, 0.1)
    return err.getvalue()


def test_a_model_litellm_cannot_price_is_said_plainly_and_small_budgets_keep_their_digits(tmp_path: Path) -> None:
    custom = ("agent=custom", "agent.model=anthropic/claude-not-in-the-map", "agent.api_key_env=SOME_KEY")
    said = _announced(tmp_path, *custom, "run.budget_usd=0.004").splitlines()
    assert len(said) == 2, said
    assert "(budget $0.004)" in said[0] and "about $0.00 for the priced models" in said[0]
    assert said[1].startswith("skillbench: warning: litellm has no price for anthropic/claude-not-in-the-map (agent), "
                              "so its calls count as $0 and run.budget_usd cannot stop its spend. Fix: ")
    assert "+agent.params.input_cost_per_token=" in said[1] and "+agent.params.output_cost_per_token=" in said[1]
    priced = _announced(tmp_path, *custom, "+agent.params.input_cost_per_token=1e-06",
                        "+agent.params.output_cost_per_token=2e-06", "run.budget_usd=0.004")
    assert "warning" not in priced and "for the priced models" not in priced, priced
    assert "no price" not in _announced(tmp_path, "agent=gpt5", "run.budget_usd=1")


def test_prices_in_a_model_config_are_what_litellm_bills(tmp_path: Path, run: Run) -> None:
    # A model the map does not know, priced in its config: litellm's custom pricing bills each call with it.
    with stub_server(conversation_script, models=("unpriced-x",)) as live:
        result = run(tmp_path, "agent=custom", "agent.model=hosted_vllm/unpriced-x", f"agent.api_base={live.base_url}",
                     "+agent.params.input_cost_per_token=0.001", "+agent.params.output_cost_per_token=0.002",
                     "benchmark.limit=1", "hydra.run.dir=outputs/job", "run.max_infra_error_share=1.0")
    assert result.returncode == 0, result.stderr[-2000:]
    agent = json.loads((tmp_path / "outputs" / "job" / "summary.json").read_text())["usage"]["agent"]
    assert agent["calls"] > 0
    assert agent["cost_usd"] == pytest.approx(agent["prompt_tokens"] * 0.001 + agent["completion_tokens"] * 0.002)


def _rows(job: Path) -> int:
    return len((job / "results.jsonl").read_text().splitlines())


def test_budget_stops_cleanly_keeps_rows_and_a_rerun_continues(tmp_path: Path, run: Run) -> None:
    # gpt-5 through a local stub: litellm bills it at gpt-5's listed price, so a tiny budget runs out.
    with stub_server(conversation_script, models=("gpt-5",)) as live:
        common = ("agent=gpt5", f"agent.api_base={live.base_url}", "benchmark.limit=4", "run.scenario_concurrency=1",
                  "hydra.run.dir=outputs/job")
        first = run(tmp_path, *common, "run.budget_usd=0.0015", OPENAI_API_KEY="sk-fake-local")
        assert first.returncode == 3, first.stderr[-2000:]
        job = tmp_path / "outputs" / "job"
        assert "budget reached" in first.stderr and "run.budget_usd" in first.stderr and "Traceback" not in first.stderr
        assert (job / "stopped.json").exists() and not (job / "summary.json").exists()
        assert 1 <= _rows(job) < 4
        kept = _rows(job)
        calls_before = len(live.requests)
        second = run(tmp_path, *common, "run.budget_usd=10", OPENAI_API_KEY="sk-fake-local")
        assert second.returncode == 0, second.stderr[-2000:]
        summary = json.loads((job / "summary.json").read_text())
        assert summary["scenarios"] == 4 and summary["usage"]["agent"]["cache_hits"] >= kept
        assert len(live.requests) > calls_before


def test_a_budget_stop_in_a_sweep_ends_the_sweep_with_its_summary_report_and_exit_3(tmp_path: Path, run: Run) -> None:
    # Jobs 1-2 (simulated agent) finish free; job 3 (gpt-5 through the stub, billed at its listed price: ~$0.001 a
    # conversation) finishes one conversation and stops, the next not fitting in what is left (reserved); job 4 does
    # not start.
    with stub_server(conversation_script, models=("gpt-5",)) as live:
        result = run(tmp_path, "agent=sim_careful,gpt5", "judge=sim_balanced,sim_lenient", f"agent.api_base={live.base_url}",
                     "benchmark.limit=3", "run.scenario_concurrency=1", "run.budget_usd=0.0015",
                     "hydra.sweep.dir=outputs/sweep", "-m", OPENAI_API_KEY="sk-fake-local")
    assert result.returncode == 3, result.stderr[-3000:]
    sweep = tmp_path / "outputs" / "sweep"
    stopped = json.loads((sweep / "2_gpt5_sim_balanced" / "stopped.json").read_text())
    assert stopped["reason"] == "budget" and 1 <= stopped["rows_kept"] < 3
    assert not (sweep / "3_gpt5_sim_lenient").exists()  # not started: no folder
    lines = [line for line in result.stderr.splitlines() if line.startswith("skillbench: ")]
    [summary] = [line for line in lines if line.startswith("skillbench: sweep: ")]
    assert summary.startswith("skillbench: sweep: 4 job(s): 2 finished, 0 failed, 0 crashed, 1 stopped, 1 not started "
                              "(budget spent); $"), summary
    spent = float(summary.split("; $", 1)[1].split(" ", 1)[0])
    assert spent == pytest.approx(stopped["spent_usd"], rel=0.05) and 0 < spent <= 0.0015  # the sweep's, and held
    assert "of the $0.0015 budget" in summary
    assert lines[-1].startswith("skillbench: budget reached") and "run.budget_usd" in lines[-1]
    assert "python -m skillbench agent=sim_careful,gpt5" in lines[-1] and "Traceback" not in result.stderr
    report = (sweep / "report" / "report.md").read_text()
    assert "unfinished" in report  # the report covers the finished jobs and shows the stopped one


def test_dead_endpoint_job_exits_non_zero_without_preflight(tmp_path: Path, run: Run) -> None:
    result = run(tmp_path, "agent=qwen3_5_9b", f"agent.api_base={dead_url()}", "run.preflight=false",
                 "benchmark.limit=1", "run.infra_retries=0", "agent.max_retries=0", "hydra.run.dir=outputs/job")
    assert result.returncode == 1, result.stderr[-2000:]
    assert "job failed: 1 of 1 conversations hit infrastructure errors" in result.stderr
    assert (tmp_path / "outputs" / "job" / "summary.json").exists()  # the record stays; the exit is honest


def test_ctrl_c_keeps_rows_marks_the_job_and_a_rerun_resumes(tmp_path: Path, run: Run) -> None:
    import signal
    import time

    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "HYDRA_FULL_ERROR": "0", "PYTHONPATH": str(REPO)}
    with stub_server(conversation_script, models=("Qwen/Qwen3.5-9B",), latency_s=0.05) as live:
        overrides = ["agent=qwen3_5_9b", f"agent.api_base={live.base_url}", "benchmark.limit=4",
                     "run.scenario_concurrency=1", "hydra.run.dir=outputs/job"]
        job = tmp_path / "outputs" / "job"
        # A conversation here is ~17 calls of >= 50 ms: the signal lands while the second one runs.
        proc = subprocess.Popen([sys.executable, "-m", "skillbench", *overrides], cwd=tmp_path, env=env,
                                stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not ((job / "results.jsonl").exists() and _rows(job) >= 1):
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 130, stderr[-2000:]
        assert "Traceback" not in stderr and "interrupted" in stderr and "python -m skillbench" in stderr
        assert (job / "interrupted.json").exists() and not (job / "summary.json").exists()
        kept = json.loads((job / "interrupted.json").read_text())["rows_kept"]
        assert 1 <= kept < 4
        again = run(tmp_path, *overrides)  # the rerun: the same command (in this process)
        assert again.returncode == 0, again.stderr[-2000:]
        summary = json.loads((job / "summary.json").read_text())
        assert summary["scenarios"] == 4 and summary["usage"]["agent"]["cache_hits"] >= kept  # finished ones not redone
        assert not (job / "interrupted.json").exists()


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("agent=gpt-5", "unknown agent 'gpt-5': did you mean gpt5"),
        ("pass_rule.min_workflow_adherance=3", "did you mean min_workflow_adherence?"),
        ("benchmark.paths=[happy", "bad override syntax"),
    ],
)
def test_hydra_level_typos_are_one_line_exit_2_no_folder(tmp_path: Path, run: Run, override: str, expected: str) -> None:
    for args in ([override], [override, "-m"]):
        result = run(tmp_path, *args)
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("skillbench: ") and expected in lines[0], result.stderr
        assert not files(tmp_path)


def test_optional_model_fields_need_no_plus(tmp_path: Path, run: Run) -> None:
    result = run(tmp_path, "agent.timeout_s=30", "judge.api_base=http://127.0.0.1:9/v1", "run.dry_run=true")
    assert result.returncode == 0, result.stderr


def test_supply_chain_check_passes_on_this_environment() -> None:
    result = subprocess.run([sys.executable, str(REPO / ".ci" / "check_supply_chain.py")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (REPO / "requirements.lock").read_text().count("--hash=sha256:") > 100


def test_supply_chain_check_fails_on_a_rogue_pth_and_a_compromised_litellm(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    (site / "litellm-1.82.8.dist-info").mkdir(parents=True)
    (site / "litellm-1.82.8.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: litellm\nVersion: 1.82.8\n")
    (site / "litellm-1.82.8.dist-info" / "RECORD").write_text("litellm/__init__.py,,\n")
    (site / "rogue_init.pth").write_text("import os; os.system('true')\n")  # what the compromised releases shipped
    check = [sys.executable, str(REPO / ".ci" / "check_supply_chain.py")]
    result = subprocess.run([*check, "--site-packages", str(site)], capture_output=True, text=True)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "litellm 1.82.8 is a compromised release" in result.stderr
    assert f"{site / 'rogue_init.pth'} belongs to no installed package" in result.stderr
    (site / "rogue_init.pth").unlink()
    (site / "litellm-1.82.8.dist-info").rename(site / "litellm-1.110.2.dist-info")
    (site / "litellm-1.110.2.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: litellm\nVersion: 1.110.2\n")
    clean = subprocess.run([*check, "--site-packages", str(site)], capture_output=True, text=True)
    assert clean.returncode == 0, clean.stderr  # the same folder without them passes: the check is of the folder
