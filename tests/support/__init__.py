"""What the tests and the benchmarks share: real servers, clients, faults and positions (not tests themselves).

A helper that runs as a process of its own (``seeded_server``, ``clocked_server``, ``fault_helpers``'s probes)
is run as a module, ``python -m tests.support.NAME``, in :func:`repo_env`.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository: the folder that holds the packages ``tests`` and ``benchmarks``."""


def repo_env() -> dict[str, str]:
    """This process's environment with the repository first on ``PYTHONPATH``: a child started with it finds
    ``python -m tests.support.NAME`` from any current folder (the tests run in folders of their own)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env
