"""The judge validity lab: transcripts with known labels (controlled perturbations of clean rollouts, or
imported human-labelled conversations) and the measurement of judges against those labels (docs/judge-lab.md)."""
