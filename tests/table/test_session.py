"""The table a front end drives (``elferraus.table.session``): seats, computers, undo, hints, saving and resuming.

No screen here: these tests drive :class:`~elferraus.table.session.Table` directly.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from elferraus.bots import MasterBot, hint_seed, seat_seed
from elferraus.errors import IllegalMoveError, RecordError
from elferraus.game import Game
from elferraus.moves import DRAW, Move
from elferraus.position import format_position
from elferraus.record import read_record, write_record
from elferraus.table.session import STAND_IN, Seat, Step, Table, TableSetup, TurnError
from tests.support.engine_helpers import can_empty_hand
from tests.support.tui_helpers import table_at


def make_table(levels: str, *, seed: int = 1, rules: str = "classic", rounds: int = 1) -> Table:
    """A table from a comma-separated list of levels; ``human`` is a person."""
    seats = tuple(Seat(f"P{seat}", None if level == "human" else level) for seat, level in enumerate(levels.split(",")))
    return Table(TableSetup(seats, rules=rules, rounds=rounds, seed=seed))


def person_move(game: Game, rng: random.Random) -> Move:
    """A person's move: a seeded random legal one."""
    return rng.choice(game.legal_moves())


def step(table: Table, rng: random.Random) -> Move:
    """Make one move: the computer's choice, or a person's seeded random move; returns it."""
    game = table.game
    move = person_move(game, rng) if table.is_person(game.turn) else table.think()
    assert move in game.legal_moves()
    game.push(move)
    return move


def play_until(table: Table, rng: random.Random, done: Callable[[Table], bool], limit: int = 2000) -> None:
    """Play on until ``done(table)`` or the game is over."""
    for _ in range(limit):
        if table.game.is_over() or done(table):
            return
        step(table, rng)
    raise AssertionError("the game did not get there")


def play_to_end(table: Table, rng: random.Random) -> None:
    play_until(table, rng, lambda _table: False)
    assert table.game.is_over()


def computers_until_person(table: Table) -> None:
    """Let the computers play until a person is to move (or the game is over)."""
    game = table.game
    while not game.is_over() and not table.is_person(game.turn):
        move = table.think()
        assert move in game.legal_moves()
        game.push(move)


def person_turn_with_choice(table: Table) -> bool:
    """True when a person is to move, it is not the game's first move, and there is a choice."""
    game = table.game
    return table.person_to_move() and game.move_count > 0 and len(game.legal_moves()) > 1


# -- seats and setup ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Seat("", None), "needs a name"),
        (lambda: Seat("   ", "greedy"), "needs a name"),
        (lambda: Seat("Anna", "godlike"), "unknown computer player 'godlike'"),
        (lambda: Seat("Anna", "human"), "unknown computer player 'human'"),
        (lambda: TableSetup((Seat("Anna"),)), "2-6 seats, not 1"),
        (lambda: TableSetup(tuple(Seat(f"P{n}") for n in range(7))), "2-6 seats, not 7"),
        (lambda: TableSetup((Seat("A"), Seat("B")), rules="chess"), "unknown rules preset 'chess'"),
        (lambda: TableSetup((Seat("A"), Seat("B")), rounds=0), "rounds must be at least 1, not 0"),
        (lambda: Table(TableSetup((Seat("A"), Seat("B")), target=0)), "target must be at least 1"),
    ],
    ids=[
        "empty-name",
        "blank-name",
        "unknown-level",
        "human-is-no-level",
        "one-seat",
        "seven-seats",
        "unknown-rules",
        "no-rounds",
        "no-target",
    ],
)
def test_setup_errors(build: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()


@pytest.mark.parametrize(
    ("levels", "people", "bots"),
    [
        ("human,greedy", (0,), {1: "greedy"}),
        ("greedy,human,random,human", (1, 3), {0: "greedy", 2: "random"}),
        ("human,human", (0, 1), {}),
        ("medium,easy,hard,expert,greedy,random", (), {0: "medium", 1: "easy", 2: "hard", 3: "expert"}),
        ("master,human,expert", (1,), {0: "master", 2: "expert"}),
    ],
)
def test_who_is_who(levels: str, people: tuple[int, ...], bots: dict[int, str]) -> None:
    table = make_table(levels)
    assert table.people == people
    assert table.players == len(levels.split(","))
    assert table.names == [f"P{seat}" for seat in range(table.players)]
    for seat, level in bots.items():
        assert table.bots[seat].name == level
    assert set(table.bots) == set(range(table.players)) - set(people)
    assert all(table.is_person(seat) == (seat in people) for seat in range(table.players))


# -- a whole game ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("levels", "rules", "seed"),
    [
        ("human,greedy,random", "classic", 3),
        ("greedy,human,human,random", "ravensburger", 8),
        ("human,medium", "beginners", 21),
        ("random,random,human,greedy,greedy,human", "classic", 5),
        ("human,master", "classic", 2),
    ],
)
def test_seeded_game_to_the_end(levels: str, rules: str, seed: int) -> None:
    records = []
    for _ in range(2):  # the same seeds play the same game
        table = make_table(levels, seed=seed, rules=rules)
        game = table.game
        assert game.rules.preset_name == rules
        play_to_end(table, random.Random(seed))
        assert game.winner is not None
        assert not table.person_to_move()
        with pytest.raises(ValueError, match="no computer player is to move"):
            table.think()
        penalties = table.finish_round()
        assert penalties[game.winner] == 0
        assert penalties == game.penalties()
        assert table.match.scores == [penalties]
        assert table.match.is_over()
        with pytest.raises(ValueError, match="match is over"):
            table.next_round()
        records.append(table.record())
    assert records[0] == records[1]
    assert records[0]["result"] is not None


