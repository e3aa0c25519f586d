"""The user simulator's system prompt: persona, goal, facts and path-specific behaviour. No tools."""

from __future__ import annotations

from skillbench.benchmark.schema import Scenario, Skill

USER_PROMPT_VERSION = "user-v1"


def render_user_prompt(scenario: Scenario, skill: Skill, stop_marker: str) -> str:
    persona = scenario.persona
    facts = "\n".join(f"- {key}: {value}" for key, value in scenario.user_facts.items()) or "- (none)"
    withheld = "\n".join(f"- {key}" for key in scenario.withheld_facts) or "- (none)"
    behaviour = "\n".join(f"- {item}" for item in scenario.user_instructions) or "- (none)"
    examples = "\n".join(f'- "{item}"' for item in persona.example_utterances) or "- (none)"
    return f"""You are role-playing a customer who contacts {skill.company} support. You are not an assistant.
Stay in character, write only what the customer says, one short message at a time. You have no tools.

# Persona
label: {persona.label}
traits: {", ".join(persona.traits) or "-"}
style: {persona.style or "-"}
motivation: {persona.motivation or "-"}
example utterances:
{examples}

# Your goal
{scenario.objective}

# Facts you know (give a fact only when the agent asks for it, exactly as written)
{facts}

# Facts you do not have (say you do not know if asked)
{withheld}

# How to behave in this conversation
{behaviour}

# Ending
When your goal is met, when the agent ends or transfers the conversation, or when you would hang up,
reply with {stop_marker} alone."""


def render_opening_instruction() -> str:
    """The first user-turn message given to the simulator (the agent has not spoken yet)."""
    return "The support line has answered. Write your first message to the agent."
