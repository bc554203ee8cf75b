"""The observation tensors (``elferraus.observation``): every piece says what its table in the docs says,
the fast path equals the plain one, and the layout is what the frameworks are told."""

from __future__ import annotations

import random

import numpy as np
import pytest

from elferraus import Game
from elferraus.observation import History, Layout, SeatObserver, dealt_hand, write_view
from elferraus.rules import PRESETS


def _tensor(game: Game, seat: int, history: bool, tracked: History | None = None) -> dict[str, np.ndarray]:
    layout = Layout(game.players, history)
    tensor = np.zeros(layout.size, np.float32)
    pieces = layout.views(tensor)
    write_view(game.view(seat), pieces, history=history, tracked=tracked)
    return pieces


@pytest.mark.parametrize("rules", list(PRESETS))
@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_piece_says_what_the_game_says_from_the_seats_side(players: int, rules: str) -> None:
    rng = random.Random(f"{players}{rules}")
    for seed in range(3):
        game = Game.deal(players, seed=seed, rules=rules)
        observer = SeatObserver(players, game.rules.max_draws)
        while not game.is_over():
            for seat in {game.turn, rng.randrange(players)}:
                pieces = _tensor(game, seat, history=True)
                slot = [(seat + k) % players for k in range(players)]
                assert set(np.flatnonzero(pieces["hand"])) == {card.index for card in game.hand(seat)}
                assert set(np.flatnonzero(pieces["fits"])) == {card.index for card in game.fitting_cards()}
                laid = {card.index for text in game.public_moves(None) for card in _lays(text)}
                assert set(np.flatnonzero(pieces["table"])) == laid
                assert list(pieces["hand_counts"] * 20) == [game.hand_sizes()[s] for s in slot]
                assert pieces["pile"][0] * 80 == pytest.approx(game.pile_size())
                assert list(np.flatnonzero(pieces["to_move"])) == [(game.turn - seat) % players]
                assert pieces["phase"][0] == (1.0 if game.laid_this_turn() else 0.0)
                drawn = game.drawn_playable() if game.turn == seat else None
                assert set(np.flatnonzero(pieces["drawn"])) == ({drawn.index} if drawn else set())
                for k, other in enumerate(slot):
                    mine = {
                        card.index
                        for text in game.public_moves(None)
                        if text.startswith(f"{other} ")
                        for card in _lays(text)
                    }
                    assert set(np.flatnonzero(pieces["laid_by"][k])) == mine
                    draws = sum(1 for text in game.public_moves(None) if text.startswith(f"{other} draw"))
                    assert pieces["drew"][k] * 40 == pytest.approx(draws)
                fast = observer.observe(game, seat)
                assert np.array_equal(
                    fast, np.concatenate([pieces[name].ravel() for name, _ in Layout(players, True).pieces])
                )
            game.push(rng.choice(game.legal_moves()))
        final = _tensor(game, 0, history=False)
        assert not final["to_move"].any()


def _lays(text: str) -> list:
    from elferraus.moves import Move

    action = text.split()[1]
    move = Move.parse(action)
    return [move.card] if move.card is not None else []


def test_the_layout_and_its_bounds() -> None:
    layout = Layout(4, history=True)
    slices = layout.slices()
    assert slices["hand"] == (0, 80)
    assert slices["hand_counts"] == (320, 4)
    assert slices["seats"] == (331, 4 * 82)
    assert layout.size == 331 + 4 * 82 == 659
    pieces = layout.views(np.arange(layout.size, dtype=np.float32))
    assert pieces["laid_by"][1, 0] == 331 + 82  # seat 1's block starts with its laid cards
    assert pieces["drew"][1] == 331 + 82 + 80
    assert pieces["kept"][1] == 331 + 82 + 81
    assert Layout(4, history=False).size == 331
    high = layout.high()
    assert high[320] == 4.0
    assert high[331 + 80] == 2.0  # the first block's drew
    assert high.min() == 1.0


def test_the_dealt_hand_is_read_back_from_the_history() -> None:
    rng = random.Random(3)
    game = Game.deal(3, seed=8)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
        for seat in range(3):
            assert dealt_hand(game.view(seat)) == game.dealt[0][seat]