def test_computer_move_refuses_a_persons_turn() -> None:
    table = make_table("human,greedy", seed=4)
    play_until(table, random.Random(4), Table.person_to_move)
    with pytest.raises(ValueError, match="no computer player is to move"):
        table.think()


def test_a_match_deals_its_rounds() -> None:
    table = make_table("human,greedy,random", seed=12, rounds=3)
    rng = random.Random(12)
    deals = set()
    for number in range(1, 4):
        assert table.game.metadata["round"] == number
        deals.add(format_position(table.game))
        play_to_end(table, rng)
        table.finish_round()
        if number < 3:
            assert table.record()["match"]["scores"] == table.match.scores[:-1]
            table.next_round()
            assert table.record()["match"]["scores"] == table.match.scores
    assert len(deals) == 3
    assert table.match.is_over()
    assert len(table.match.scores) == 3


# -- taking back ----------------------------------------------------------------------------------------------------


def fresh_turn(table: Table, action: str) -> bool:
    """A person is to move and has done nothing yet this turn; he can ``action`` and keep the turn after it."""
    game = table.game
    if not person_turn_with_choice(table) or table.undo_target(game.turn) is None:
        return False
    view = game.view(game.turn)
    if view.laid or view.draws:
        return False
    if action == "lay":
        return len(view.hand) > 1 and any(move.card is not None for move in view.legal)
    return DRAW in view.legal


@pytest.mark.parametrize(
    ("levels", "seed", "action"),
    [
        ("human,greedy,medium", 2, "lay"),
        ("medium,human", 7, "lay"),
        ("human,random", 11, "draw"),
        ("greedy,greedy,human", 4, "draw"),
    ],
)
def test_undo_the_turn_under_way(levels: str, seed: int, action: str) -> None:
    table = make_table(levels, seed=seed)
    game, person = table.game, table.people[0]
    play_until(table, random.Random(seed), lambda t: fresh_turn(t, action))
    start, position = game.move_count, format_position(game)
    previous_target = table.undo_target(person)
    assert previous_target is not None
    assert previous_target < start  # before acting: his last finished turn
    move = DRAW if action == "draw" else next(move for move in game.legal_moves() if move.card is not None)
    game.push(move)
    assert game.turn == person
    if action == "draw":  # a drawn card stays drawn: nothing before the draw comes back
        assert table.undo_target(person) is None
        assert table.undo_refusal(person) == "undo_drawn"
        with pytest.raises(ValueError, match="drawn card"):
            table.undo(person)
        assert game.move_count == start + 1
        return
    assert table.undo_target(person) == start  # after acting: the turn under way
    assert table.undo(person) == 1
    assert game.move_count == start
    assert format_position(game) == position
    assert table.person_to_move()
    assert table.undo_target(person) == previous_target


