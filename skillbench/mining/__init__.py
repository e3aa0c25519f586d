"""``skillbench mine``: mine workflows from transcripts and turn them into a runnable benchmark (docs/pipeline.md)."""
