"""The text formats of the rendered prompts, owned once: headings, labels, markers and line formats.

The templates in this package spell their headings out (a prompt is read as text), and the parsers
next to each ``render_*`` find them through these constants; ``tests/prompts`` fails, naming the
constant, when a template and a constant drift apart. Rendered text is hashed into artifact keys, so
a change here is a prompt-version change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

HEADING = "# "  # a section heading line: '# Workflow steps'
BULLET = "- "
NONE_ITEM = "(none)"  # an empty list, rendered as one item
# A scenario fact the transcript's source never stated (an imported conversation with no benchmark scenario):
# said as unknown, never filled with a default a judge would take for a fact.
NOT_GIVEN = "(not given)"
SEE_CAPABILITY = "(see capability)"  # the agent prompt's empty in-scope list
PLACEHOLDERS = frozenset({NONE_ITEM, SEE_CAPABILITY, NOT_GIVEN})

# A workflow step line: '3. [act] Move it (tools: a.b, c.d) (ask for: x, y) (only when it applies)'.
STEP_LINE = "{index}. [{kind}] {instruction}"
TOOLS_MARK = " (tools: {})"
ASK_FOR_MARK = " (ask for: {})"
OPTIONAL_MARK = " (only when it applies)"
# Another way to complete the step (verify by e-mail, or by name and postcode); rendered only when a step has one.
# Its parts, each present when the way has it: ' (or tools: a.b; ask for: x, y; when status is queued or held)'.
# A step with no way of its own (no tools, no facts) opens with ' (either ...)'.
WAY_OPEN = " ({lead} {parts})"
WAY_LEADS = ("or", "either")
WAY_TOOLS = "tools: {}"
WAY_ASK_FOR = "ask for: {}"
WAY_WHEN = "when {}"  # 'status is printed or shipped and region is north'
WAY_PART_SEPARATOR = "; "
WHEN_IS, WHEN_OR, WHEN_AND = " is ", " or ", " and "
LIST_SEPARATOR = ", "


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Condition = dict[str, list[str]]  # a way's 'when': record field → the values (any of them) it applies for


class StepView(Record):
    """One workflow step as a prompt states it."""

    index: int
    kind: str
    instruction: str
    tools: list[str]
    collects: list[str]
    required: bool
    alternatives: list[tuple[list[str], list[str]]] = Field(default_factory=list, description="other ways: (tools, collects)")
    when: list[Condition] = Field(
        default_factory=list,
        description="each alternative's condition on the record the request is about ({} when none); empty when no "
                    "alternative has one",
    )

    def ways(self) -> list[tuple[list[str], list[str]]]:
        """Every way to complete the step, its own first (when it has tools or facts of its own)."""
        return ([(self.tools, self.collects)] if self.tools or self.collects else []) + list(self.alternatives)

    def conditioned_ways(self) -> list[tuple[list[str], list[str], Condition]]:
        """:meth:`ways` with each one's condition ({} when it has none; the step's own way never has one)."""
        conditions = self.when or [{} for _ in self.alternatives]
        own = [(self.tools, self.collects, {})] if self.tools or self.collects else []
        return own + [(tools, collects, condition) for (tools, collects), condition in zip(self.alternatives, conditions, strict=True)]

    def all_tools(self) -> list[str]:
        return list(dict.fromkeys(name for tools, _ in self.ways() for name in tools))


# A way as a renderer takes it: (tools, collects) or (tools, collects, when).
WayText = tuple[Iterable[str], Iterable[str]] | tuple[Iterable[str], Iterable[str], Mapping[str, Any]]


def render_condition(when: Mapping[str, Any]) -> str:
    """``{status: [printed, shipped]}`` → 'status is printed or shipped' (fields joined by ' and ')."""
    return WHEN_AND.join(
        f"{name}{WHEN_IS}{WHEN_OR.join(str(v) for v in (value if isinstance(value, list) else [value]))}"
        for name, value in when.items()
    )


def _alternative(way: WayText, lead: str) -> str:
    tools, collects, *condition = way
    when: Mapping[str, Any] = condition[0] if condition else {}
    parts = ([WAY_TOOLS.format(LIST_SEPARATOR.join(tools))] if tools else []) + (
        [WAY_ASK_FOR.format(LIST_SEPARATOR.join(collects))] if collects else []) + (
        [WAY_WHEN.format(render_condition(when))] if when else [])
    return WAY_OPEN.format(lead=lead, parts=WAY_PART_SEPARATOR.join(parts)) if parts else ""


def render_step_line(index: int, kind: str, instruction: str, tools: Iterable[str], collects: Iterable[str] = (),
                     required: bool = True, alternatives: Iterable[WayText] = ()) -> str:
    tools, collects = list(tools), list(collects)
    either, orelse = WAY_LEADS[1], WAY_LEADS[0]
    first = orelse if tools or collects else either  # a step with no way of its own reads '(either ...) (or ...)'
    return (
        STEP_LINE.format(index=index, kind=kind, instruction=instruction)
        + (TOOLS_MARK.format(LIST_SEPARATOR.join(tools)) if tools else "")
        + (ASK_FOR_MARK.format(LIST_SEPARATOR.join(collects)) if collects else "")
        + "".join(_alternative(way, first if n == 0 else orelse) for n, way in enumerate(alternatives))
        + ("" if required else OPTIONAL_MARK)
    )


_STEP = re.compile(r"^(?P<index>\d+)\. \[(?P<kind>\w+)\] (?P<rest>.*)$")


def _trailing_list(rest: str, mark: str) -> tuple[str, list[str]]:
    """Cut ``mark``'s ' (label: a, b)' off the end of ``rest``: (what is left, the items)."""
    label = re.escape(mark.strip().split("{}", 1)[0])
    found = re.search(rf"\s*{label}([^)]*)\)$", rest)
    if not found:
        return rest, []
    return rest[: found.start()], [item.strip() for item in found.group(1).split(",") if item.strip()]