@pytest.mark.parametrize(
    ("levels", "seed"), [("human,greedy,medium", 2), ("medium,medium,human", 7), ("human,random", 10)]
)
def test_undo_the_last_finished_turn_and_the_computers_after_it(levels: str, seed: int) -> None:
    table = make_table(levels, seed=seed)
    game, person = table.game, table.people[0]
    rng = random.Random(seed)
    play_until(table, rng, person_turn_with_choice)
    start, position = game.move_count, format_position(game)
    while game.turn == person and not game.is_over():  # the person's whole turn
        game.push(person_move(game, rng))
    computers_until_person(table)
    if game.is_over():
        pytest.fail("choose a seed where the game goes on")
    drawn = [move for _mover, move, _drawn in game.history()[start:] if move == DRAW]
    assert not drawn, "choose a seed where nobody draws in between (a drawn card is not taken back)"
    assert table.undo_target(person) == start
    made = game.move_count - start
    assert table.undo(person) == made
    assert game.move_count == start
    assert format_position(game) == position
    assert table.person_to_move()
    # the computers' memory follows the game back: their next moves are legal to the end
    while not game.is_over():
        if table.is_person(game.turn):
            game.push(person_move(game, rng))
        else:
            move = table.think()
            assert move in game.legal_moves()
            game.push(move)
    assert game.winner is not None


def test_undo_never_takes_back_the_opening() -> None:
    seed = next(s for s in range(100) if make_table("human,greedy,greedy", seed=s).game.turn == 0)
    table = make_table("human,greedy,greedy", seed=seed)
    game = table.game
    assert game.legal_moves() == (game.legal_moves()[0],)  # the 11 is forced
    assert table.undo_target(0) is None
    game.push(game.legal_moves()[0])
    assert table.undo_target(0) is None  # only the opening is his so far
    computers_until_person(table)
    assert game.move_count > 1
    assert table.undo_target(0) is None
    with pytest.raises(ValueError, match="no turn of yours to take back"):
        table.undo(0)
    assert game.move_count > 1


TABLE_AT = ("R10-12", "R13Y3Y5G2G4B3B6R1R3", "R9Y11G11B11Y12Y10", "G20Y1B1")
"""Rows, your hand, the computer's hand, the top of the pile: you to move first, R13 or a draw."""


def test_undo_takes_back_a_turn_that_begins_the_game() -> None:
    """A table resumed at a position (no history before it) where the person moves first, with a choice: his
    first turn begins with the game's first move, and it can be taken back like any other."""
    table = table_at(*TABLE_AT)
    game = table.game
    assert game.move_count == 0
    assert len(game.legal_moves()) > 1
    assert table.undo_target(0) is None  # nothing done yet
    game.push(Move.parse("R13"))
    assert table.undo_target(0) == 0  # the turn under way, which began with the game
    while not (game.turn == 0 and game.moved(game.move_count - 1)[0] != 0):  # his turn, the computer's, his again
        game.push(table.made_for_person() or table.think())
    assert game.move_count > 2
    assert DRAW not in [move for _mover, move, _drawn in game.history()]
    assert table.undo_target(0) == 0  # his only turn with a choice so far, and everything after it
    trial = copy.deepcopy(table)
    count = game.move_count
    assert table.undo(0) == count
    assert format_position(game) == format_position(table_at(*TABLE_AT).game)
    # nothing fits him now, so he draws: from then on that turn cannot be taken back, the drawn card stays drawn
    assert trial.game.legal_moves() == (DRAW,)
    trial.game.push(DRAW)
    assert trial.undo_target(0) is None
    assert trial.undo_refusal(0) == "undo_drawn"


def drawn_so_far(game: Game) -> list[Any]:
    """Every card that has come off the pile so far, in order."""
    return [drawn for _mover, _move, drawn in game.history() if drawn is not None]


