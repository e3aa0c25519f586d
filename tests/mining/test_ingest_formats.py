"""An ingest format is one registered reader: docs/pipeline.md's CSV example, run from the page, is accepted by
the config and read by the ingest stage; an unknown format or a missing path is one line naming the fix."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillbench.core.errors import ConfigError
from skillbench.mining.cli import mine_main
from skillbench.mining.config import CONF_DIR, load_config
from skillbench.mining.ingest import READERS
from skillbench.mining.pipeline import MiningRun

DOC = Path(__file__).resolve().parents[2] / "docs" / "pipeline.md"


def _doc_blocks(heading: str, language: str) -> list[str]:
    section = DOC.read_text(encoding="utf-8").split(heading, 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.S)


@pytest.fixture
def csv_format() -> Iterator[None]:
    [code] = _doc_blocks("### A new ingest format", "python")
    exec(compile(code, f"{DOC}:A new ingest format", "exec"), {})
    try:
        yield
    finally:
        READERS.unregister("csv")


def test_the_docs_csv_reader_is_one_registration_and_the_ingest_stage_reads_it(csv_format: None, tmp_path: Path) -> None:
    assert "csv" in READERS
    calls = tmp_path / "calls.csv"
    calls.write_text("conversation_id,speaker,text\nc1,customer,My card is gone.\nc1,agent,I have blocked it.\n"
                     "c2,customer,What is my balance?\n", encoding="utf-8")
    # The doc's YAML, as an override of another option's file (the conf folder is the package's).
    [yaml_text] = _doc_blocks("### A new ingest format", "yaml")
    assert "format: csv" in yaml_text
    cfg = load_config(["ingest=jsonl", "ingest.name=csv", "ingest.format=csv", f"ingest.path={calls}", f"out={tmp_path / 'o'}"])
    scrubbed = MiningRun(cfg).ingest()
    assert [c.conversation.id for c in scrubbed] == ["c1", "c2"]
    assert [t.text for t in scrubbed[0].conversation.turns] == ["My card is gone.", "I have blocked it."]


def test_an_unknown_format_names_the_registered_ones(tmp_path: Path) -> None:
    registered = re.escape(", ".join(READERS.names()))  # the registry's listing, whatever it holds
    with pytest.raises(ConfigError, match=rf"field 'ingest.format'.*unknown ingest format 'csv'; registered: {registered}"):
        load_config(["ingest=jsonl", "ingest.format=csv", f"ingest.path={tmp_path}", f"out={tmp_path / 'o'}"])


@pytest.mark.parametrize("option", sorted(path.stem for path in (CONF_DIR / "ingest").glob("*.yaml")))
def test_no_default_data_folder_the_path_is_named_by_the_user(option: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(ConfigError, match=r"ingest.path is not set.*Fix: add ingest.path=<") as caught:
        mine_main([f"ingest={option}", f"out={out}"])
    assert "\n" not in str(caught.value) and "shared" not in str(caught.value)
    assert not out.exists()