def parse_step_line(line: str) -> StepView | None:
    """The inverse of :func:`render_step_line`; None for a line that is not a step."""
    match = _STEP.match(line.strip())
    if not match:
        return None
    rest = match.group("rest")
    optional = rest.endswith(OPTIONAL_MARK.strip())
    if optional:
        rest = rest[: -len(OPTIONAL_MARK.strip())].rstrip()
    alternatives: list[tuple[list[str], list[str]]] = []
    conditions: list[Condition] = []
    while found := _ALTERNATIVE.search(rest):
        tools, collects, when = _way_parts(found.group(2))
        alternatives.insert(0, (tools, collects))
        conditions.insert(0, when)
        rest = rest[: found.start()]
    rest, collects = _trailing_list(rest, ASK_FOR_MARK)
    rest, tools = _trailing_list(rest, TOOLS_MARK)
    return StepView(index=int(match.group("index")), kind=match.group("kind"), instruction=rest.strip(), tools=tools,
                    collects=collects, required=not optional, alternatives=alternatives,
                    when=conditions if any(conditions) else [])


_TOOLS_PREFIX, _ASK_PREFIX, _WHEN_PREFIX = (mark.split("{}")[0] for mark in (WAY_TOOLS, WAY_ASK_FOR, WAY_WHEN))
_WAY_PART = rf"(?:{re.escape(_TOOLS_PREFIX)}|{re.escape(_ASK_PREFIX)}|{re.escape(_WHEN_PREFIX)})[^;()]*"
_ALTERNATIVE = re.compile(
    rf"\s*\(({'|'.join(WAY_LEADS)}) ({_WAY_PART}(?:{re.escape(WAY_PART_SEPARATOR)}{_WAY_PART})*)\)$"
)


def _way_parts(text: str) -> tuple[list[str], list[str], Condition]:
    tools: list[str] = []
    collects: list[str] = []
    when: Condition = {}
    for part in text.split(WAY_PART_SEPARATOR):
        if part.startswith(_TOOLS_PREFIX):
            tools = _items(part[len(_TOOLS_PREFIX):])
        elif part.startswith(_ASK_PREFIX):
            collects = _items(part[len(_ASK_PREFIX):])
        else:
            for clause in part[len(_WHEN_PREFIX):].split(WHEN_AND):
                name, _, values = clause.partition(WHEN_IS)
                when[name.strip()] = [value.strip() for value in values.split(WHEN_OR)]
    return tools, collects, when


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def sections(text: str, marker: str = HEADING) -> dict[str, str]:
    """A prompt split on its headings: heading → body (first occurrence wins)."""
    found: dict[str, str] = {}
    current: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith(marker) and not line.startswith(marker + "#"):
            if current is not None and current not in found:
                found[current] = "\n".join(lines).strip("\n")
            current, lines = line[len(marker):].strip(), []
        else:
            lines.append(line)
    if current is not None and current not in found:
        found[current] = "\n".join(lines).strip("\n")
    return found


def section_starting(parts: dict[str, str], prefix: str) -> str:
    """The body of the first heading that starts with ``prefix`` ('Facts you know (give a fact ...)')."""
    return next((body for title, body in parts.items() if title.startswith(prefix)), "")


def bullet_lines(body: str) -> list[str]:
    """The '- item' lines of a section; a placeholder item ('(none)') yields nothing."""
    items = [line[len(BULLET):].strip() for line in body.splitlines() if line.startswith(BULLET)]
    return [item for item in items if item not in PLACEHOLDERS]


def labelled(block: str, label: str) -> str:
    """The value of a 'Label: value' line ('' when absent)."""
    found = re.search(rf"^{re.escape(label)}:\s*(.*)$", block, re.M)
    return found.group(1).strip() if found else ""


def list_after(block: str, label: str) -> list[str]:
    """The '- item' (or step) lines right after a 'Label:' line, up to the next other line."""
    items: list[str] = []
    inside = False
    for line in block.splitlines():
        if line.strip() == f"{label}:":
            inside = True
            continue
        if inside:
            if line.startswith(BULLET):
                items.append(line[len(BULLET):].strip())
            elif re.match(r"^\d+\. \[", line):
                items.append(line.strip())
            elif line.strip():
                break
    return items
