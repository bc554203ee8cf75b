"""``elferraus serve`` whose every match is dealt from one seed.

    python -m tests.support.seeded_server SEED serve ...

The server draws a secret random seed for each match (``Room.new_seed``) and offers no way to choose
one; the look tests need the same deal every time, so this script, and only it, replaces that one
method before handing the rest of its arguments to the ordinary command line.
"""

from __future__ import annotations

import sys

from elferraus.cli.main import main
from elferraus.server.rooms.room import Room


def _seeded(seed: int) -> None:
    def new_seed(_room: Room) -> int:
        return seed

    Room.new_seed = new_seed  # type: ignore[method-assign]


if __name__ == "__main__":
    _seeded(int(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