@pytest.mark.parametrize(("levels", "seed"), [("human,random", 1), ("human,greedy,random", 2), ("random,human", 5)])
def test_undo_never_puts_a_drawn_card_back_on_the_pile(levels: str, seed: int) -> None:
    """Whatever is taken back, every card that came off the pile stays off it: the pile after an undo is the pile
    before it, so the next draw shows a card nobody has seen, never one seen before the undo (no look ahead).
    The game stays a valid ``elferraus/1`` record of the moves that stand."""
    table = make_table(levels, seed=seed)
    game, person = table.game, table.people[0]
    rng = random.Random(seed)
    undos = 0
    while not game.is_over():
        if table.person_to_move() and table.undo_target(person) is not None and rng.random() < 0.5:
            pile, drawn = game.pile(), drawn_so_far(game)
            table.undo(person)
            undos += 1
            assert game.pile() == pile  # no card went back: the next draw is the card that would have come anyway
            assert drawn_so_far(game) == drawn
            again = read_record(json.loads(json.dumps(write_record(game))))
            assert format_position(again) == format_position(game)
        step(table, rng)
    assert undos > 3
    assert format_position(read_record(write_record(game))) == format_position(game)


def test_undo_after_drawing_is_refused_and_says_why() -> None:
    """A turn in which the person drew is not taken back past the draw: the card has been seen."""
    table = table_at(*TABLE_AT)
    game = table.game
    game.push(DRAW)  # G20: it does not fit
    game.push(DRAW)  # Y1
    assert table.undo_target(0) is None
    assert table.undo_refusal(0) == "undo_drawn"
    with pytest.raises(ValueError, match="drawn"):
        table.undo(0)
    assert [str(card) for card in drawn_so_far(game)] == ["G20", "Y1"]


def test_undo_refuses_with_two_people() -> None:
    table = make_table("human,greedy,human", seed=6)
    rng = random.Random(6)
    play_until(table, rng, lambda t: t.game.move_count > 12 and t.person_to_move())
    count = table.game.move_count
    for person in table.people:
        assert table.undo_target(person) is None
        with pytest.raises(ValueError, match="no turn of yours"):
            table.undo(person)
    assert table.game.move_count == count


def test_undo_refuses_a_computer_seat_and_a_finished_game() -> None:
    table = make_table("human,greedy", seed=9)
    rng = random.Random(9)
    play_until(table, rng, lambda t: t.game.move_count > 10 and t.person_to_move())
    assert table.undo_target(1) is None
    play_to_end(table, rng)
    assert table.undo_target(0) is None


# -- hints ----------------------------------------------------------------------------------------------------------


def test_hint_with_one_legal_move() -> None:
    seed = next(s for s in range(100) if make_table("human,greedy", seed=s).game.turn == 0)
    table = make_table("human,greedy", seed=seed)
    advice = table.hint()
    assert advice.reason == "only"
    assert (advice.move,) == table.game.legal_moves()
    assert advice.rates == ()
    assert advice.samples == 0


def test_hint_when_the_hand_can_go_out() -> None:
    table = make_table("human,greedy", seed=12)
    rng = random.Random(12)
    play_until(
        table,
        rng,
        lambda t: t.person_to_move() and len(t.game.legal_moves()) > 1 and can_empty_hand(t.game),
    )
    assert not table.game.is_over(), "choose a seed where the person can go out"
    advice = table.hint()
    assert advice.reason == "go_out"
    assert advice.move in table.game.legal_moves()
    assert advice.move.card is not None


def test_hint_by_search_once_the_pile_is_empty() -> None:
    table = make_table("human,greedy,greedy", seed=5)
    rng = random.Random(5)
    play_until(
        table,
        rng,
        lambda t: person_turn_with_choice(t) and not t.game.pile_size() and not can_empty_hand(t.game),
    )
    assert not table.game.is_over(), "choose a seed where the person has a choice once the pile is empty"
    game = table.game
    before = format_position(game)
    legal = game.legal_moves()
    advice = table.hint()
    assert format_position(game) == before  # asking changes nothing
    assert advice.reason == "search"
    assert advice.move in legal
    assert 2 * MasterBot.round_samples <= advice.samples <= MasterBot.max_samples  # the deals it sampled
    moves = [move for move, _rate in advice.rates]
    rates = [rate for _move, rate in advice.rates]
    assert sorted(moves, key=str) == sorted(legal, key=str)  # every legal move, each once
    assert rates == sorted(rates, reverse=True)
    for rate in rates:  # a share of won playouts over the sampled deals
        assert 0.0 <= rate <= 1.0


