"""assay: a reproducible experiment on abstraction reuse by LLM coding models."""

__version__ = "0.1.0"
