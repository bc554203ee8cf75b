"""A seat's view holds its own hand and public facts only, never another hand or the pile."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import random
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from elferraus import Card, Color, Game, Move, Rules, SeatView, format_position, read_position
from elferraus.cards import CARDS
from elferraus.moves import DRAW, LAYS, PASS
from tests.support.engine_helpers import expand_position, mask_of, play_random, random_positions

GAMES = list(random_positions(250, seed=77))
_CARD_TEXT = re.compile(r"\b[RYGB](?:20|1[0-9]|[1-9])\b")


def _cards_in(value: object) -> Iterator[Card]:
    """Every card reachable from ``value``: fields, containers, moves, and card names in strings."""
    if isinstance(value, Card):
        yield value
    elif isinstance(value, Move):
        if value.card is not None:
            yield value.card
    elif isinstance(value, str):
        for text in _CARD_TEXT.findall(value):
            yield Card.parse(text)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _cards_in(key)
            yield from _cards_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _cards_in(item)
    elif isinstance(value, SeatView):
        for field in dataclasses.fields(value):
            yield from _cards_in(getattr(value, field.name))
    elif isinstance(value, Rules | Color | bool | int) or value is None:
        return
    else:
        raise AssertionError(f"a view holds an unexpected {type(value).__name__}: {value!r}")


def _table(game: Game) -> int:
    mask = 0
    for color, (low, high) in game.rows().items():
        mask |= ((1 << (high - low + 1)) - 1) << (color.order * 20 + low - 1)
    return mask


def _expected_moves(game: Game, seat: int) -> list[str]:
    expected = []
    for text in game.record_moves():
        parts = text.split()
        if parts[1] == "draw" and int(parts[0]) != seat:
            expected.append(f"{parts[0]} draw")
        else:
            expected.append(text)
    return expected


def test_views_hold_no_hidden_card() -> None:
    for game in GAMES:
        table = _table(game)
        for seat in range(game.players):
            view = game.view(seat)
            allowed = table | mask_of(game.hand(seat))
            for source in (view, view.to_dict()):
                for card in _cards_in(source):
                    assert allowed >> card.index & 1, f"seat {seat} sees {card}: {format_position(game)}"


def test_view_contents() -> None:
    for game in GAMES:
        to_move = [seat for seat in range(game.players) if game.view(seat).is_my_turn]
        assert to_move == ([] if game.is_over() else [game.turn])
        for seat in range(game.players):
            view = game.view(seat)
            assert view.seat == seat
            assert view.players == game.players
            assert view.rules == game.rules
            assert view.hand == tuple(game.hand(seat))
            assert view.hand_counts == game.hand_sizes()
            assert view.pile == game.pile_size()
            assert dict(view.rows) == game.rows()
            assert view.turn == game.turn
            assert view.winner == game.winner
            assert view.laid == tuple(game.laid_this_turn())
            assert view.draws == game.draws_this_turn
            mine = seat == game.turn and not game.is_over()
            assert view.legal == (game.legal_moves() if mine else ())
            assert view.drawn == (game.drawn_playable() if seat == game.turn else None)
            assert list(view.moves) == _expected_moves(game, seat)
            data = view.to_dict()
            assert json.loads(json.dumps(data)) == data
            assert data["hand"] == [str(card) for card in view.hand]
            assert data["moves"] == list(view.moves)


def test_own_draws_shown_other_draws_hidden() -> None:
    game = read_position(expand_position("R11-11 Y5/G3 G20B1Y20R12* 0 -:0:- RYGB:3:free:end"))
    for text in ("draw", "draw", "draw", "pass", "draw"):
        game.push(Move.parse(text))
    assert game.view(0).moves == ("0 draw G20", "0 draw B1", "0 draw Y20", "0 pass", "1 draw")
    assert game.view(1).moves == ("0 draw", "0 draw", "0 draw", "0 pass", "1 draw R12")
    assert game.view(1).drawn == Card.parse("R12")
    assert game.view(0).drawn is None
    assert game.view(0).legal == ()
    assert {str(m) for m in game.view(1).legal} == {"R12", "pass"}


def test_view_moves_follow_undo_and_other_moves() -> None:
    """After pop() and different moves, the public history must show the new moves."""
    game = read_position(expand_position("R11-11 R10R12Y5/G3 * 0 -:0:- RYGB:3:free:end"))
    game.push(Move.parse("R12"))
    game.push(Move.parse("pass"))
    assert game.view(1).moves == ("0 R12", "0 pass")
    game.pop()
    game.pop()
    game.push(Move.parse("R10"))
    game.push(Move.parse("pass"))
    assert game.record_moves() == ["0 R10", "0 pass"]
    assert game.view(1).moves == ("0 R10", "0 pass")
    assert game.public_moves(0) == ("0 R10", "0 pass")
    assert game.public_moves(None) == ("0 R10", "0 pass")
    assert [game.moved(index) for index in range(2)] == [(0, Move.parse("R10")), (0, Move.parse("pass"))]
    for index in (2, -1):
        with pytest.raises(IndexError):
            game.moved(index)


def test_view_moves_after_random_undo() -> None:
    rng = random.Random(5)
    for seed in range(60):
        game = Game.deal(2 + seed % 5, seed)
        play_random(game, rng, rng.randrange(10, 120))
        seat = rng.randrange(game.players)
        assert list(game.view(seat).moves) == _expected_moves(game, seat)
        for _ in range(rng.randrange(1, min(12, game.move_count) + 1)):
            game.pop()
        play_random(game, rng, rng.randrange(0, 12))
        assert list(game.view(seat).moves) == _expected_moves(game, seat)


def test_view_of_a_copy_is_its_own() -> None:
    game = Game.deal(3, 4)
    play_random(game, random.Random(4), 30)
    before = game.view(1).moves
    other = game.copy()
    play_random(other, random.Random(5), 10)
    assert game.view(1).moves == before
    assert list(other.view(1).moves) == _expected_moves(other, 1)


@pytest.mark.parametrize("seat", [-1, 4, 10])
def test_view_of_a_missing_seat(seat: int) -> None:
    with pytest.raises(ValueError, match="seat"):
        Game.deal(4, 1).view(seat)


@pytest.mark.parametrize("copy_of", [lambda x: pickle.loads(pickle.dumps(x)), copy.copy, copy.deepcopy])
def test_a_view_pickled_or_copied_holds_the_same_card_and_move_objects(copy_of: Callable[[Any], Any]) -> None:
    """Cards and moves exist once each, and identity checks read them (``move is heuristic``): a view sent to
    another process (the server's thinkers) must hold those very objects, or a computer there would choose
    otherwise than here."""
    for game in GAMES[:40]:
        view = game.view(game.turn)
        other = copy_of(view)
        assert other == view
        for mine, theirs in zip(_objects(view), _objects(other), strict=True):
            assert theirs is mine
    everything = [*CARDS, *LAYS, DRAW, PASS]
    assert all(copy_of(thing) is thing for thing in everything)


def _objects(view: SeatView) -> Iterator[Card | Move]:
    """Every card and move object a view holds, in order."""
    yield from view.hand
    yield from view.laid
    if view.drawn is not None:
        yield view.drawn
    for move in view.legal:
        yield move
        if move.card is not None:
            yield move.card
