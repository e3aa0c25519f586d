"""The preflight composes a sweep's jobs quickly by swapping config-group nodes; each must equal Hydra's own."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_dir, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from omegaconf import open_dict

import skillbench.conf
from skillbench.config import validate_config
from skillbench.plan.sweep import _body, _choices, compose_jobs


def test_swapped_jobs_equal_hydra_composition_with_overrides_inside_the_swapped_groups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    task = ["agent.timeout_s=61", "+agent.params.top_p=0.5", "judge.samples=3", "benchmark.limit=2"]
    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        master = compose("config", overrides=task, return_hydra_config=True)
        with open_dict(master):  # what `-m agent=... judge=...` gives the plan callback
            master.hydra.mode = "MULTIRUN"
            master.hydra.sweeper.params = {"agent": "sim_careful,gpt5,custom", "judge": "sim_balanced,gpt5"}
            master.hydra.overrides.task = [*task, "agent.model=openai/x"]
        loader = GlobalHydra.instance().config_loader()
        composed_by_hydra: list[list[str]] = []
        own = loader.load_sweep_config

        def counted(master_cfg: Any, overrides: list[str]) -> Any:  # Hydra's method, counted, not replaced
            composed_by_hydra.append(overrides)
            return own(master_cfg, overrides)

        monkeypatch.setattr(loader, "load_sweep_config", counted)
        jobs = compose_jobs(master)
        monkeypatch.undo()
        assert len(jobs) == 6 and len(composed_by_hydra) == 1  # only the first job; the others were swapped
        for job in jobs:
            hydra_own = loader.load_sweep_config(master, job.overrides)
            assert job.choices == _choices(hydra_own), job.overrides
            mine, theirs = validate_config(job.cfg, job.choices), validate_config(_body(hydra_own), _choices(hydra_own))
            assert mine == theirs, job.overrides
            assert mine.agent.timeout_s == 61 and mine.agent.params["top_p"] == 0.5 and mine.judge.samples == 3


def test_the_sweeper_composes_only_the_jobs_the_preflight_did_not(monkeypatch: pytest.MonkeyPatch) -> None:
    from hydra.errors import ConfigCompositionException
    from hydra.types import HydraContext

    from hydra_plugins.skillbench_plugins.checked_sweeper import CheckedSweeper

    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        master = compose("config", return_hydra_config=True)
        with open_dict(master):
            master.hydra.mode = "MULTIRUN"
            master.hydra.sweeper.params = {"agent": "sim_careful,sim_sloppy"}
        loader = GlobalHydra.instance().config_loader()
        sweeper = CheckedSweeper(max_batch_size=None)
        sweeper.config, sweeper.hydra_context = master, HydraContext(config_loader=loader, callbacks=None)  # type: ignore[arg-type]
        composed_by_hydra: list[list[str]] = []
        own = loader.load_sweep_config

        def counted(master_config: Any, sweep_overrides: list[str]) -> Any:  # as Hydra's sweeper calls it
            composed_by_hydra.append(sweep_overrides)
            return own(master_config, sweep_overrides)

        batch = [job.overrides for job in compose_jobs(master)]
        monkeypatch.setattr(loader, "load_sweep_config", counted)
        sweeper.validate_batch_is_legal(batch)
        assert batch == [["agent=sim_careful"], ["agent=sim_sloppy"]] and composed_by_hydra == []
        # A job the preflight did not compose (run.preflight=false composes none) is Hydra's to check, as before.
        with pytest.raises(ConfigCompositionException):
            sweeper.validate_batch_is_legal([*batch, ["agent=sim_nope"]])
        assert composed_by_hydra == [["agent=sim_nope"]]
        # Composed from another sweep config, nothing counts as checked.
        sweeper.config = master.copy()
        composed_by_hydra.clear()
        sweeper.validate_batch_is_legal(batch)
        assert composed_by_hydra == batch


def test_an_option_with_a_defaults_list_of_its_own_is_composed_by_hydra(tmp_path: Path) -> None:
    """An option that extends another (``defaults: [sim_careful, _self_]``) is never swapped in: only Hydra applies
    its defaults list. Hydra's repository hands the option over with that list already taken out of its body, so
    the swap once merged the bare body (no model) where Hydra composes sim_careful's fields under the new name."""
    conf = tmp_path / "conf"
    shutil.copytree(Path(skillbench.conf.__file__).parent, conf, ignore=shutil.ignore_patterns("__pycache__"))
    (conf / "agent" / "sim_twin.yaml").write_text("defaults:\n  - sim_careful\n  - _self_\nname: sim_twin\n")
    with initialize_config_dir(version_base="1.3", config_dir=str(conf)):
        master = compose("config", return_hydra_config=True)
        with open_dict(master):
            master.hydra.mode = "MULTIRUN"
            master.hydra.sweeper.params = {"agent": "sim_careful,sim_twin"}
        loader = GlobalHydra.instance().config_loader()
        jobs = compose_jobs(master)
        assert [job.problem for job in jobs] == [None, None]
        for job in jobs:
            hydra_own = loader.load_sweep_config(master, job.overrides)
            assert validate_config(job.cfg, job.choices) == validate_config(_body(hydra_own), _choices(hydra_own))
        careful, twin = (validate_config(job.cfg, job.choices).agent for job in jobs)
        assert twin.name == "sim_twin" and twin.model == careful.model