def test_hint_while_the_pile_lasts_is_the_plan_of_holding_back() -> None:
    """Under the text's rules master holds every card back while the pile lasts: it draws, and keeps what it
    drew; the hint says it is its plan. Under must-play rules it searches from the first move."""
    table = make_table("human,greedy,greedy", seed=5)
    rng = random.Random(5)
    play_until(
        table,
        rng,
        lambda t: (
            person_turn_with_choice(t)
            and t.game.pile_size() > 0
            and any(move.card is not None for move in t.game.legal_moves())
            and not can_empty_hand(t.game)
        ),
    )
    assert not table.game.is_over()
    advice = table.hint()
    assert advice.reason == "plan"
    assert advice.move.card is None, "it lays nothing while the pile lasts"
    assert advice.move in table.game.legal_moves()
    must = make_table("human,greedy,greedy", seed=5, rules="ravensburger")
    play_until(must, random.Random(5), lambda t: person_turn_with_choice(t) and not can_empty_hand(t.game))
    assert must.hint().reason == "search"


@pytest.mark.parametrize(
    ("levels", "seed", "person"),
    [("human,greedy,greedy", 5, 0), ("medium,human", 7, 1), ("greedy,expert,human,human", 3, 3)],
)
def test_the_hint_is_masters_advice_seeded_by_the_hint_rule(levels: str, seed: int, person: int) -> None:
    """The strongest level gives the hint, seeded by ``hint_seed``: what ``MasterBot`` advises from the
    person's own view, the same each time it is asked."""
    table = make_table(levels, seed=seed)
    rng = random.Random(seed)
    play_until(  # once the pile is empty master searches, and its seed decides which deals it samples
        table,
        rng,
        lambda t: (
            person_turn_with_choice(t)
            and t.game.turn == person
            and not t.game.pile_size()
            and not can_empty_hand(t.game)
        ),
    )
    assert table.game.turn == person
    master = MasterBot(hint_seed(table.game_seed, table.game.move_count))
    master.start_game(person, table.players, table.game.rules)
    expected = master.advise(table.game.view(person))
    assert expected.reason == "search"
    assert table.hint() == expected
    assert table.hint() == expected  # asked again, the same advice
    assert table.hint(seed=hint_seed(table.game_seed, table.game.move_count)) == expected


# -- records --------------------------------------------------------------------------------------------------------


def test_record_carries_names_bots_and_match() -> None:
    table = Table(
        TableSetup(
            (Seat("Anna"), Seat("Ben", "greedy"), Seat("Cleo", "random")),
            rules="ravensburger",
            rounds=3,
            target=50,
            seed=42,
        )
    )
    record = table.record()
    assert record["format"] == "elferraus/1"
    assert record["names"] == ["Anna", "Ben", "Cleo"]
    assert record["bots"] == ["human", "greedy", "random"]
    assert record["match"] == {"seed": 42, "rounds": 3, "target": 50, "scores": []}
    assert record["round"] == 1
    json.dumps(record)  # plain JSON


def test_resume_mid_game_at_the_same_position() -> None:
    table = make_table("human,greedy,medium", seed=17, rules="ravensburger", rounds=3)
    rng = random.Random(17)
    play_until(table, rng, lambda t: t.game.move_count > 20 and t.person_to_move())
    record = json.loads(json.dumps(table.record()))
    resumed = Table.from_record(record)
    assert format_position(resumed.game) == format_position(table.game)
    assert resumed.game.record_moves() == table.game.record_moves()
    assert resumed.names == table.names
    assert resumed.setup == table.setup
    assert resumed.match.scores == []
    assert resumed.people == (0,)
    assert {seat: bot.name for seat, bot in resumed.bots.items()} == {1: "greedy", 2: "medium"}
    # and it plays on from there
    computers_until_person(resumed)
    play_to_end(resumed, rng)


def test_resume_a_finished_round_of_a_match_deals_the_next() -> None:
    table = make_table("human,greedy,random", seed=23, rounds=3)
    rng = random.Random(23)
    play_to_end(table, rng)
    record = table.record()
    penalties = table.finish_round()
    resumed = Table.from_record(json.loads(json.dumps(record)))
    assert resumed.match.scores == [penalties]
    assert resumed.game.move_count == 0
    assert not resumed.game.is_over()
    assert resumed.game.metadata["round"] == 2
    table.next_round()
    assert format_position(resumed.game) == format_position(table.game)  # the same second deal
    assert resumed.record()["match"]["scores"] == [penalties]


