"""What the domain format can say (issue 43 item 2): each gap a ported domain hit, closed and shown here.

Cases edit a copy of a packaged example domain and load it (one line, exit-2 error at load) or lint it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from skillbench.benchmark import PACKAGED_DIR, load_benchmark
from skillbench.benchmark.integrity import FieldPath, dangling_references
from skillbench.benchmark.lint import lint_benchmark
from skillbench.core.errors import BenchmarkDataError


def _copy(tmp_path: Path, name: str = "toolshed") -> Path:
    root = tmp_path / name
    shutil.copytree(PACKAGED_DIR / name, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _edit_yaml(path: Path, change: Callable[[Any], None]) -> None:
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def _load_error(root: Path) -> str:
    with pytest.raises(BenchmarkDataError) as raised:
        load_benchmark(root)
    message = str(raised.value)
    assert "\n" not in message and "Fix:" in message, message
    return message


def _lint_lines(root: Path) -> list[str]:
    return [str(problem) for problem in lint_benchmark(root).problems]


# -- 5. references: nested paths, checked at load; a misspelt entry is refused with a did-you-mean ------------


def _with_parts(root: Path, part: str = "T-104") -> None:
    """Give a loan a nested list of records (parts: [{item_id}]) pointing at items."""
    def change(data: Any) -> None:
        loan = data["scenarios"][0]["initial_state"]["loans"][0]
        loan["parts"] = [{"part_id": "T-233", "note": "charger"}, {"part_id": part, "note": "battery"}]
    _edit_yaml(root / "scenarios" / "toolshed_return_tools.yaml", change)


def _references(root: Path, references: dict[str, str]) -> None:
    _edit_yaml(root / "benchmark.yaml", lambda data: data.__setitem__("references", references))


def test_a_nested_reference_is_checked_at_load_and_its_message_names_the_target_field(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _with_parts(root, part="T-999")
    _references(root, {"loans.parts[].part_id": "items.item_id"})
    message = _load_error(root)
    assert ("scenario ts-return-happy-01: field 'scenarios.0.initial_state.loans.0.parts.1.part_id' is 'T-999', "
            "but no items record has item_id 'T-999'. Fix: add that record to initial_state.items or correct the id.") in message
    assert any("loans.0.parts.1.part_id' is 'T-999', but no items record has item_id" in line for line in _lint_lines(root))


def test_a_valid_nested_reference_loads(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _with_parts(root)
    _references(root, {"loans.parts[].part_id": "items.item_id"})
    assert load_benchmark(root).manifest.references == {"loans.parts[].part_id": "items.item_id"}


def test_a_declared_reference_names_the_target_key_not_the_source_field() -> None:
    state = {"users": [{"user_id": "u1"}], "orders": [{"order_id": "o1", "buyer": "ghost"}]}
    [dangling] = dangling_references(state, {"orders.buyer": "users.user_id"})
    assert str(dangling) == "initial_state.orders.0.buyer' is 'ghost', but no users record has user_id 'ghost'"


@pytest.mark.parametrize(("references", "expected"), [
    ({"loanz.member_id": "members.member_id"},
     "field 'references.loanz.member_id': 'loanz' in 'loanz.member_id' is no collection of any scenario's initial_state "
     "or tool. Fix: did you mean 'loans'?"),
    ({"loans.membr": "members.member_id"},
     "field 'references.loans.membr': no loans record has a field 'membr' (in 'loans.membr'). Fix: did you mean 'member_id'?"),
    ({"loans.member_id": "members.member_idd"},
     "field 'references.loans.member_id': no members record has a field 'member_idd' (in 'members.member_idd'). "
     "Fix: did you mean 'member_id'?"),
    ({"loans.parts.part_id": "items.item_id"},
     "'parts' holds a list of records, so 'loans.parts.part_id' reaches no field. Fix: write 'loans.parts[].part_id'"),
    ({"loans.parts[].partid": "items.item_id"},
     "no loans record's parts[] has a field 'partid' (in 'loans.parts[].partid'). Fix: did you mean 'part_id'?"),
    ({"loans.due_date[].day": "items.item_id"},
     "'due_date' is not a list, so '[]' in 'loans.due_date[].day' walks nothing. Fix: write 'loans.due_date.day'"),
    ({"loans": "members.member_id"}, "'loans' is not '<collection>.<field>'"),
])
def test_a_reference_that_names_nothing_is_refused_at_load_with_the_nearest_name(
        tmp_path: Path, references: dict[str, str], expected: str) -> None:
    root = _copy(tmp_path)
    _with_parts(root)
    _references(root, references)
    message = _load_error(root)
    assert message.startswith(f"{root / 'benchmark.yaml'}: "), message
    assert expected in message, message
    lines = _lint_lines(root)
    assert lines and lines[0].startswith("benchmark.yaml: references.") and expected.split(": ", 1)[-1] in lines[0], lines
    assert not any("dangling" in line or "but no" in line for line in lines), lines  # not flooded by what it switched off


def test_field_paths_walk_mappings_and_lists_of_records() -> None:
    record = {"order_id": "o1", "items": [{"product_id": "p1"}, {"product_id": "p2", "extra": {"code": "x"}}],
              "shipping": {"country_id": "c1"}, "tags": ["a", "b"]}
    assert list(FieldPath.parse("orders.items[].product_id").values(record)) == [("items.0.product_id", "p1"),
                                                                                  ("items.1.product_id", "p2")]
    assert list(FieldPath.parse("orders.shipping.country_id").values(record)) == [("shipping.country_id", "c1")]
    assert list(FieldPath.parse("orders.items[].extra.code").values(record)) == [("items.1.extra.code", "x")]
    assert list(FieldPath.parse("orders.tags").values(record)) == [("tags.0", "a"), ("tags.1", "b")]
    assert list(FieldPath.parse("orders.missing[].x").values(record)) == []
    for bad in ("orders", "orders..x", "orders.items[]", "orders.it-ems"):
        with pytest.raises(ValueError):
            FieldPath.parse(bad)
