"""Playing whole games between computer players."""

from __future__ import annotations

from collections.abc import Sequence

from elferraus.bots import Bot, make_bot, seat_seed
from elferraus.bots.turns import play_turns, start_players
from elferraus.deal import derive_seed
from elferraus.game import Game
from elferraus.rules import Rules


def play_out(game: Game, bots: Sequence[Bot]) -> Game:
    """Let ``bots`` (one per seat) play ``game`` to the end; each sees only its view.

    Raises:
        IllegalMoveError: a bot chose an illegal move.
    """
    players = dict(enumerate(bots))
    start_players(players, game)
    play_turns(game, players)
    return game


def simulate_game(players: int, seed: int, bot_names: Sequence[str], rules: Rules, index: int = 0) -> Game:
    """Deal game ``index`` of a run seeded ``seed`` and play it out with the named bots.

    The bots are seeded by the rule of every table (:func:`elferraus.bots.seat_seed`).
    """
    game_seed = derive_seed(seed, index)
    game = Game.deal(players, game_seed, rules)
    bots = [make_bot(name, seat_seed(game_seed, seat)) for seat, name in enumerate(bot_names)]
    play_out(game, bots)
    game.metadata.update({"seed": game_seed, "bots": list(bot_names), "game": index + 1})
    return game
