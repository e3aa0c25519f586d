"""No secret is written, from any source (issue 30 item 3). The rule chosen: a credential in the config is
refused (one line pointing at api_key_env, exit 2, nothing written) - never redacted - and keys in the
environment are read only through api_key_env. Every byte written (run and sweep folders with .hydra and
multirun.yaml, the store, stdout, stderr) is searched for each planted key."""

from __future__ import annotations

import subprocess
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


# -- Printing paths (issue 38 item 8): every flag that prints or echoes a composed config goes through the one
# check of skillbench/plan/secret_guard.py, before Hydra reads the command line.

HEADER_VALUE = "plain-header-value-PLANTED-42"  # no known key format: found by its header's name
ENV_VALUE = "envsecret-PLANTED-no-format-42"  # no known key format: found by its variable's name


@pytest.fixture(scope="module")
def leaky_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's --config-dir with one credential per source: a YAML key (an agent file), an experiment preset,
    a header name, an environment interpolation."""
    folder = tmp_path_factory.mktemp("leaky") / "conf"
    (folder / "agent").mkdir(parents=True)
    (folder / "experiment").mkdir()
    (folder / "agent" / "leaky.yaml").write_text(
        f"defaults:\n  - sim_careful\n  - _self_\nname: leaky\nparams:\n  api_key: {YAML_KEY}\n")
    (folder / "experiment" / "preset.yaml").write_text(
        f"# @package _global_\njudge:\n  params:\n    api_key: {PRESET_KEY}\n")
    (folder / "experiment" / "header.yaml").write_text(
        f"# @package _global_\nagent:\n  params:\n    extra_headers:\n      x-api-key: {HEADER_VALUE}\n")
    (folder / "experiment" / "from_env.yaml").write_text(
        "# @package _global_\nagent:\n  params:\n    base_headers: ${oc.env:OPENAI_API_KEY}\n")
    (folder / "experiment" / "every_source.yaml").write_text(  # the other three at once (with agent=leaky: four)
        f"# @package _global_\njudge:\n  params:\n    api_key: {PRESET_KEY}\nagent:\n  params:\n    extra_headers:\n"
        f"      x-api-key: {HEADER_VALUE}\n    base_headers: ${{oc.env:OPENAI_API_KEY}}\n")
    (folder / "experiment" / "clean.yaml").write_text("# @package _global_\nagent:\n  params:\n    temperature: 0.5\n")
    return folder


SOURCES = {  # the override that brings each credential in, and its value
    "yaml key": ("agent=leaky", YAML_KEY),
    "experiment preset": ("experiment=preset", PRESET_KEY),
    "header name": ("experiment=header", HEADER_VALUE),
    "env interpolation": ("experiment=from_env", ENV_VALUE),
}

# (entry point, flags after the overrides, extra environment)
PRINTERS = {
    "--cfg job": ("skillbench", ["--cfg", "job"], {}),
    "--cfg hydra": ("skillbench", ["--cfg", "hydra"], {}),
    "--cfg all": ("skillbench", ["--cfg", "all"], {}),
    "--cfg job --resolve": ("skillbench", ["--cfg", "job", "--resolve"], {}),
    "--cfg all --resolve": ("skillbench", ["--cfg", "all", "--resolve"], {}),
    "-p agent.params --cfg job --resolve": ("skillbench", ["-p", "agent.params", "--cfg", "job", "--resolve"], {}),
    "--info": ("skillbench", ["--info"], {}),
    "--info config": ("skillbench", ["--info", "config"], {}),
    **{f"--info {topic}": ("skillbench", ["--info", topic], {}) for topic in ("defaults", "defaults-tree", "plugins",
                                                                            "searchpath")},
    "--help": ("skillbench", ["--help"], {}),
    "--help --resolve": ("skillbench", ["--help", "--resolve"], {}),
    "hydra.verbose=true (a run)": ("skillbench", ["hydra.verbose=true"], {}),
    "HYDRA_FULL_ERROR=1 --cfg all --resolve": ("skillbench", ["--cfg", "all", "--resolve"], {"HYDRA_FULL_ERROR": "1"}),
    "skillbench run --cfg job --resolve": ("skillbench.cli", ["--cfg", "job", "--resolve"], {}),
}


PLACES = {"yaml key": "agent.params.api_key", "experiment preset": "judge.params.api_key",
          "header name": "agent.params.extra_headers.x-api-key", "env interpolation": "agent.params.base_headers"}


def _printed(tmp_path: Path, leaky_dir: Path, overrides: list[str], printer: str) -> subprocess.CompletedProcess[str]:
    module, flags, env = PRINTERS[printer]
    command = ["run"] if module == "skillbench.cli" else []
    return skillbench(tmp_path, *command, "--config-dir", str(leaky_dir), *overrides, f"hydra.run.dir={tmp_path / 'run'}",
                      *flags, env={"OPENAI_API_KEY": ENV_VALUE, **env}, module=module)


def _refused_silently(result: subprocess.CompletedProcess[str], tmp_path: Path, secrets: list[str]) -> str:
    for secret in secrets:
        assert (result.stdout + result.stderr).count(secret) == 0, secret
    assert result.returncode == 2, result.stderr[-2000:]
    [line] = skillbench_lines(result.stderr)
    assert "a credential is set in the configuration" in line and "api_key_env" in line and "Fix:" in line
    assert not list(tmp_path.iterdir())  # no run folder, nothing written
    return line


@pytest.mark.parametrize("printer", list(PRINTERS))
def test_no_flag_prints_a_credential_of_the_config(tmp_path: Path, leaky_dir: Path, printer: str) -> None:
    """Every flag, on a config holding a credential from each of the four sources at once: none of the four
    values in stdout or stderr, one refusal line, exit 2 (which source is found is proved one by one below)."""
    result = _printed(tmp_path, leaky_dir, ["agent=leaky", "experiment=every_source"], printer)
    line = _refused_silently(result, tmp_path, [secret for _, secret in SOURCES.values()])
    assert "'agent.params.api_key'" in line and "and 1 more" in line


@pytest.mark.parametrize("source", list(SOURCES))
def test_each_source_of_a_credential_is_found_before_anything_is_printed(tmp_path: Path, leaky_dir: Path,
                                                                         source: str) -> None:
    override, secret = SOURCES[source]
    line = _refused_silently(_printed(tmp_path, leaky_dir, [override], "--cfg job --resolve"), tmp_path, [secret])
    assert f"at '{PLACES[source]}';" in line


@pytest.mark.parametrize("source", list(SOURCES))
def test_tab_completion_never_offers_a_credential(tmp_path: Path, leaky_dir: Path, source: str) -> None:
    """Completing ``<key>=`` prints the key's current value (Hydra's completion); a config holding a credential
    gets no candidates and the refusal on stderr, which the completion script discards."""
    override, secret = SOURCES[source]
    line = f"python -m skillbench hydra.searchpath=[file://{leaky_dir}] {override} {PLACES[source]}="
    result = skillbench(tmp_path, "-sc", "query=bash", env={"COMP_LINE": line, "OPENAI_API_KEY": ENV_VALUE})
    assert (result.stdout + result.stderr).count(secret) == 0, source
    assert result.stdout.strip() == "" and "a credential is set in the configuration" in result.stderr


def test_a_config_without_credentials_is_still_printed_and_completed(tmp_path: Path, leaky_dir: Path) -> None:
    shown = skillbench(tmp_path, "--config-dir", str(leaky_dir), "experiment=clean", "--cfg", "job", "--resolve",
                       env={"OPENAI_API_KEY": ENV_VALUE})
    assert shown.returncode == 0 and "temperature: 0.5" in shown.stdout, shown.stderr[-2000:]
    line = f"python -m skillbench hydra.searchpath=[file://{leaky_dir}] experiment=clean agent.params.temperature="
    completed = skillbench(tmp_path, "-sc", "query=bash", env={"COMP_LINE": line})
    assert completed.stdout.split() == ["agent.params.temperature=0.5"], completed.stderr[-2000:]


def test_a_key_in_the_error_hydra_would_print_is_refused_naming_its_key(tmp_path: Path, leaky_dir: Path) -> None:
    """Hydra refuses a value of the wrong type by quoting it ("Value 'sk-...' is not a valid bool"): the refusal
    names the key instead, with HYDRA_FULL_ERROR=1 too."""
    (leaky_dir / "experiment" / "typed.yaml").write_text(f"# @package _global_\nhydra:\n  job:\n    chdir: {YAML_KEY}\n")
    result = skillbench(tmp_path, "--config-dir", str(leaky_dir), "experiment=typed", env={"HYDRA_FULL_ERROR": "1"})
    assert YAML_KEY not in result.stdout + result.stderr and result.returncode == 2
    assert "at 'hydra.job.chdir'" in result.stderr