def test_resume_a_finished_single_game_is_refused() -> None:
    table = make_table("human,greedy", seed=31)
    play_to_end(table, random.Random(31))
    with pytest.raises(RecordError, match="nothing to resume"):
        Table.from_record(table.record())


def test_a_record_without_seats_seats_a_person_and_medium_players() -> None:
    record = write_record(Game.deal(3, seed=4))
    table = Table.from_record(record)
    assert table.people == (0,)
    assert table.names == ["Player 1", "Player 2", "Player 3"]
    assert [bot.name for bot in table.bots.values()] == ["medium", "medium"]


def broken(key: str, value: Any) -> dict[str, Any]:
    """A mid-game record with ``key`` set to ``value`` (deleted when ``value`` is ...)."""
    table = make_table("human,greedy,random", seed=3, rounds=3)
    play_until(table, random.Random(3), lambda t: t.game.move_count > 5)
    record = copy.deepcopy(table.record())
    if value is ...:
        del record["match"][key]
    else:
        record[key] = value
    return record


@pytest.mark.parametrize(
    ("record", "key"),
    [
        (broken("names", "Anna"), "'names'"),
        (broken("names", ["Anna", "Ben"]), "'names'"),
        (broken("names", ["Anna", "", "Cleo"]), "'names'"),
        (broken("names", ["Anna", 2, "Cleo"]), "'names'"),
        (broken("bots", "greedy"), "'bots'"),
        (broken("bots", ["human", "greedy"]), "'bots'"),
        (broken("bots", ["human", "godlike", "random"]), "'bots' seat 1"),
        (broken("bots", ["human", 3, "random"]), "'bots' seat 1"),
        (broken("match", "3 rounds"), "'match'"),
        (broken("match", {"seed": 1, "rounds": "3", "scores": []}), "match"),
        (broken("match", {"seed": 1, "rounds": 3, "scores": [[1, 2]]}), "'scores'"),
        (broken("match", {"seed": 1, "rounds": 3, "scores": [[1, -2, 3]]}), "'scores'"),
        (broken("match", {"seed": 1, "scores": []}), "'rounds'"),
        (broken("match", {"seed": 1, "rounds": 0, "scores": []}), "match"),
        (broken("match", {"seed": 1, "rounds": 2, "scores": [[0, 1, 2], [3, 0, 1]]}), "match is already over"),
    ],
    ids=[
        "names-text",
        "names-short",
        "names-empty",
        "names-number",
        "bots-text",
        "bots-short",
        "bots-unknown",
        "bots-number",
        "match-text",
        "match-rounds-text",
        "match-scores-short",
        "match-scores-negative",
        "match-no-rounds",
        "match-no-round",
        "match-over",
    ],
)
def test_broken_extra_keys(record: dict[str, Any], key: str) -> None:
    with pytest.raises(RecordError, match=key):
        Table.from_record(record)


def test_records_of_people_and_computers_round_trip_through_json() -> None:
    table = make_table("human,greedy,human", seed=19)
    play_until(table, random.Random(19), lambda t: t.game.move_count > 15)
    resumed = Table.from_record(json.loads(json.dumps(table.record())))
    assert resumed.people == (0, 2)
    assert resumed.record() == table.record()
    assert resumed.game.legal_moves() == table.game.legal_moves()


