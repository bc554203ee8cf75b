"""Moves and their notation: a lay ``R12``, ``draw`` and ``pass``.

There is one :class:`Move` object per possible move, so the legal-move list
holds shared objects and membership tests are identity checks; a move is
pickled and copied as itself.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from elferraus.cards import CARDS, Card
from elferraus.errors import NotationError

DRAW_CODE = -1
PASS_CODE = -2


class MoveKind(enum.Enum):
    """What a move does."""

    LAY = "lay"
    DRAW = "draw"
    PASS = "pass"


_KIND_TEXT = {DRAW_CODE: MoveKind.DRAW.value, PASS_CODE: MoveKind.PASS.value}
"""The text of a move without a card, by code (read, not looked up on the enum, on every ``str``)."""


@dataclass(frozen=True, slots=True)
class Move:
    """One action of the player to move.

    >>> Move.parse("r12")
    Move.parse('R12')
    >>> Move.parse("draw") is DRAW
    True
    """

    kind: MoveKind
    card: Card | None = None
    code: int = field(init=False, repr=False, compare=False)
    """The card index for a lay, :data:`DRAW_CODE` or :data:`PASS_CODE` otherwise."""

    def __post_init__(self) -> None:
        if (self.kind is MoveKind.LAY) != (self.card is not None):
            raise NotationError(f"a {self.kind.value} move {'needs' if self.card is None else 'takes no'} card")
        code = self.card.index if self.card is not None else (DRAW_CODE if self.kind is MoveKind.DRAW else PASS_CODE)
        object.__setattr__(self, "code", code)

    @staticmethod
    def lay(card: Card | str) -> Move:
        """The move that lays ``card``."""
        if isinstance(card, str):
            card = Card.parse(card)
        return LAYS[card.index]

    @staticmethod
    def parse(text: str) -> Move:
        """Read ``R12``, ``draw`` or ``pass`` (any case).

        Raises:
            NotationError: the text is not a move.
        """
        word = text.strip().lower()
        if word == "draw":
            return DRAW
        if word == "pass":
            return PASS
        try:
            return LAYS[Card.parse(word).index]
        except NotationError:
            raise NotationError(f"{text!r} is not a move: write a card to lay (e.g. R12), 'draw' or 'pass'") from None

    @property
    def is_lay(self) -> bool:
        """True for a lay."""
        return self.kind is MoveKind.LAY

    def __str__(self) -> str:
        return str(self.card) if self.card is not None else _KIND_TEXT[self.code]

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        """Pickled and copied as itself: the one object of this move (a view's legal moves stay the shared
        objects in another process, where identity checks read them).

        >>> import pickle
        >>> pickle.loads(pickle.dumps(DRAW)) is DRAW
        True
        """
        return (_of_code, (self.code,))


def _of_code(code: int) -> Move:
    """The move with this code (:attr:`Move.code`)."""
    return DRAW if code == DRAW_CODE else PASS if code == PASS_CODE else LAYS[code]


LAYS: tuple[Move, ...] = tuple(Move(MoveKind.LAY, card) for card in CARDS)
"""The lay of each card, by card index."""
DRAW = Move(MoveKind.DRAW)
"""Draw the top card of the pile."""
PASS = Move(MoveKind.PASS)
"""End the turn."""
