"""The tests' data files, and the scripts that made them (``python -m tests.data.make_golden``)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent
"""This folder: where the data files are."""
