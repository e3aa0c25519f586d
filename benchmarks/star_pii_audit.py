"""What personal data of STAR's is left in a built ``01_conversations.jsonl``, counted from the raw dialogues.

    skillbench mine ingest=star ingest.path=STAR_DIR out=/tmp/star_bench stage=ingest
    python benchmarks/star_pii_audit.py /tmp/star_bench/_mining/01_conversations.jsonl --star STAR_DIR

Prints one line: conversations whose query arguments still hold a raw ``FullName``, ``AccountNumber`` or
``PIN`` (anything but the scrubber's placeholder, an empty value or null), whose turns hold an 8-digit number,
and whose turns hold one of the full names STAR gives its users (in ``FullName`` slots and "You are <first
last>" guide events anywhere in the built set). The values are read from the raw files here, not by the
converter, so what the converter misses is still counted (docs/pipeline.md, "Measured on STAR").
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

PLACEHOLDER = {"FullName": "[NAME]", "AccountNumber": "[NUMBER]", "PIN": "[PIN]"}
FULL_NAME = re.compile(r"[A-Z][a-z]+ [A-Z][a-z]+")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("conversations", type=Path, help="a built _mining/01_conversations.jsonl of ingest=star")
    parser.add_argument("--star", type=Path, required=True, help="the STAR folder the set was built from (holds dialogues/)")
    args = parser.parse_args()
    built = [json.loads(line)["conversation"] for line in args.conversations.read_text(encoding="utf-8").splitlines() if line]
    full_names: set[str] = set()
    for convo in built:
        raw = json.loads((args.star / "dialogues" / f"{convo['id'].removeprefix('star-')}.json").read_text(encoding="utf-8"))
        for event in raw["Events"]:
            for constraint in event.get("Constraints", []) if event.get("Action") == "query" else []:
                full_names.update(FULL_NAME.findall(str(constraint.get("FullName", ""))))
            if event.get("Agent") == "UserGuide":
                full_names.update(re.findall(r"You are ([A-Z][a-z]+ [A-Z][a-z]+)", event.get("Text", "")))
    names = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(full_names))) + r")\b", re.IGNORECASE) if full_names else None
    left: Counter[str] = Counter()
    eight = with_names = 0
    for convo in built:
        slots = {slot for turn in convo["turns"] for call in turn["tool_calls"] for slot, placeholder in PLACEHOLDER.items()
                 if call["arguments"].get(slot) not in (placeholder, None, "", "null")}
        left.update(slots)
        text = " ".join(turn["text"] for turn in convo["turns"])
        eight += bool(re.search(r"(?<!\d)\d{8}(?!\d)", text))
        with_names += bool(names and names.search(text))
    print(f"conversations {len(built)}; raw in query arguments: FullName {left['FullName']}, AccountNumber "
          f"{left['AccountNumber']}, PIN {left['PIN']}; 8-digit numbers in turns {eight}; full names in turns "
          f"{with_names} (of {len(full_names)} full names)")


if __name__ == "__main__":
    main()
