"""The position string: round trips, and malformed or impossible positions rejected."""

from __future__ import annotations

import random

import pytest

from elferraus import Game, Move, NotationError, format_position, read_position, write_record
from tests.support.engine_helpers import expand_position, play_random, random_positions

POSITIONS = list(random_positions(600, seed=2024))


def test_positions_cover_every_phase() -> None:
    """The random positions include openings, draws, lays, empty piles and finished games."""
    assert any(not game.started for game in POSITIONS)
    assert any(game.draws_this_turn for game in POSITIONS)
    assert any(game.laid_this_turn() for game in POSITIONS)
    assert any(game.pile_size() == 0 and not game.is_over() for game in POSITIONS)
    assert any(game.is_over() for game in POSITIONS)
    assert len({game.rules for game in POSITIONS}) == 7
    assert {game.players for game in POSITIONS} == {2, 3, 4, 5, 6}


def test_position_round_trip() -> None:
    for game in POSITIONS:
        text = format_position(game)
        assert len(text.split()) == 6
        again = read_position(text)
        assert format_position(again) == text
        assert format_position(eval(repr(game), {"read_position": read_position})) == text


def test_position_game_plays_on_like_the_original() -> None:
    """A game read from a position string has the same legal moves, now and after more moves."""
    rng = random.Random(7)
    for game in POSITIONS[:300]:
        original = game.copy()
        again = read_position(format_position(game))
        assert again.legal_moves() == original.legal_moves()
        assert again.winner == original.winner
        assert again.turn == original.turn
        assert again.laid_this_turn() == original.laid_this_turn()
        assert again.drawn_playable() == original.drawn_playable()
        for _ in range(25):
            if original.is_over():
                break
            move = rng.choice(original.legal_moves())
            original.push(move)
            again.push(move)
            assert format_position(again) == format_position(original)
            assert again.legal_moves() == original.legal_moves()


def test_a_position_has_no_history() -> None:
    game = read_position(format_position(POSITIONS[5]))
    assert game.move_count == 0
    with pytest.raises(IndexError):
        game.pop()
    with pytest.raises(ValueError, match="position"):
        write_record(game)
    assert game.dealt is None
    with pytest.raises(ValueError, match="position"):
        write_record(POSITIONS[5].copy(history=False))


def test_rows_may_be_written_in_any_order() -> None:
    tail = "R5/* - 0 -:0:- RYGB:3:free:end"
    one = read_position(expand_position(f"R11-11,Y11-11 {tail}"))
    other = read_position(expand_position(f"Y11-11,R11-11 {tail}"))
    assert format_position(one) == format_position(other)


# -- malformed and impossible positions ---------------------------------------------------------------