@pytest.mark.parametrize("seed", [6, 11, 23])
def test_undo_skips_turns_without_a_choice(seed: int) -> None:
    """Taking back lands on the person's latest turn with a real choice; later turns of his had none."""
    table = Table(TableSetup(seats=(Seat("You"), Seat("G", "greedy"), Seat("R", "random")), seed=seed))
    game = table.game
    checked = 0
    while not game.is_over():
        if table.is_person(game.turn) and not game.laid_this_turn() and not game.draws_this_turn:
            target = table.undo_target(0)
            history = game.history()
            probe = game.copy()
            options = [0] * probe.move_count
            for index in range(probe.move_count - 1, -1, -1):
                probe.pop()
                options[index] = len(probe.legal_moves())
            # nothing before the latest draw comes back (a drawn card stays drawn)
            since = max((index + 1 for index, (_mover, move, _drawn) in enumerate(history) if move == DRAW), default=0)
            own = [index for index, (mover, _move, _drawn) in enumerate(history) if mover == 0 and index >= since]
            if target is None:
                assert all(options[index] == 1 for index in own)
            else:
                checked += 1
                assert target >= since
                assert history[target][0] == 0
                assert target in (0, since) or history[target - 1][0] != 0
                turn_end = next((i for i in range(target, len(history)) if history[i][0] != 0), len(history))
                assert any(options[index] > 1 for index in range(target, turn_end))
                assert all(options[index] == 1 for index in own if index >= turn_end)
        seat = game.turn
        game.push(game.legal_moves()[0] if table.is_person(seat) else table.think())
    assert checked > 0


def test_a_resumed_match_keeps_each_records_scores_apart() -> None:
    """Scoring the resumed round must not change the record it was resumed from, nor a record taken before."""
    table = Table(TableSetup(seats=(Seat("You"), Seat("G", "greedy")), rounds=3, seed=2))
    saved = json.loads(json.dumps(table.record()))
    resumed = Table.from_record(saved)
    game = resumed.game
    while not game.is_over():
        game.push(game.legal_moves()[0] if resumed.is_person(game.turn) else resumed.think())
    before = resumed.record()
    resumed.finish_round()
    assert saved["match"]["scores"] == []
    assert before["match"]["scores"] == []
    assert resumed.match.scores == [game.penalties()]


# -- the turn driver ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("rules", ["classic", "ravensburger", "beginners"])
def test_the_table_waits_for_a_person_exactly_when_he_has_a_choice(seed: int, rules: str) -> None:
    table = make_table("human,greedy,human", seed=seed, rules=rules)
    rng = random.Random(seed)
    made_for = 0
    while not table.game.is_over():
        game, seat = table.game, table.game.turn
        legal = game.legal_moves()
        step = table.next_step()
        assert step.seat == seat
        if table.is_person(seat):
            assert step.kind == ("ask" if len(legal) > 1 else "made_for_person")
            assert step.move == table.made_for_person() == (legal[0] if len(legal) == 1 else None)
        else:
            assert step == Step("think", seat)
            assert table.made_for_person() is None
        if step.kind != "ask":
            move = step.move or table.think()
            assert move in legal
            made_for += table.is_person(seat)
            table.play(move)
            if table.is_person(seat):
                again = table.next_step()
                assert table.last_made_for(seat) == move or (again.kind, again.seat) == ("ask", seat)
        else:
            table.play(rng.choice(legal), seat=seat)
            assert table.last_made_for(seat) is None
    assert table.next_step() == Step("match_over", None)
    with pytest.raises(TurnError):
        table.think()
    assert made_for > 0, "the opening 11 alone is made for a person now and then"


def test_the_table_scores_a_round_once_when_its_last_move_is_made() -> None:
    table = make_table("human,greedy", seed=6, rounds=2)
    rng = random.Random(6)
    while (step := table.next_step()).kind not in ("round_over", "match_over"):
        table.play(rng.choice(table.game.legal_moves()) if step.kind == "ask" else step.move or table.think())
    assert step == Step("round_over", None)
    assert table.match.scores == [table.game.penalties()]
    assert len(table.finished) == 1
    assert table.finish_round() == table.game.penalties()  # asking again scores nothing twice
    assert table.next_step() == step
    assert (len(table.match.scores), len(table.finished)) == (1, 1)
    table.next_round()
    with pytest.raises(ValueError, match="not over"):
        table.finish_round()
    table.play_automatic()
    while table.next_step().kind == "ask":
        table.play(table.game.legal_moves()[0])
        table.play_automatic()
    assert table.next_step() == Step("match_over", None)
    assert len(table.match.scores) == len(table.finished) == 2


def test_play_refuses_the_wrong_seat_and_illegal_moves_with_their_reason() -> None:
    table = make_table("human,greedy", seed=3)
    table.play_automatic()
    seat = table.game.turn
    with pytest.raises(TurnError, match="not to move"):
        table.play(table.game.legal_moves()[0], seat=1 - seat)
    illegal = next(Move.lay(card) for card in table.game.hand(seat) if not table.game.fits(card))
    with pytest.raises(IllegalMoveError) as caught:
        table.play(illegal, seat=seat)
    assert caught.value.reason
    with pytest.raises(IllegalMoveError) as previewed:
        table.preview(illegal, seat=seat)
    assert previewed.value.reason == caught.value.reason


