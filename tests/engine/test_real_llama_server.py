"""A real model on a real server that really sees its tools: llama.cpp's own server (xllamacpp, extra ``realserver``)
serving SmolLM2-135M-Instruct on 127.0.0.1, one short job through the CLI, then the report (docs/real-servers.md).

1. With SmolLM2's own chat template the server drops the tools (the same prompt tokens with or without one), and
   the preflight refuses the job before any model call, naming the template as the fault.
2. With ``tests/support/chatml_tools.jinja`` the tools are rendered (more prompt tokens), and a real reply with a
   real tool call goes litellm -> MCP mock -> rule checks -> judge. The setup is pinned so the outcome is one, asserted
   exactly: temperature 0, seed 0, one server slot, 2 threads, caps, the simulated caller (SmolLM2 as the caller
   opens by speaking as the agent, after which nothing makes the agent call a tool), and the agent nudged into the
   tool-call tag (a bias on "<", DRY against runaway ids, a stop after one call: measured in docs/real-servers.md).

What the model says depends on llama.cpp's build and the CPU's arithmetic: a new xllamacpp or another machine may
change the row; the assertion message then shows the row to re-pin from. Skipped when xllamacpp is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillbench.core.records import Rollout, ServedBy
from skillbench.engine import RESULTS_FILE, ResultRow
from skillbench.models.server_props import template_digest
from skillbench.store import ArtifactStore
from tests.support.llama_server import (
    MODEL_FILE,
    REPO,
    SERVED_NAME,
    llama_server,
    prompt_tokens,
    served_build,
    served_template,
    server_available,
)

pytestmark = [pytest.mark.realserver,
              pytest.mark.skipif(server_available() is not None, reason=str(server_available()))]

SCENARIO = "hc-resched-happy-01"
# One scenario, two agent turns, caps; the simulated caller (its opening line is the scenario's objective); the agent
# nudged into its tool-call tag and stopped after one call; the judge is the real model, one attempt.
JOB = ["experiment=cpu_server", f"benchmark.scenarios=[{SCENARIO}]", "run.max_turns=2", "run.seed=0",
       "user_sim.name=sim_user", "user_sim.model=skillbench_sim/user", "+user_sim.simulated=true", "user_sim.api_base=null",
       "agent.params.max_tokens=96", "+agent.params.logit_bias=[['<',6]]", "+agent.params.dry_multiplier=0.8",
       "+agent.params.stop=['</tool_call>']", "judge.params.max_tokens=96", "judge.max_parse_retries=0"]


def _skillbench(base_url: str, *args: str, timeout_s: float = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SKILLBENCH_CPU_API_BASE": base_url, "SKILLBENCH_CPU_MODEL": SERVED_NAME,
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout_s)


def test_a_real_tool_call_from_a_real_server_flows_through_the_engine(tmp_path: Path) -> None:
    started = time.monotonic()
    # 1. The model's own template: tools dropped, and the preflight says so before any conversation.
    with llama_server(slots=1, threads=2, chat_template=None) as base_url:
        plain = prompt_tokens(base_url, with_tools=False)
        assert prompt_tokens(base_url, with_tools=True) == plain  # SmolLM2's template renders no tool
        refused = _skillbench(base_url, "skillbench", *JOB, f"store.root={tmp_path / 'refused'}",
                              f"hydra.run.dir={tmp_path / 'refused-run'}", timeout_s=300)
    assert refused.returncode == 2, refused.stderr[-3000:]
    assert (f"(model file {MODEL_FILE}) renders no tools: its chat template drops the tools of every request"
            in refused.stderr), refused.stderr[-3000:]
    assert not (tmp_path / "refused-run").exists() and not (tmp_path / "refused").exists()
    refusal_s = time.monotonic() - started

    # 2. The tool-presenting template: tools rendered, one job end to end.
    with llama_server(slots=1, threads=2) as base_url:
        rendered = (prompt_tokens(base_url, with_tools=False), prompt_tokens(base_url, with_tools=True))
        assert rendered[1] > rendered[0], rendered  # the tool is in the prompt
        run = tmp_path / "run"
        job_started = time.monotonic()
        job = _skillbench(base_url, "skillbench", *JOB, f"store.root={tmp_path / 'store'}", f"hydra.run.dir={run}")
        job_s = time.monotonic() - job_started
    assert "preflight passed" in job.stderr, job.stderr[-3000:]
    [row] = [ResultRow.model_validate_json(line) for line in (run / RESULTS_FILE).read_text().splitlines()]
    seen = row.model_dump_json(include={"termination", "termination_detail", "tool_calls", "rule_checks",
                                        "judge_error_reason", "cut_replies"})
    rollout = ArtifactStore(tmp_path / "store").get("rollouts", row.rollout_key or "", Rollout)
    assert rollout is not None

    # The agent's first reply is a real tool call (parsed by the server into tool_calls), run on the MCP mock.
    calls = [(c.turn, c.name, c.arguments, c.is_error, c.result) for c in rollout.tool_calls]
    assert calls == [(1, "scheduling.search_appointments", {"customer_id": "123456789012345"}, False,
                      '{"records": [], "count": 0}')], seen
    # The rule checks read that call: counted as invoked, and made before any verification.
    checks = {check.name: (check.passed, check.detail) for check in row.rule_checks}
    assert checks["required_tools_invoked"] == (False, "missing: identity.verify_customer, scheduling.update_appointment"), seen
    assert checks["verified_before_account_access"] == (False, "scheduling.search_appointments before verification"), seen
    # Its next reply runs into the 96-token cap: the agent's model error, named. The judge (SmolLM2) is cut too.
    assert (row.termination, row.termination_detail) == ("model_error", "agent: reply cut at max_tokens (96)"), seen
    assert row.cut_replies == {"agent": 1, "judge": 1}, seen
    assert row.judge_error_reason == "cut_at_max_tokens" and [a.reason for a in row.judge_attempts] == ["cut_at_max_tokens"]
    assert row.judge_attempts[0].reply and row.judge_attempts[0].finish_reason == "length"
    assert row.infra_error is None and row.rule_passed is False
    # A model error is a known failure: scored as a fail although its judge gave no verdict (docs/outcomes.md); the
    # judge's failure on every row still fails the job, naming the judge and the fix.
    assert row.passed is False and "hard rule failure: termination_reached" in row.fail_reasons
    assert job.returncode == 1 and "gave no usable verdict on 1 of 1" in job.stderr, job.stderr[-2000:]

    # What answered, in substance: the build the server binary reports, the model file it loaded, our template.
    server = ServedBy(model=SERVED_NAME, fingerprint=served_build(), model_file=MODEL_FILE,
                      chat_template=template_digest(served_template()))
    assert row.served_by["agent"] == [server] and row.served_by["judge"] == [server], row.served_by
    summary = json.loads((run / "summary.json").read_text())
    assert summary["served_by"]["agent"] == [server.label()]

    report_started = time.monotonic()
    report = _skillbench(base_url, "skillbench.cli", "report", str(run), "--quiet", timeout_s=300)
    report_s = time.monotonic() - report_started
    assert report.returncode == 0, report.stderr[-2000:]
    assert any(run.rglob("report.md"))
    print(f"\nreal llama.cpp server: prompt tokens without/with a tool: own template {plain}/{plain}, tools template "
          f"{rendered[0]}/{rendered[1]}; refusal {refusal_s:.1f} s, "
          f"job {job_s:.1f} s, report {report_s:.1f} s, all {time.monotonic() - started:.1f} s; load average "
          f"{os.getloadavg()[0]:.1f}")
