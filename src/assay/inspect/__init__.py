"""Inspect AI in assay: runs as Inspect eval logs, their viewer, the shipped task and the
inspect-log provider."""
