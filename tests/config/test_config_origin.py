"""A config error names where its value was set (issue 39): on the command line, by the sweep, in an experiment
preset or a config-group file (skillbench's own or a --config-dir's), never a file the value did not come from.
The real entry point, one line, exit 2, no folder; and the precedence itself (command line > sweep > preset >
group file > conf/config.yaml) on composed configs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_module

from skillbench.config.origin import ConfigOrigin
from tests.reliability.harness import skillbench, skillbench_lines


@pytest.fixture(scope="module")
def conf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("origin") / "conf"
    (folder / "agent").mkdir(parents=True)
    (folder / "experiment").mkdir()
    (folder / "agent" / "mine.yaml").write_text(
        "defaults:\n  - sim_careful\n  - _self_\nname: mine\nprogram:\n  _target_: nopkg.Nope\n")
    (folder / "experiment" / "prog.yaml").write_text("# @package _global_\nagent:\n  program:\n    _target_: alsonopkg.Nope\n")
    (folder / "experiment" / "retries.yaml").write_text("# @package _global_\nagent:\n  max_retries: lots\n")
    (folder / "experiment" / "swept.yaml").write_text(
        "# @package _global_\nbenchmark:\n  limit: 1\nhydra:\n  sweeper:\n    params:\n      agent.max_retries: 1,lots\n")
    return folder


@pytest.mark.parametrize(
    ("case", "args", "said"),
    [
        ("a program typo on the command line", ["agent.program={_target_:skillbench.agents.examples.Nope}"],
         "config error on the command line at 'agent.program._target_'"),
        ("the same typo in an agent file of a --config-dir", ["agent=mine"], "config error in {conf}/agent/mine.yaml at "
         "'agent.program._target_'"),
        ("an experiment preset sets it", ["experiment=prog"], "config error in {conf}/experiment/prog.yaml at "
         "'agent.program._target_'"),
        ("the command line overrides the preset", ["experiment=prog", "agent.program._target_=typo.Typo"],
         "config error on the command line at 'agent.program._target_'"),
        ("a bad value in a preset", ["experiment=retries"], "config error in {conf}/experiment/retries.yaml at "
         "'agent.max_retries'"),
        ("a bad value on the command line", ["agent.max_retries=lots"],
         "config error on the command line at 'agent.max_retries'"),
        ("a registry name on the command line", ["mock.response_mode=statefull"],
         "config error on the command line at 'mock.response_mode'"),
        ("a value the sweep sets", ["experiment=swept", "-m"],
         "config error in the sweep (hydra.sweeper.params) at 'agent.max_retries'"),
    ],
)
def test_a_config_error_names_where_the_value_was_set(tmp_path: Path, conf: Path, case: str, args: list[str],
                                                      said: str) -> None:
    flags = [arg for arg in args if arg.startswith("-")]
    overrides = [arg for arg in args if not arg.startswith("-")]
    result = skillbench(tmp_path, *overrides, f"hydra.run.dir={tmp_path / 'run'}", f"hydra.sweep.dir={tmp_path / 'sweep'}",
                        "--config-dir", str(conf), *flags)
    assert result.returncode == 2, (case, result.stderr[-2000:])
    lines = skillbench_lines(result.stderr)
    assert any(said.format(conf=conf) in line for line in lines), (case, lines)
    assert "conf/agent/sim_careful.yaml" not in result.stderr  # the file the value did not come from
    assert not (tmp_path / "run").exists() and not (tmp_path / "sweep").exists()


def _origin(*overrides: str, sweep: tuple[str, ...] = ()) -> ConfigOrigin:
    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        cfg = compose("config", overrides=list(overrides), return_hydra_config=True)
    return ConfigOrigin.of(cfg.hydra, [*overrides, *sweep])


def test_the_later_source_is_named() -> None:
    origin = _origin("agent=sim_sloppy", "experiment=smoke", "judge.timeout_s=30", sweep=("run.seed=3",))
    assert origin.where("judge.timeout_s") == "on the command line"
    assert origin.where("agent.model") == "in conf/agent/sim_sloppy.yaml"  # agent=... chose the file, set no value
    assert origin.where("run.seed") == "in the sweep (hydra.sweeper.params)"
    assert origin.where("experiment") == "in conf/experiment/smoke.yaml"  # the preset sets it
    assert origin.where("run.max_turns") == "in conf/config.yaml"
    whole = _origin("agent.program={_target_:x.Y,k:1}")
    assert whole.where("agent.program._target_") == whole.where("agent.program.k") == "on the command line"
    assert ConfigOrigin(choices={"agent": "gpt5"}).where("agent.params.temperature") == "in conf/agent/gpt5.yaml"
