"""No secret is written, from any source (issue 30 item 3). The rule chosen: a credential in the config is
refused (one line pointing at api_key_env, exit 2, nothing written) - never redacted - and keys in the
environment are read only through api_key_env. Every byte written (run and sweep folders with .hydra and
multirun.yaml, the store, stdout, stderr) is searched for each planted key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.harness import SMALL, skillbench, skillbench_lines

# Values in known key formats (and unique markers to grep for).
CLI_KEY = "sk-PLANTEDcli0123456789abcdef"
SWEEP_KEY = "sk-ant-PLANTEDsweep0123456789"
YAML_KEY = "sk-proj-PLANTEDyaml0123456789"
PRESET_KEY = "AIzaPLANTEDpreset0123456789abcdefghijklmn"
FORMAT_KEY = "hf_PLANTEDformat0123456789abcdef"
ENV_KEY = "sk-PLANTEDenv0123456789abcdef"
ENV_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "SKILLBENCH_GPT5_API_KEY", "HF_TOKEN")


def _written(root: Path, *streams: str) -> bytes:
    return b"".join([p.read_bytes() for p in root.rglob("*") if p.is_file()] + [s.encode() for s in streams])


@pytest.fixture
def conf(tmp_path: Path) -> Path:
    """A user's config folder (outside the output folder) with a leaky agent file and a leaky experiment preset."""
    folder = tmp_path / "conf"
    (folder / "agent").mkdir(parents=True)
    (folder / "experiment").mkdir()
    (folder / "agent" / "leaky.yaml").write_text(
        f"defaults:\n  - sim_careful\n  - _self_\nname: leaky\nparams:\n  api_key: {YAML_KEY}\n")
    (folder / "experiment" / "leaky.yaml").write_text(
        "# @package _global_\njudge:\n  params:\n"
        f"    extra_headers:\n      X-Goog-Api-Key: {PRESET_KEY}\n")
    (folder / "agent" / "from_env.yaml").write_text(
        "defaults:\n  - sim_careful\n  - _self_\nname: from_env\nparams:\n  user: ${oc.env:PLANTED_VAR}\n")
    return folder


@pytest.mark.parametrize(
    ("case", "args", "secret"),
    [
        ("cli override", [f"+agent.params.api_key={CLI_KEY}"], CLI_KEY),
        ("cli sweep", [f"+agent.params.api_key={SWEEP_KEY},other", "-m"], SWEEP_KEY),
        ("cli format only", [f"+agent.params.extra_headers.X-Custom={FORMAT_KEY}"], FORMAT_KEY),
        ("yaml param", ["agent=leaky"], YAML_KEY),
        ("experiment preset", ["experiment=leaky"], PRESET_KEY),
        ("experiment preset, sweep", ["experiment=leaky", "agent=sim_careful,sim_sloppy", "-m"], PRESET_KEY),
        ("env interpolation", ["agent=from_env"], FORMAT_KEY),
    ],
)
def test_a_planted_key_is_refused_and_never_written(tmp_path: Path, conf: Path, case: str, args: list[str],
                                                    secret: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    result = skillbench(out, *SMALL, f"hydra.searchpath=[file://{conf}]", f"store.root={out / 'store'}",
                        f"hydra.run.dir={out / 'run'}", f"hydra.sweep.dir={out / 'sweep'}", *args,
                        env={"PLANTED_VAR": FORMAT_KEY})
    assert result.returncode == 2, (case, result.stderr[-2000:])
    lines = skillbench_lines(result.stderr)
    assert len(lines) == 1 and "api_key_env" in lines[0], (case, result.stderr)
    assert secret.encode() not in _written(out, result.stdout, result.stderr), case
    assert not (out / "run").exists() and not (out / "sweep").exists() and not (out / "store").exists()


def test_a_key_on_any_subcommand_line_is_refused(tmp_path: Path) -> None:
    result = skillbench(tmp_path, "judges", "validate", f"+judge.params.api_key={CLI_KEY}", module="skillbench.cli")
    assert result.returncode == 2 and CLI_KEY not in result.stderr + result.stdout
    assert "'judge.params.api_key'" in result.stderr


def test_environment_keys_are_never_written(tmp_path: Path) -> None:
    """Keys in the environment (where api_key_env points) are used, never stored: a run and a sweep, every byte."""
    env = {name: f"{ENV_KEY}{i}" for i, name in enumerate(ENV_VARS)}
    run = skillbench(tmp_path, *SMALL, f"store.root={tmp_path / 'store'}", f"hydra.run.dir={tmp_path / 'run'}",
                     env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    sweep = skillbench(tmp_path, *SMALL, "agent=sim_careful,sim_sloppy", f"store.root={tmp_path / 'store'}",
                       f"hydra.sweep.dir={tmp_path / 'sweep'}", "-m", env=env)
    assert sweep.returncode == 0, sweep.stderr[-2000:]
    written = _written(tmp_path, run.stdout, run.stderr, sweep.stdout, sweep.stderr)
    assert (tmp_path / "sweep" / "multirun.yaml").exists() and (tmp_path / "run" / ".hydra").is_dir()
    assert b"PLANTEDenv" not in written


@pytest.mark.parametrize("item", ["+agent.params.input_cost_per_token=3e-06", "agent.params.max_tokens=512",
                                  "+judge.params.output_cost_per_token=1.5e-05,2e-05"])
def test_settings_named_like_a_token_that_hold_numbers_are_not_credentials(item: str) -> None:
    from skillbench.config.secrets import argument_credentials, find_credentials

    assert argument_credentials([item]) == []
    assert find_credentials({"hydra": {"job": {"override_dirname": f"{item},benchmark.limit=2"}}}) == []
    assert find_credentials({"agent": {"params": {"input_cost_per_token": 3e-06, "refresh_token": "abc123"}}}) == [
        "agent.params.refresh_token"]


def test_an_in_process_run_that_ended_by_exit_does_not_keep_its_folder(tmp_path: Path) -> None:
    from skillbench.store.ownership import claim, live_owner

    first = claim(tmp_path / "run", "run")  # never released, as a run ended by sys.exit inside a test process
    assert first.folder == (tmp_path / "run").resolve()
    second = claim(tmp_path / "run", "run")
    assert live_owner(tmp_path / "run") is not None
    second.release()
    assert live_owner(tmp_path / "run") is None
