"""Writing the position string (our FEN); :mod:`elferraus.position` documents and reads it.

The writer sits below the game, and the reader above it: the game names its
position in an illegal move's message and in its ``repr``, while reading a
position builds a game. So this module reads a game through
:class:`~elferraus._game_reading.GameReader` and imports nothing of :mod:`elferraus.game`.
"""

from __future__ import annotations

from elferraus._game_reading import GameReader
from elferraus.cards import format_cards
from elferraus.rules import Rules


def format_rules(rules: Rules) -> str:
    """The rules field: ``RYGB:3:free:end``."""
    return f"{rules.colors}:{rules.max_draws}:{'must' if rules.must_play else 'free'}:{rules.after_draw}"


def format_position(game: GameReader) -> str:
    """Write ``game``'s position as one line."""
    rows = ",".join(f"{color.value}{low}-{high}" for color, (low, high) in game.rows().items()) or "-"
    hands = "/".join(format_cards(game.hand(seat)) or "-" for seat in range(game.players))
    pile = format_cards(game.pile()) or "-"
    laid = format_cards(game.laid_this_turn()) or "-"
    last = str(game.last_drawn) if game.last_drawn is not None else "-"
    phase = f"{laid}:{game.draws_this_turn}:{last}"
    return f"{rows} {hands} {pile} {game.turn} {phase} {format_rules(game.rules)}"
