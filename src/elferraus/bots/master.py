"""``master``: the hoarder's plan while the pile lasts, then a search that reads the others' styles.

Self-play and the measured population (docs/research.md) found one plan
that nobody beats by much: hold every card back while the pile lasts (draw,
keep a drawn card that fits), so that every door stays shut and the spare
cards that open nothing are kept for the race, where each turn must lay a
card. Everything the league and the searches tried against three players of
that plan came out at parity or below, and every other player loses to it.

So ``master`` holds back while the pile lasts under the text's rules (where
holding back is allowed): it draws, keeps what it drew, and lays only to go
out. Once the pile is empty, and all game long under must-play rules, every
decision with a real choice is searched: it deals the cards it cannot see
many times, each deal agreeing with everything its seat has seen, tries
every legal move on each and plays the rest out with a playout policy for
every seat, drawn per deal from what that seat's turns showed of its style
(:data:`elferraus.bots.styles.WITH_HOARDER`: the five styles of
``expert-reads`` and the hoarder); its own later moves are the hoarder's.
The hoarder's move stays the default: the searched best replaces it only
when it won clearly more often (:class:`~elferraus.bots.search.ReadingExpertBot`).

It reads nothing but its seat's :class:`~elferraus.SeatView`. The budget
counts samples, not seconds, so a seeded ``master`` plays the same game on a
busy machine as on an idle one.
"""

from __future__ import annotations

from elferraus.bots.search import Advice, ReadingExpertBot
from elferraus.bots.styles import WITH_HOARDER
from elferraus.moves import Move
from elferraus.view import SeatView


class MasterBot(ReadingExpertBot):
    """The strongest level: the hoarder's plan while the pile lasts, then search (see the module's docstring)."""

    name = "master"
    reading = WITH_HOARDER

    def advise(self, view: SeatView) -> Advice:
        """The move this player would make, and why: ``"plan"`` while it holds back, else as the search's."""
        legal = view.legal
        if len(legal) == 1:
            return Advice(legal[0], "only")
        if view.rules.must_play or not view.pile:
            return super().advise(view)
        move = self._hoarder.choose(view)  # while the pile lasts the hoarder lays only to go out
        return Advice(move, "go_out" if move.card is not None else "plan")

    def _default_move(self, view: SeatView) -> Move:
        """The hoarder's move, at every table (``expert-reads`` lets the search alone decide at tables of players
        who lay whatever they can; ``master``'s figures were measured keeping the default everywhere)."""
        return self._hoarder.choose(view)
