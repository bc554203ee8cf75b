"""What each client is told: built from its own seat's view, never from the whole game.

While a round runs, a person's payload holds his own hand and nothing of any
other hand or the pile order; a spectator's holds no hand at all and every
draw hidden. Once the round is over the hands are public.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from elferraus.game import Game
from elferraus.view import SeatView
from elferraus.words import status


def view_payload(view: SeatView) -> dict[str, Any]:
    """A seat's ``VIEW``: the bot protocol's view plus the legal moves and, on its turn, what it may do now
    (``prompt``: the status line's message key and parameters, worded by ``elferraus.words``)."""
    data = view.to_dict()
    data["legal"] = [str(move) for move in view.legal]
    data["prompt"] = None
    if view.legal:
        key, params = status(view)
        data["prompt"] = {"key": key, "params": params}
    return data


def hidden_moves(game: Game) -> list[str]:
    """The history with every draw's card hidden (``"3 draw"``), as a spectator sees it."""
    return [" ".join(text.split()[:2]) if " draw " in text else text for text in game.record_moves()]


def game_payload(game: Game, game_id: int | None, moves: Sequence[str]) -> dict[str, Any]:
    """The public ``GAME``; with the result and every hand once the round is over.

    ``moves`` is :func:`hidden_moves` of the game (passed in so it is built once per change).
    """
    view_rows = game.rows()
    data: dict[str, Any] = {
        "rows": {color.value: [low, high] for color, (low, high) in view_rows.items()},
        "hand_counts": list(game.hand_sizes()),
        "pile": game.pile_size(),
        "turn": game.turn,
        "laid": [str(card) for card in game.laid_this_turn()],
        "draws": game.draws_this_turn,
        "moves": list(moves),
        "winner": game.winner,
        "id": game_id,
        "result": None,
    }
    if game.is_over():
        data["result"] = {
            "winner": game.winner,
            "penalties": game.penalties(),
            "hands": [[str(card) for card in game.hand(seat)] for seat in range(game.players)],
        }
    return data