@pytest.mark.parametrize("seed", [1, 7, 11])
def test_preview_says_what_play_then_does(seed: int) -> None:
    table = make_table("human,greedy,random", seed=seed)
    rng = random.Random(seed)
    while not table.game.is_over():
        step = table.next_step()
        move = rng.choice(table.game.legal_moves()) if step.kind == "ask" else step.move or table.think()
        before = table.game.move_count
        preview = table.preview(move)
        assert table.game.move_count == before  # nothing made yet
        table.play(move)
        assert preview.number == before
        assert preview.text == table.game.record_moves()[-1]
        if table.game.is_over():
            assert preview.result == {"winner": table.game.winner, "penalties": table.game.penalties()}
            assert preview.match_over
        else:
            assert preview.result is None
    with pytest.raises(TurnError, match="over"):
        table.play(DRAW)


def test_a_stand_in_plays_for_a_person_away_seeded_by_the_rule() -> None:
    table = make_table("human,greedy,human", seed=5)
    table.stand_in(2)
    assert table.bots[2].name == STAND_IN
    assert table.is_person(2)
    assert table.undo_target(2) is None
    while table.next_step() != Step("ask", 0):
        if table.game.is_over():
            break
        table.play_automatic() or table.play(table.game.legal_moves()[0])
    table.come_back(2)
    assert 2 not in table.bots
    with pytest.raises(ValueError, match="computer"):
        table.stand_in(1)


def test_computers_are_seeded_from_the_deal_and_their_seat() -> None:
    table = make_table("human,easy,medium", seed=9, rounds=2)
    assert table.game_seed == table.match.round_seed(0)
    assert [bot.seed for bot in table.bots.values()] == [seat_seed(table.game_seed, seat) for seat in (1, 2)]
    table.play_automatic()
    while not table.game.is_over():
        table.play(table.game.legal_moves()[0])
        table.play_automatic()
    table.finish_round()
    table.next_round()
    assert table.game_seed == table.match.round_seed(1)
    assert [bot.seed for bot in table.bots.values()] == [seat_seed(table.game_seed, seat) for seat in (1, 2)]


def test_records_and_from_records_resume_the_whole_match() -> None:
    table = make_table("human,greedy", seed=4, rounds=3)
    rng = random.Random(4)
    play_to_end(table, rng)
    table.finish_round()
    table.next_round()
    play_until(table, rng, lambda t: t.game.move_count > 10)
    records = json.loads(json.dumps(table.records()))
    assert len(records) == 2
    resumed = Table.from_records(records)
    assert resumed.finished == records[:1]
    assert format_position(resumed.game) == format_position(table.game)
    assert resumed.match.scores == table.match.scores
    with pytest.raises(RecordError, match="no game"):
        Table.from_records([])


@pytest.mark.parametrize("seed", [0, 3])
def test_a_save_at_any_moment_resumes_the_turn_where_it_stood(seed: int) -> None:
    """A save in the middle of a turn (a person's or a computer's: lays made, cards drawn, the end not yet made)
    resumes that same turn at the same point, and the game plays on to its end from there."""
    table = make_table("human,greedy,random", seed=seed)
    rng = random.Random(seed)
    middles = 0
    while not table.game.is_over():
        game = table.game
        middles += bool(game.laid_this_turn() or game.draws_this_turn)
        resumed = Table.from_record(json.loads(json.dumps(table.record())))
        assert format_position(resumed.game) == format_position(game)
        assert resumed.game.legal_moves() == game.legal_moves()
        if game.move_count % 10 == 0:
            other = random.Random(game.move_count)
            while not (coming := resumed.next_step()).kind.endswith("over"):
                if coming.move is None:
                    ask = coming.kind == "ask"
                    resumed.play(other.choice(resumed.game.legal_moves()) if ask else resumed.think())
                else:
                    resumed.play(coming.move)
            assert resumed.game.winner is not None
        step(table, rng)
    assert middles > 10
