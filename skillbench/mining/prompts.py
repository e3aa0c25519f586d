"""Versioned prompt templates of the build's model stages (``<model>.prompt_template`` picks the version).

A change to a template's wording is a new version (``v2``), never an edit of ``v1``: the version is
part of every stored item's key, so old builds stay reproducible and a new version recomputes.
Every text a template receives has been scrubbed of personal data at ingest.
"""

from __future__ import annotations

EXTRACT = {
    "v1": (
        "You read a customer-support transcript and list, in order, the actions the AGENT took "
        "(asking for a detail, looking something up, changing a record, informing the customer). "
        "Name each action in snake_case, e.g. ask_name, lookup_order, inform_balance. Leave out greetings. "
        'Reply with JSON only: {"actions": ["...", "..."]}.'
    ),
    # v2: the tool catalogue is given, and each use of a tool is named query:<tool> (the skill writer's tool steps).
    "v2": (
        "You read a customer-support transcript (personal data is replaced by placeholders such as [NAME]) and a "
        "tool catalogue, and list, in order, the actions the AGENT took (asking for a detail, looking something up, "
        "changing a record, informing the customer). Name each action in snake_case, e.g. ask_name, inform_balance; "
        "name each use of a catalogue tool query:<tool>, with the tool's name exactly as the catalogue gives it, "
        "e.g. query:bank_balance. Leave out greetings. "
        'Reply with JSON only: {"actions": ["...", "..."]}.'
    ),
}

REPRESENT = {
    "v1": (
        "You are given the action sequences of customer-support conversations that were grouped together "
        "because their agents did similar things. Write the ONE representative workflow: the ordered actions "
        "an agent should take to handle this kind of call. Use only action names that occur in the sequences "
        "(keep 'query:<api>' names as they are); leave out greetings and repeats. "
        'Reply with JSON only: {"actions": ["...", "..."]}.'
    ),
}

INSTRUCTIONS = {
    "v1": (
        "You read one customer-support transcript (personal data is replaced by placeholders such as [NAME]) "
        "and a tool catalogue. Say which catalogue tools the agent used or should have used, and write the "
        "agent's instructions for this kind of call as short imperative steps, in order. Use only tool names "
        'from the catalogue. Reply with JSON only: {"tools": ["<catalogue tool>", ...], "instructions": ["...", ...]}.'
    ),
}

MERGE = {
    "v1": (
        "Merge the per-transcript instructions below into ONE skill for a customer-support agent. Identity "
        "verification (before anything is shared or changed), the confirmation message and escalation are added "
        "for you: write no steps for them. Steps are one of "
        '{"kind": "collect", "facts": ["snake_case_fact", ...at most two], "text": "..."}, '
        '{"kind": "lookup" or "act", "tool": "<catalogue tool>", "text": "..."}, {"kind": "inform", "text": "..."}. '
        "Use only catalogue tools and include at least one tool step. Reply with JSON only: "
        '{"name": "...", "capability": "one sentence", "steps": [...], "guardrails": ["..."], "success": ["..."]}.'
    ),
}

JUDGE = {
    "v1": (
        "You review a skill written for a customer-support agent before it goes into a benchmark. Check its "
        "logic (steps in a workable order, facts collected before the tool that needs them, every tool step "
        "uses a catalogue tool) and its compliance: nothing about the account may be shared or changed before "
        "the caller's identity is verified (a verification step is placed before the steps for you; flag any "
        "step or guardrail that would skip or undo it), and nothing may be disclosed to anyone but the verified "
        "account holder. Fix what can be fixed: return the corrected steps (same format) and any guardrails "
        "to add, and list each fix. Drop the skill (keep false) when it is not a coherent support task. "
        'Reply with JSON only: {"keep": true, "quality": 1-5, "reason": "...", "fixes": ["..."], '
        '"steps": null or [...], "guardrails": ["..."]}.'
    ),
}

CONVERSATION = {
    "v1": (
        "Write one realistic customer-support phone conversation for the skill and scenario below: the caller "
        "behaves as the persona and scenario say, and the agent follows the workflow and guardrails (describe "
        "tool use in the agent's words). At least two exchanges. "
        'Reply with JSON only: {"turns": [{"speaker": "customer" or "agent", "text": "..."}, ...]}.'
    ),
}

RATE = {
    "v1": (
        "Rate the conversation below against its skill and scenario, each from 1 (poor) to 5 (excellent): "
        "realism (sounds like a real call), workflow_adherence (the agent follows the workflow and guardrails), "
        "persona_fidelity (the caller behaves as the persona), scenario_fit (it plays out the scenario as stated). "
        'Reply with JSON only: {"scores": {"realism": n, "workflow_adherence": n, "persona_fidelity": n, '
        '"scenario_fit": n}, "reason": "one sentence"}.'
    ),
}

STAGE_PROMPTS = {"extract": EXTRACT, "represent": REPRESENT, "instructions": INSTRUCTIONS, "merge": MERGE, "judge": JUDGE,
                 "conversation": CONVERSATION, "rate": RATE}


def prompt(stage: str, version: str) -> str:
    """The system prompt of ``stage`` at ``version``; KeyError names the versions there are."""
    versions = STAGE_PROMPTS[stage]
    if version not in versions:
        raise KeyError(f"no {stage} prompt '{version}' (versions: {', '.join(sorted(versions))})")
    return versions[version]
