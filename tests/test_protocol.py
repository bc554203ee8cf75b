"""The bot protocol elferraus-bot/1: messages, the built-in bot server, views over JSON."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest

from elferraus import Game, Rules, protocol
from elferraus.bots import make_bot
from elferraus.moves import DRAW, Move


def _midgame(seed: int = 3, players: int = 4) -> Game:
    game = Game.deal(players=players, seed=seed)
    bots = [make_bot("greedy", s) for s in range(players)]
    for _ in range(30):
        if game.is_over():
            break
        game.push(bots[game.turn].choose(game.view(game.turn)))
    return game


def test_hello_act_end_messages() -> None:
    game = _midgame()
    hello = protocol.hello(2, 4, Rules.preset("ravensburger"))
    assert hello == {
        "type": "hello",
        "protocol": "elferraus-bot/1",
        "seat": 2,
        "players": 4,
        "rules": {"colors": "RYGB", "max_draws": 3, "must_play": True, "after_draw": "end"},
    }
    view = game.view(game.turn)
    act = protocol.act(view)
    assert act["type"] == "act"
    assert act["legal"] == [str(move) for move in view.legal]
    assert set(act["view"]) == {
        "seat",
        "players",
        "hand",
        "hand_counts",
        "pile",
        "rows",
        "turn",
        "laid",
        "drawn",
        "draws",
        "moves",
        "winner",
    }
    assert protocol.end(None) == {"type": "end", "result": None}


@pytest.mark.parametrize("seed", range(6))
def test_view_round_trips_through_json(seed: int) -> None:
    game = _midgame(seed)
    for seat in range(game.players):
        view = game.view(seat)
        data = json.loads(protocol.encode(protocol.act(view)))
        again = protocol.view_from_dict(data["view"], game.rules, data["legal"])
        assert again == view


def test_view_json_hides_other_hands() -> None:
    game = _midgame(5)
    seat = (game.turn + 1) % game.players
    text = protocol.encode(protocol.act(game.view(seat)))
    for other in range(game.players):
        if other != seat:
            for card in game.hand(other):
                assert f'"{card}"' not in text.split('"moves"')[0]
    for card in game.pile():
        assert f'"{card}"' not in text


@pytest.mark.parametrize(
    ("line", "message"),
    [("[1, 2]", "a message is a JSON object"), ("{oops", "not JSON"), ("x" * (protocol.MAX_LINE + 1), "limit")],
)
def test_decode_rejects_bad_lines(line: str, message: str) -> None:
    with pytest.raises(protocol.ProtocolError, match=message):
        protocol.decode(line)


def test_parse_answer() -> None:
    legal = (Move.parse("R12"), DRAW)
    assert protocol.parse_answer({"move": "r12"}, legal) == Move.parse("R12")
    with pytest.raises(protocol.ProtocolError, match="illegal move 'pass'"):
        protocol.parse_answer({"move": "pass"}, legal)
    with pytest.raises(protocol.ProtocolError, match=re.escape('is {"move": "R12"}')):
        protocol.parse_answer({"mvoe": "R12"}, legal)
    with pytest.raises(protocol.ProtocolError, match="not a move"):
        protocol.parse_answer({"move": "Q3"}, legal)


def _session(game: Game, seat: int) -> str:
    lines = [
        protocol.encode(protocol.hello(seat, game.players, game.rules)),
        protocol.encode(protocol.act(game.view(seat))),
        protocol.encode(protocol.end(None)),
        protocol.encode({"type": "quit"}),
    ]
    return "\n".join(lines) + "\n"


def test_serve_answers_hello_and_act_in_process() -> None:
    game = _midgame(2)
    seat = game.turn
    out = io.StringIO()
    code = protocol.serve(make_bot("medium", 1), io.StringIO(_session(game, seat)), out)
    assert code == 0
    ready, answer = (json.loads(line) for line in out.getvalue().splitlines())
    assert ready == {"type": "ready", "name": "elferraus medium"}
    assert Move.parse(answer["move"]) in game.legal_moves()


def test_serve_rejects_act_before_hello(capsys: pytest.CaptureFixture[str]) -> None:
    game = _midgame(2)
    act = protocol.encode(protocol.act(game.view(game.turn))) + "\n"
    assert protocol.serve(make_bot("greedy"), io.StringIO(act), io.StringIO()) == 2
    assert '"act" before "hello"' in capsys.readouterr().err


def test_serve_rejects_other_protocols(capsys: pytest.CaptureFixture[str]) -> None:
    hello = json.dumps({"type": "hello", "protocol": "elferraus-bot/9", "seat": 0, "players": 2, "rules": {}})
    assert protocol.serve(make_bot("greedy"), io.StringIO(hello + "\n"), io.StringIO()) == 2
    assert "speaks elferraus-bot/1" in capsys.readouterr().err


def test_elferraus_bot_command_speaks_the_protocol() -> None:
    game = _midgame(4)
    seat = game.turn
    done = subprocess.run(
        [sys.executable, "-m", "elferraus.cli.main", "bot", "greedy"],
        input=_session(game, seat),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ready, answer = (json.loads(line) for line in done.stdout.splitlines())
    assert ready["type"] == "ready"
    assert Move.parse(answer["move"]) in game.legal_moves()
