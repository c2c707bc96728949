"""Inspect AI in assay: the shipped task, eval logs of runs and their viewer."""
