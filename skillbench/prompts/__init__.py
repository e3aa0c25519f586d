"""Prompt templates of the three roles. Their version strings are part of the artifact keys."""

from skillbench.prompts.agent import (
    AGENT_PROMPT_VERSION,
    CONTROL_TOOL_DEFINITIONS,
    CONTROL_TOOLS,
    END_CONVERSATION,
    TRANSFER_TO_HUMAN,
    render_agent_prompt,
)
from skillbench.prompts.judge import (
    JUDGE_PROMPT_VERSION,
    OUTPUT_KEYS,
    RUBRIC,
    render_judge_prompt,
    render_transcript,
)
from skillbench.prompts.user import USER_PROMPT_VERSION, render_opening_instruction, render_user_prompt

__all__ = [
    "AGENT_PROMPT_VERSION",
    "CONTROL_TOOLS",
    "CONTROL_TOOL_DEFINITIONS",
    "END_CONVERSATION",
    "JUDGE_PROMPT_VERSION",
    "OUTPUT_KEYS",
    "RUBRIC",
    "TRANSFER_TO_HUMAN",
    "USER_PROMPT_VERSION",
    "render_agent_prompt",
    "render_judge_prompt",
    "render_opening_instruction",
    "render_transcript",
    "render_user_prompt",
]
