"""Placeholder: filled in by its owner."""
from kvdata.cli import main  # noqa: F401
