"""The game's hot core in pure Python: the reference for the compiled ``elferraus._core`` (``_core/``).

Both implementations offer exactly the same small interface (below); the
compiled one is used when it was built, and the test suite plays the same
games through both and compares every position.

Representation:

- a hand is one int, a bitmask over card indices (bit ``i`` = card ``i``,
  ``i = colour * 20 + number - 1``);
- ``fit`` is the bitmask of every card that fits on the table now: the 11
  of each colour whose row is not open, and next to each open row the card
  one below its low end and one above its high end. A lay clears the card's
  bit and sets the bits of the cards it makes fit, so rows need no storage;
- the pile is a tuple of card indices (top first) and a read position;
- undo keeps one small tuple per move: (move, seat, laid, draws, last drawn)
  as they were before it.

Interface (``S`` is the state; indices and masks are plain ints):

- ``S(hands, pile, colors, max_draws, must_play, ends_after_draw)``: a new
  deal, the holder of the highest-priority 11 to move;
- ``players``, ``turn``, ``is_over()``, ``legal_moves()``, ``push(move)``
  (calls ``self._illegal(move)`` for the exception to raise), ``pop()``;
- ``_hand_mask(seat)``, ``_hand_count(seat)``, ``_fit_mask()``,
  ``_winner_seat()`` (-1 while running), ``_pile_indices()`` (cards left,
  top first), ``_pile_left()``, ``_put_on_top(card)`` (swap a pile card
  with the top; returns where it was), ``_phase()`` -> (laid, draws, last drawn
  or -1), ``_stack_size()``, ``_stack_entry(i)``, ``_copy_state(history)``,
  ``_load_position(turn, laid, draws, last_drawn, fit)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from elferraus.cards import ELEVEN, NUMBERS
from elferraus.moves import DRAW, DRAW_CODE, LAYS, PASS, Move

_BITS = tuple(1 << index for index in range(4 * NUMBERS))


def _newly_fitting(index: int) -> int:
    """Bits of the cards that fit after laying card ``index`` (its row's new ends)."""
    number = index % NUMBERS + 1
    if number == ELEVEN:
        return _BITS[index - 1] | _BITS[index + 1]
    if number < ELEVEN:
        return _BITS[index - 1] if number > 1 else 0
    return _BITS[index + 1] if number < NUMBERS else 0


NEWLY_FITTING = tuple(_newly_fitting(index) for index in range(4 * NUMBERS))
"""Per card index: the bits of the cards that laying it makes fit."""


def elevens_mask(colors: int) -> int:
    """Bits of the 11s of the first ``colors`` colours."""
    return sum(_BITS[c * NUMBERS + ELEVEN - 1] for c in range(colors))


def can_go_out(own: int, fit: int) -> bool:
    """True if every card of ``own`` can be laid, one after another, starting from the cards ``fit`` lets fit.

    The one rule of going out in a turn, on card masks (``cards.mask_of``, ``cards.fit_mask_of_rows``); the
    rules of the turn itself (a draw that ends it) are the caller's.
    """
    playable = own & fit
    while playable:
        low = playable & -playable
        own ^= low
        fit = (fit ^ low) | NEWLY_FITTING[low.bit_length() - 1]
        playable = own & fit
    return own == 0


def _lays_of(mask: int) -> list[Move]:
    lays = []
    while mask:
        low = mask & -mask
        lays.append(LAYS[low.bit_length() - 1])
        mask ^= low
    return lays


# Legal-move tuples are shared and cached by the set of fitting cards in hand:
# the same combinations recur all the time, and a lookup beats building.
_CACHE_LIMIT = 1 << 16
_FRESH_CACHE: dict[int, tuple[Move, ...]] = {}
_LAID_CACHE: dict[int, tuple[Move, ...]] = {}
_LAYS_CACHE: dict[int, tuple[Move, ...]] = {}
_BY_CODE = (*LAYS, PASS, DRAW)  # the shared move of each code (-1 draw, -2 pass)
_ONLY_DRAW = (DRAW,)
_ONLY_PASS = (PASS,)
_DRAWN_MAY = tuple((lay, PASS) for lay in LAYS)
_DRAWN_MUST = tuple((lay,) for lay in LAYS)


def _cached(cache: dict[int, tuple[Move, ...]], key: int, moves: list[Move]) -> tuple[Move, ...]:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    legal = cache[key] = tuple(moves)
    return legal


class PyState:
    """The mutable core of a game: hands, table, pile, turn phase, undo stack."""

    __slots__ = (
        "_counts",
        "_draws",
        "_elevens",
        "_ends_after_draw",
        "_fit",
        "_hands",
        "_laid",
        "_last_drawn",
        "_legal",
        "_max_draws",
        "_must_play",
        "_pile",
        "_pile_pos",
        "_stack",
        "_to_move",
        "_winner",
        "players",
    )

    def __init__(
        self,
        hands: Sequence[int],
        pile: Sequence[int],
        colors: int,
        max_draws: int,
        must_play: bool,
        ends_after_draw: bool,
    ) -> None:
        self.players = len(hands)
        self._hands = list(hands)
        self._counts = [hand.bit_count() for hand in self._hands]
        self._pile = tuple(pile)
        self._pile_pos = 0
        self._elevens = elevens_mask(colors)
        self._fit = self._elevens
        self._max_draws = max_draws
        self._must_play = must_play
        self._ends_after_draw = ends_after_draw
        self._laid = 0
        self._draws = 0
        self._last_drawn = -1
        self._winner = -1
        self._stack: list[tuple[Move, int, int, int, int]] = []
        self._legal: tuple[Move, ...] | None = None
        self._to_move = self._starter()[0]

    def _starter(self) -> tuple[int, int]:
        """The seat holding the highest-priority 11 and that 11's index ((0, -1) if none)."""
        elevens = self._elevens
        while elevens:
            low = elevens & -elevens
            for seat, hand in enumerate(self._hands):
                if hand & low:
                    return seat, low.bit_length() - 1
            elevens ^= low
        return 0, -1

    @property
    def turn(self) -> int:
        """The seat to move (after the game ended: the winner's seat)."""
        return self._to_move

    def is_over(self) -> bool:
        """True once a player has laid his last card."""
        return self._winner >= 0

    def legal_moves(self) -> tuple[Move, ...]:
        """The moves the player to move may make now (empty once the game is over)."""
        legal = self._legal
        if legal is not None:
            return legal
        if self._winner >= 0:
            legal = ()
        elif self._laid:
            fitting = self._hands[self._to_move] & self._fit
            legal = _LAID_CACHE.get(fitting) or _cached(_LAID_CACHE, fitting, [*_lays_of(fitting), PASS])
        elif self._draws:
            last = self._last_drawn
            if self._fit >> last & 1:
                legal = _DRAWN_MUST[last] if self._must_play else _DRAWN_MAY[last]
            elif self._draws < self._max_draws and self._pile_pos < len(self._pile):
                legal = _ONLY_DRAW
            else:
                legal = _ONLY_PASS
        elif self._fit == self._elevens:
            legal = (LAYS[self._starter()[1]],)
        else:
            fitting = self._hands[self._to_move] & self._fit
            if self._pile_pos == len(self._pile) or (fitting and self._must_play):
                legal = (_LAYS_CACHE.get(fitting) or _cached(_LAYS_CACHE, fitting, _lays_of(fitting))) or _ONLY_PASS
            elif not fitting:
                legal = _ONLY_DRAW
            else:
                legal = _FRESH_CACHE.get(fitting) or _cached(_FRESH_CACHE, fitting, [*_lays_of(fitting), DRAW])
        self._legal = legal
        return legal

    def _illegal(self, move: object) -> Exception:
        return ValueError(f"illegal move {move!r}")

    def push(self, move: Move) -> None:
        """Make ``move`` for the player to move.

        Raises:
            IllegalMoveError: the rules do not allow it now.
        """
        legal = self._legal
        if legal is None:
            legal = self.legal_moves()
        if move not in legal:
            raise self._illegal(move)
        if move.__class__ is not Move or move is not _BY_CODE[move.code]:
            move = legal[legal.index(move)]  # an equal copy was passed: keep the shared object
        self._legal = None
        seat = self._to_move
        code = move.code
        laid = self._laid
        draws = self._draws
        self._stack.append((move, seat, laid, draws, self._last_drawn))
        if code >= 0:
            bit = _BITS[code]
            fit = self._fit
            self._hands[seat] ^= bit
            self._fit = (fit ^ bit) | NEWLY_FITTING[code]
            counts = self._counts
            left = counts[seat] - 1
            counts[seat] = left
            if not left:
                self._winner = seat
                self._laid = laid + 1
            elif fit == self._elevens or (draws and not laid and self._ends_after_draw):
                # The opening 11, or a drawn card laid: the turn ends by itself.
                self._to_move = (seat + 1) % self.players
                self._draws = 0
                self._last_drawn = -1
            else:
                self._laid = laid + 1
        elif code == DRAW_CODE:
            card = self._pile[self._pile_pos]
            self._pile_pos += 1
            self._hands[seat] |= _BITS[card]
            self._counts[seat] += 1
            self._draws = draws + 1
            self._last_drawn = card
        else:
            self._to_move = (seat + 1) % self.players
            self._laid = self._draws = 0
            self._last_drawn = -1

    def pop(self) -> Move:
        """Take back the last move and return it.

        Raises:
            IndexError: there is no move to take back.
        """
        if not self._stack:
            raise IndexError("no move to take back")
        move, seat, laid, draws, last_drawn = self._stack.pop()
        code = move.code
        if code >= 0:
            self._hands[seat] |= _BITS[code]
            self._fit = (self._fit ^ NEWLY_FITTING[code]) | _BITS[code]
            self._counts[seat] += 1
            self._winner = -1
        elif code == DRAW_CODE:
            self._pile_pos -= 1
            self._hands[seat] ^= _BITS[self._pile[self._pile_pos]]
            self._counts[seat] -= 1
        self._to_move = seat
        self._laid = laid
        self._draws = draws
        self._last_drawn = last_drawn
        self._legal = None
        return move

    def _hand_mask(self, seat: int) -> int:
        return self._hands[seat]

    def _hand_count(self, seat: int) -> int:
        return self._counts[seat]

    def _fit_mask(self) -> int:
        return self._fit

    def _winner_seat(self) -> int:
        return self._winner

    def _pile_indices(self) -> tuple[int, ...]:
        return self._pile[self._pile_pos :]

    def _pile_left(self) -> int:
        return len(self._pile) - self._pile_pos

    def _put_on_top(self, card: int) -> int:
        pile, top = self._pile, self._pile_pos
        try:
            where = pile.index(card, top)
        except ValueError:
            raise ValueError(f"card {card} is not on the pile") from None
        swapped = list(pile)
        swapped[top], swapped[where] = card, pile[top]
        self._pile = tuple(swapped)  # a new tuple: copies share the old one
        return where - top

    def _phase(self) -> tuple[int, int, int]:
        return self._laid, self._draws, self._last_drawn

    def _stack_size(self) -> int:
        return len(self._stack)

    def _stack_entry(self, index: int) -> tuple[Move, int, int, int, int]:
        return self._stack[index]

    def _copy_state(self, history: bool) -> Self:
        other = type(self).__new__(type(self))
        other.players = self.players
        other._hands = self._hands.copy()
        other._counts = self._counts.copy()
        other._fit = self._fit
        other._elevens = self._elevens
        other._max_draws = self._max_draws
        other._must_play = self._must_play
        other._ends_after_draw = self._ends_after_draw
        other._to_move = self._to_move
        other._laid = self._laid
        other._draws = self._draws
        other._last_drawn = self._last_drawn
        other._winner = self._winner
        other._legal = self._legal
        if history:
            other._pile = self._pile
            other._pile_pos = self._pile_pos
            other._stack = self._stack.copy()
        else:
            other._pile = self._pile[self._pile_pos :]
            other._pile_pos = 0
            other._stack = []
        return other

    def _load_position(self, turn: int, laid: int, draws: int, last_drawn: int, fit: int) -> None:
        self._to_move = turn
        self._laid = laid
        self._draws = draws
        self._last_drawn = last_drawn
        self._fit = fit
        self._legal = None
        empty = [seat for seat, count in enumerate(self._counts) if count == 0]
        self._winner = empty[0] if empty else -1
