"""The game state: one mutable object with legal moves, ``push`` and ``pop``.

The hot core (hands, table, pile, turn phase, undo) lives in a base class,
``elferraus.core.State``: the compiled core or its pure-Python reference, as
:mod:`elferraus.core` decides. The rest of the game's API is here; the formats
import this module and never the reverse, as ``chess.pgn`` imports ``chess``:
:mod:`elferraus.record` writes and reads the ``elferraus/1`` records. The game
itself uses only what sits below it: :mod:`elferraus.view`,
:mod:`elferraus.explain`, and :mod:`elferraus.position`, the position string,
which it writes in its error messages and ``repr`` and builds itself from in
:func:`read_position`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from elferraus import core
from elferraus.cards import CARDS, ELEVEN, NUMBERS, Card, Color, format_cards, mask_of
from elferraus.core import elevens_mask
from elferraus.deal import shuffled_deal
from elferraus.errors import IllegalMoveError, NotationError
from elferraus.explain import explain_illegal
from elferraus.moves import DRAW, DRAW_CODE, Move
from elferraus.position import PositionData, format_position, parse_position
from elferraus.rules import PRESETS, Rules
from elferraus.view import SeatView, make_view

_Core = core.State
_COLOR_MASK = (1 << NUMBERS) - 1
_LOW_HALF = (1 << (ELEVEN - 1)) - 1  # numbers 1..10 of one colour
_CLASSIC = PRESETS["classic"]
_BITS = tuple(1 << index for index in range(len(CARDS)))


@functools.lru_cache(maxsize=4096)
def _rows_of(fit: int, colors: str) -> tuple[tuple[Color, tuple[int, int]], ...]:
    """The open rows of a table whose fitting cards are ``fit`` (the table is known by them alone)."""
    rows = []
    for c, letter in enumerate(colors):
        bits = (fit >> (c * NUMBERS)) & _COLOR_MASK
        if bits >> (ELEVEN - 1) & 1:
            continue
        below = bits & _LOW_HALF
        above = bits >> ELEVEN
        low = below.bit_length() + 1 if below else 1
        high = above.bit_length() + ELEVEN - 1 if above else NUMBERS
        rows.append((Color(letter), (low, high)))
    return tuple(rows)


def cards_of(mask: int) -> list[Card]:
    """The cards whose bits are set in ``mask``, in index order."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return cards


