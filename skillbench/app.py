"""The Hydra entry point: ``python -m skillbench [overrides] [-m]``. Thin: validate, then run the job."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import traceback
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from skillbench.benchmark import load_benchmark, select_scenarios
from skillbench.config import RunConfig, validate_config
from skillbench.config.schema import LlmMock
from skillbench.core.errors import BenchmarkDataError, ConfigError, SkillbenchError
from skillbench.engine.results import JOB_ERROR_FILE, SUMMARY_FILE
from skillbench.store import write_json_atomic

log = logging.getLogger("skillbench")

# Files Hydra writes into a folder before the job starts; removing only these never touches user data.
_HYDRA_FILES = (".hydra/config.yaml", ".hydra/hydra.yaml", ".hydra/overrides.yaml", "skillbench.log")


def _remove_hydra_leftovers(job_dir: Path, multirun: bool) -> None:
    """A job refused before it started leaves no output folder behind."""
    for name in _HYDRA_FILES:
        with contextlib.suppress(FileNotFoundError):
            (job_dir / name).unlink()
    for folder in (job_dir / ".hydra", job_dir):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only succeeds when empty
    if multirun:
        sweep_dir = job_dir.parent
        remaining = [p for p in sweep_dir.iterdir() if p.name != "multirun.yaml"] if sweep_dir.is_dir() else []
        if not remaining:
            with contextlib.suppress(FileNotFoundError):
                (sweep_dir / "multirun.yaml").unlink()
            with contextlib.suppress(OSError):
                sweep_dir.rmdir()


def check_credentials(cfg: RunConfig) -> None:
    """A hosted provider without its key would fail every call; say so once, before anything runs."""
    roles = [("agent", cfg.agent), ("judge", cfg.judge), ("user_sim", cfg.user_sim)]
    if isinstance(cfg.mock, LlmMock):
        roles.append(("mock.llm", cfg.mock.llm))
    for role, model in roles:
        self_hosted = model.api_base is not None  # an OpenAI-compatible server of your own may need no key
        if model.simulated or self_hosted or not model.api_key_env or os.environ.get(model.api_key_env):
            continue
        raise ConfigError(
            f"{role} '{model.name}' ({model.model}) needs the environment variable {model.api_key_env}. "
            f"Fix: export {model.api_key_env}=<your key>, or pick an offline model (e.g. {role.split('.')[0]}=sim_*)."
        )


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> float | None:
    # Imported here, not at the top: `--help` and refused configs never load the engine (MCP SDK...).
    from skillbench.engine.job import run_job
    from skillbench.engine.names import check_registered_names

    hydra_cfg = HydraConfig.get()
    job_dir = Path(hydra_cfg.runtime.output_dir)
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    try:
        choices = dict(hydra_cfg.runtime.choices)
        run_cfg = validate_config(cfg, choices=choices)
        check_registered_names(run_cfg, choices)
        check_credentials(run_cfg)
        # Load and select the scenarios up front: a malformed data file is refused like a bad config.
        select_scenarios(load_benchmark(run_cfg.benchmark.source), run_cfg.benchmark)
    except (ConfigError, BenchmarkDataError) as exc:
        for handler in logging.getLogger().handlers:
            handler.close()
        _remove_hydra_leftovers(job_dir, multirun)
        print(f"skillbench: {exc}", file=sys.stderr)
        sys.exit(2)
    try:
        summary = run_job(run_cfg, job_dir)
    except SkillbenchError as exc:
        return _job_failed(job_dir, exc, multirun, user_error=True)
    except Exception as exc:  # a crash in one job must not stop the sweep or its report
        return _job_failed(job_dir, exc, multirun, user_error=False)
    return summary.pass_rate


def _job_failed(job_dir: Path, exc: BaseException, multirun: bool, *, user_error: bool) -> None:
    """Record why the job failed; a sweep goes on (and its report lists the job as missing)."""
    write_json_atomic(
        job_dir / JOB_ERROR_FILE,
        {"error": str(exc), "type": type(exc).__name__, "traceback": None if user_error else traceback.format_exc()},
    )
    (job_dir / SUMMARY_FILE).unlink(missing_ok=True)
    if user_error:
        log.error("%s", exc)
    else:
        log.exception("job failed")
    if not multirun:
        print(f"skillbench: {exc}", file=sys.stderr)
        sys.exit(1)
    return None


def main_argv(argv: list[str]) -> int:
    """``skillbench run ...``: the same as ``python -m skillbench ...``."""
    sys.argv = [sys.argv[0] if sys.argv else "skillbench", *argv]
    main()
    return 0


if __name__ == "__main__":
    main()
