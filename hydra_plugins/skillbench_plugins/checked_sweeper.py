"""Hydra's basic sweeper, minus composing once more the jobs skillbench's preflight has just composed.

Before it launches a batch, the basic sweeper composes every job of it to catch composition errors before any
job starts: about 0.2 s per job here, 2 s of a 3 x 3 sweep and 15 s of the 85-job paper grid, spent in one
process before the first call (``benchmarks/perf.py --only sweep``). skillbench's plan callback
(``on_multirun_start``) has by then composed every job of the sweep, and refused the sweep (exit 2, before any
folder exists) if one did not compose (skillbench/plan/sweep.py ``compose_jobs``). This sweeper skips exactly the
jobs that callback composed; any other job (``run.preflight=false`` composes none) is validated as Hydra does.
"""

# No `from __future__ import annotations`: Hydra scans plugin modules before they are in sys.modules, where
# dataclasses would look string annotations up.
from collections.abc import Sequence
from dataclasses import dataclass

from hydra.core.config_store import ConfigStore

from skillbench.plan.hydra_internals import BasicSweeper  # Hydra's private sweeper: see that module


@dataclass
class CheckedSweeperConf:
    _target_: str = "hydra_plugins.skillbench_plugins.checked_sweeper.CheckedSweeper"
    max_batch_size: int | None = None
    params: dict[str, str] | None = None


ConfigStore.instance().store(group="hydra/sweeper", name="skillbench", node=CheckedSweeperConf, provider="skillbench")


class CheckedSweeper(BasicSweeper):
    def validate_batch_is_legal(self, batch: Sequence[Sequence[str]]) -> None:
        # Imported here: Hydra imports every plugin module at each start, and plan.sweep loads the benchmark code.
        from skillbench.plan.sweep import composed_overrides

        assert self.config is not None
        done = composed_overrides(self.config)
        unchecked = [job for job in batch if tuple(job) not in done]
        if unchecked:
            super().validate_batch_is_legal(unchecked)
