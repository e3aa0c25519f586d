"""Bad benchmark data stops at load: one line naming the file, the record and the field, exit 2.

Each case corrupts one file of a copy of the starter benchmark; the loader (and so every command that
runs the benchmark) refuses it with one line, and ``skillbench benchmark lint`` names the same problem
instead of crashing or saying "no problems".
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from skillbench.benchmark import PACKAGED_DIR, load_benchmark
from skillbench.benchmark.lint import lint_benchmark
from skillbench.core.errors import BenchmarkDataError

SCENARIO_FILE = "scenarios/retail_change_delivery_address.yaml"
TOOL_FILE = "tools/orders.yaml"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "bench"
    shutil.copytree(PACKAGED_DIR / "starter", root)
    return root


def _edit(root: Path, relative: str, old: str, new: str) -> None:
    path = root / relative
    text = path.read_text()
    assert old in text, f"{old!r} not in {relative}"
    path.write_text(text.replace(old, new, 1))


def _duplicate_key(root: Path) -> None:
    _edit(root, SCENARIO_FILE, "    objective: ", "    objective: I want something else entirely.\n    objective: ")


def _dangling(root: Path) -> None:
    # The first order of the first scenario points at a customer the state does not hold.
    path = root / SCENARIO_FILE
    text = path.read_text()
    start = text.index("orders:", text.index("initial_state:"))
    line = text.index("customer_id: ", start)
    end = text.index(",", line)
    path.write_text(text[:line] + "customer_id: C-NOBODY" + text[end:])


def _missing_ref(root: Path) -> None:
    _edit(root, TOOL_FILE, "properties:\n", "properties:\n        ghost: {$ref: '#/$defs/missing'}\n")


def _invalid_schema(root: Path) -> None:
    _edit(root, TOOL_FILE, "properties:\n", "properties:\n        broken: {type: 42}\n")


def _list_state(root: Path) -> None:
    _edit(root, SCENARIO_FILE, "    initial_state:\n", "    initial_state:\n      orders_note: just a string\n")


CASES: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    "duplicate YAML key": (_duplicate_key, [SCENARIO_FILE, "duplicate key 'objective'", "line "]),
    "dangling reference": (_dangling, [SCENARIO_FILE, "scenario rt-address-", "initial_state.orders.0.customer_id",
                                       "'C-NOBODY'", "no customers record"]),
    "unresolvable $ref": (_missing_ref, [TOOL_FILE, "input_schema", "'#/$defs/missing'", "resolves to nothing"]),
    "invalid JSON Schema": (_invalid_schema, [TOOL_FILE, "input_schema", "not a valid JSON Schema"]),
    "unsupported shape": (_list_state, [SCENARIO_FILE, "initial_state", "supported shape", "mapping of collection name"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_data_is_one_line_at_load_and_named_by_lint(tmp_path: Path, case: str) -> None:
    corrupt, expected = CASES[case]
    root = _copy(tmp_path)
    corrupt(root)
    with pytest.raises(BenchmarkDataError) as raised:
        load_benchmark(root)
    message = str(raised.value)
    assert "\n" not in message
    for part in expected:
        assert part in message, (part, message)
    assert "Fix:" in message
    report = lint_benchmark(root)  # never raises; names the problem
    lines = [str(problem) for problem in report.problems]
    assert any(expected[1] in line for line in lines), lines


def test_the_run_command_refuses_bad_data_with_exit_2(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _dangling(root)
    done = subprocess.run(
        [sys.executable, "-m", "skillbench", f"benchmark.source={root}", f"hydra.run.dir={tmp_path / 'out'}"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 2, done.stderr
    [line] = [text for text in done.stderr.splitlines() if text.strip()]
    assert "initial_state.orders.0.customer_id" in line and "C-NOBODY" in line
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_duplicate_keys_in_a_mock_config_file_are_refused(tmp_path: Path) -> None:
    from skillbench.core.errors import ConfigError
    from skillbench.tools.serve import load_mock_config

    path = tmp_path / "mock.yaml"
    path.write_text("name: mine\nresponse_mode: stateful\nresponse_mode: static\n")
    with pytest.raises(ConfigError, match="duplicate key 'response_mode'"):
        load_mock_config(str(path))


def test_duplicate_keys_in_a_hydra_config_file_are_one_line(tmp_path: Path) -> None:
    from hydra import compose, initialize_config_dir

    from skillbench.plan.hydra_errors import one_line

    (tmp_path / "config.yaml").write_text("seed: 1\nname: a\nseed: 2\n")
    with initialize_config_dir(version_base="1.3", config_dir=str(tmp_path)), pytest.raises(Exception) as raised:
        compose("config")
    message = one_line(raised.value)
    assert message is not None and "\n" not in message
    assert str(tmp_path / "config.yaml") in message and "line 3" in message and "duplicate key seed" in message