BAD_POSITIONS = [
    # (id, compact position, phrase the NotationError must contain)
    ("five-fields", "R11-11 R12/* - 0 RYGB:3:free:end", "6 fields"),
    ("seven-fields", "R11-11 R12/* - 0 -:0:- RYGB:3:free:end extra", "6 fields"),
    ("bad-row", "R11-x R12/* - 0 -:0:- RYGB:3:free:end", "row 'R11-x'"),
    ("row-without-its-eleven", "R12-15 R5/* - 0 -:0:- RYGB:3:free:end", "1-11 to 11-20"),
    ("row-beyond-twenty", "R11-21 R5/* - 0 -:0:- RYGB:3:free:end", "1-11 to 11-20"),
    ("two-rows-of-one-colour", "R11-11,R10-12 R5/* - 0 -:0:- RYGB:3:free:end", "two rows"),
    ("blue-row-in-beginners-deck", "B11-11 R5/* - 0 -:0:- RYG:3:free:end", "not in the RYG deck"),
    ("blue-card-in-beginners-deck", "R11-11 R5B5/* - 0 -:0:- RYG:3:free:end", "not in the RYG deck"),
    ("bad-card-in-hand", "R11-11 R5R21/* - 0 -:0:- RYGB:3:free:end", "hand 0"),
    ("bad-card-on-pile", "R11-11 R5/* X9 0 -:0:- RYGB:3:free:end", "pile"),
    ("duplicate-card", "R11-11 R5R12/* R12 0 -:0:- RYGB:3:free:end", "R12 is both in"),
    ("card-in-hand-and-on-table", "R11-11 R5R11/* - 0 -:0:- RYGB:3:free:end", "R11 is both in the table"),
    ("missing-card", "R11-11 R5/G3 Y5 0 -:0:- RYGB:3:free:end", "cards missing"),
    ("one-hand", "R11-11 * - 0 -:0:- RYGB:3:free:end", "2-6 hands"),
    ("seven-hands", "R11-11 R1/R2/R3/R4/R5/R6/* - 0 -:0:- RYGB:3:free:end", "2-6 hands"),
    ("seat-out-of-range", "R11-11 R5/* - 2 -:0:- RYGB:3:free:end", "not a seat 0-1"),
    ("seat-not-a-number", "R11-11 R5/* - x -:0:- RYGB:3:free:end", "not a seat"),
    ("negative-seat", "R11-11 R5/* - -1 -:0:- RYGB:3:free:end", "not a seat"),
    ("bad-phase", "R11-11 R5/* - 0 -:0 RYGB:3:free:end", "turn phase"),
    ("draws-over-the-limit", "R11-11 R5/* G3 0 -:4:R5 RYGB:3:free:end", "the rules allow 3"),
    ("drawn-card-without-draws", "R11-11 R5/* - 0 -:0:R5 RYGB:3:free:end", "exactly when cards were drawn"),
    ("draws-without-drawn-card", "R11-11 R5/* - 0 -:1:- RYGB:3:free:end", "exactly when cards were drawn"),
    ("drawn-card-not-in-hand", "R11-11 R5/* - 0 -:1:G3 RYGB:3:free:end", "neither in the hand nor laid"),
    ("laid-card-not-on-table", "R11-11 R5/* - 0 R12:0:- RYGB:3:free:end", "not on the table"),
    ("drawn-card-laid-turn-goes-on", "R11-12 R5/* - 0 R12:1:R12 RYGB:3:free:end", "the turn ends"),
    ("two-empty-hands", "R1-20,Y1-20,G1-20,B2-20 -/-/B1 - 0 R1:0:- RYGB:3:free:end", "only one hand can be empty"),
    ("empty-hand-not-to-move", "R10-11 -/* - 1 -:0:- RYGB:3:free:end", "only one hand can be empty"),
    ("opening-by-the-wrong-seat", "- R11/Y11 * 1 -:0:- RYGB:3:free:end", "seat 0 holds R11 and must open"),
    ("opening-yellow-by-the-wrong-seat", "- R5Y11/G11 * 1 -:0:- RYGB:3:free:end", "seat 0 holds Y11"),
    ("no-row-and-no-eleven-in-hand", "- R5/G5 * 0 -:0:- RYGB:3:free:end", "no hand holds an 11"),
    ("drawn-before-the-opening", "- R11G20/Y5 * 0 -:1:G20 RYGB:3:free:end", "nothing can have been"),
    ("bad-rules-field", "R11-11 R5/* - 0 -:0:- RYGB:3:maybe:end", "rules field"),
    ("bad-max-draws", "R11-11 R5/* - 0 -:0:- RYGB:0:free:end", "max_draws"),
    ("bad-colours", "R11-11 R5/* - 0 -:0:- RGB:3:free:end", "colors"),
    ("bad-after-draw", "R11-11 R5/* - 0 -:0:- RYGB:3:free:stop", "after_draw"),
    # Impossible though well-formed: an empty hand is the winner's, and the game ends
    # with the lay of his last card, so he has laid at least one card this turn.
    ("winner-laid-nothing", "R10-11 -/* - 0 -:0:- RYGB:3:free:end", "laid"),
    # A card cannot be laid twice in one turn.
    ("card-laid-twice", "R11-12 R5/* - 0 R12R12:0:- RYGB:3:free:end", "R12"),
    # The opening 11 is a move of its own and ends the turn: with the table holding
    # only the cards laid this turn, the first of them was the opening.
    ("opening-in-a-turn-that-goes-on", "R11-11 R5/* - 0 R11:0:- RYGB:3:free:end", "R11"),
]


@pytest.mark.parametrize(("text", "phrase"), [row[1:] for row in BAD_POSITIONS], ids=[row[0] for row in BAD_POSITIONS])
def test_bad_position_rejected(text: str, phrase: str) -> None:
    with pytest.raises(NotationError) as caught:
        read_position(expand_position(text))
    assert phrase in str(caught.value)


def test_position_of_a_finished_game() -> None:
    game = read_position(expand_position("R11-11 R12/G3 * 0 -:0:- RYGB:3:free:end"))
    game.push(Move.parse("R12"))
    again = read_position(format_position(game))
    assert again.is_over()
    assert again.winner == 0
    assert again.legal_moves() == ()
    assert again.laid_this_turn() == game.laid_this_turn()


def test_finished_random_games_round_trip() -> None:
    rng = random.Random(99)
    for seed in range(40):
        game = Game.deal(2 + seed % 5, seed)
        play_random(game, rng)
        text = format_position(game)
        assert format_position(read_position(text)) == text
        assert read_position(text).winner == game.winner
