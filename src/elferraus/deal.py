"""Seeded shuffling and dealing, with the redeal rule.

A seed is turned into random sort keys by SHAKE-256 (an extendable-output
hash in the standard library), so that a seed gives the same deal on every
Python version and platform, and shuffling runs at C speed. Records and
tests rely on this: changing it changes every seeded deal.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from elferraus import core
from elferraus.cards import ELEVEN, NUMBERS
from elferraus.rules import Rules


def derive_seed(seed: int, *parts: int) -> int:
    """A new 63-bit seed from ``seed`` and ``parts``, e.g. one per game of a run.

    >>> derive_seed(1, 0) != derive_seed(1, 1)
    True
    """
    text = ":".join(str(number) for number in (seed, *parts))
    digest = hashlib.blake2b(f"elferraus-seed:{text}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def shuffled(size: int, seed: int, attempt: int = 0) -> list[int]:
    """A permutation of ``range(size)`` determined by ``seed`` and ``attempt``.

    >>> sorted(shuffled(10, 3)) == list(range(10))
    True
    """
    return core.key_order(hashlib.shake_256(f"elferraus-deal:{seed}:{attempt}".encode()).digest(8 * size))


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards as dealt: each hand (card indices, sorted) and the pile, top first."""

    hands: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]
    redeals: int
    """How many deals were thrown in because no 11 was dealt."""


def deal_cards(players: int, seed: int, rules: Rules) -> Deal:
    """Shuffle with ``seed`` and deal; deal again while no 11 is in any hand.

    Raises:
        NotationError: a player count or hand size the rules cannot deal.
    """
    deck, size, attempt = shuffled_deal(players, seed, rules)
    dealt_size = size * players
    hands = tuple([tuple(sorted(deck[start : start + size])) for start in range(0, dealt_size, size)])
    return Deal(hands, tuple(deck[dealt_size:]), attempt)


def shuffled_deal(players: int, seed: int, rules: Rules) -> tuple[list[int], int, int]:
    """The deck of :func:`deal_cards` as shuffled: (deck, hand size, redeals).

    Seat ``s`` gets ``deck[s * size : (s + 1) * size]`` (unsorted), the rest is
    the pile, top first. For callers that need no :class:`Deal` (``Game.deal``).

    Raises:
        NotationError: a player count or hand size the rules cannot deal.
    """
    size = rules.cards_per_player(players)
    deck_size = rules.deck_size
    elevens = _ELEVENS[len(rules.colors)]
    dealt_size = size * players
    attempt = 0
    while True:
        deck = shuffled(deck_size, seed, attempt)
        if not elevens.isdisjoint(deck[:dealt_size]):
            return deck, size, attempt
        attempt += 1


_ELEVENS = {colors: frozenset(colour * NUMBERS + ELEVEN - 1 for colour in range(colors)) for colors in range(1, 5)}
