"""The thinker: a process that plays computers for another, each as it would play in the asking process."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from typing import Any

import pytest

from elferraus.bots import make_bot, seat_seed, start_players
from elferraus.bots.thinker import Computers, Ready, Request, decode, encode, length, serve
from elferraus.game import Game
from tests.support import repo_env


def read_messages(data: bytes) -> list[Any]:
    stream, messages = io.BytesIO(data), []
    while header := stream.read(4):
        messages.append(decode(stream.read(length(header))))
    return messages


@pytest.mark.parametrize("level", ["medium", "hard", "expert", "master"])
def test_computers_play_as_the_same_players_in_this_process(level: str) -> None:
    """A game of four computers, each also asked of a thinker's ``Computers`` (views pickled on the way): the
    same move every time, for every decision of the game."""
    game = Game.deal(players=4, seed=21)
    here = {seat: make_bot(level, seat_seed(21, seat)) for seat in range(4)}
    start_players(here, game)
    computers = Computers()
    while not game.is_over():
        seat = game.turn
        view = game.view(seat)
        move = here[seat].choose(view)
        (request,) = read_messages(encode(Request(seat, level, seat_seed(21, seat), view)))
        answer = computers.answer(request)
        assert (answer.move, answer.error) == (move, None)
        game.push(move)


def test_computers_are_kept_until_let_go() -> None:
    game = Game.deal(players=3, seed=2)
    view = game.view(game.turn)
    computers = Computers(keep=2)
    for key in (1, 2, 3):
        computers.answer(Request(key, "medium", key, view))
    assert len(computers) == 2  # the longest unused went
    computers.answer(Request(3, "medium", 3, view, forget=(2, 3)))
    assert len(computers) == 1


def test_an_answer_without_a_move_says_why() -> None:
    view = Game.deal(players=2, seed=1).view(0)
    answer = Computers().answer(Request(1, "no-such-level", 0, view))
    assert answer.move is None
    assert answer.error is not None
    assert "unknown computer player 'no-such-level'" in answer.error


def test_serve_answers_each_request_in_order_until_its_input_ends() -> None:
    game = Game.deal(players=2, seed=5)
    views = []
    while len(views) < 5:
        views.append(game.view(game.turn))
        game.push(game.legal_moves()[0])
    requests = b"".join(encode(Request(view.seat, "greedy", 1, view)) for view in views)
    answers = io.BytesIO()
    serve(io.BytesIO(requests), answers)
    ready, *moves = read_messages(answers.getvalue())
    assert ready == Ready(os.getpid())
    assert [answer.move for answer in moves] == [make_bot("greedy", 1).choose(view) for view in views]


NOISY = (
    "import sys; from elferraus.bots import thinker; answer = thinker.Computers.answer\n"
    "def noisy(self, request):\n"
    "    print('thinking aloud')\n"
    "    return answer(self, request)\n"
    "thinker.Computers.answer = noisy\n"
    "sys.exit(thinker.main(sys.argv[1:]))\n"
)
"""A thinker whose computers print while they think."""


def _thinker_process(arguments: list[str]) -> subprocess.Popen[bytes]:
    """This Python with ``arguments``, its three streams piped, run from the repository's sources."""
    return subprocess.Popen(
        [sys.executable, *arguments],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=repo_env(),
    )


@pytest.mark.parametrize(
    ("command", "niceness"),
    [(["-m", "elferraus.bots.thinker"], 0), (["-m", "elferraus.bots.thinker", "5"], 5), (["-c", NOISY, "3"], 3)],
    ids=["plain", "nicer", "printing"],
)
def test_a_thinker_process_answers_on_its_own_output_and_exits_at_the_end_of_its_input(
    command: list[str], niceness: int
) -> None:
    view = Game.deal(players=3, seed=8).view(0)
    with _thinker_process(command) as thinker:
        assert thinker.stdin is not None
        assert thinker.stdout is not None
        ready = decode(thinker.stdout.read(length(thinker.stdout.read(4))))
        assert ready == Ready(thinker.pid)
        assert os.getpriority(os.PRIO_PROCESS, thinker.pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + niceness)
        thinker.stdin.write(encode(Request(1, "easy", 4, view)))
        thinker.stdin.close()  # its input ends: it answers, then exits
        answers = read_messages(thinker.stdout.read())
        assert thinker.wait(30) == 0
        assert thinker.stderr is not None
        errors = thinker.stderr.read().decode()
    assert [answer.move for answer in answers] == [make_bot("easy", 4).choose(view)]
    assert ("thinking aloud" in errors) == command[0].startswith("-c")


def test_a_thinker_whose_asker_went_away_mid_move_exits_quietly() -> None:
    game = Game.deal(players=4, seed=3)
    while len(game.legal_moves()) < 2:
        game.push(game.legal_moves()[0])
    with _thinker_process(["-m", "elferraus.bots.thinker"]) as thinker:
        assert thinker.stdin is not None
        assert thinker.stdout is not None
        assert thinker.stderr is not None
        assert isinstance(decode(thinker.stdout.read(length(thinker.stdout.read(4)))), Ready)
        thinker.stdin.write(encode(Request(1, "master", 1, game.view(game.turn))))
        thinker.stdin.flush()
        thinker.stdout.close()  # the asker is gone before the answer
        thinker.stdin.close()
        assert thinker.wait(60) == 0
        assert thinker.stderr.read() == b""


def test_advice_is_a_new_searchers_and_keeps_no_computer() -> None:
    """A request to advise answers what a new ``master`` with that seed advises from the view (a search's rates
    too, past the hoarding), pickled on the way, and the thinker keeps no computer for it; a level that does
    not search gives no advice, and says so."""
    game = Game.deal(players=4, seed=5)
    players = {seat: make_bot("medium", seat_seed(5, seat)) for seat in range(4)}
    start_players(players, game)
    computers = Computers()
    reasons = set()
    while not game.is_over():
        view = game.view(game.turn)
        if len(view.legal) > 1 and game.move_count % 3 == 0:
            fresh = make_bot("master", 77)
            fresh.start_game(view.seat, view.players, view.rules)
            expected = fresh.advise(view)  # type: ignore[attr-defined]
            (request,) = read_messages(encode(Request(-1, "master", 77, view, advise=True)))
            (answer,) = read_messages(encode(computers.answer(request)))
            assert (answer.move, answer.advice, answer.error) == (expected.move, expected, None)
            reasons.add(expected.reason)
        game.push(players[game.turn].choose(view))
    assert len(computers) == 0
    assert {"plan", "search"} <= reasons
    refused = computers.answer(Request(-1, "medium", 1, Game.deal(players=2, seed=1).view(0), advise=True))
    assert refused.move is None
    assert refused.advice is None
    assert "medium gives no advice" in (refused.error or "")
