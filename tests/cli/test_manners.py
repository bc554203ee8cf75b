"""How the command line meets a person: Ctrl-C, a replay on a terminal, seat numbers, a bad ``--bots``."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from elferraus.bots.protocol import encode, hello
from elferraus.cli.main import main
from elferraus.game import Game
from elferraus.record import write_record
from elferraus.rules import Rules

COMMAND = [str(Path(sys.executable).with_name("elferraus"))]
ENV = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": "", "COLUMNS": "100"}


def first_line(stream: IO[bytes]) -> bytes:
    """The next line the command writes (it blocks until there is one: the command is at work)."""
    return stream.readline()


# -- Ctrl-C ---------------------------------------------------------------------------------------------------------


def interrupt(process: subprocess.Popen[bytes]) -> tuple[int, str]:
    """Ctrl-C as a terminal sends it (SIGINT to the whole process group); the exit code and standard error."""
    os.killpg(process.pid, signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    return process.returncode, err.decode()


@pytest.fixture(autouse=True)
def ctrl_c_as_from_a_terminal() -> Iterator[None]:
    """The commands get Ctrl-C as from a terminal, even where the tests run in a background job: that ignores
    SIGINT, and a command would inherit it (a handler, unlike an ignored signal, is not inherited)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def started(argv: list[str], env: dict[str, str] = ENV, **kwargs: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*COMMAND, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # its own process group, as a command started from a shell
        **kwargs,
    )


def test_ctrl_c_in_bot_ends_with_one_line() -> None:
    process = started(["bot", "greedy"], stdin=subprocess.PIPE)
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write((encode(hello(0, 2, Rules.preset("classic"))) + "\n").encode())
    process.stdin.flush()
    assert b'"ready"' in first_line(process.stdout)  # it is serving: waiting for the next message
    code, err = interrupt(process)
    assert (code, err) == (130, "stopped\n")


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--games", "1000000", "--bots", "greedy", "--out", "-"],
        ["arena", "--bots", "greedy", "--games", "100000", "--records", "-"],
        ["arena", "--bots", "greedy", "--games", "100000", "--records", "-", "--jobs", "2"],
    ],
    ids=["simulate", "arena", "arena-jobs"],
)
def test_ctrl_c_while_playing_games_ends_with_one_line(argv: list[str]) -> None:
    """Interrupted in the middle of its games (records are coming out): one line, exit code 130, no traceback
    (from the worker processes of ``--jobs`` neither)."""
    process = started(argv)
    assert process.stdout is not None
    assert first_line(process.stdout).startswith(b"{")
    code, err = interrupt(process)
    assert "Traceback" not in err
    assert (code, err) == (130, "stopped\n")


def test_ctrl_c_says_it_in_german() -> None:
    german = started(
        ["simulate", "--games", "1000000", "--bots", "greedy", "--out", "-"], {**ENV, "LANG": "de_DE.UTF-8"}
    )
    assert german.stdout is not None
    assert first_line(german.stdout).startswith(b"{")
    code, err = interrupt(german)
    assert (code, err) == (130, "abgebrochen\n")


# -- replay ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    game = Game.deal(players=2, seed=4)
    while not game.is_over():
        game.push(game.legal_moves()[0])
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(write_record(game)) + "\n", encoding="utf-8")
    return path


def moves_of(path: Path) -> int:
    return len(json.loads(path.read_text(encoding="utf-8"))["moves"])


class Terminal:
    """``elferraus replay`` on a pseudo-terminal: keys in, what it shows out."""

    def __init__(self, argv: list[str]) -> None:
        self.leader, follower = pty.openpty()
        self.process = subprocess.Popen(
            [*COMMAND, *argv], stdin=follower, stdout=follower, stderr=follower, env=ENV, start_new_session=True
        )
        os.close(follower)
        self.shown = ""

    def read_until(self, text: str, limit: float = 60.0) -> None:
        """Read what is shown until ``text`` is (boundedly)."""
        deadline = time.monotonic() + limit
        while text not in self.shown:
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {text!r}; shown: {self.shown[-500:]!r}")
            ready, _, _ = select.select([self.leader], [], [], 0.1)
            if ready:
                try:
                    self.shown += os.read(self.leader, 65536).decode(errors="replace")
                except OSError:  # the program ended and closed the terminal
                    break

    def press(self, keys: str) -> None:
        os.write(self.leader, keys.encode())

    def finish(self) -> int:
        """Wait for the program to end; its exit code, with all it showed read."""
        code = self.process.wait(timeout=60)
        while select.select([self.leader], [], [], 0.1)[0]:
            try:
                chunk = os.read(self.leader, 65536)
            except OSError:  # the terminal is closed: all is read
                break
            if not chunk:
                break
            self.shown += chunk.decode(errors="replace")
        os.close(self.leader)
        return code


