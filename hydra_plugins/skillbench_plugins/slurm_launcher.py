"""Registers ``hydra/launcher=skillbench_slurm`` (the base of the ``slurm`` preset) when the slurm extra is installed.

The launcher itself is in ``_slurm.py`` (Hydra's plugin scan skips names starting with "_"), so that without
hydra-submitit-launcher (``pip install 'skillbench[slurm]'``) this module registers nothing instead of warning at
every start.
"""

import importlib.util

from hydra.core.config_store import ConfigStore

if importlib.util.find_spec("hydra_plugins.hydra_submitit_launcher") is not None:
    from hydra_plugins.skillbench_plugins._slurm import SkillbenchSlurmConf, SlurmLauncher

    ConfigStore.instance().store(group="hydra/launcher", name="skillbench_slurm", node=SkillbenchSlurmConf,
                                 provider="skillbench")
    __all__ = ["SlurmLauncher"]  # Hydra's plugin scan finds the launcher class here
