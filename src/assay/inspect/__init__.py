"""Inspect AI in assay: runs as Inspect eval logs, their viewer, the Inspect task and provider."""
