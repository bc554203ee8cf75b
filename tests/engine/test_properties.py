"""Property tests: a Hypothesis state machine over games, and the text forms' round trips."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from elferraus import (
    CARDS,
    DRAW,
    PASS,
    Card,
    Game,
    IllegalMoveError,
    Move,
    NotationError,
    Rules,
    format_position,
    read_position,
    read_record,
    write_record,
)

RULES = st.sampled_from(
    [
        Rules.preset("classic"),
        Rules.preset("ravensburger"),
        Rules.preset("beginners"),
        Rules(after_draw="continue"),
        Rules(must_play=True, after_draw="continue", max_draws=1),
        Rules(max_draws=5),
        Rules(colors="RYG", max_draws=2, must_play=True),
    ]
)
ALL_MOVES = [*(Move.lay(card) for card in CARDS), DRAW, PASS]


class GameMachine(RuleBasedStateMachine):
    """Push, pop, copy, and read back a game through every text form, at random."""

    game: Game

    @initialize(players=st.integers(2, 6), rules=RULES, seed=st.integers(0, 2**64))
    def deal(self, players: int, rules: Rules, seed: int) -> None:
        self.game = Game.deal(players, seed, rules)
        self.positions = [format_position(self.game)]

    @precondition(lambda self: not self.game.is_over())
    @rule(data=st.data())
    def push_legal_move(self, data: st.DataObject) -> None:
        move = data.draw(st.sampled_from(self.game.legal_moves()), label="move")
        self.game.push(move)
        self.positions.append(format_position(self.game))

    @precondition(lambda self: not self.game.is_over())
    @rule(seed=st.integers(0, 2**32), count=st.integers(1, 80))
    def push_random_moves(self, seed: int, count: int) -> None:
        """Many moves at once, so that games reach empty piles and their end."""
        rng = random.Random(seed)
        for _ in range(count):
            if self.game.is_over():
                break
            self.game.push(rng.choice(self.game.legal_moves()))
            self.positions.append(format_position(self.game))

    @precondition(lambda self: self.game.move_count > 0)
    @rule(count=st.integers(1, 10))
    def pop(self, count: int) -> None:
        for _ in range(min(count, self.game.move_count)):
            self.game.pop()
            self.positions.pop()
            assert format_position(self.game) == self.positions[-1]

    @precondition(lambda self: self.game.move_count > 0)
    @rule(count=st.integers(1, 8), seed=st.integers(0, 2**32))
    def take_back_and_play_on(self, count: int, seed: int) -> None:
        """Take back some moves and play others in one go (as an analysis board does)."""
        rng = random.Random(seed)
        for _ in range(min(count, self.game.move_count)):
            self.game.pop()
            self.positions.pop()
        for _ in range(count):
            if self.game.is_over():
                break
            self.game.push(rng.choice(self.game.legal_moves()))
            self.positions.append(format_position(self.game))

    @rule(move=st.sampled_from(ALL_MOVES))
    def illegal_moves_change_nothing(self, move: Move) -> None:
        if move in self.game.legal_moves():
            return
        before = format_position(self.game)
        with pytest.raises(IllegalMoveError):
            self.game.push(move)
        assert format_position(self.game) == before

    @rule(seed=st.integers(0, 2**32))
    def copy_is_independent(self, seed: int) -> None:
        before = format_position(self.game)
        for other in (self.game.copy(), self.game.copy(history=False)):
            assert format_position(other) == before
            assert other.legal_moves() == self.game.legal_moves()
            rng = random.Random(seed)
            for _ in range(5):
                if other.is_over():
                    break
                other.push(rng.choice(other.legal_moves()))
            assert format_position(self.game) == before

    @rule()
    def record_round_trip(self) -> None:
        record = write_record(self.game)
        again = read_record(record)
        assert format_position(again) == format_position(self.game)
        assert write_record(again) == record

    @invariant()
    def position_round_trip(self) -> None:
        if not hasattr(self, "game"):
            return
        text = format_position(self.game)
        assert format_position(read_position(text)) == text
        assert read_position(text).legal_moves() == self.game.legal_moves()

    @invariant()
    def views(self) -> None:
        if not hasattr(self, "game"):
            return
        game = self.game
        records = game.record_moves()
        for seat in range(game.players):
            view = game.view(seat)
            assert view.hand == tuple(game.hand(seat))
            others = {card for other in range(game.players) if other != seat for card in game.hand(other)}
            assert not others & set(view.hand)
            if seat == game.turn and not game.is_over():
                assert view.legal == game.legal_moves()
            else:
                assert view.legal == ()
            expected = [
                f"{text.split()[0]} draw" if " draw " in text and int(text.split()[0]) != seat else text
                for text in records
            ]
            assert list(view.moves) == expected, f"seat {seat}'s view.moves differs from record_moves()"
        hidden = [" ".join(text.split()[:2]) if " draw " in text else text for text in records]
        assert list(game.public_moves(None)) == hidden, "the moves as no seat sees them hide every draw's card"
        assert [game.moved(index) for index in range(game.move_count)] == [
            (seat, move) for seat, move, _drawn in game.history()
        ]

    @invariant()
    def game_state(self) -> None:
        if not hasattr(self, "game"):
            return
        game = self.game
        assert bool(game.legal_moves()) != game.is_over()
        assert game.move_count == len(self.positions) - 1
        total = sum(game.hand_sizes()) + game.pile_size()
        total += sum(high - low + 1 for low, high in game.rows().values())
        assert total == game.rules.deck_size


# No shrink phase: shrinking a failing 60-step game takes minutes; the failing
# steps are printed as they are, and the scenario tests give minimal cases.
GameMachine.TestCase.settings = settings(
    max_examples=200,
    stateful_step_count=60,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow],
)
TestGameMachine = GameMachine.TestCase


# -- text forms ----------------------------------------------------------------------------------------

BOUNDED = settings(max_examples=200, deadline=None, derandomize=True, database=None)


@BOUNDED
@given(st.sampled_from(CARDS))
def test_card_text_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert Card.parse(str(card)) is card
    assert Card.parse(f" {str(card).lower()} ") is card
    assert Card.from_index(card.index) is card
    assert eval(repr(card), {"Card": Card}) is card


@BOUNDED
@given(st.sampled_from(ALL_MOVES))
def test_move_text_round_trip(move: Move) -> None:
    assert Move.parse(str(move)) == move
    assert Move.parse(str(move)) is move
    assert Move.parse(str(move).upper()) is move
    assert eval(repr(move), {"Move": Move}) is move


@BOUNDED
@given(
    colors=st.sampled_from(["RYGB", "RYG"]),
    max_draws=st.integers(1, 80),
    must_play=st.booleans(),
    after_draw=st.sampled_from(["end", "continue"]),
    hand_size=st.none() | st.integers(1, 40),
)
def test_rules_round_trips(
    colors: str, max_draws: int, must_play: bool, after_draw: str, hand_size: int | None
) -> None:
    rules = Rules(colors, max_draws, must_play, after_draw, hand_size)  # type: ignore[arg-type]
    assert eval(repr(rules), {"Rules": Rules}) == rules
    assert Rules.from_dict(rules.to_dict()) == rules


@BOUNDED
@given(st.text(max_size=6))
def test_parsing_any_text_gives_a_card_or_a_notation_error(text: str) -> None:
    try:
        card = Card.parse(text)
    except NotationError:
        return
    assert str(card) == text.strip().upper()


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**64), moves=st.integers(0, 300), rules=RULES)
def test_game_repr_round_trip(players: int, seed: int, moves: int, rules: Rules) -> None:
    game = Game.deal(players, seed, rules)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over():
            break
        game.push(rng.choice(game.legal_moves()))
    again = eval(repr(game), {"read_position": read_position})
    assert format_position(again) == format_position(game)
