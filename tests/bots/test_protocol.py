"""The bot protocol elferraus-bot/1: messages, the built-in bot server, views over JSON."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest

from elferraus import Game, Rules
from elferraus.bots import Bot, SeatRefusedError, make_bot, protocol
from elferraus.moves import DRAW, Move
from elferraus.view import SeatView
from tests.support import ROOT


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


@pytest.mark.parametrize("level", ["medium", "master"])
def test_serve_answers_hello_and_act_in_process(level: str) -> None:
    game = _midgame(2)
    seat = game.turn
    out = io.StringIO()
    code = protocol.serve(make_bot(level, 1), io.StringIO(_session(game, seat)), out)
    assert code == 0
    ready, answer = (json.loads(line) for line in out.getvalue().splitlines())
    assert ready == {"type": "ready", "name": f"elferraus {level}"}
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


class _ThreeFullColours(Bot):
    """A bot for three players and the four colours only, which says so when offered anything else."""

    name = "three"

    def start_game(self, seat: int, players: int, rules: Rules) -> None:
        if players != 3:
            raise SeatRefusedError(f"plays 3 players only; the table has {players}")
        if rules.colors != "RYGB":
            raise SeatRefusedError(f"plays the colours RYGB only,\n not {rules.colors}")

    def choose(self, view: SeatView) -> Move:
        raise AssertionError("never asked")


@pytest.mark.parametrize(
    ("players", "rules", "reason"),
    [
        (2, "classic", "plays 3 players only; the table has 2"),
        (6, "ravensburger", "plays 3 players only; the table has 6"),
        (3, "beginners", "plays the colours RYGB only, not RYG"),
        (3, "classic", None),
    ],
)
def test_serve_refuses_a_seat_its_bot_cannot_play_in_one_line(
    players: int, rules: str, reason: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = protocol.encode(protocol.hello(0, players, Rules.preset(rules)))
    out = io.StringIO()
    code = protocol.serve(_ThreeFullColours(), io.StringIO(hello + "\n" + '{"type": "quit"}\n'), out)
    err = capsys.readouterr().err
    if reason is None:
        assert (code, err) == (0, "")
        assert json.loads(out.getvalue()) == {"type": "ready", "name": "elferraus three"}
        return
    assert code == 2
    assert json.loads(out.getvalue()) == {"type": "refuse", "reason": reason}
    assert err == f"elferraus bot: refused the seat: {reason}\n"


@pytest.mark.parametrize("level", ["greedy", "master"])
def test_elferraus_bot_command_speaks_the_protocol(level: str) -> None:
    game = _midgame(4)
    seat = game.turn
    done = subprocess.run(
        [sys.executable, "-m", "elferraus.cli.main", "bot", level],
        input=_session(game, seat),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ready, answer = (json.loads(line) for line in done.stdout.splitlines())
    assert ready == {"type": "ready", "name": f"elferraus {level}"}
    assert Move.parse(answer["move"]) in game.legal_moves()


def _view_with(**changes: object) -> dict[str, object]:
    view = protocol.act(_midgame(2).view(0))["view"]
    for key, value in changes.items():
        if value is ...:
            del view[key]
        else:
            view[key] = value
    assert isinstance(view, dict)
    return view


NOT_A_CARD = "is not a card: write a colour letter R, Y, G or B and a number 1-20, e.g. R11"
ROW = "[lowest, highest], two integers with 1 <= lowest <= 11 <= highest <= 20"
MALFORMED_VIEWS = [
    ("laid-a-number", {"laid": 2}, '"laid" must be a list of cards like ["R7", "Y3"], not 2'),
    ("laid-not-a-card", {"laid": ["R7", "R21"]}, f"\"laid[1]\": 'R21' {NOT_A_CARD}"),
    ("laid-a-number-inside", {"laid": [7]}, '"laid[0]" must be a card like "R7", not 7'),
    ("hand-a-string", {"hand": "R7 Y3"}, '"hand" must be a list of cards like ["R7", "Y3"], not "R7 Y3"'),
    ("hand-not-a-card-inside", {"hand": ["R7", "Y3", "B15", "draw"]}, f"\"hand[3]\": 'draw' {NOT_A_CARD}"),
    ("draws-a-string", {"draws": "1"}, '"draws" must be an integer 0 or more, not "1"'),
    ("draws-a-boolean", {"draws": True}, '"draws" must be an integer 0 or more, not true'),
    ("draws-negative", {"draws": -1}, '"draws" must be an integer 0 or more, not -1'),
    ("pile-a-float", {"pile": 20.5}, '"pile" must be an integer 0 or more, not 20.5'),
    ("seat-missing", {"seat": ...}, '"seat" is missing'),
    ("seat-outside", {"seat": 4}, '"seat" must be an integer from 0 to 3, not 4'),
    ("players-too-many", {"players": 7}, '"players" must be an integer from 2 to 6, not 7'),
    ("players-a-boolean", {"players": True}, '"players" must be an integer from 2 to 6, not true'),
    ("turn-null", {"turn": None}, '"turn" must be an integer from 0 to 3, not null'),
    ("winner-a-name", {"winner": "Anna"}, '"winner" must be an integer from 0 to 3, or null, not "Anna"'),
    ("winner-outside", {"winner": 4}, '"winner" must be an integer from 0 to 3, or null, not 4'),
    ("drawn-a-list", {"drawn": ["R7"]}, '"drawn" must be a card or null, not ["R7"]'),
    ("drawn-not-a-card", {"drawn": "R0"}, f"\"drawn\": 'R0' {NOT_A_CARD}"),
    (
        "hand-counts-short",
        {"hand_counts": [15, 15]},
        '"hand_counts" must be a list of 4 integers 0 or more, one per seat, not [15, 15]',
    ),
    (
        "hand-counts-negative",
        {"hand_counts": [15, -1, 15, 15]},
        '"hand_counts" must be a list of 4 integers 0 or more, one per seat, not [15, -1, 15, 15]',
    ),
    ("rows-a-list", {"rows": [[8, 13]]}, '"rows" must be an object like {"R": [8, 13]}, not [[8, 13]]'),
    ("rows-unknown-colour", {"rows": {"X": [10, 12]}}, '"rows" has "X", not a colour letter (R, Y, G or B)'),
    ("row-one-end", {"rows": {"R": [11]}}, f'"rows.R" must be {ROW}, not [11]'),
    ("row-three-ends", {"rows": {"G": [10, 11, 12]}}, f'"rows.G" must be {ROW}, not [10, 11, 12]'),
    ("row-an-end-a-string", {"rows": {"B": ["8", 13]}}, f'"rows.B" must be {ROW}, not ["8", 13]'),
    ("row-without-11", {"rows": {"R": [12, 14]}}, f'"rows.R" must be {ROW}, not [12, 14]'),
    ("moves-numbers", {"moves": ["0 R11", 1]}, '"moves[1]" must be a string like "0 R11", not 1'),
]


@pytest.mark.parametrize(
    ("changes", "message"), [case[1:] for case in MALFORMED_VIEWS], ids=[case[0] for case in MALFORMED_VIEWS]
)
def test_a_malformed_view_is_refused_naming_the_field(changes: dict[str, object], message: str) -> None:
    with pytest.raises(protocol.ProtocolError) as caught:
        protocol.view_from_dict(_view_with(**changes), Rules.preset("classic"), [])
    assert str(caught.value) == f"malformed view: {message}"


def test_a_view_may_carry_keys_a_newer_arena_adds() -> None:
    game = _midgame(2)
    act = protocol.act(game.view(game.turn))
    act["view"]["clock"] = 12.5
    assert protocol.view_from_dict(act["view"], game.rules, act["legal"]) == game.view(game.turn)


@pytest.mark.parametrize(
    ("view", "legal", "message"),
    [
        ([1, 2], [], "malformed view: a view is a JSON object, not [1, 2]"),
        (None, [], "malformed view: a view is a JSON object, not null"),
        (..., "draw", '"legal" must be a list of moves like ["R12", "draw", "pass"], not "draw"'),
        (
            ...,
            ["R12", "fold"],
            "\"legal[1]\": 'fold' is not a move: write a card to lay (e.g. R12), 'draw' or 'pass'",
        ),
        (..., ["R12", 3], '"legal[1]" must be a move like "R12", "draw" or "pass", not 3'),
    ],
    ids=["view-a-list", "view-missing", "legal-a-string", "legal-not-a-move", "legal-a-number-inside"],
)
def test_an_act_without_a_view_or_legal_moves_is_refused(view: object, legal: object, message: str) -> None:
    data = _view_with() if view is ... else view
    with pytest.raises(protocol.ProtocolError) as caught:
        protocol.view_from_dict(data, Rules.preset("classic"), legal)
    assert str(caught.value) == message


def test_serve_says_which_field_of_a_view_is_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    game = _midgame(2)
    act = protocol.act(game.view(game.turn))
    act["view"]["laid"] = 2
    lines = [protocol.encode(protocol.hello(game.turn, game.players, game.rules)), protocol.encode(act)]
    out = io.StringIO()
    assert protocol.serve(make_bot("greedy"), io.StringIO("\n".join(lines) + "\n"), out) == 2
    assert len(out.getvalue().splitlines()) == 1  # the ready, and no move
    assert capsys.readouterr().err == (
        'elferraus bot: malformed view: "laid" must be a list of cards like ["R7", "Y3"], not 2\n'
    )


def test_the_documented_exchange_is_what_the_arena_sends() -> None:
    text = (ROOT / "docs" / "bot-protocol.md").read_text(encoding="utf-8")
    exchange = text[text.index("## One exchange, whole") :]
    hello, ready, act, answer = re.findall(r"```json\n(.*)\n```", exchange)
    game = Game.deal(players=3, seed=2)
    for _ in range(5):
        game.push(game.legal_moves()[0])
    view = game.view(game.turn)
    assert hello == protocol.encode(protocol.hello(view.seat, game.players, game.rules))
    assert json.loads(ready) == {"type": "ready", "name": "my bot"}
    assert act == protocol.encode(protocol.act(view))
    data = protocol.decode(act)
    assert protocol.view_from_dict(data["view"], game.rules, data["legal"]) == view
    assert protocol.parse_answer(protocol.decode(answer), view.legal) == Move.parse("Y11")


def test_the_documented_view_table_lists_every_key() -> None:
    text = (ROOT / "docs" / "bot-protocol.md").read_text(encoding="utf-8")
    keys = re.findall(r"^\| `(\w+)` \| ", text, flags=re.MULTILINE)
    assert keys == list(protocol.act(_midgame().view(0))["view"])


def test_the_documented_view_errors_are_what_the_bot_says() -> None:
    text = (ROOT / "docs" / "bot-protocol.md").read_text(encoding="utf-8")
    documented = [" ".join(quoted.split()) for quoted in re.findall(r"`elferraus bot: malformed view: ([^`]*)`", text)]
    assert len(documented) == 2
    assert set(documented) <= {message for _, _, message in MALFORMED_VIEWS}


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"seat": "x"}, 'malformed hello: "seat" must be an integer from 0 to 3, not "x"'),
        ({"seat": 4}, 'malformed hello: "seat" must be an integer from 0 to 3, not 4'),
        ({"seat": True}, 'malformed hello: "seat" must be an integer from 0 to 3, not true'),
        ({"players": 9}, 'malformed hello: "players" must be an integer from 2 to 6, not 9'),
        ({"players": None}, 'malformed hello: "players" must be an integer from 2 to 6, not null'),
        (
            {"rules": {"colors": "XYZ"}},
            "\"hello\" has rules that cannot be played: rules: colors must be 'RYGB' or 'RYG', not 'XYZ'",
        ),
    ],
)
def test_a_malformed_hello_is_named_in_one_line_and_exit_2(
    fields: dict[str, object], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    message = {**protocol.hello(0, 4, Rules()), **fields}
    out = io.StringIO()
    assert protocol.serve(make_bot("greedy"), io.StringIO(json.dumps(message) + "\n"), out) == 2
    assert capsys.readouterr().err == f"elferraus bot: {said}\n"
    assert out.getvalue() == ""
