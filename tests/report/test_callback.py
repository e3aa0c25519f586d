"""The Hydra callback writes the report into the sweep folder when a real multirun ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from skillbench.report.callback import ReportCallback

REPO = Path(__file__).resolve().parents[2]

APP = textwrap.dedent(
    """
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from pathlib import Path

    from tests.report.conftest import make_row, preset, run_config, synthetic_scores, write_job, write_rollouts


    @hydra.main(version_base="1.3", config_path="conf", config_name="config")
    def main(cfg):
        out = Path(HydraConfig.get().runtime.output_dir)
        store = Path.cwd() / "store"
        scenarios = [f"happy_path_{i:03d}" for i in range(6)]
        write_rollouts(store, cfg.agent, scenarios)
        rule = preset("paper")
        rows = [
            make_row(cfg.agent, cfg.judge, s, rule=rule, scores=synthetic_scores(cfg.agent, cfg.judge, s)[0])
            for s in scenarios
        ]
        # The 'sim_broken' judge stands for a job whose error the engine caught: no summary.json.
        write_job(out, run_config(cfg.agent, cfg.judge, store, rule), rows, finished=cfg.judge != "sim_broken")


    if __name__ == "__main__":
        main()
    """
)

CONFIG = textwrap.dedent(
    """
    agent: sim_careful
    judge: sim_balanced
    hydra:
      sweep:
        dir: multirun/${now:%Y-%m-%d_%H-%M-%S}
        subdir: ${hydra.job.num}_${agent}_${judge}
      callbacks:
        report:
          _target_: skillbench.report.callback.ReportCallback
          formats: [md, json, html]
          draws: 50
    """
)


def test_report_is_written_after_a_real_multirun(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "config.yaml").write_text(CONFIG)
    (tmp_path / "app.py").write_text(APP)
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run(
        [sys.executable, "app.py", "-m", "agent=sim_careful,sim_sloppy", "judge=sim_balanced,sim_broken"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (sweep,) = (tmp_path / "multirun").iterdir()
    report = json.loads((sweep / "report" / "report.json").read_text())
    assert report["counts"]["jobs"] == 4 and report["counts"]["jobs_finished"] == 2
    statuses = {(c["agent"], c["judge"]): c["status"] for c in report["cells"]}
    assert statuses[("sim_careful", "sim_broken")] == "unfinished"
    assert statuses[("sim_sloppy", "sim_balanced")] == "ok"
    assert (sweep / "report" / "report.html").exists()
    assert "happy_path_000" in (sweep / "report" / "report.html").read_text()


def test_callback_never_raises(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    config = OmegaConf.create({"hydra": {"sweep": {"dir": str(tmp_path / "empty")}}})
    (tmp_path / "empty").mkdir()
    callback = ReportCallback(formats=["json"])
    callback.on_multirun_start(config)
    callback.on_multirun_end(config)  # no jobs: logged, not raised
    assert "Build it with: skillbench report" in caplog.text
    ReportCallback(enabled=False).on_multirun_end(config)
    ReportCallback().on_run_end(config)  # single runs are off by default


def test_callback_on_an_existing_sweep(grid: Path, tmp_path: Path) -> None:
    import shutil

    sweep = tmp_path / "sweep"
    shutil.copytree(grid, sweep)
    config = OmegaConf.create({"hydra": {"sweep": {"dir": str(sweep)}}})
    callback = ReportCallback(formats=["md"], subdir="summary")
    callback.on_multirun_start(config)
    callback.on_multirun_end(config)
    assert "Table 1" in (sweep / "summary" / "report.md").read_text()
