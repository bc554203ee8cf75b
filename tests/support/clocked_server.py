"""``elferraus serve`` on a clock the test sets: ``python -m tests.support.clocked_server CLOCK_FILE serve ...``.

The server's time is ``time.time`` and offers no way to choose another; the expiry tests need days to pass in
seconds, so this script, and only it, gives the app a clock that reads the seconds since the epoch from
CLOCK_FILE (which the test rewrites, see ``set_clock``) before handing the rest of its arguments to the
ordinary command line.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import elferraus.server as server
from elferraus.cli.main import main


def set_clock(path: Path, now: float) -> None:
    """Make the servers reading ``path`` see ``now`` (written whole, then renamed into place)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(repr(now))
    os.replace(partial, path)


def _clocked(path: Path) -> None:
    def clock() -> float:
        return float(path.read_text())

    original = server.create_app

    def create_app(*args: Any, **kwargs: Any) -> Any:
        return original(*args, clock=clock, **kwargs)

    server.create_app = create_app  # type: ignore[assignment]


if __name__ == "__main__":
    _clocked(Path(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
