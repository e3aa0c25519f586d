"""Records of the judge lab: the label a variant should get, and the labelled transcript itself."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from skillbench.core.records import Rollout

VariantKind = Literal["control", "paraphrase", "defect"]


class ExpectedLabel(BaseModel):
    """What a correct judge should say about a variant."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: VariantKind = Field(description="control: unchanged; paraphrase: reworded, same actions; defect: one known defect.")
    dimension: str | None = Field(None, description="Rubric dimension that should drop (None for controls and paraphrases).")
    hallucination: bool | None = Field(
        None, description="True: the hallucinated_action flag must fire; False: it must not; None: either is defensible."
    )
    expected_pass: bool = Field(description="The verdict the paper pass rule should give.")
    rule_visible: bool = Field(
        False, description="Whether a deterministic rule check can see the defect (the rule baseline's chance)."
    )


class LabelledTranscript(BaseModel):
    """One transcript with a known label, stored content-addressed under kind ``lab_transcripts``."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(description="Content hash of the perturbed rollout and its label.")
    source_key: str = Field(description="Rollout key of the clean source (the control shares it).")
    perturbation: str = Field(description="Registered perturbation name ('control' for the unperturbed copy).")
    label: ExpectedLabel
    edit: str = Field(description="What the perturbation changed, in one line (shown in reports).")
    rollout: Rollout = Field(description="The transcript and call log after the perturbation.")
