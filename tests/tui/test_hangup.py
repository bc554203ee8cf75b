"""The terminal game leaves once its terminal is gone, even when no SIGHUP reaches it.

Closing a terminal window sends SIGHUP to the session's leader only. Under ``make play`` that is make, which
waits for the game; the game then read end-of-file without end, a core at full load, until somebody killed
it. Here the game runs on a pseudo-terminal that is not its controlling terminal (so no SIGHUP ever comes),
and the terminal is closed under it.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elferraus.tui.app import HANGUP_EXIT_CODE


def _read_until(fd: int, wanted: bytes, seconds: float) -> bytes:
    """What the game wrote to its terminal until ``wanted`` appeared."""
    seen = b""
    deadline = time.monotonic() + seconds
    while wanted not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"the game did not show {wanted!r} within {seconds} s: {seen[-500:]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            seen += os.read(fd, 65536)
    return seen


@pytest.mark.timeout(60)
def test_the_game_leaves_when_its_terminal_closes_without_a_hangup_signal(tmp_path: Path) -> None:
    terminal, game_side = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("TEXTUAL", None)  # a developer's TEXTUAL=devtools,debug would change how the game runs
    game = subprocess.Popen(
        [sys.executable, "-m", "elferraus.cli.main", "play", "--lang", "en"],
        stdin=game_side,
        stdout=game_side,
        stderr=game_side,
        env=env,
        start_new_session=True,  # a session without a controlling terminal: nothing sends it SIGHUP
    )
    os.close(game_side)
    try:
        _read_until(terminal, b"New game", 30)
        os.close(terminal)
        terminal = -1
        try:
            code = game.wait(timeout=10)
        except subprocess.TimeoutExpired:
            cpu = sum(int(part) for part in Path(f"/proc/{game.pid}/stat").read_text().split()[13:15])
            pytest.fail(f"the game still runs 10 s after its terminal closed ({cpu} clock ticks of CPU so far)")
        assert code == HANGUP_EXIT_CODE
    finally:
        if terminal >= 0:
            os.close(terminal)
        if game.poll() is None:
            game.kill()
            game.wait()
