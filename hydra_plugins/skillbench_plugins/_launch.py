"""What skillbench's launchers share: Hydra's setup, the sweep's start, one job's config and folder.

Its name starts with "_", so Hydra's plugin scan skips it; SweepLauncher leaves ``launch`` abstract, so it is no
plugin of its own where a launcher module imports it.
"""

# No `from __future__ import annotations`: Hydra scans plugin modules before they are in sys.modules.
import importlib
import logging
import os
from pathlib import Path

from hydra.core.utils import configure_log, setup_globals
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, open_dict

log = logging.getLogger(__name__)


def call_target(target: str) -> None:
    """Call ``"module:function"`` (a launcher's configured hook)."""
    module, _, function = target.partition(":")
    getattr(importlib.import_module(module), function)()


def warm_up(target: str) -> None:
    """:func:`call_target` for a warm-up only (e.g. the report's imports while jobs run): whatever it failed to do is
    done when needed."""
    try:
        call_target(target)
    except Exception:
        log.debug("%s failed", target, exc_info=True)


class SweepLauncher(Launcher):
    config: DictConfig | None = None
    task_function: TaskFunction | None = None
    hydra_context: HydraContext | None = None

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.config, self.task_function, self.hydra_context = config, task_function, hydra_context

    def start_sweep(self) -> Path:
        """Hydra's globals and logging as its basic launcher sets them up; the sweep's folder, made."""
        setup_globals()
        assert self.config is not None
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        sweep_dir = Path(str(self.config.hydra.sweep.dir))
        sweep_dir.mkdir(parents=True, exist_ok=True)
        return sweep_dir

    def job_config(self, idx: int, overrides: list[str]) -> DictConfig:
        """Job ``idx``'s config: the sweep's with its overrides, its id and its number."""
        assert self.hydra_context is not None and self.config is not None
        return job_config(self.hydra_context, self.config, idx, overrides)


def job_config(hydra_context: HydraContext, config: DictConfig, idx: int, overrides: list[str]) -> DictConfig:
    """Job ``idx``'s config in the sweep ``config``: the sweep's with its overrides, its id and its number."""
    sweep_config = hydra_context.config_loader.load_sweep_config(config, overrides)
    with open_dict(sweep_config):
        sweep_config.hydra.job.id = f"{sweep_config.hydra.job.name}_{idx}"
        sweep_config.hydra.job.num = idx
    return sweep_config


def job_folder(config: DictConfig) -> Path:
    """The folder of the job whose config is ``config`` (the sweep's folder and the job's subfolder in it)."""
    return Path(os.path.abspath(Path(str(config.hydra.sweep.dir)) / str(config.hydra.sweep.subdir)))