PROMPT = "Enter or Space: next move · a: all the rest · q: quit"


def test_replay_on_a_terminal_steps_move_by_move(record_file: Path) -> None:
    moves = moves_of(record_file)
    terminal = Terminal(["replay", str(record_file)])
    terminal.read_until(PROMPT)
    assert "   1. " not in terminal.shown  # the deal only: no move before a key asks for it
    terminal.press("\r")
    terminal.read_until("   1. ")
    assert "   2. " not in terminal.shown
    terminal.press(" ")
    terminal.read_until("   2. ")
    assert "   3. " not in terminal.shown
    terminal.press("q")
    assert terminal.finish() == 0
    assert f"{moves:4d}. " not in terminal.shown


def test_replay_on_a_terminal_shows_the_rest_at_a(record_file: Path) -> None:
    moves = moves_of(record_file)
    terminal = Terminal(["replay", str(record_file)])
    terminal.read_until(PROMPT)
    terminal.press("a")
    terminal.read_until("Penalty points")
    assert terminal.finish() == 0
    assert f"{moves:4d}. " in terminal.shown


def test_replay_with_all_on_a_terminal_prints_it_whole(record_file: Path) -> None:
    moves = moves_of(record_file)
    terminal = Terminal(["replay", "--all", str(record_file)])
    terminal.read_until("Penalty points")
    assert terminal.finish() == 0
    assert f"{moves:4d}. " in terminal.shown
    assert PROMPT not in terminal.shown


def test_replay_into_a_pipe_prints_it_whole(record_file: Path) -> None:
    moves = moves_of(record_file)
    done = subprocess.run([*COMMAND, "replay", str(record_file)], capture_output=True, env=ENV, check=True, timeout=60)
    out = done.stdout.decode()
    assert f"{moves:4d}. " in out
    assert PROMPT not in out


# -- check: seats counted from 1 ------------------------------------------------------------------------------------


def finished_record() -> dict[str, Any]:
    game = Game.deal(players=3, seed=2)
    while not game.is_over():
        game.push(game.legal_moves()[0])
    return write_record(game)


def test_check_counts_seats_from_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = finished_record()
    winner = record["result"]["winner"]
    first, second = record["moves"][0].split()[0], record["moves"][1]
    assert first != second.split()[0]
    wrong_seat = {**record, "moves": [record["moves"][0], f"{first} {second.split(' ', 1)[1]}", *record["moves"][2:]]}
    wrong_winner = {**record, "result": {**record["result"], "winner": (winner + 1) % 3}}
    after_end = {**record, "moves": [*record["moves"], f"{winner} pass"]}
    short_deal = {**record, "hands": [record["hands"][0][:-1], *record["hands"][1:]], "pile": record["pile"]}
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (wrong_seat, wrong_winner, after_end, short_deal)) + "\n")
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    mover = int(second.split()[0])
    assert f"it is seat {mover + 1}'s turn, not seat {int(first) + 1}'s" in out
    assert f"the winner is seat {winner + 1}" in out
    assert f"(seat {winner + 1} won)" in out
    assert "seat 1 was dealt 19 cards" in out
    assert "the record counts seats from 0" in out  # where it quotes the record's own number


# -- a bad --bots ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "value", "why"),
    [
        (["simulate", "--bots", "wizard"], "wizard", "unknown"),
        (["simulate", "--bots", "greedy,random"], "greedy,random", "2 bots for 4 players"),
        (["arena", "--bots", "wizard"], "wizard", "unknown"),
        (["play", "--plain", "--bots", "wizard"], "wizard", "unknown level"),
        (["play", "--plain", "--players", "3", "--bots", "easy,hard,easy"], "easy,hard,easy", "3 levels for 2"),
    ],
)
def test_a_bad_bots_value_gets_the_commands_own_usage(
    argv: list[str], value: str, why: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal: never read
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: elferraus {argv[0]} "), err
    message = err.strip().splitlines()[-1]
    assert message.startswith(f"elferraus {argv[0]}: error: argument --bots: "), message
    assert value in message
    assert why in message
