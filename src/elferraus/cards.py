"""Cards, colours and their notation (``R11``).

Internally a card is an index ``0..79``: ``colour_index * 20 + number - 1``.
The public API speaks :class:`Card`, a small frozen value; there is exactly
one ``Card`` object per card, so identity comparison is safe and fast (a card
is pickled and copied as itself).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from elferraus.errors import NotationError

NUMBERS = 20
"""Cards per colour, numbered 1 to 20."""

ELEVEN = 11
"""The number that opens a row."""


class Color(enum.StrEnum):
    """A card colour, written by its letter."""

    RED = "R"
    YELLOW = "Y"
    GREEN = "G"
    BLUE = "B"

    @property
    def order(self) -> int:
        """The colour's place in the full deck order ``RYGB`` (0-3)."""
        return _COLOR_ORDER[self]


ALL_COLORS = "RYGB"
_COLOR_ORDER = {Color(letter): i for i, letter in enumerate(ALL_COLORS)}


@dataclass(frozen=True, slots=True)
class Card:
    """One card: a colour and a number from 1 to 20.

    >>> Card.parse("R11")
    Card.parse('R11')
    >>> str(Card(Color.BLUE, 7))
    'B7'
    """

    color: Color
    number: int
    index: int = field(init=False, repr=False, compare=False)
    """The card's index ``0..79`` (colour-major)."""

    def __post_init__(self) -> None:
        if not isinstance(self.color, Color) or type(self.number) is not int or not 1 <= self.number <= NUMBERS:
            raise NotationError(f"no such card: colour {self.color!r}, number {self.number!r}")
        object.__setattr__(self, "index", self.color.order * NUMBERS + self.number - 1)

    @staticmethod
    def parse(text: str) -> Card:
        """Read a card such as ``R11`` or ``b7`` (colour letter, then number).

        Raises:
            NotationError: the text is not a card.
        """
        card = _BY_TEXT.get(text.strip().upper())
        if card is None:
            raise NotationError(
                f"{text!r} is not a card: write a colour letter R, Y, G or B and a number 1-20, e.g. R11"
            )
        return card

    @staticmethod
    def from_index(index: int) -> Card:
        """The card with index ``0..79``."""
        return CARDS[index]

    def __str__(self) -> str:
        return _TEXTS[self.index]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        """Pickled and copied as itself: the one object of this card (identity stays safe in another process).

        >>> import pickle
        >>> pickle.loads(pickle.dumps(Card.parse("R11"))) is Card.parse("R11")
        True
        """
        return (Card.from_index, (self.index,))


CARDS: tuple[Card, ...] = tuple(
    Card(Color(letter), number) for letter in ALL_COLORS for number in range(1, NUMBERS + 1)
)
"""All 80 cards in index order."""

_TEXTS: tuple[str, ...] = tuple(f"{letter}{number}" for letter in ALL_COLORS for number in range(1, NUMBERS + 1))
"""Each card's text by index (``str`` of a card is read, not formatted)."""

_BY_TEXT = {str(card): card for card in CARDS}


def parse_cards(text: str) -> list[Card]:
    """Read a run of cards written back to back or separated by spaces/commas.

    >>> [str(c) for c in parse_cards("R11 Y3,b20")]
    ['R11', 'Y3', 'B20']

    Raises:
        NotationError: some part is not a card.
    """
    cards: list[Card] = []
    for token in text.replace(",", " ").split():
        cards.extend(_split_run(token))
    return cards


def _split_run(token: str) -> list[Card]:
    cards: list[Card] = []
    position = 0
    upper = token.upper()
    while position < len(upper):
        end = position + 1
        while end < len(upper) and upper[end].isdigit():
            end += 1
        cards.append(Card.parse(upper[position:end]))
        position = end
    return cards


def mask_of(cards: Iterable[Card]) -> int:
    """The bitmask of ``cards`` (bit ``card.index`` set for each).

    >>> mask_of([Card.parse("R1"), Card.parse("R3")])
    5
    """
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def fit_mask_of_rows(rows: Mapping[int, tuple[int, int]], colors: int) -> int:
    """The cards that fit, from open rows given as colour order (0-3) -> (low, high).

    >>> [str(c) for c in CARDS if fit_mask_of_rows({0: (9, 11)}, 2) >> c.index & 1]
    ['R8', 'R12', 'Y11']
    """
    fit = 0
    for c in range(colors):
        base = c * NUMBERS
        row = rows.get(c)
        if row is None:
            fit |= 1 << (base + ELEVEN - 1)
            continue
        low, high = row
        if low > 1:
            fit |= 1 << (base + low - 2)
        if high < NUMBERS:
            fit |= 1 << (base + high)
    return fit


def format_cards(cards: Iterable[Card]) -> str:
    """Write cards back to back, as in a position string: ``R7R14Y3``."""
    return "".join(str(card) for card in cards)
