"""Registries stay open: a name a config gives is checked against its registry, and no closed list (a
``Literal`` of names, a tuple of choices) repeats a registry's names, so a new check, table, mode or
format is one registration (plus one YAML) and nothing else."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
import yaml

import skillbench
from skillbench.config.schema import BUILTIN_MOCKS
from skillbench.core.registry import Registry
from skillbench.evaluation.checks import RULE_CHECKS
from skillbench.lab.perturb import PERTURBATIONS
from skillbench.mining.ingest import READERS
from skillbench.report.tables import TABLES, load_table_families
from skillbench.tools.modes import RESPONSE_MODES
from skillbench.tools.stages import MOCK_STAGES
from tests.support.nonempty import nonempty

PACKAGE = Path(skillbench.__file__).parent
CONF = PACKAGE / "conf"


def _registries() -> dict[str, Registry[Any]]:
    load_table_families()
    return {"RULE_CHECKS": RULE_CHECKS, "RESPONSE_MODES": RESPONSE_MODES, "MOCK_STAGES": MOCK_STAGES,
            "READERS": READERS, "TABLES": TABLES, "PERTURBATIONS": PERTURBATIONS}


def _yamls(group: str) -> list[dict[str, Any]]:
    return [yaml.safe_load(p.read_text()) for p in nonempty(sorted((CONF / group).glob("*.yaml")), f"{group} options")]


def test_every_name_a_shipped_config_gives_is_registered() -> None:
    assert set(BUILTIN_MOCKS) <= set(RESPONSE_MODES.names())  # typed settings for these modes, the code in the registry
    for option in _yamls("mock"):
        assert option["response_mode"] in RESPONSE_MODES, option["name"]
    for option in _yamls("mining/ingest"):
        assert option["format"] in READERS, option["name"]
    for option in _yamls("pass_rule"):
        assert all(name in RULE_CHECKS for name in option.get("hard_checks") or []), option["name"]


def _closed_lists(tree: ast.AST, names: set[str]) -> list[tuple[int, set[str]]]:
    """A ``Literal[...]`` of two or more registered names (a type that closes the registry), or a tuple, list or
    set display of every registered name (a second list of the choices), with its line. Naming one or two
    particular entries (e.g. checks that do not apply to imported transcripts) is not a closed list."""
    found: list[tuple[int, set[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            values = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
            closes = lambda strings: len(strings) >= 2 and strings <= names  # noqa: E731
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            values = list(node.elts)
            closes = lambda strings: strings == names  # noqa: E731
        else:
            continue
        strings = {v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
        if len(strings) == len(values) and closes(strings):
            found.append((node.lineno, strings))
    return found


@pytest.mark.parametrize("registry", sorted(_registries()))
def test_no_closed_list_repeats_a_registry(registry: str) -> None:
    names = set(_registries()[registry].names())
    assert len(names) >= 2, f"{registry} has fewer than two names: the test would prove nothing"
    repeats = []
    for file in sorted(PACKAGE.rglob("*.py")):
        for line, strings in _closed_lists(ast.parse(file.read_text(encoding="utf-8")), names):
            repeats.append(f"{file.relative_to(PACKAGE.parent)}:{line} {sorted(strings)}")
    assert not repeats, f"closed lists of {registry} names (check against the registry instead): {repeats}"
