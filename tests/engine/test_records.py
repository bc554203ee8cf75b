"""Game records (``elferraus/1``): golden games, round trips, JSON Lines, broken records."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from elferraus import (
    DRAW,
    Card,
    Game,
    RecordError,
    Rules,
    dumps_record,
    format_position,
    iter_records,
    read_record,
    read_records,
    write_record,
)
from tests.data import DATA

GOLDEN = DATA / "golden.jsonl"
LINES = GOLDEN.read_text(encoding="utf-8").splitlines()
RECORDS = [json.loads(line) for line in LINES]


def _id(record: dict[str, Any]) -> str:
    rules = Rules.from_dict(record["rules"])
    return f"{rules.preset_name or 'custom'}-{len(record['hands'])}p-seed{record['seed']}"


IDS = [_id(record) for record in RECORDS]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_game_whose_draws_were_put_on_top_keeps_a_record_that_replays(players: int) -> None:
    """``Game.put_on_top`` chooses each draw as it comes (as OpenSpiel's chance events do); the deal follows,
    so the record names the cards in the order they were drawn and replays to the same game."""
    rng = random.Random(players)
    for seed in range(10):
        game = Game.deal(players=players, seed=seed)
        drawn = []
        while not game.is_over():
            moves = game.legal_moves()
            move = rng.choice(moves)
            if move == DRAW:
                card = rng.choice(game.pile())
                game.put_on_top(card)
                drawn.append(card)
            game.push(move)
        record = write_record(game)
        dealt = game.dealt
        assert dealt is not None
        assert dealt[1][: len(drawn)] == drawn
        replayed = read_record(record)
        assert replayed.record_moves() == game.record_moves()
        assert replayed.penalties() == game.penalties()
    with pytest.raises(ValueError, match="is not on the pile"):
        game.put_on_top(game.hand(0)[0] if game.hand(0) else game.hand(1)[0])


def test_golden_file_covers_every_rule_set() -> None:
    rules = {Rules.from_dict(record["rules"]) for record in RECORDS}
    assert {r.preset_name for r in rules} >= {"classic", "ravensburger", "beginners"}
    assert any(r.after_draw == "continue" for r in rules)
    assert {r.max_draws for r in rules} >= {1, 3, 5}
    assert any(r.hand_size is not None for r in rules)
    assert {len(record["hands"]) for record in RECORDS} >= {2, 4, 6}
    assert all(record["result"] is not None for record in RECORDS)


@pytest.mark.parametrize("line", LINES, ids=IDS)
def test_golden_record_replays_to_its_result(line: str) -> None:
    record = json.loads(line)
    game = read_record(record)
    assert game.record_moves() == record["moves"]
    assert game.is_over()
    assert game.winner == record["result"]["winner"]
    assert game.penalties() == record["result"]["penalties"]
    assert game.metadata == {"seed": record["seed"]}
    assert write_record(game) == record
    assert dumps_record(game) == line


@pytest.mark.parametrize("line", LINES, ids=IDS)
def test_golden_record_is_reproduced_byte_for_byte(line: str) -> None:
    """The determinism regression check: the same deal and the same random play, the same bytes."""
    record = json.loads(line)
    game = Game.deal(len(record["hands"]), record["seed"], Rules.from_dict(record["rules"]))
    rng = random.Random(record["seed"])
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    assert dumps_record(game) == line


@pytest.mark.parametrize("line", LINES[:4], ids=IDS[:4])
def test_every_prefix_of_a_record_is_a_record(line: str) -> None:
    record = json.loads(line)
    full = read_record(record)
    step = max(1, len(record["moves"]) // 12)
    lengths = sorted({*range(0, len(record["moves"]), step), len(record["moves"]) - 1}, reverse=True)
    for length in lengths:
        prefix = dict(record, moves=record["moves"][:length], result=None)
        game = read_record(prefix)
        assert game.move_count == length
        assert not game.is_over()
        assert write_record(game) == prefix
        while full.move_count > length:
            full.pop()
        assert format_position(game) == format_position(full)


def test_record_of_a_game_in_progress_round_trips() -> None:
    game = Game.deal(3, 77, "ravensburger")
    rng = random.Random(1)
    for _ in range(40):
        game.push(rng.choice(game.legal_moves()))
    record = write_record(game)
    assert record["result"] is None
    assert format_position(read_record(record)) == format_position(game)
    assert json.loads(dumps_record(game)) == record


def test_unknown_keys_are_kept() -> None:
    record = dict(RECORDS[1])
    record.update(
        {
            "names": ["Anna", "Ben", "Cem", "Dora"],
            "event": "Club night, round 3",
            "bots": {"1": {"name": "baseline", "level": 2, "options": [1, 2.5, None, True]}},
            "date": "2026-11-30",
            "note": "täglich ß",
        }
    )
    game = read_record(record)
    assert game.metadata["bots"] == record["bots"]
    assert write_record(game) == record
    assert json.loads(dumps_record(game)) == record
    assert "täglich ß" in dumps_record(game)


def test_rules_with_hand_size_round_trip() -> None:
    record = next(r for r in RECORDS if "hand_size" in r["rules"])
    assert read_record(record).rules.hand_size == record["rules"]["hand_size"]
    assert write_record(read_record(record)) == record


# -- JSON Lines ---------------------------------------------------------------------------------------


def test_read_records_reads_every_line() -> None:
    games = list(read_records(LINES))
    assert [game.record_moves() for game in games] == [record["moves"] for record in RECORDS]


def test_iter_records_numbers_lines_and_skips_blank_ones() -> None:
    lines = [LINES[0], "", "   ", LINES[1] + "\n", "{broken", LINES[2]]
    items = list(iter_records(lines))
    assert [number for number, _ in items] == [1, 4, 5, 6]
    assert isinstance(items[0][1], Game)
    assert isinstance(items[1][1], Game)
    error = items[2][1]
    assert isinstance(error, RecordError)
    assert error.game == 5
    assert error.move is None
    assert error.column == 2
    assert "not valid JSON" in str(error)
    assert str(error).startswith("game 5, column 2: ")
    assert isinstance(items[3][1], Game)


@pytest.mark.parametrize(
    ("text", "column", "problem"),
    [
        ('{"moves": ["0 R11", "1 dr', 26, "the line ends inside a string begun at column 21; is it cut off?"),
        ('{"moves": ["0 R11",', 20, "the line ends too early (Expecting value); is it cut off?"),
        ('{"moves": ["0 R11",   ', 20, "the line ends too early (Expecting value); is it cut off?"),
        ('{"moves": 0R11}', 12, "Expecting ',' delimiter"),
        ('{"moves": []} []', 15, "Extra data"),
        ("# a README", 1, "Expecting value"),
    ],
    ids=["cut-in-a-string", "cut-after-a-comma", "cut-before-spaces", "bad-value", "extra-data", "not-json"],
)
def test_a_line_that_is_not_json_is_located_where_it_breaks(text: str, column: int, problem: str) -> None:
    (number, error), *_ = iter_records([text + "\n"])
    assert isinstance(error, RecordError)
    assert (number, error.column, error.problem) == (1, column, f"not valid JSON: {problem}")
    assert str(error).startswith(f"game 1, column {column}: ")


def test_read_records_stops_at_the_first_bad_line() -> None:
    bad = dict(RECORDS[0], format="elferraus/0")
    lines = [LINES[0], json.dumps(bad), LINES[1]]
    reader = read_records(lines)
    assert isinstance(next(reader), Game)
    with pytest.raises(RecordError) as caught:
        next(reader)
    assert caught.value.game == 2


def test_read_records_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(LINES[:3]) + "\n", encoding="utf-8")
    with path.open(encoding="utf-8") as lines:
        assert len(list(read_records(lines))) == 3


# -- broken records -----------------------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], Any]


def _replayed(record: dict[str, Any], moves: int) -> Game:
    """The game after the first ``moves`` moves of ``record``."""
    return read_record(dict(record, moves=record["moves"][:moves], result=None))


def _first_move(record: dict[str, Any], wanted: Callable[[Game, str], bool]) -> int:
    """The index of the first move for which ``wanted(game before it, move text)`` holds."""
    game = _replayed(record, 0)
    for index, text in enumerate(record["moves"]):
        if wanted(game, text):
            return index
        game.push_text(text.split()[1] if "draw" not in text else "draw")
    raise AssertionError("no such move in the record")


def _replace_move(record: dict[str, Any], index: int, text: str) -> dict[str, Any]:
    """``record`` with move ``index`` replaced by ``text``, the rest cut off, no result."""
    return dict(record, moves=[*record["moves"][:index], text], result=None)


def _not_fitting(record: dict[str, Any]) -> tuple[dict[str, Any], int]:
    index = _first_move(record, lambda game, _: game.started and not game.draws_this_turn)
    game = _replayed(record, index)
    card = next(card for card in game.hand(game.turn) if not game.fits(card))
    return _replace_move(record, index, f"{game.turn} {card}"), index + 1


def _not_held(record: dict[str, Any]) -> tuple[dict[str, Any], int]:
    index = _first_move(record, lambda game, _: game.started and not game.draws_this_turn)
    game = _replayed(record, index)
    card = next(c for c in game.fitting_cards() if c not in game.hand(game.turn))
    return _replace_move(record, index, f"{game.turn} {card}"), index + 1


def _wrong_draw(record: dict[str, Any]) -> tuple[dict[str, Any], int]:
    index = _first_move(record, lambda _, text: " draw " in text)
    seat, _, card = record["moves"][index].split()
    other = "R1" if card != "R1" else "R2"
    return dict(
        record, moves=[*record["moves"][:index], f"{seat} draw {other}", *record["moves"][index + 1 :]]
    ), index + 1


def _draw_without_card(record: dict[str, Any]) -> tuple[dict[str, Any], int]:
    index = _first_move(record, lambda _, text: " draw " in text)
    seat = record["moves"][index].split()[0]
    return dict(record, moves=[*record["moves"][:index], f"{seat} draw", *record["moves"][index + 1 :]]), index + 1


def _pass_too_early(record: dict[str, Any]) -> tuple[dict[str, Any], int]:
    def fresh_turn(game: Game, _: str) -> bool:
        return game.started and not game.draws_this_turn and not game.laid_this_turn() and game.pile_size() > 0

    index = _first_move(record, fresh_turn)
    return _replace_move(record, index, f"{_replayed(record, index).turn} pass"), index + 1


def _wrong_seat(record: dict[str, Any]) -> tuple[dict[str, Any], int]:
    seat, card = record["moves"][1].split(maxsplit=1)
    other = (int(seat) + 1) % len(record["hands"])
    return dict(record, moves=[record["moves"][0], f"{other} {card}", *record["moves"][2:]]), 2


def _no_eleven(record: dict[str, Any]) -> dict[str, Any]:
    broken = copy.deepcopy(record)
    spare = [i for i, card in enumerate(broken["pile"]) if not card.endswith("11")]
    for hand in broken["hands"]:
        for position, card in enumerate(hand):
            if card.endswith("11"):
                swap = spare.pop()
                hand[position], broken["pile"][swap] = broken["pile"][swap], card
    return broken


def _set(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return dict(record, **changes)


def _without(record: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != key}


def _deep(record: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    broken = copy.deepcopy(record)
    change(broken)
    return broken


CLASSIC_2P = RECORDS[0]
BEGINNERS_2P = next(r for r in RECORDS if r["rules"]["colors"] == "RYG")
assert Rules.from_dict(CLASSIC_2P["rules"]).preset_name == "classic"
assert len(CLASSIC_2P["hands"]) == 2
WINNER = CLASSIC_2P["result"]["winner"]
LOSER = 1 - WINNER


def _broken_cases() -> list[Any]:
    """(id, broken record, move number or None, phrases the message must contain)."""
    r = CLASSIC_2P
    moves = len(r["moves"])
    cases: list[tuple[str, Any, int | None, tuple[str, ...]]] = [
        ("not-an-object", [1, 2, 3], None, ("JSON object", "list")),
        ("a-string", "elferraus/1", None, ("JSON object", "str")),
        ("wrong-format", _set(r, format="elferraus/2"), None, ("format must be 'elferraus/1'",)),
        ("missing-format", _without(r, "format"), None, ("no 'format'",)),
        ("missing-moves", _without(r, "moves"), None, ("no 'moves'",)),
        ("missing-result", _without(r, "result"), None, ("no 'result'",)),
        ("rules-not-an-object", _set(r, rules="classic"), None, ("'rules' must be an object",)),
        ("bad-rules-option", _set(r, rules={**r["rules"], "max_draws": 0}), None, ("max_draws",)),
        ("bad-rules-type", _set(r, rules={**r["rules"], "must_play": "yes"}), None, ("must_play",)),
        ("unknown-rules-key", _set(r, rules={**r["rules"], "jokers": 2}), None, ("unknown option 'jokers'",)),
        ("hands-not-lists", _set(r, hands="R11 R12"), None, ("'hands' must be a list",)),
        ("one-hand", _set(r, hands=r["hands"][:1]), None, ("2-6 hands",)),
        ("pile-not-a-list", _set(r, pile="R1"), None, ("'pile' must be a list",)),
        ("moves-not-a-list", _set(r, moves="0 R11"), None, ("'moves' must be a list",)),
        (
            "wrong-hand-size",
            _deep(r, lambda b: b["pile"].append(b["hands"][0].pop())),
            None,
            ("bad deal", "seat 1 was dealt 19 cards"),
        ),
        (
            "duplicate-card",
            _deep(r, lambda b: b["pile"].__setitem__(0, b["hands"][0][0])),
            None,
            ("bad deal", f"{r['hands'][0][0]} was dealt twice"),
        ),
        ("missing-card", _deep(r, lambda b: b["pile"].pop()), None, ("bad deal", "cards missing", r["pile"][-1])),
        (
            "card-not-in-beginners-deck",
            _deep(BEGINNERS_2P, lambda b: b["pile"].__setitem__(0, "B5")),
            None,
            ("bad deal", "B5 is not in the RYG deck"),
        ),
        ("bad-card-notation", _deep(r, lambda b: b["pile"].__setitem__(3, "R21")), None, ("pile[3]", "'R21'")),
        ("card-not-a-string", _deep(r, lambda b: b["hands"][1].__setitem__(2, 11)), None, ("hands[1][2]", "11")),
        ("no-eleven-dealt", _no_eleven(r), None, ("bad deal", "no 11 was dealt")),
        ("move-not-a-string", _deep(r, lambda b: b["moves"].__setitem__(2, 7)), 3, ("7", "not a move string")),
        ("bad-move-notation", _deep(r, lambda b: b["moves"].__setitem__(1, "1 lay R12")), 2, ("not a record move",)),
        ("bad-seat-notation", _deep(r, lambda b: b["moves"].__setitem__(1, "one R12")), 2, ("not a record move",)),
        ("bad-card-in-move", _deep(r, lambda b: b["moves"].__setitem__(1, "1 R0")), 2, ("'R0' is not a card",)),
        ("opening-skipped", _replace_move(r, 0, f"{r['moves'][0].split()[0]} pass"), 1, ("is illegal", "opens with")),
        ("wrong-seat", *_wrong_seat(r), ("it is seat", "not seat")),
        ("lay-not-fitting", *_not_fitting(r), ("is illegal", "does not fit")),
        ("lay-not-held", *_not_held(r), ("is illegal", "do not hold")),
        ("draw-names-the-wrong-card", *_wrong_draw(r), ("top of the pile",)),
        ("draw-without-card", *_draw_without_card(r), ("a draw names the card drawn",)),
        ("pass-too-early", *_pass_too_early(r), ("is illegal", "lay a card or draw")),
        (
            "move-after-the-end",
            _deep(r, lambda b: b["moves"].append(f"{LOSER} pass")),
            moves + 1,
            ("after the game ended",),
        ),
        ("unfinished-with-result", _set(r, moves=r["moves"][:-1]), None, ("'result' must be null",)),
        ("finished-with-null-result", _set(r, result=None), None, ("must name the winner",)),
        ("result-not-an-object", _set(r, result=[WINNER]), None, ("must name the winner",)),
        ("wrong-winner", _set(r, result={**r["result"], "winner": LOSER}), None, ("the winner is seat",)),
        ("winner-missing", _set(r, result={"penalties": r["result"]["penalties"]}), None, ("the winner is seat",)),
        (
            "wrong-penalties",
            _deep(r, lambda b: b["result"]["penalties"].__setitem__(LOSER, b["result"]["penalties"][LOSER] + 1)),
            None,
            ("the penalties are",),
        ),
        # JSON true/false are not seat numbers, though Python compares True == 1.
        ("winner-is-a-boolean", _set(r, result={**r["result"], "winner": bool(WINNER)}), None, ("winner",)),
    ]
    return [pytest.param(record, move, phrases, id=name) for name, record, move, phrases in cases]


BROKEN = _broken_cases()


@pytest.mark.parametrize(("record", "move", "phrases"), BROKEN)
def test_broken_record_is_rejected(record: Any, move: int | None, phrases: tuple[str, ...]) -> None:
    lines = [LINES[1], json.dumps(record)]
    items = list(iter_records(lines))
    assert isinstance(items[0][1], Game)
    number, error = items[1]
    assert number == 2
    assert isinstance(error, RecordError), "the broken record was accepted"
    assert error.game == 2
    assert error.move == move
    where = "game 2" if move is None else f"game 2, move {move}"
    assert str(error).startswith(f"{where}: ")
    for phrase in phrases:
        assert phrase in str(error)


@pytest.mark.parametrize(("record", "move", "phrases"), BROKEN)
def test_broken_record_read_alone(record: Any, move: int | None, phrases: tuple[str, ...]) -> None:
    with pytest.raises(RecordError) as caught:
        read_record(record)
    assert caught.value.game is None
    assert caught.value.move == move
    with pytest.raises(RecordError) as caught:
        read_record(record, game=17)
    assert caught.value.game == 17
    assert str(caught.value).startswith("game 17")


def test_there_are_many_kinds_of_broken_record() -> None:
    assert len(BROKEN) >= 10


def test_the_golden_records_themselves_are_fine() -> None:
    """The broken cases above are built from these; they must be valid to begin with."""
    for record in (CLASSIC_2P, BEGINNERS_2P):
        assert read_record(record).winner == record["result"]["winner"]
    assert Card.parse(CLASSIC_2P["hands"][0][0])