class Game(_Core):
    """A game of Elfer raus! in progress: the deal, the moves so far, the table.

    Build one with :meth:`deal`, from a deal with ``Game(hands, pile)``, from a
    position string with :func:`elferraus.read_position`, or from a record with
    :func:`elferraus.read_record`.

    >>> game = Game.deal(players=3, seed=1)
    >>> game.turn, game.legal_moves()
    (0, (Move.parse('R11'),))
    >>> game.push(game.legal_moves()[0]); game.turn
    1
    """

    __slots__ = ("_base_laid", "_deal", "_logs", "metadata", "rules")

    def __init__(
        self,
        hands: Sequence[Iterable[Card]],
        pile: Sequence[Card],
        rules: Rules | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """Start a game from a deal: each seat's hand, and the pile (top first).

        Raises:
            NotationError: the deal does not fit the rules (card counts,
                cards outside the deck or twice, no 11 dealt).
        """
        rules = rules or _CLASSIC
        hand_lists = [list(hand) for hand in hands]
        pile_list = list(pile)
        _check_deal(hand_lists, pile_list, rules)
        self._start(rules, [mask_of(hand) for hand in hand_lists], tuple(card.index for card in pile_list))
        self.metadata: dict[str, Any] = dict(metadata or {})

    def _start(self, rules: Rules, hands: list[int], pile: tuple[int, ...], *, keep_deal: bool = True) -> None:
        super().__init__(hands, pile, len(rules.colors), rules.max_draws, rules.must_play, rules.after_draw == "end")
        self.rules = rules
        self._deal: tuple[tuple[int, ...], tuple[int, ...]] | None = (tuple(hands), pile) if keep_deal else None
        self._base_laid: tuple[int, ...] = ()
        self._logs: list[list[str]] | None = None
        """Per seat, its public history so far (built on demand, cut back by pop)."""

    @classmethod
    def deal(cls, players: int = 4, seed: int = 0, rules: Rules | str | None = None) -> Game:
        """Shuffle with ``seed`` and deal a new game (dealing again if no 11 came out).

        Args:
            players: 2 to 6.
            seed: any integer; the same seed always gives the same deal.
            rules: a :class:`Rules` object or a preset name; classic by default.

        Raises:
            NotationError: a player count or hand size the rules cannot deal.

        >>> Game.deal(players=4, seed=1).hand_sizes()
        (15, 15, 15, 15)
        """
        if rules is None:
            rules = _CLASSIC
        elif isinstance(rules, str):
            rules = Rules.preset(rules)
        deck, size, _ = shuffled_deal(players, seed, rules)  # the deal of deal_cards, unsorted: cheaper
        dealt = size * players
        hands = [core.indices_mask(deck[start : start + size]) for start in range(0, dealt, size)]
        game = cls.__new__(cls)
        game._start(rules, hands, tuple(deck[dealt:]))
        game.metadata = {"seed": seed}
        return game

    # -- reading the state -------------------------------------------------

    @property
    def winner(self) -> int | None:
        """The seat that laid its last card, or None while the game runs."""
        winner = self._winner_seat()
        return winner if winner >= 0 else None

    def hand(self, seat: int) -> list[Card]:
        """The cards in ``seat``'s hand, sorted by colour and number."""
        return cards_of(self._hand_mask(seat))

    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds."""
        return tuple(self._hand_count(seat) for seat in range(self.players))

    def pile(self) -> list[Card]:
        """The cards left on the pile, top first (hidden information)."""
        return [CARDS[i] for i in self._pile_indices()]

    def pile_size(self) -> int:
        """How many cards are left on the pile."""
        return self._pile_left()

    def put_on_top(self, card: Card) -> None:
        """Make ``card``, which is on the pile, the next card drawn: it changes places with the top card.

        For a framework that deals each draw as a chance event (OpenSpiel):
        the pile's order is chosen as it is drawn. The game's deal, and so its
        record, changes with it.

        Raises:
            ValueError: ``card`` is not on the pile.

        >>> game = Game.deal(players=2, seed=3)
        >>> card = game.pile()[5]
        >>> game.put_on_top(card); game.pile()[0] == card
        True
        """
        where = self._put_on_top(card.index)
        if where and self._deal is not None:
            hands, pile = self._deal
            top = len(pile) - self._pile_left()
            order = list(pile)
            order[top], order[top + where] = order[top + where], order[top]
            self._deal = (hands, tuple(order))

    def rows(self) -> dict[Color, tuple[int, int]]:
        """The open rows: colour -> (lowest, highest) number laid."""
        return dict(_rows_of(self._fit_mask(), self.rules.colors))

    def fits(self, card: Card) -> bool:
        """True if ``card`` could be laid on the table now (whoever holds it)."""
        return bool(self._fit_mask() >> card.index & 1)

    def fitting_cards(self) -> list[Card]:
        """Every card that fits on the table now."""
        return cards_of(self._fit_mask())

    @property
    def started(self) -> bool:
        """True once the opening 11 is on the table."""
        return self._fit_mask() != elevens_mask(len(self.rules.colors))

    def laid_this_turn(self) -> list[Card]:
        """The cards the player to move has laid in this turn, in order."""
        wanted = self._phase()[0]
        laid: list[int] = []
        index = self._stack_size()
        while index and len(laid) < wanted:
            index -= 1
            move, seat, *_ = self._stack_entry(index)
            if seat != self.turn:
                break
            if move.code >= 0:
                laid.append(move.code)
        missing = wanted - len(laid)
        laid.reverse()
        earlier = list(self._base_laid[len(self._base_laid) - missing :]) if missing else []
        return [CARDS[i] for i in earlier + laid]

    @property
    def draws_this_turn(self) -> int:
        """How many cards the player to move has drawn in this turn."""
        return self._phase()[1]

    @property
    def last_drawn(self) -> Card | None:
        """The card the player to move drew last in this turn (hidden from others)."""
        last = self._phase()[2]
        return CARDS[last] if last >= 0 else None

    def drawn_playable(self) -> Card | None:
        """The card drawn this turn that may still be laid, or None."""
        laid, draws, last = self._phase()
        if draws and not laid and last >= 0 and self._fit_mask() >> last & 1:
            return CARDS[last]
        return None

    def penalties(self) -> list[int]:
        """Per seat, the sum of the numbers on the cards left in hand."""
        return [sum(card.number for card in self.hand(seat)) for seat in range(self.players)]

    def history(self) -> list[tuple[int, Move, Card | None]]:
        """Every move so far: (seat, move, the drawn card for a draw, else None)."""
        entries = []
        for index in range(self._stack_size()):
            move, seat, *_ = self._stack_entry(index)
            entries.append((seat, move, self._drawn_at(index)))
        return entries

    def moved(self, index: int) -> tuple[int, Move]:
        """Move ``index`` of the history (0 is the first): the seat that made it, and the move (a draw
        without its card: see :meth:`history`).

        Raises:
            IndexError: there is no such move.
        """
        if not 0 <= index < self._stack_size():
            raise IndexError(f"move {index} of {self._stack_size()}")
        move, seat, *_ = self._stack_entry(index)
        return seat, move

    def _drawn_at(self, index: int) -> Card | None:
        """The card drawn by move ``index`` of the stack, if it is a draw."""
        if self._stack_entry(index)[0].code != DRAW_CODE:
            return None
        # The move after a draw saved "last drawn" as it was: that very card.
        if index + 1 < self._stack_size():
            return CARDS[self._stack_entry(index + 1)[4]]
        return CARDS[self._phase()[2]]

    def record_moves(self) -> list[str]:
        """Every move so far in record notation: ``"2 R10"``, ``"1 draw Y4"``, ``"0 pass"``."""
        return [_move_text(seat, move, drawn) for seat, move, drawn in self.history()]

    def public_moves(self, seat: int | None) -> tuple[str, ...]:
        """The moves so far as ``seat`` saw them: other seats' draws hide the card (``"3 draw"``); for
        ``None``, as somebody who holds no hand sees them (every draw hidden)."""
        if self._logs is None:
            self._logs = [[] for _ in range(self.players + 1)]
        public = self._logs[self.players]
        size = self._stack_size()
        for index in range(len(public), size):
            move, mover, *_ = self._stack_entry(index)
            public.append(_move_text(mover, move, None))
        if seat is None:
            return tuple(public)
        texts = self._logs[seat]
        for index in range(len(texts), size):
            text = public[index]
            if text.endswith(" draw") and text.startswith(f"{seat} "):
                text = _move_text(seat, DRAW, self._drawn_at(index))  # his own draw: with its card
            texts.append(text)
        return tuple(texts)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: its own hand, the table, counts, public history."""
        return make_view(self, seat)

    # -- moves -------------------------------------------------------------

    def is_legal(self, move: Move) -> bool:
        """True if ``move`` may be pushed now."""
        return move in self.legal_moves()

    def push_text(self, text: str) -> Move:
        """Parse ``text`` (``R12``, ``draw``, ``pass``) and push it.

        Raises:
            NotationError: not a move. IllegalMoveError: not allowed now.
        """
        move = Move.parse(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Take back the last move and return it.

        Raises:
            IndexError: there is no move to take back.
        """
        move = super().pop()
        if self._logs is not None:
            size = self._stack_size()
            for texts in self._logs:
                del texts[size:]
        return move

    def peek(self) -> Move | None:
        """The last move made, or None."""
        size = self._stack_size()
        return self._stack_entry(size - 1)[0] if size else None

    @property
    def move_count(self) -> int:
        """Number of moves made (pushed and not popped)."""
        return self._stack_size()

    def _illegal(self, move: object) -> Exception:
        if not isinstance(move, Move):
            return IllegalMoveError(
                f"{move!r} is not a Move; parse text with Move.parse() or use push_text()",
                reason="not_a_move",
            )
        reason, details, message = explain_illegal(self, move)
        return IllegalMoveError(
            f"illegal move {move} for seat {self.turn}: {message} (position: {format_position(self)})",
            reason=reason,
            details=details,
            explanation=message,
        )

    def copy(self, *, history: bool = True) -> Game:
        """A cheap independent copy. With ``history=False`` the copy cannot
        take back the moves made so far nor write a record (faster for search)."""
        other = self._copy_state(history)
        other.rules = self.rules
        other.metadata = dict(self.metadata)
        other._logs = None
        if history:
            other._deal = self._deal
            other._base_laid = self._base_laid
        else:
            other._deal = None
            other._base_laid = tuple(card.index for card in self.laid_this_turn())
        return other

    @classmethod
    def _from_position(cls, data: PositionData) -> Game:
        """The game at a point of a turn, from a position already checked to fit together.

        Only :func:`read_position` calls this, after :func:`~elferraus.position.parse_position`
        has checked; ``data.fit`` is the mask of the cards that fit the table. The game has no history.
        """
        game = cls.__new__(cls)
        hands = [mask_of(hand) for hand in data.hands]
        game._start(data.rules, hands, tuple(card.index for card in data.pile), keep_deal=False)
        game.metadata = {}
        game._base_laid = tuple(card.index for card in data.laid)
        last = data.last_drawn.index if data.last_drawn is not None else -1
        game._load_position(data.turn, len(data.laid), data.draws, last, data.fit)
        return game

    @property
    def dealt(self) -> tuple[list[list[Card]], list[Card]] | None:
        """The deal this game started from (hands, pile top first), if known."""
        if self._deal is None:
            return None
        hands, pile = self._deal
        return [cards_of(hand) for hand in hands], [CARDS[i] for i in pile]

    def __repr__(self) -> str:
        return f"read_position({format_position(self)!r})"

    def __str__(self) -> str:
        lines = [f"{color.value}: {low}-{high}" for color, (low, high) in self.rows().items()]
        for seat in range(self.players):
            marker = "*" if seat == self.turn and not self.is_over() else " "
            lines.append(f"{marker}{seat}: {format_cards(self.hand(seat))}")
        lines.append(f"pile: {self.pile_size()}")
        return "\n".join(lines)


def read_position(text: str) -> Game:
    """The game at the position ``text`` (as written by :func:`~elferraus.position.format_position`).

    Such a game has no history: it cannot take back earlier moves or be
    written as a record.

    Raises:
        NotationError: the text is not a valid position.

    >>> game = Game.deal(players=3, seed=2)
    >>> game.push(game.legal_moves()[0])
    >>> again = read_position(format_position(game))
    >>> again.legal_moves() == game.legal_moves(), again.move_count
    (True, 0)
    """
    return Game._from_position(parse_position(text))


def _move_text(seat: int, move: Move, drawn: Card | None) -> str:
    if move.code == DRAW_CODE:
        return f"{seat} draw {drawn}" if drawn is not None else f"{seat} draw"
    return f"{seat} {move}"


def _check_deal(hands: list[list[Card]], pile: list[Card], rules: Rules) -> None:
    players = len(hands)
    size = rules.cards_per_player(players)
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            raise NotationError(f"seat {seat + 1} was dealt {len(hand)} cards; {players} players get {size} each")
    seen: set[Card] = set()
    deck = (1 << rules.deck_size) - 1
    for card in [card for hand in hands for card in hand] + pile:
        if not isinstance(card, Card):
            raise NotationError(f"{card!r} is not a Card")
        if not deck >> card.index & 1:
            raise NotationError(f"{card} is not in the {rules.colors} deck")
        if card in seen:
            raise NotationError(f"{card} was dealt twice")
        seen.add(card)
    if len(seen) != rules.deck_size:
        missing = [str(c) for c in CARDS[: rules.deck_size] if c not in seen]
        raise NotationError(f"cards missing from the deal: {' '.join(missing)}")
    elevens = elevens_mask(len(rules.colors))
    if not any(mask_of(hand) & elevens for hand in hands):
        raise NotationError("no 11 was dealt: such a deal is thrown in and dealt again")
