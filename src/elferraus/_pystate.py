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
from typing import Any, Self

from elferraus.cards import ELEVEN, NUMBERS
from elferraus.moves import DRAW, DRAW_CODE, LAYS, PASS, PASS_CODE, Move

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


def indices_of(mask: int) -> list[int]:
    """The card indices of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class MaskRules:
    """The rules of a move on card masks, written once in Python: the legal moves of the seat to move as codes
    (a card index to lay, ``DRAW_CODE``, ``PASS_CODE``) and what a move does. :class:`PyState` plays games with
    them (and takes moves back); the playouts of ``rollout/`` run on them without undo. ``_core/core.h`` holds
    the same rules in C (``er_legal_codes``, ``er_apply``).
    """

    __slots__ = (
        "counts",
        "draws",
        "elevens",
        "ends_after_draw",
        "fit",
        "hands",
        "laid",
        "last_drawn",
        "max_draws",
        "must_play",
        "pile",
        "pile_pos",
        "players",
        "to_move",
        "winner",
    )

    hands: list[int]
    counts: list[int]
    pile: Sequence[int]
    players: int
    fit: int
    elevens: int
    pile_pos: int
    to_move: int
    laid: int
    draws: int
    last_drawn: int
    winner: int
    max_draws: int
    must_play: bool
    ends_after_draw: bool

    def legal_codes(self, *, starter_opens: bool = False) -> list[int]:
        """The codes of the legal moves of the seat to move, lays lowest first, then ``DRAW_CODE`` or
        ``PASS_CODE`` (empty once the game is over). At the opening: the first 11 of the mover's hand, or with
        ``starter_opens`` the first 11 of any hand (a game's state, where the mover is the one who holds it;
        ``ER_OPEN_STARTER`` in C)."""
        if self.winner >= 0:
            return []
        hand = self.hands[self.to_move]
        if self.laid:
            return [*indices_of(hand & self.fit), PASS_CODE]
        if self.draws:
            last = self.last_drawn
            if self.fit >> last & 1:
                return [last] if self.must_play else [last, PASS_CODE]
            if self.draws < self.max_draws and self.pile_pos < len(self.pile):
                return [DRAW_CODE]
            return [PASS_CODE]
        if self.fit == self.elevens:
            holders = hand
            if starter_opens:
                for other in self.hands:
                    holders |= other
            own = holders & self.elevens
            return [(own & -own).bit_length() - 1] if own else []
        fitting = hand & self.fit
        if self.pile_pos == len(self.pile) or (fitting and self.must_play):
            return indices_of(fitting) or [PASS_CODE]
        if not fitting:
            return [DRAW_CODE]
        return [*indices_of(fitting), DRAW_CODE]

    def apply(self, code: int) -> None:
        """Make the legal move ``code`` for the seat to move (not checked)."""
        seat = self.to_move
        if code >= 0:
            bit = _BITS[code]
            fit = self.fit
            self.hands[seat] ^= bit
            self.fit = (fit ^ bit) | NEWLY_FITTING[code]
            left = self.counts[seat] - 1
            self.counts[seat] = left
            if not left:
                self.winner = seat
                self.laid += 1
            elif fit == self.elevens or (self.draws and not self.laid and self.ends_after_draw):
                # The opening 11, or a drawn card laid: the turn ends by itself.
                self.to_move = (seat + 1) % self.players
                self.draws = 0
                self.last_drawn = -1
            else:
                self.laid += 1
        elif code == DRAW_CODE:
            card = self.pile[self.pile_pos]
            self.pile_pos += 1
            self.hands[seat] |= _BITS[card]
            self.counts[seat] += 1
            self.draws += 1
            self.last_drawn = card
        else:
            self.to_move = (seat + 1) % self.players
            self.laid = self.draws = 0
            self.last_drawn = -1


# Legal-move tuples are shared and cached by their codes: the same combinations recur all the time, and a
# lookup beats building.
_CACHE_LIMIT = 1 << 16
_LEGAL_CACHE: dict[tuple[int, ...], tuple[Move, ...]] = {}
_BY_CODE = (*LAYS, PASS, DRAW)  # the shared move of each code (-1 draw, -2 pass)


def _moves_of(codes: list[int]) -> tuple[Move, ...]:
    key = tuple(codes)
    legal = _LEGAL_CACHE.get(key)
    if legal is None:
        if len(_LEGAL_CACHE) >= _CACHE_LIMIT:
            _LEGAL_CACHE.clear()
        legal = _LEGAL_CACHE[key] = tuple(_BY_CODE[code] for code in codes)
    return legal


class PyState:
    """The mutable core of a game: the rules on masks (:class:`MaskRules`, its ``_rules``) with an undo stack and
    the legal moves as ``Move``s."""

    __slots__ = ("_legal", "_rules", "_stack", "players")

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
        rules = self._rules = MaskRules()
        rules.players = self.players
        rules.hands = list(hands)
        rules.counts = [hand.bit_count() for hand in rules.hands]
        rules.pile = tuple(pile)
        rules.pile_pos = 0
        rules.elevens = elevens_mask(colors)
        rules.fit = rules.elevens
        rules.max_draws = max_draws
        rules.must_play = must_play
        rules.ends_after_draw = ends_after_draw
        rules.laid = 0
        rules.draws = 0
        rules.last_drawn = -1
        rules.winner = -1
        self._stack: list[tuple[Move, int, int, int, int]] = []
        self._legal: tuple[Move, ...] | None = None
        rules.to_move = self._starter()

    # Pickled as the C state pickles (``_core/pickle.c``): (None, slots), the rules' fields under the names
    # "_hands", "_fit", ... beside "players", "_stack" and a subclass's own slots, so that a game pickled by
    # one core loads in the other.
    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        state = object.__getstate__(self)
        assert isinstance(state, tuple)
        slots = dict(state[1])
        rules = slots.pop("_rules")
        slots.update({f"_{name}": getattr(rules, name) for name in MaskRules.__slots__ if name != "players"})
        slots["_legal"] = None
        return None, slots

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        rules = MaskRules()
        for key, value in state[1].items():
            name = key.removeprefix("_")
            if name in MaskRules.__slots__ and key != "players":
                setattr(rules, name, value)
            else:
                setattr(self, key, value)
        rules.players = self.players
        rules.hands = list(rules.hands)
        rules.counts = list(rules.counts)
        rules.pile = tuple(rules.pile)
        self._rules = rules
        self._legal = None

    def _starter(self) -> int:
        """The seat holding the highest-priority 11 (0 if none)."""
        elevens = self._rules.elevens
        while elevens:
            low = elevens & -elevens
            for seat, hand in enumerate(self._rules.hands):
                if hand & low:
                    return seat
            elevens ^= low
        return 0

    @property
    def turn(self) -> int:
        """The seat to move (after the game ended: the winner's seat)."""
        return self._rules.to_move

    def is_over(self) -> bool:
        """True once a player has laid his last card."""
        return self._rules.winner >= 0

    def legal_moves(self) -> tuple[Move, ...]:
        """The moves the player to move may make now (empty once the game is over)."""
        legal = self._legal
        if legal is None:
            codes = self._rules.legal_codes(starter_opens=True)
            if not codes and self._rules.winner < 0:
                codes = [len(LAYS) - 1]  # the opening with no 11 in any hand (not a real deal): as the C state
            legal = self._legal = _moves_of(codes)
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
        rules = self._rules
        self._stack.append((move, rules.to_move, rules.laid, rules.draws, rules.last_drawn))
        rules.apply(move.code)

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
            self._rules.hands[seat] |= _BITS[code]
            self._rules.fit = (self._rules.fit ^ NEWLY_FITTING[code]) | _BITS[code]
            self._rules.counts[seat] += 1
            self._rules.winner = -1
        elif code == DRAW_CODE:
            self._rules.pile_pos -= 1
            self._rules.hands[seat] ^= _BITS[self._rules.pile[self._rules.pile_pos]]
            self._rules.counts[seat] -= 1
        self._rules.to_move = seat
        self._rules.laid = laid
        self._rules.draws = draws
        self._rules.last_drawn = last_drawn
        self._legal = None
        return move

    def _hand_mask(self, seat: int) -> int:
        return self._rules.hands[seat]

    def _hand_count(self, seat: int) -> int:
        return self._rules.counts[seat]

    def _fit_mask(self) -> int:
        return self._rules.fit

    def _winner_seat(self) -> int:
        return self._rules.winner

    def _pile_indices(self) -> tuple[int, ...]:
        return tuple(self._rules.pile[self._rules.pile_pos :])

    def _pile_left(self) -> int:
        return len(self._rules.pile) - self._rules.pile_pos

    def _put_on_top(self, card: int) -> int:
        pile, top = self._rules.pile, self._rules.pile_pos
        try:
            where = pile.index(card, top)
        except ValueError:
            raise ValueError(f"card {card} is not on the pile") from None
        swapped = list(pile)
        swapped[top], swapped[where] = card, pile[top]
        self._rules.pile = tuple(swapped)  # a new tuple: copies share the old one
        return where - top

    def _phase(self) -> tuple[int, int, int]:
        return self._rules.laid, self._rules.draws, self._rules.last_drawn

    def _stack_size(self) -> int:
        return len(self._stack)

    def _stack_entry(self, index: int) -> tuple[Move, int, int, int, int]:
        return self._stack[index]

    def _copy_state(self, history: bool) -> Self:
        other = type(self).__new__(type(self))
        other.players = self.players
        mine, rules = self._rules, MaskRules()
        for name in MaskRules.__slots__:
            setattr(rules, name, getattr(mine, name))
        rules.hands = mine.hands.copy()
        rules.counts = mine.counts.copy()
        if not history:
            rules.pile = tuple(mine.pile[mine.pile_pos :])
            rules.pile_pos = 0
        other._rules = rules
        other._legal = self._legal
        other._stack = self._stack.copy() if history else []
        return other

    def _load_position(self, turn: int, laid: int, draws: int, last_drawn: int, fit: int) -> None:
        self._rules.to_move = turn
        self._rules.laid = laid
        self._rules.draws = draws
        self._rules.last_drawn = last_drawn
        self._rules.fit = fit
        self._legal = None
        empty = [seat for seat, count in enumerate(self._rules.counts) if count == 0]
        self._rules.winner = empty[0] if empty else -1
